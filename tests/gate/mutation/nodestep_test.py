"""The JavaScript mutants of a gate run, on real git repositories running real `node --test` in the claim's
copy: decided in the check's own processes for CommonJS code (a class, a function, an import destructured
at the top of a test file, tests in a suite with a beforeEach, a slow test), a mutant that hangs killed
there by its time, and run in processes of their own, as before, where the check's processes cannot
decide: tests that cannot run twice, an ES module, a run that never yields. Each time the check's own
outcome is untouched, tests that compare what the module hands out with what it keeps included."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from testing.gitrepo import commit_all, repo_fixture, write
from testing.jsgrade import GRADE, GRADE_MODULE, WEAK
from testing.nodegate import BASE_FILES, NodeGate, fates

from tiergate.gate.mutation import nodereports, nodestep, step
from tiergate.gate.ruling import GateResult

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

repo = repo_fixture(BASE_FILES)


@pytest.fixture(name="gate")
def gate_fixture(monkeypatch: pytest.MonkeyPatch) -> NodeGate:
    return NodeGate(monkeypatch)


def decided_reads(monkeypatch: pytest.MonkeyPatch) -> list[nodereports.Decided]:
    """What the gate will read of the check's processes' reports, as it reads it."""
    seen: list[nodereports.Decided] = []
    read = nodereports.read

    def noted(*args: Any) -> nodereports.Decided:
        seen.append(read(*args))
        return seen[-1]

    monkeypatch.setattr(nodereports, "read", noted)
    return seen


def outcomes(result: GateResult) -> dict[str, str]:
    [verdict] = result.verdicts
    assert verdict.result.tests is not None
    return dict(verdict.result.tests.outcomes)


SHAPES = """\
class Stack {
  constructor() {
    this.items = [];
  }
  push(item) {
    this.items.push(item);
    return this.items.length;
  }
  peek() {
    return this.items[this.items.length - 1];
  }
}

function total(values) {
  if (values.length > 100) throw new Error('too many');
  let sum = 0;
  for (const value of values) sum += value;
  return sum;
}

module.exports = { Stack, total };
"""
SHAPES_TESTS = """\
const { describe, it, beforeEach, test } = require('node:test');
const assert = require('node:assert');
const { Stack, total } = require('../lib/shapes.js');

describe('Stack', () => {
  let stack;
  beforeEach(() => {
    stack = new Stack();
  });
  it('pushes', () => {
    assert.strictEqual(stack.push('a'), 1);
    assert.strictEqual(stack.push('b'), 2);
  });
  it('peeks', () => {
    stack.push('a');
    stack.push('b');
    assert.strictEqual(stack.peek(), 'b');
    assert.ok(stack instanceof Stack);
  });
});

test('total', () => {
  assert.strictEqual(total([1, 2, 3]), 6);
});
"""


def test_commonjs_mutants_are_decided_in_the_checks_own_processes(repo: Path, gate: NodeGate) -> None:
    write(repo, {"lib/shapes.js": SHAPES, "test/shapes.test.js": SHAPES_TESTS})

    result, run = gate(repo)

    found = fates(run)
    # Each killed by a test, named by its file and its suite, in the test file's own process: the import
    # destructured at the top of the file reached the mutants all the same.
    assert found[(7, "undefined")] == ("killed", "test/shapes.test.js > Stack > pushes")
    fate, by = found[(10, "+")]
    assert fate == "killed" and by.startswith("test/shapes.test.js > Stack > ")
    assert found[(17, "-=")] == ("killed", "test/shapes.test.js > total")
    # No test holds 100 values: the boundary survives, its line run.
    assert found[(15, ">=")] == ("survived", "")
    assert run.of("killed") and not run.of("not_run") and run.void == "" and run.incomplete == ""
    assert gate.own_process == []
    assert outcomes(result) == {
        "test/base.test.js > nothing": "passed",
        "test/shapes.test.js > Stack > pushes": "passed",
        "test/shapes.test.js > Stack > peeks": "passed",
        "test/shapes.test.js > total": "passed",
    }


# A test that passes only the first time it runs in its process: run again, it fails whatever the code
# (its count is kept on `process`, which outlives its file's loads and the globals' clearing).
ONCE = """\
const test = require('node:test');
const assert = require('node:assert');
const { grade } = require('../calc.js');

