"""The mutation step of a gate run, on real git repositories running real pytest in the claim's copy: which
mutants die and by which test, what survives, a top-level constant run again in its module, a cached
function's cache cleared, a mutant that hangs killed by its time, a run that fails or runs under unittest
making none, a step out of time saying so, and nothing of it reaching the run's own outcomes."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from testing.gitrepo import commit_all, repo_fixture, write
from testing.measuredgate import measured_gate
from testing.pytestcheck import PYTEST

from tiergate.gate.mutation import step
from tiergate.gate.request import MutantBounds
from tiergate.gate.ruling import GateResult
from tiergate.tier.mutation.fates import MutationRun

CALC = "def add(a, b):\n    return a + b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
repo = repo_fixture({"calc.py": CALC, "tests/test_calc.py": TESTS, ".gitignore": "__pycache__/\n"})


def gate(
    repo: Path, command: str = PYTEST, bounds: MutantBounds | None = None
) -> tuple[GateResult, MutationRun]:
    result = measured_gate(repo, command, mutants=bounds or MutantBounds())
    assert result.coverage is not None and result.coverage.mutation is not None
    return result, result.coverage.mutation


def fates(run: MutationRun) -> dict[tuple[int, str], str]:
    return {(t.mutant.line, t.mutant.replacement): t.fate for t in run.tried}


GRADE = CALC + "\n\ndef grade(score):\n    if score >= 50:\n        return 'pass'\n    return 'fail'\n"
GRADE_TESTS = "from calc import grade\n\n\ndef test_grade():\n    assert grade(80) == 'pass'\n"


def test_each_mutant_dies_by_a_test_or_survives_them_all(repo: Path) -> None:
    write(repo, {"calc.py": GRADE, "tests/test_grade.py": GRADE_TESTS})

    result, run = gate(repo)

    assert not result.refuted and run.off == "" and run.void == "" and run.incomplete == ""
    found = fates(run)
    # grade(80) == 'pass' tells `>= 50` from a None return; nothing checks the boundary, nor the 'fail' line.
    assert found[(6, ">")] == "survived" and found[(8, "None")] == "uncovered"
    # Once one survived, the rest of the tests' mutants get a quarter of the run's test time: those it
    # leaves are not needed.
    assert {found[(6, "51")], found[(7, "None")]} <= {"killed", "not_run"}
    assert {t.by for t in run.of("not_run")} <= {"not needed: a mutant survived already"}
    # The run's own outcomes know only the tests that ran: no mutant's run reached them.
    [verdict] = result.verdicts
    assert verdict.result.tests is not None
    assert dict(verdict.result.tests.outcomes) == {
        "tests/test_calc.py::test_add": "passed",
        "tests/test_grade.py::test_grade": "passed",
    }


LIMITED = "LIMIT = 3\n\n\ndef over(n):\n    return n > LIMIT\n"
LIMIT_TESTS = "from limits import over\n\n\ndef test_over():\n    assert over(4)\n    assert not over(3)\n"


def test_a_top_level_constant_is_run_again_in_its_module_and_put_back(repo: Path) -> None:
    write(repo, {"limits.py": LIMITED, "tests/test_limits.py": LIMIT_TESTS})

    _, run = gate(repo)

    found = fates(run)
    # LIMIT = 4 makes over(4) false: killed. The copy that behaves the same passed: the module was put back.
    assert found[(1, "4")] == "killed" and found[(5, ">=")] == "killed"
    assert {t.by for t in run.of("killed")} == {"tests/test_limits.py::test_over"}
    assert run.void == ""


CACHED = "import functools\n\n\n@functools.lru_cache\ndef double(n):\n    return n * 2\n"
CACHED_TESTS = "from twice import double\n\n\ndef test_double():\n    assert double(3) == 6\n"


def test_a_cached_function_answers_anew_under_each_mutant(repo: Path) -> None:
    write(repo, {"twice.py": CACHED, "tests/test_twice.py": CACHED_TESTS})

    _, run = gate(repo)

    # Without its cache cleared, double(3) would answer 6 from the tests' run and every mutant would live.
    assert fates(run)[(6, "/")] == "killed" and fates(run)[(6, "None")] == "killed"


LOOPS = "def count(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n"
LOOP_TESTS = "from loops import count\n\n\ndef test_count():\n    assert count(3) == 3 and count(0) == 0\n"


def test_a_mutant_that_hangs_is_killed_by_its_time_and_the_check_still_passes(repo: Path) -> None:
    write(repo, {"loops.py": LOOPS, "tests/test_loops.py": LOOP_TESTS})

    result, run = gate(repo)

    # `i -= 1` never ends: the test's time is up after a few seconds, the mutant dies, and the check passed.
    assert fates(run)[(4, "-=")] == "killed"
    assert not result.refuted and [v.result.status for v in result.verdicts] == ["passed"]


def test_a_run_with_a_failing_test_makes_no_mutant(repo: Path) -> None:
    write(repo, {"calc.py": GRADE, "tests/test_grade.py": GRADE_TESTS.replace("80", "10")})

    result, run = gate(repo)

    assert result.refuted and run.off == "the tests did not all pass" and run.tried == ()
    assert run.reasons() == ()


def test_tests_run_by_unittest_get_no_mutant_and_say_why(repo: Path) -> None:
    unittest = f"{shlex.quote(sys.executable)} -m unittest discover -q -s tests -t ."
    write(repo, {"calc.py": GRADE, "tests/__init__.py": "", "tests/test_grade.py": GRADE_TESTS})

    _, run = gate(repo, unittest)

    assert "under pytest" in run.off and run.reasons() == ()


def test_a_step_out_of_time_says_how_many_mutants_did_not_run(repo: Path) -> None:
    # Pinned, so that no survivor says it first.
    slow = (
        "import time\n\nfrom calc import grade\n\n\ndef test_grade():\n    time.sleep(0.3)\n"
        "    assert grade(50) == 'pass' and grade(49) == 'fail'\n"
    )
    write(repo, {"calc.py": GRADE, "tests/test_grade.py": slow})

    _, run = gate(repo, bounds=MutantBounds(seconds=0.5))

    assert "ran out of its" in run.incomplete
    assert run.of("not_run") and any(r.startswith("mutants-incomplete: ") for r in run.reasons())


def test_the_mutants_runs_of_a_slow_test_come_beside_the_checks_own_limit(repo: Path) -> None:
    # The red team's FP6: an honest test that takes most of the check's limit pins the boundary. Its
    # mutants' runs and its copy's come after it in the same process: on the check's own limit alone, the
    # check would time out and the honest claim be refuted.
    slow = (
        "import time\n\nfrom calc import grade\n\n\ndef test_grade():\n    time.sleep(1.5)\n"
        "    assert [grade(s) for s in (80, 50, 49, 10)] == ['pass', 'pass', 'fail', 'fail']\n"
    )
    write(repo, {"calc.py": GRADE, "tests/test_grade.py": slow})

    result = measured_gate(repo, timeout=4.0, mutants=MutantBounds())

    [verdict] = result.verdicts
    assert not result.refuted and verdict.result.status == "passed", verdict.result.output[-2000:]
    assert result.coverage is not None and result.coverage.mutation is not None
    run = result.coverage.mutation
    assert run.incomplete == "" and run.void == ""
    assert len(run.of("killed")) >= 3 and not run.of("survived")


MEMO = (
    "_SEEN = {}\n\n\ndef square(n):\n    if n not in _SEEN:\n        _SEEN[n] = n * n\n    return _SEEN[n]\n"
)
MEMO_TESTS = "def test_square():\n    from memo import square\n\n    assert square(3) == 9\n"


def test_a_memo_the_tests_filled_is_emptied_before_each_mutant(repo: Path) -> None:
    # Imported inside the test: the module's memo is taken as its import ends, before the test fills it.
    write(repo, {"memo.py": MEMO, "tests/test_memo.py": MEMO_TESTS})

    _, run = gate(repo)

    # With the memo kept from the tests' run, square(3) would answer 9 under every mutant of line 6.
    assert fates(run)[(6, "/")] == "killed" and fates(run)[(5, "in")] == "killed"
    assert run.void == ""


def test_under_xdist_each_worker_runs_the_mutants_of_the_tests_it_ran(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(step, "AFTER_SURVIVOR", 1e6)  # every mutant runs, whichever survived first
    more = "from calc import grade\n\n\ndef test_low():\n    assert grade(10) == 'fail'\n"
    write(repo, {"calc.py": GRADE, "tests/test_grade.py": GRADE_TESTS, "tests/test_low.py": more})

    result, run = gate(repo, f"{PYTEST} -p xdist -n 2")

    assert not result.refuted and run.off == "" and run.incomplete == ""
    found = fates(run)
    # The workers' reports merged: grade(80) kills the 'pass' return, grade(10) the 'fail' one, wherever
    # each ran; nothing tells `>=` from `>`.
    assert found[(7, "None")] == "killed" and found[(8, "None")] == "killed" and found[(6, ">")] == "survived"


MARKED = (
    "PASS_MARK = 50\n\n\nclass Marks:\n    top = 90\n\n\n"
    "def grade(score, mark=PASS_MARK):\n    return 'pass' if score >= mark else 'fail'\n\n\n"
    "def top(score, at=Marks.top):\n    return score >= at\n"
)
MARKED_TESTS = (
    "from marks import Marks, grade, top\n\n\n"
    "def test_grade():\n    assert grade(50) == 'pass' and grade(49) == 'fail'\n\n\n"
    "def test_top():\n    assert top(90) and not top(89) and Marks.top == 90\n"
)


def test_code_run_at_import_is_mutated_by_running_its_module_again(repo: Path) -> None:
    # A constant bound as a default, a class attribute, a default that reads it: the module runs again
    # under each mutant, and the functions and class the tests imported get what it made.
    write(repo, {"marks.py": MARKED, "tests/test_marks.py": MARKED_TESTS})

    _, run = gate(repo)

    found = fates(run)
    assert found[(1, "51")] == "killed" and found[(5, "91")] == "killed"
    assert run.of("survived") == () and run.void == "" and run.incomplete == ""


def test_a_javascript_change_with_nothing_to_mutate_says_so_in_its_own_words(repo: Path) -> None:
    # A change of a message only: no mutant in JavaScript, and no Python line the pytest step missed.
    write(repo, {"greet.js": "module.exports = () => 'hi';\n", "test/greet.test.js": GREET_TESTS})
    commit_all(repo, "greet")
    write(repo, {"greet.js": "module.exports = () => 'hello';\n"})

    result = measured_gate(repo, "node --test", mutants=MutantBounds())

    assert result.coverage is not None and result.coverage.mutation is not None
    run = result.coverage.mutation
    assert (
        run.off == "the change has no Python lines; no mutant could be made of the changed JavaScript lines"
    )


GREET_TESTS = (
    "const test = require('node:test');\nconst assert = require('node:assert');\n"
    "const greet = require('../greet.js');\n\ntest('greets', () => {\n  assert.match(greet(), /h/);\n});\n"
)
