"""Red-team round 21's attacks left open on the in-process JavaScript mutants (`nodemutants.cjs`), made again:
the tests' first, honest run keeps its answers where a run again in the same process finds them, and the
runs again compare the function's answers with that memo. Every mutant is then "killed" there, and the
copy that behaves the same passes. Each attack asserts the safe outcome: a kill that came from the tests'
own process is run again in a process of its own (`nodestep.confirmations`), where nothing the first run
kept is left, and does not repeat: the step is incomplete, and the change not LIGHT.

The attacks' tests pin nothing but the memo, so every kill is the memo's and whichever line and mutant the
confirmation draws gives the attack away; tests that pin some mutants or lines honestly are caught with
the probability that the draw picks one the memo alone killed (`confirmations`' unit tests). An honest
change with tests that pin it is still all killed, LIGHT-eligible, one of its lines confirmed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from testing.gitrepo import commit_all, repo_fixture, write
from testing.jsgrade import GRADE, GRADE_MODULE, REPEATED_NOT, WEAK, memo_tests
from testing.nodegate import BASE_FILES, NodeGate, fates, said

from tiergate.gate import sandbox
from tiergate.tier.mutation.fates import MutationRun

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

repo = repo_fixture(BASE_FILES)

# The lines of GRADE that get mutants.
MUTATED = {2, 3, 5}


@pytest.fixture(name="gate")
def gate_fixture(monkeypatch: pytest.MonkeyPatch) -> NodeGate:
    return NodeGate(monkeypatch)


def assert_caught(run: MutationRun, gate: NodeGate) -> None:
    """The safe outcome of a memo the runs again find: every mutant killed in the tests' own process, and
    the kill drawn for confirmation does not repeat in a process of its own, so the mutants keep the
    change from LIGHT."""
    assert REPEATED_NOT in run.incomplete, "ATTACK WON: every kill stood\n" + said(run, gate)
    assert any(r.startswith("mutants-incomplete:") for r in run.reasons()), said(run, gate)
    # Not the fallback's doing: every mutant was decided in the tests' own process.
    assert gate.own_process == [], said(run, gate)
    assert gate.confirmed, said(run, gate)


# A3: a memo on `process`, which outlives the test file's loads again and the clearing of the globals.
ON_PROCESS = memo_tests("""\
  if (process.gradeAnswers === undefined) process.gradeAnswers = now;
  return process.gradeAnswers;""")


def test_a3_a_memo_on_process(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": ON_PROCESS})

    _, run = gate(repo)

    assert_caught(run, gate)


# A4: a snapshot in the coverage folder, the gate's own, which the preload never takes away.
IN_COVERAGE = memo_tests(
    """\
  const folder = process.env.NODE_V8_COVERAGE;
  if (!folder) return now;
  const file = path.join(folder, 'grade-answers.txt');
  if (!fs.existsSync(file)) fs.writeFileSync(file, now);
  return fs.readFileSync(file, 'utf8');""",
    top="const fs = require('node:fs');\nconst path = require('node:path');\n",
)


def test_a4_a_snapshot_in_the_coverage_folder(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": IN_COVERAGE})

    _, run = gate(repo)

    assert_caught(run, gate)


# A5: a memo in a module the code under test loads: the runs again load the test file's own helpers
# anew, but not what a changed module loaded (it is shared with the tests, as it must be).
STORE = "// Values kept for the whole run.\nmodule.exports = new Map();\n"
CALC_WITH_STORE = GRADE + "\nmodule.exports = { grade, store: require('./store.js') };\n"
IN_A_MODULE = memo_tests(
    """\
  if (!store.has('answers')) store.set('answers', now);
  return store.get('answers');""",
    top="const store = require('../store.js');\n",
)


def test_a5_a_memo_in_a_module_the_code_under_test_loads(repo: Path, gate: NodeGate) -> None:
    write(repo, {"store.js": STORE})
    commit_all(repo, "a store")
    write(repo, {"calc.js": CALC_WITH_STORE, "test/grade.test.js": IN_A_MODULE})

    _, run = gate(repo)

    assert_caught(run, gate)


# A6: the answers in the name of a folder made by `fs.mkdtemp` in the temporary folder, found again by a
# prefix of the project's own: the preload notes no folder mkdtemp makes.
IN_A_TEMPORARY_FOLDER = memo_tests(
    """\
  const prefix = 'grade-' + crypto.createHash('sha1').update(__dirname).digest('hex').slice(0, 8) + '-';
  const found = fs.readdirSync(os.tmpdir()).find((name) => name.startsWith(prefix));
  if (found) return found.slice(prefix.length, prefix.length + now.length);
  fs.mkdtempSync(path.join(os.tmpdir(), prefix + now + '-'));
  return now;""",
    top=(
        "const crypto = require('node:crypto');\nconst fs = require('node:fs');\n"
        "const os = require('node:os');\nconst path = require('node:path');\n"
    ),
)


def test_a6_the_answers_in_a_folder_made_by_mkdtemp(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": IN_A_TEMPORARY_FOLDER})

    _, run = gate(repo)

    assert_caught(run, gate)


# A7: the answers' hash in a time of a file or folder the repository ships: a file's modification time
# (`fs.utimes`; a file of code's would refute the copy, whose check sees its stamp move), a folder's, or a
# file's access time alone (`touch -a`, the modification time untouched). The preload keeps a file's
# bytes, not its times.
def times_tests(file: str, *, access: bool = False) -> str:
    """A memo kept in `file`'s (relative to the project) modification time or, with `access`, its access
    time: 3e9 seconds and the answers' hash, once the first run set it."""
    which, setting = (
        ("atimeMs", "execFileSync('touch', ['-a', '-d', '@' + (3e9 + hash), file]);")
        if access
        else ("mtimeMs", "fs.utimesSync(file, 3e9 + hash, 3e9 + hash);")
    )
    return memo_tests(
        f"""\
  const file = path.join(__dirname, '..', {file!r});
  const hash = crypto.createHash('sha1').update(now).digest().readUInt32BE(0) % 1e8;
  const seconds = Math.floor(fs.statSync(file).{which} / 1000);
  if (seconds < 3e9 || seconds >= 3e9 + 1e8) {{
    {setting}
    return now;
  }}
  return seconds - 3e9 === hash ? now : 'not as first seen';""",
        top=(
            "const { execFileSync } = require('node:child_process');\n"
            "const crypto = require('node:crypto');\nconst fs = require('node:fs');\n"
            "const path = require('node:path');\n"
        ),
    )