test('grade, once', () => {
  process.gradeRuns = (process.gradeRuns || 0) + 1;
  assert.strictEqual(process.gradeRuns, 1);
  assert.strictEqual(grade(80), 'pass');
  assert.strictEqual(grade(10), 'fail');
});
"""


def test_tests_that_cannot_run_twice_leave_their_mutants_to_processes_of_their_own(
    repo: Path, gate: NodeGate
) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": ONCE})

    result, run = gate(repo)

    found = fates(run)
    # The test fails on a copy of calc.js that behaves the same when it runs again: none of its failures
    # counts there, and every covered mutant runs in a process of its own, killed by the test file.
    assert found[(2, "(!(score >= 50))")] == ("killed", "test/grade.test.js")
    assert found[(3, "undefined")] == ("killed", "test/grade.test.js")
    assert found[(2, ">")] == ("survived", "")
    assert run.void == "" and run.incomplete == ""
    assert {tests for _, tests in gate.own_process} == {("test/grade.test.js",)}
    ran_apart = {described for described, _ in gate.own_process}
    assert all(t.mutant.describe() in ran_apart for t in run.tried if t.fate != "uncovered")
    assert outcomes(result)["test/grade.test.js > grade, once"] == "passed"


# Two tests of one name: only the second tells `>=` from `>`.
SAME_NAMES = """\
const test = require('node:test');
const assert = require('node:assert');
const { grade } = require('../calc.js');

test('grade', () => {
  assert.strictEqual(grade(80), 'pass');
});

test('grade', () => {
  assert.strictEqual(grade(50), 'pass');
  assert.strictEqual(grade(10), 'fail');
});
"""


def test_tests_of_one_name_are_told_apart_by_their_place(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": SAME_NAMES})

    _, run = gate(repo)

    # Each runs again as itself, in the check's own process: none is left to a process of its own.
    found = fates(run)
    assert found[(2, ">")] == ("killed", "test/grade.test.js > grade")
    assert found[(2, "(!(score >= 50))")] == ("killed", "test/grade.test.js > grade")
    assert run.incomplete == "" and run.void == "" and gate.own_process == []


TERNARY = "function points(score) {\n  return score >= 50 ? 2 : 7;\n}\n"
ONLY_PASS = """\
const test = require('node:test');
const assert = require('node:assert');
const { points } = require('../calc.js');

test('points', () => {
  assert.strictEqual(points(80), 2);
});
"""


def test_a_place_the_tests_own_run_never_reached_survives_without_a_run(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": TERNARY + "\nmodule.exports = { points };\n", "test/points.test.js": ONLY_PASS})

    _, run = gate(repo)

    # Its line ran, its `7` never did: the test file's process says so from its own run's coverage, and
    # nothing runs in a process of its own.
    found = fates(run)
    assert found[(2, "8")] == ("survived", "")
    assert found[(2, "3")] == ("killed", "test/points.test.js > points")
    assert run.incomplete == "" and gate.own_process == []


# A test that takes a quarter of a second: its runs again get ten times that (in whole milliseconds).
SLOW = """\
const test = require('node:test');
const assert = require('node:assert');
const { grade } = require('../calc.js');

test('grade, slowly', async () => {
  await new Promise((resolve) => setTimeout(resolve, 250));
  assert.strictEqual(grade(80), 'pass');
  assert.strictEqual(grade(10), 'fail');
});
"""


def test_a_slow_test_runs_again_in_the_checks_process(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": SLOW})

    _, run = gate(repo)

    found = fates(run)
    assert found[(2, "(!(score >= 50))")] == ("killed", "test/grade.test.js > grade, slowly")
    assert found[(2, ">")] == ("survived", "")
    assert gate.own_process == []


# The tests compare a function the module hands out with the one it keeps, and clone its settings: a
# stand-in for either would fail them. The check's own run sees the modules as they are.
HANDLERS = """\
const settings = { passMark: 50 };

function pass() {
  return 'pass';
}

function handlerFor(score) {
  return score >= settings.passMark ? pass : null;
}

module.exports = { pass, handlerFor, settings };
"""
HANDLERS_TESTS = """\
const test = require('node:test');
const assert = require('node:assert');
const { pass, handlerFor, settings } = require('../handlers.js');

test('the same function', () => {
  assert.strictEqual(handlerFor(80), pass);
  assert.strictEqual(handlerFor(10), null);
});

