"""The first pass's pure rules: which checks take one, which failures are new, what refutes."""

from __future__ import annotations

from dataclasses import replace

from tiergate.gate.checks import CheckResult, make_check
from tiergate.gate.firstpass import NAME_SUFFIX, FirstPass, new_failures, plan, refuting
from tiergate.gate.pertest.record import TestOutcome, TestRun
from tiergate.gate.pertest.selection import TestSelection
from tiergate.gate.standing import BaselineEntry

PYTEST = make_check("tests", "python -m pytest -q", "configured")
MAKE = make_check("tests", "make test", "configured")
LINT = make_check("lint", "ruff check .", "configured")


def record(
    *outcomes: tuple[str, TestOutcome], subset: bool = False, source: str = "pytest report"
) -> TestRun:
    return TestRun(source, "pytest", outcomes, True, subset=subset)


def result(status: str, tests: TestRun | None) -> CheckResult:
    return CheckResult("tests", PYTEST.command, "tests", 2, status, 1, 1.0, "", 0, "exit 1", tests)  # type: ignore[arg-type]


def test_only_test_checks_whose_runner_takes_a_selection_get_a_first_pass() -> None:
    base = {PYTEST.key: BaselineEntry(result("passed", record(("t.py::a", "passed"))), "worktree")}
    chosen = plan([PYTEST, LINT], ["tests/test_a.py"], "", base)
    assert [p.check for p in chosen] == [PYTEST]
    assert chosen[0].selection == TestSelection(("tests/test_a.py",), ())
    assert chosen[0].first.name == "tests" + NAME_SUFFIX and chosen[0].first.key != PYTEST.key
    # With no base record yet: only a command that runs pytest; a base record from output: none.
    assert [p.check for p in plan([PYTEST, MAKE], ["t.py"], "", {})] == [PYTEST]
    output = {PYTEST.key: BaselineEntry(result("passed", record(source="pytest output")), "worktree")}
    assert plan([PYTEST], ["t.py"], "", output) == ()


def test_no_first_pass_for_a_change_the_graph_cannot_place_or_outside_the_project() -> None:
    assert plan([PYTEST], None, "", {}) == ()
    assert plan([PYTEST], [], "", {}) == ()
    assert plan([PYTEST], ["other/tests/test_a.py"], "app", {}) == ()
    [inside] = plan([PYTEST], ["app/tests/test_a.py"], "app", {})
    assert inside.selection.files == ("tests/test_a.py",)


def test_a_failure_is_new_when_the_test_did_not_fail_at_the_base_or_did_not_exist() -> None:
    now = record(("a", "failed"), ("b", "failed"), ("c", "error"), ("d", "passed"), subset=True)
    then = record(("a", "passed"), ("b", "failed"))
    assert new_failures(now, then) == ("a", "c")


def test_only_a_selected_run_with_a_new_failure_refutes_and_it_names_the_tests() -> None:
    then = record(("a", "passed"), ("b", "failed"))
    refuted = refuting(result("failed", record(("a", "failed"), ("b", "failed"), subset=True)), then)
    assert (
        refuted is not None
        and "a" in refuted.reason
        and "the rest of the suite was not run" in refuted.reason
    )
    assert refuting(result("failed", record(("b", "failed"), subset=True)), then) is None  # as at the base
    assert refuting(result("failed", record(("a", "failed"))), then) is None  # the selection was ignored
    assert refuting(result("passed", record(("a", "passed"), subset=True)), then) is None
    assert refuting(result("failed", record(("a", "failed"), subset=True)), None) is None


def test_a_first_pass_its_own_limit_ended_refutes_as_a_hang() -> None:
    hung = replace(result("timed_out", None), reason="timed out after 30 s; its process group was ended")
    assert refuting(hung, None) is hung
    out_of_time = replace(hung, reason="not run: the gate's time budget ran out")
    assert refuting(out_of_time, None) is None


def test_a_first_pass_is_named_apart_from_its_check() -> None:
    first = FirstPass(PYTEST, TestSelection(("t.py",), ())).first
    assert first.command == PYTEST.command and first.kind == "tests"