@pytest.mark.parametrize(
    "tests",
    [times_tests("README.md"), times_tests("test"), times_tests("README.md", access=True)],
    ids=["a file's", "a folder's", "a file's access"],
)
def test_a7_the_answers_in_a_time(repo: Path, gate: NodeGate, tests: str) -> None:
    write(repo, {"README.md": "# grades\n"})
    commit_all(repo, "a readme")
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": tests})

    _, run = gate(repo)

    assert_caught(run, gate)


# A8: a file a child process writes, which the preload, watching only its own process's writes, does not
# take away between runs again: in the project, in /tmp, in HOME.
def child_tests(where: str) -> str:
    return memo_tests(
        f"""\
  const file = {where};"""
        + """
  if (!fs.existsSync(file)) {
    const write = "const fs = require('fs'); fs.mkdirSync(require('path').dirname(process.argv[1]), " +
      "{ recursive: true }); fs.writeFileSync(process.argv[1], process.argv[2])";
    execFileSync(process.execPath, ['-e', write, file, now], { env: { PATH: process.env.PATH } });
  }
  return fs.readFileSync(file, 'utf8');""",
        top=(
            "const { execFileSync } = require('node:child_process');\nconst fs = require('node:fs');\n"
            "const os = require('node:os');\nconst path = require('node:path');\n"
        ),
    )


def test_a8_a_file_a_child_process_wrote(repo: Path, gate: NodeGate) -> None:
    write(
        repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": child_tests("path.join(__dirname, '.answers')")}
    )

    _, run = gate(repo)

    assert_caught(run, gate)


@pytest.mark.skipif(sandbox.unavailable() is not None, reason="needs the checks' sandbox")
@pytest.mark.parametrize("where", ["'/tmp/.grade-answers'", "path.join(os.homedir(), '.grade-answers')"])
def test_a8_outside_the_project_each_process_has_empty_temporary_and_home_folders(
    repo: Path, gate: NodeGate, where: str
) -> None:
    (Path(os.environ["HOME"])).mkdir(exist_ok=True)
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": child_tests(where)})

    _, run = gate(repo)

    assert_caught(run, gate)


# H: an honest change whose tests pin every mutant (the boundary from both sides).
PINNED = """\
const test = require('node:test');
const assert = require('node:assert');
const { grade } = require('../calc.js');

test('passes from 50', () => {
  assert.strictEqual(grade(50), 'pass');
  assert.strictEqual(grade(80), 'pass');
});

test('fails below 50', () => {
  assert.strictEqual(grade(49), 'fail');
  assert.strictEqual(grade(10), 'fail');
});
"""


def test_an_honest_change_is_confirmed_and_stays_light_eligible(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": PINNED})

    _, run = gate(repo)

    assert run.tried and all(t.fate == "killed" for t in run.tried), said(run, gate)
    assert run.incomplete == "" and run.void == "" and run.reasons() == (), said(run, gate)
    # Decided in the tests' own process; one kill of one changed line confirmed in a process of its own,
    # by the test file that killed it, and that line's copy that behaves the same run there too.
    assert gate.own_process == [], said(run, gate)
    [(confirmed, tests)] = gate.confirmed
    assert int(confirmed.split()[1]) in MUTATED and tests == ("test/grade.test.js",), said(run, gate)
    assert len(gate.copies) == 1, said(run, gate)


# Tests that leave `>=` -> `>` alive: the change is not LIGHT whatever the kills, and no kill is run again.


def test_once_a_mutant_survived_no_kill_is_run_again(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": WEAK})

    _, run = gate(repo)

    assert fates(run)[(2, ">")] == ("survived", ""), said(run, gate)
    assert gate.confirmed == [] and gate.own_process == [], said(run, gate)


# A test that passes only the first time it runs in its process (a count on `process`) and pins every
# mutant: its mutants all run in processes of their own, the gate's, whose kills are not run again.
ONCE = """\
const test = require('node:test');
const assert = require('node:assert');
const { grade } = require('../calc.js');

test('grade, once', () => {
  process.gradeRuns = (process.gradeRuns || 0) + 1;
  assert.strictEqual(process.gradeRuns, 1);
  assert.strictEqual(grade(50), 'pass');
  assert.strictEqual(grade(49), 'fail');
});
"""


def test_the_gates_own_kills_are_not_run_again(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": ONCE})

    _, run = gate(repo)

    assert run.tried and all(t.fate == "killed" for t in run.tried), said(run, gate)
    assert run.incomplete == "" and run.void == "", said(run, gate)
    assert gate.own_process and gate.confirmed == [], said(run, gate)