test('settings clone', () => {
  assert.deepStrictEqual(structuredClone(require('../handlers.js').settings), { passMark: 50 });
  assert.strictEqual(settings.passMark, 50);
});
"""


def test_the_checks_own_run_sees_the_modules_as_they_are(repo: Path, gate: NodeGate) -> None:
    write(repo, {"handlers.js": HANDLERS, "test/handlers.test.js": HANDLERS_TESTS})

    result, run = gate(repo)

    # Both tests passed in the check's run (a Proxy there would have failed them): the gate's fixture
    # checks the check passed. Run again for the mutants, the first fails whatever the code (its `pass` is
    # the stand-in): it is set aside and what it leaves runs in processes of its own.
    assert outcomes(result)["test/handlers.test.js > the same function"] == "passed"
    assert outcomes(result)["test/handlers.test.js > settings clone"] == "passed"
    found = fates(run)
    assert found[(1, "51")] == ("killed", "test/handlers.test.js > settings clone")
    assert found[(8, "undefined")] == ("killed", "test/handlers.test.js")
    assert found[(8, ">")] == ("survived", "")


# A test that writes a report of its own where the preload's go, every mutant killed: without the plan's
# key, which the preload took out of the environment before the test ran, it decides nothing.
FORGER = """\
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const { grade } = require('../calc.js');

test('grade, and a report of its own', () => {
  assert.strictEqual(grade(80), 'pass');
  assert.strictEqual(grade(10), 'fail');
  const plan = JSON.parse(fs.readFileSync(process.env.TIERGATE_NODE_MUTANTS, 'utf8'));
  const fates = Object.fromEntries(plan.mutants.map((m) => [m.id, ['killed', 'a test']]));
  const report = { test_file: __filename, fates, key: process.env.TIERGATE_NODE_MUTANTS_KEY || 'a guess' };
  fs.writeFileSync(path.join(plan.out, 'node-1-1.json'), JSON.stringify(report));
});
"""


def test_a_report_the_tests_write_decides_nothing(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": FORGER})

    _, run = gate(repo)

    assert fates(run)[(2, ">")] == ("survived", "")
    assert fates(run)[(3, "undefined")] == ("killed", "test/grade.test.js > grade, and a report of its own")


# The preload's parts hold the key: a test file that looks for it among the modules loaded finds none.
CACHE_FORGER = """\
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const { grade } = require('../calc.js');

function keyIn(module, seen) {
  if (!module || seen.has(module)) return undefined;
  seen.add(module);
  const state = module.exports && module.exports.state;
  if (state && state.key) return state.key;
  return (module.children || []).map((child) => keyIn(child, seen)).find(Boolean);
}

test('grade, and a report of its own', () => {
  assert.strictEqual(grade(80), 'pass');
  assert.strictEqual(grade(10), 'fail');
  const seen = new Set();
  const key = Object.values(require.cache).map((module) => keyIn(module, seen)).find(Boolean);
  const plan = JSON.parse(fs.readFileSync(process.env.TIERGATE_NODE_MUTANTS, 'utf8'));
  const fates = Object.fromEntries(plan.mutants.map((m) => [m.id, ['killed', 'a test']]));
  const report = { test_file: __filename, fates, key: key || 'a guess' };
  fs.writeFileSync(path.join(plan.out, 'node-1-1.json'), JSON.stringify(report));
});
"""


def test_the_preloads_parts_are_out_of_the_tests_reach(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": CACHE_FORGER})

    _, run = gate(repo)

    assert fates(run)[(2, ">")] == ("survived", "")


GRADE_ESM = "export " + GRADE
ESM_TESTS = """\
import test from 'node:test';
import assert from 'node:assert';
import { grade } from '../calc.mjs';

