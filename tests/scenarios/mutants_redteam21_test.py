"""Red-team round 21 on the in-process JavaScript mutants (`nodemutants.cjs`): helpers compiled once, tests
told apart by their place, the tests' own run's coverage. Each test asserts the safe outcome. The round's
other attacks (answers kept on `process`, in the coverage folder, in a module the code under test loads,
in a folder made by `mkdtemp`, in a file's times, by a child process) are in mutants_confirm_test.py.

The weak tests never tell `score >= 50` from `score > 50` (grade(80), grade(10) only): the `>` mutant of
line 2 must not be reported killed. Every mutant is run (no "not needed" cap) unless said."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from testing.gitrepo import commit_all, repo_fixture, write
from testing.jsgrade import GRADE_MODULE, WEAK
from testing.nodegate import BASE_FILES, NodeGate, fates, said

from tiergate.tier.mutation.fates import MutationRun

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

repo = repo_fixture(BASE_FILES)


@pytest.fixture(name="gate")
def gate_fixture(monkeypatch: pytest.MonkeyPatch) -> NodeGate:
    return NodeGate(monkeypatch)


def assert_boundary_not_killed(run: MutationRun, gate: NodeGate) -> None:
    """The safe outcome of a cheat on the weak tests: `>=` -> `>` is not reported killed."""
    fate = fates(run)[(2, ">")]
    assert fate[0] != "killed", "ATTACK WON: `>=` -> `>` killed\n" + said(run, gate)


# A1 (b): a helper of the tests' own, loaded fresh for each run again, whose code is now compiled once
# (`helperCode`) and run anew per load: in sloppy mode `arguments.callee` is that compiled function, the
# same at every load. The helper keeps its Map there: the first load again (`loadAgain`, the original
# active) fills it at the test file's top, every later run compares with it. The copy that behaves the
# same gives the same answers and passes; each mutant that changes an answer of 0..100 fails.
CALLEE_HELPER = """\
// A memo of the answers seen, for the regression test.
module.exports = arguments.callee.seen || (arguments.callee.seen = new Map());
"""
CALLEE_HELPER_TESTS = (
    WEAK
    + """
const seen = require('./seen.js');
const answers = Array.from({ length: 101 }, (_, score) => grade(score));
if (!seen.has('answers')) seen.set('answers', answers);

test('grade as first seen', () => {
  assert.deepStrictEqual(answers, seen.get('answers'));
});
"""
)


def test_a1_a_helpers_compiled_once_code_keeps_a_memo_on_arguments_callee(repo: Path, gate: NodeGate) -> None:
    write(repo, {"test/seen.js": CALLEE_HELPER})
    commit_all(repo, "a helper")
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": CALLEE_HELPER_TESTS})

    _, run = gate(repo)

    assert_boundary_not_killed(run, gate)


# A2 (b, the test file itself): the test file is compiled once too (`state.mainWrapper`); its own
# `arguments.callee` keeps the answers its first load again saw.
CALLEE_MAIN_TESTS = (
    WEAK
    + """
const answers = Array.from({ length: 101 }, (_, score) => grade(score));
const first = arguments.callee.first || (arguments.callee.first = answers);

test('grade as first seen', () => {
  assert.deepStrictEqual(answers, first);
});
"""
)


def test_a2_the_test_files_compiled_once_code_keeps_a_memo_on_arguments_callee(
    repo: Path, gate: NodeGate
) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": CALLEE_MAIN_TESTS})

    _, run = gate(repo)

    assert_boundary_not_killed(run, gate)


# H1 (honest, b6fdf16): tests that load the module afresh for each test (`delete require.cache`), a
# common way to reset a module's state. Every mutant is pinned: grade(50) and grade(49) are checked. The
# tests' own run compiled calc.js three times; V8 lists each as a script of the same URL and
# `flushCoverage` keeps the last one only, whose run never reached `return 'pass'`.
FRESH_TESTS = """\
const test = require('node:test');
const assert = require('node:assert');

function fresh() {
  delete require.cache[require.resolve('../calc.js')];
  return require('../calc.js');
}

test('passes from 50', () => {
  assert.strictEqual(fresh().grade(50), 'pass');
  assert.strictEqual(fresh().grade(80), 'pass');
});

test('fails below 50', () => {
  assert.strictEqual(fresh().grade(49), 'fail');
});
"""


def test_h1_honest_tests_that_load_the_module_afresh_leave_no_survivor(repo: Path, gate: NodeGate) -> None:
    write(repo, {"calc.js": GRADE_MODULE, "test/grade.test.js": FRESH_TESTS})

    _, run = gate(repo)

    assert not run.of("survived"), "HONEST CHANGE GOT A SURVIVOR\n" + said(run, gate)