test('grade', () => {
  assert.strictEqual(grade(80), 'pass');
  assert.strictEqual(grade(10), 'fail');
});
"""


def test_an_es_module_falls_back_to_a_process_a_mutant(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.mjs": GRADE_ESM, "test/grade.test.mjs": ESM_TESTS})

    _, run = gate(repo)

    found = fates(run)
    assert found[(2, "(!(score >= 50))")] == ("killed", "test/grade.test.mjs")
    assert found[(2, ">")] == ("survived", "")
    assert gate.own_process and all(tests == ("test/grade.test.mjs",) for _, tests in gate.own_process)


# Every line runs and no test reads what it gives: each mutant survives.
UNCHECKED = """\
function steps(a) {
  const b = a + 1;
  const c = b * 2;
  const d = c - 3;
  const e = d % 7;
  return e > 0;
}
"""
UNCHECKED_TESTS = "const test = require('node:test');\nconst { steps } = require('../steps.js');\n\n" + (
    "test('runs', () => {\n  steps(5);\n});\n"
)


def test_once_a_mutant_survived_the_rest_are_not_needed(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = NodeGate(monkeypatch, capped=True)
    write(
        repo,
        {"steps.js": UNCHECKED + "\nmodule.exports = { steps };\n", "test/steps.test.js": UNCHECKED_TESTS},
    )

    _, run = gate(repo)

    # The test file's process had a quarter of its tests' time more after the first survivor (a fraction
    # of a millisecond here), and the gate ran none of what it left: the change is not LIGHT already.
    survived, not_needed = run.of("survived"), run.of("not_run")
    assert survived and len(survived) + len(not_needed) == len(run.tried) > 8
    assert len(not_needed) >= len(run.tried) - 3
    assert {t.by for t in not_needed} == {step.NOT_NEEDED}
    assert run.incomplete == "" and gate.own_process == []


def test_in_processes_of_their_own_the_rest_are_not_needed_after_a_survivor(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = NodeGate(monkeypatch, capped=True)
    tests = UNCHECKED_TESTS.replace("const test = require('node:test');", "import test from 'node:test';")
    tests = tests.replace(
        "const { steps } = require('../steps.js');", "import { steps } from '../steps.mjs';"
    )
    write(repo, {"steps.mjs": "export " + UNCHECKED, "test/steps.test.mjs": tests})

    _, run = gate(repo)

    # An ES module: nothing decided in the check's process. Run a process a mutant, the rest get a
    # quarter of the check's time after the first survivor, less than a process of their own takes.
    survived, not_needed = run.of("survived"), run.of("not_run")
    assert survived and len(survived) + len(not_needed) == len(run.tried) > 8
    assert {t.by for t in not_needed} == {step.NOT_NEEDED}
    assert len(gate.own_process) <= 3 and run.incomplete == ""


def test_only_a_mutant_every_test_file_running_its_line_let_live_is_a_survivor() -> None:
    # Test file a.test.js let mutant 0 live; mutant 1 ran in no test file; b.test.js ran mutant 2's line.
    decided = nodereports.Decided((("a.test.js", {"0": ("survived", ""), "2": ("survived", "")}),))

    assert nodestep.survivor_in(decided, [("a.test.js",), (), ()])
    assert not nodestep.survivor_in(decided, [(), ("a.test.js", "b.test.js"), ("a.test.js", "b.test.js")])


def test_a_mutant_killed_in_one_test_file_is_not_run_again_in_the_next(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = NodeGate(monkeypatch, command="node --test --test-concurrency=1")
    module = GRADE_MODULE
    write(repo, {"calc.js": module, "test/a.test.js": WEAK, "test/b.test.js": WEAK})
    seen = decided_reads(monkeypatch)

    _, run = gate(repo)

    # a.test.js ran first and killed most of line 2's mutants; b.test.js left those to it (a ledger in the
    # plan's folder) and ran first what a.test.js let live: once one lived there too, the rest were not
    # needed (a.test.js had named the cheap survivors in its share).
    [decided] = seen
    by_file = dict(decided.processes)
    first, second = by_file["test/a.test.js"], by_file["test/b.test.js"]
    killed = {key for key, (fate, _) in first.items() if fate == "killed"}
    left = ("undecided", "killed in another test file's process")
    assert killed and all(second[key] == left for key in killed)
    lived = {key for key, (fate, _) in first.items() if fate == "survived"}
    confirmed = {key for key in lived if second[key] == ("survived", "")}
    assert len(confirmed) == 1 and all(second[k] == ("undecided", step.NOT_NEEDED) for k in lived - confirmed)
    # A survivor of both is the gate's; the other is not run: the change is not LIGHT already.
    assert found_survivors(run) in ({(2, ">")}, {(2, "51")}) and len(run.of("not_run")) == 1
    assert run.incomplete == "" and gate.own_process == []


def found_survivors(run: Any) -> set[tuple[int, str]]:
    return {(t.mutant.line, t.mutant.replacement) for t in run.of("survived")}


def test_the_processes_survivors_are_run_first_in_processes_of_their_own() -> None:
    decided = nodereports.Decided(
        (
            ("a.test.js", {"0": ("killed", "a"), "1": ("survived", ""), "2": ("undecided", "x")}),
            ("b.test.js", {"0": ("survived", ""), "1": ("undecided", step.NOT_NEEDED)}),
        )
    )

    assert [decided.survived_somewhere(key) for key in "0123"] == [False, True, False, False]


LOOPS = "function count(n) {\n  let i = 0;\n  while (i < n) {\n    i += 1;\n  }\n  return i;\n}\n"
LOOPS_TESTS = """\
const test = require('node:test');
const assert = require('node:assert');
const { count } = require('../loops.js');

test('count', () => {
  assert.strictEqual(count(3), 3);
});
"""


def test_a_mutant_that_hangs_dies_by_its_time_in_the_checks_process(repo: Path, gate: NodeGate) -> None:
    write(repo, {"loops.js": LOOPS + "\nmodule.exports = { count };\n", "test/loops.test.js": LOOPS_TESTS})

    result, run = gate(repo)

    # `i -= 1` never ends: stopped after its 2 s, killed there, and the check passed all the same.
    assert fates(run)[(4, "-=")] == ("killed", "test/loops.test.js > count")
    assert gate.own_process == [] and not result.refuted
    assert outcomes(result)["test/loops.test.js > count"] == "passed"


DRAIN_BASE = (
    "async function drain(queue) {\n  while (queue.length !== 0) {\n    queue.pop();\n    await null;\n"
    "  }\n  return queue.length;\n}\n\nmodule.exports = { drain };\n"
)
DRAIN_TESTS = """\
const test = require('node:test');
const assert = require('node:assert');
const { drain } = require('../drain.js');

test('drain', async () => {
  assert.strictEqual(await drain([1, 2]), 0);
});
"""


@pytest.mark.long
def test_a_mutant_whose_promises_never_yield_ends_the_process_as_its_tests_did(
    tmp_path: Path, gate: NodeGate
) -> None:
    from testing.gitrepo import init_repo

    repo = init_repo(tmp_path / "repo", {"drain.js": DRAIN_BASE, "test/drain.test.js": DRAIN_TESTS})
    write(repo, {"drain.js": DRAIN_BASE.replace("queue.length !== 0", "queue.length > 0")})

    result, run = gate(repo)

    found = fates(run)
    # `>=` loops through promises alone: no timer in the process fires again. The watchdog thread ends the
    # process once its time is past, exit code 0 as its tests left it; the mutant then dies in a process of
    # its own by its time.
    assert found[(2, ">=")] == ("killed", "test/drain.test.js")
    assert any("`>=`" in described for described, _ in gate.own_process)
    assert all(t.fate == "killed" for t in run.tried) and run.incomplete == ""
    assert outcomes(result)["test/drain.test.js > drain"] == "passed" and not result.refuted


# A test that passes its first run (the tests' own) and its third, and fails every other: it passes a
# line's copy that behaves the same when that runs right after its first kill, and fails it when it runs
# first. Where the copy runs is drawn anew in each process. (Its count is kept on `process`: one kept on
# globalThis is taken away before each run again.)
COUNTS_RUNS = """\
const test = require('node:test');
const assert = require('node:assert');
const { grade } = require('../calc.js');

test('grade', () => {
  const runs = (process.gradeRuns = (process.gradeRuns || 0) + 1);
  assert.strictEqual(grade(80), 'pass');
  assert.ok(runs === 1 || runs === 3, 'warm-up');
});
"""


@pytest.mark.long
def test_where_a_lines_copy_runs_is_drawn_in_each_process(
    tmp_path: Path, gate: NodeGate, monkeypatch: pytest.MonkeyPatch
) -> None:
    from testing.gitrepo import init_repo

    module = GRADE_MODULE
    repo = init_repo(tmp_path / "repo", {"calc.js": module.replace("50", "40")})
    files = {f"test/grade{n}.test.js": COUNTS_RUNS for n in range(12)}
    write(repo, {"calc.js": module, **files})
    seen = decided_reads(monkeypatch)

    gate(repo)

    # Only line 2 changed: in each process its mutants are all "killed" (the copy ran third) or none is
    # (the copy ran second, failed, and the test was set aside). Twelve processes all alike: 1 in 2048.
    [decided] = seen
    killed = [sum(fate == "killed" for fate, _ in fates.values()) for _, fates in decided.processes]
    assert len(killed) == 12 and min(killed) == 0 and max(killed) == len(decided.processes[0][1])


# The tests' own run leaves state behind: a snapshot file, a helper module's memo, a memo at the top of
# the test file, one on globalThis. Each run again starts without it: the boundary's mutants survive, as
# they would in a fresh process. The helper is a changed file: its original is loaded anew too.
MEMO_HELPER = "const { grade } = require('../calc.js');\n\nmodule.exports = new Map([['top', grade(100)]]);\n"
REMEMBERS = """\
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const seen = require('../helpers/seen.js');
const { grade } = require('../calc.js');
const mine = new Map();

test('grade', () => {
  assert.strictEqual(grade(80), 'pass');
  assert.strictEqual(grade(10), 'fail');
});

test('grade as before', () => {
  const answers = Array.from({ length: 101 }, (_, score) => grade(score));
  const file = path.join(__dirname, 'grade.snapshot.json');
  if (!fs.existsSync(file)) fs.writeFileSync(file, JSON.stringify(answers));
  assert.deepStrictEqual(answers, JSON.parse(fs.readFileSync(file, 'utf8')));
  globalThis.gradeSeen = globalThis.gradeSeen || new Map();
  for (const memo of [seen, mine, globalThis.gradeSeen]) {
    if (memo.has('answers')) assert.deepStrictEqual(answers, memo.get('answers'));
    else memo.set('answers', answers);
  }
});
"""


def test_what_the_tests_own_run_kept_judges_no_mutant(repo: Path, gate: NodeGate) -> None:
    module = GRADE_MODULE
    write(repo, {"calc.js": module, "test/grade.test.js": REMEMBERS, "helpers/seen.js": MEMO_HELPER})

    _, run = gate(repo)

    found = fates(run)
    assert found[(2, ">")] == ("survived", "")
    assert found[(2, "(!(score >= 50))")] == ("killed", "test/grade.test.js > grade")
    # The helper is changed code too, and exports a Map, which no dispatcher stands in for: its own
    # mutants run in processes of their own.
    assert all("helpers/seen.js" in described for described, _ in gate.own_process)


# Answers a test records into a file the repository ships (`{}`), then compares with on later runs; a
# folder made as a marker, its name the answers'; a file the repository ships, deleted by the test that
# reads it. Each run again finds the files as the tests' process first found them.
RECORDS = """\
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const { grade } = require('../calc.js');

test('grade', () => {
  assert.strictEqual(grade(80), 'pass');
  assert.strictEqual(grade(10), 'fail');
});

test('grade as recorded', () => {
  const file = path.join(__dirname, 'answers.json');
  const recorded = JSON.parse(fs.readFileSync(file, 'utf8'));
  const answers = Array.from({ length: 101 }, (_, score) => grade(score));
  if (recorded.answers) assert.deepStrictEqual(answers, recorded.answers);
  else fs.writeFileSync(file, JSON.stringify({ answers }));
});
"""
MARKS = """\
const test = require('node:test');
const assert = require('node:assert');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { grade } = require('../calc.js');

test('grade', () => {
  assert.strictEqual(grade(80), 'pass');
  assert.strictEqual(grade(10), 'fail');
});

test('grade as first seen', () => {
  const answers = Array.from({ length: 101 }, (_, score) => grade(score)).join();
  const name = `seen-${crypto.createHash('sha1').update(answers).digest('hex')}`;
  const marks = fs.readdirSync(__dirname).filter((entry) => entry.startsWith('seen-'));
  if (marks.length > 0) assert.deepStrictEqual(marks, [name]);
  else fs.mkdirSync(path.join(__dirname, name, 'inner'), { recursive: true });
});
"""
TAKES = """\
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const { grade } = require('../calc.js');

test('grade with its fixture', () => {
  const file = path.join(__dirname, 'fixture.txt');
  assert.strictEqual(fs.readFileSync(file, 'utf8'), 'ready\\n');
  fs.unlinkSync(file);
  assert.strictEqual(grade(50), 'pass');
  assert.strictEqual(grade(49), 'fail');
});
"""


def test_answers_recorded_into_a_file_the_repository_ships_judge_no_mutant(
    repo: Path, gate: NodeGate
) -> None:
    write(repo, {"test/answers.json": "{}\n"})
    commit_all(repo, "answers")
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": RECORDS})

    _, run = gate(repo)

    found = fates(run)
    assert found[(2, ">")] == ("survived", "")
    assert found[(2, "(!(score >= 50))")] == ("killed", "test/grade.test.js > grade")
    assert gate.own_process == []


def test_a_folder_made_as_a_marker_is_taken_away_between_runs(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": MARKS})

    _, run = gate(repo)

    found = fates(run)
    assert found[(2, ">")] == ("survived", "")
    assert found[(2, "(!(score >= 50))")] == ("killed", "test/grade.test.js > grade")
    assert gate.own_process == []


def test_a_file_the_first_run_deleted_is_back_for_the_runs_again(repo: Path, gate: NodeGate) -> None:
    write(repo, {"test/fixture.txt": "ready\n"})
    commit_all(repo, "fixture")
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": TAKES})

    _, run = gate(repo)

    # Each run again reads the fixture as the first did: its kills count, in the check's own process.
    found = fates(run)
    assert found[(2, ">")] == ("killed", "test/grade.test.js > grade with its fixture")
    assert found[(2, "(!(score >= 50))")] == ("killed", "test/grade.test.js > grade with its fixture")
    assert gate.own_process == []


# Answers recorded by moving a folder the repository ships to a name of the answers', and by a stream
# appending them to a file it ships: each run again finds the folder and the file as they were.
MOVES = """\
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const { grade } = require('../calc.js');

test('grade', () => {
  assert.strictEqual(grade(80), 'pass');
  assert.strictEqual(grade(10), 'fail');
});

test('grade as moved', () => {
  const answers = Array.from({ length: 101 }, (_, score) => grade(score)[0]).join('');
  const data = path.join(__dirname, 'data');
  if (fs.existsSync(data)) fs.renameSync(data, `${data}-${answers}`);
  else assert.ok(fs.existsSync(`${data}-${answers}`));
});

test('grade as logged', async () => {
  const answers = Array.from({ length: 101 }, (_, score) => grade(score)[0]).join('');
  const log = path.join(__dirname, 'log.txt');
  const lines = fs.readFileSync(log, 'utf8').split('\\n');
  if (lines.length > 2) return assert.strictEqual(lines[1], answers);
  await new Promise((resolve) => fs.createWriteStream(log, { flags: 'a' }).end(`${answers}\\n`, resolve));
});
"""


def test_answers_recorded_by_a_move_or_a_stream_judge_no_mutant(repo: Path, gate: NodeGate) -> None:
    write(repo, {"test/data/kept.txt": "kept\n", "test/log.txt": "start\n"})
    commit_all(repo, "data")
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": MOVES})

    _, run = gate(repo)

    found = fates(run)
    assert found[(2, ">")] == ("survived", "")
    assert found[(2, "(!(score >= 50))")] == ("killed", "test/grade.test.js > grade")
    assert gate.own_process == []


# A file the tests change that is too big to keep in memory: the process's mutants are left to processes
# of their own, each starting from the file as it was.
WRITES_BIG = """\
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const { grade } = require('../calc.js');

test('grade', () => {
  fs.writeFileSync(path.join(__dirname, 'big.bin'), 'small now');
  assert.strictEqual(grade(80), 'pass');
  assert.strictEqual(grade(10), 'fail');
});
"""


def test_a_file_too_big_to_keep_leaves_the_mutants_undecided(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": WRITES_BIG})
    with (repo / "test" / "big.bin").open("wb") as big:
        big.truncate(65 * 1024 * 1024)

    _, run = gate(repo)

    # Its own processes cannot put the file back either (the gate keeps 64 MB of the copy at most): the
    # mutant is not run, and the step says why, which keeps the claim off LIGHT.
    assert fates(run)[(2, "(!(score >= 50))")] == (
        "not_run",
        "a run changed test/big.bin, too big to put back before the next",
    )
    assert "too big to put back" in run.incomplete


# Answers computed with the code by a `before` hook and at the top of the test file, checked by tests that
# do not call the code themselves: each run again computes them anew, the mutant in.
COMPUTES_FIRST = """\
const { describe, it, before } = require('node:test');
const assert = require('node:assert');
const { grade } = require('../calc.js');

const top = grade(50);

describe('grade', () => {
  let edge;
  before(() => {
    edge = grade(49);
  });

  it('passes high scores', () => {
    assert.strictEqual(grade(80), 'pass');
  });

  it('has its boundary at 50', () => {
    assert.deepStrictEqual([edge, top], ['fail', 'pass']);
  });
});
"""


def test_answers_computed_before_the_tests_see_the_mutant(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": COMPUTES_FIRST})

    _, run = gate(repo)

    found = fates(run)
    assert found[(2, ">")] == ("killed", "test/grade.test.js > grade > has its boundary at 50")
    assert found[(2, "51")] == ("killed", "test/grade.test.js > grade > has its boundary at 50")
    assert gate.own_process == []


# `t.plan`: two assertions and a subtest, the subtest's own plan of its own; and a plan that counts one
# assertion more when grade(50) fails, the only check of the boundary.
PLANS = """\
const test = require('node:test');
const { grade } = require('../calc.js');

test('grade', (t) => {
  t.plan(3);
  t.assert.strictEqual(grade(80), 'pass');
  t.assert.strictEqual(grade(10), 'fail');
  t.test('low', (u) => {
    u.plan(1);
    u.assert.strictEqual(grade(0), 'fail');
  });
});

test('the boundary, by the plan', (t) => {
  t.plan(1);
  t.assert.ok(true);
  if (grade(50) !== 'pass') t.assert.ok(true);
});
"""


def test_a_tests_plan_is_kept_in_its_runs_again(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": PLANS})

    _, run = gate(repo)

    found = fates(run)
    assert found[(2, ">")] == ("killed", "test/grade.test.js > the boundary, by the plan")
    assert found[(2, "(!(score >= 50))")][0] == "killed"
    assert found[(3, "undefined")][0] == "killed"
    assert gate.own_process == []


PAUSES = """\
const { execFileSync } = require('node:child_process');

function pause(ms) {
  execFileSync('sleep', [String(ms / 1000)]);
}

module.exports = { pause };
"""
PAUSES_TESTS = """\
const test = require('node:test');
const assert = require('node:assert');
const { pause } = require('../pause.js');

test('pause', () => {
  const started = Date.now();
  pause(200);
  assert.ok(Date.now() - started >= 200);
});
"""


@pytest.mark.long
def test_a_mutant_blocked_in_a_child_process_ends_the_process(repo: Path, gate: NodeGate) -> None:
    write(repo, {"pause.js": PAUSES, "test/pause.test.js": PAUSES_TESTS})

    result, run = gate(repo)

    # `ms * 1000` sleeps for days in execFileSync, where no time limit in the process reaches: the
    # watchdog ends the sleep, the process ends as its tests left it, and the mutant dies by its time in a
    # process of its own. The check passed (the gate's fixture checks it) and nothing is refuted.
    assert fates(run)[(4, "*")] == ("killed", "test/pause.test.js")
    assert any("`*`" in described for described, _ in gate.own_process)
    assert not result.refuted


def test_the_preload_declares_each_function_once() -> None:
    # A second declaration of a name replaces the first everywhere in the file, silently; and the parts
    # hand each other their functions by name.
    folder = Path(nodestep.__file__).parent
    files = [folder / "nodemutants.cjs", *sorted((folder / "nodemutants").glob("*.cjs"))]
    source = "\n".join(file.read_text() for file in files)
    names = re.findall(r"^(?:async )?function (\w+)", source, flags=re.MULTILINE)
    assert len(names) > 50 and len(names) == len(set(names))


# Each name a part takes from another (`const { a } = require("./part.cjs")`, or `part.A`) is one that
# part exports: a name it does not is undefined, silently, where it is used.
PARTS_CHECK = r"""
const fs = require("node:fs");
const path = require("node:path");
const folder = process.argv[1];
for (const name of fs.readdirSync(folder)) {
  const source = fs.readFileSync(path.join(folder, name), "utf8");
  for (const [, names, part] of source.matchAll(/const \{([^}]*)\} = require\("\.\/(\w+)\.cjs"\)/g)) {
    const exported = require(path.join(folder, `${part}.cjs`));
    for (const taken of names.split(",").map((n) => n.trim()).filter(Boolean)) {
      if (!(taken in exported)) console.log(`${name} takes ${taken} from ${part}`);
    }
  }
  for (const [, alias, part] of source.matchAll(/const (\w+) = require\("\.\/(\w+)\.cjs"\)/g)) {
    const exported = require(path.join(folder, `${part}.cjs`));
    for (const [, taken] of source.matchAll(new RegExp(`\\b${alias}\\.(\\w+)\\b(?!")`, "g"))) {
      if (taken !== "cjs" && !(taken in exported)) console.log(`${name} takes ${taken} from ${part}`);
    }
  }
}
"""


def test_the_preloads_parts_export_what_they_take_of_each_other() -> None:
    folder = Path(nodestep.__file__).parent / "nodemutants"
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run([node, "-e", PARTS_CHECK, str(folder)], capture_output=True, text=True, check=True)
    assert done.stdout == ""
