"""The ruling's texts for a verifier and for Claude, told truthfully (issue 20): a new failure of a check
that failed at the base too is never called "not failing when the loop began"; the checks failing as at
the base lead the packet; each test check's counts at the base and at the claim, side by side."""

from __future__ import annotations

from dataclasses import replace

from tiergate.gate.checks import CheckResult, kind_of
from tiergate.gate.pertest.record import TestOutcome, TestRun
from tiergate.gate.ruling import judge
from tiergate.gate.standing import BaselineEntry


def pytest_output(*failing: tuple[str, str]) -> str:
    lines = [f"FAILED tests/test_app.py::{name} - {message}" for name, message in failing]
    return "\n".join([*lines, f"{len(failing)} failed, 2 passed in 0.42s"]) + "\n"


def failed(output: str, tests: TestRun | None = None) -> CheckResult:
    command = "pytest -q"
    return CheckResult(
        "tests", command, kind_of("tests", command), 2, "failed", 1, 1.0, output, 9, "exit 1", tests
    )


def at_base(result: CheckResult) -> dict[str, BaselineEntry]:
    return {result.key: BaselineEntry(result, "worktree")}


def headline(now: CheckResult, base: dict[str, BaselineEntry]) -> str:
    return judge([now], base).report_text().splitlines()[0]


def run(**outcomes: TestOutcome) -> TestRun:
    return TestRun("pytest report", "pytest", tuple(outcomes.items()), True)


A_FAILS = pytest_output(("test_a", "assert 1 == 2"))


def test_a_check_that_passed_at_the_base_fails_newly() -> None:
    passed = replace(failed(""), status="passed", exit_code=0, reason="exit 0")
    assert headline(failed(A_FAILS), at_base(passed)).endswith(", not failing when the loop began.")


def test_a_new_failing_test_in_a_check_that_failed_at_the_base_says_the_check_failed_then_too() -> None:
    base = at_base(failed(pytest_output(("test_b", "assert 3 == 4"))))
    now = failed(pytest_output(("test_a", "assert 1 == 2"), ("test_b", "assert 3 == 4")))
    assert headline(now, base).endswith(
        ", with failing tests that did not fail when the loop began (the check failed then too)."
    )


def test_a_test_failing_another_way_says_otherwise() -> None:
    base = at_base(failed(pytest_output(("test_a", "NotImplementedError"))))
    assert headline(failed(A_FAILS), base).endswith(
        ", failing otherwise than when the loop began (the check failed then too)."
    )


def test_a_check_that_named_failing_tests_then_and_none_now_fails_differently() -> None:
    base = at_base(failed(A_FAILS))
    assert headline(failed("Segmentation fault\n"), base).endswith(
        ", failing differently than when the loop began (the check failed then too)."
    )


def test_no_baseline_says_there_was_nothing_to_compare_with() -> None:
    assert headline(failed(A_FAILS), {}).endswith(", with nothing from when the loop began to compare with.")


def test_checks_failing_as_at_the_base_lead_and_name_their_tests() -> None:
    gate = judge([failed(A_FAILS)], at_base(failed(A_FAILS)))

    assert gate.failing_then() == ("check tests (failing tests: tests/test_app.py::test_a)",)
    lead = gate.lead_lines()
    assert lead[0].startswith("STILL FAILING AS WHEN THE LOOP BEGAN")
    assert lead[1] == "- tests (`pytest -q`): exit 1; check tests (failing tests: tests/test_app.py::test_a)"
    assert judge([replace(failed(""), status="passed", exit_code=0)], {}).lead_lines() == ()


def test_the_tests_section_counts_the_base_and_the_claim_side_by_side() -> None:
    then = run(t1="passed", t2="failed", t3="passed", t4="skipped")
    now = run(t1="passed", t2="passed", t4="skipped", t5="xfailed", t6="deselected")
    passed = replace(failed("", now), status="passed", exit_code=0, reason="exit 0")
    gate = judge([passed], at_base(failed("", then)))

    lines = gate.tests_lines()
    assert lines[1] == "- tests:"
    assert (
        lines[2]
        == "  at the base: passed 2, failed 1, skipped 1, xfailed 0, not run 0 (from its pytest report)"
    )
    # t3 ran then and is not in this run at all; t6 is deselected: two not run.
    assert (
        lines[3]
        == "  at the claim: passed 2, failed 0, skipped 1, xfailed 1, not run 2 (from its pytest report)"
    )
    assert lines[4] == "  LOST since the loop began (ran then, not now):"
    assert lines[5].startswith("  - t3: passed when the loop began, not run now")
    assert not any("base's test files" in line for line in lines)


def test_the_base_tests_run_against_the_claimed_code_has_its_slot() -> None:
    now = run(t1="passed")
    passed = replace(failed("", now), status="passed", exit_code=0, reason="exit 0")
    gate = judge([passed], at_base(failed("", run(t1="failed"))))

    lines = gate.tests_lines({passed.key: run(t1="failed")})
    assert lines[-2] == (
        "  the base's test files run against the claimed code: passed 0, failed 1, skipped 0, xfailed 0, "
        "not run 0 (from its pytest report)"
    )
    assert lines[-1] == "    failing there: t1"


def test_a_run_of_a_selection_counts_no_test_it_left_out_as_not_run() -> None:
    selected = replace(run(t1="passed", t3="deselected"), subset=True)
    passed = replace(failed("", selected), status="passed", exit_code=0, reason="exit 0")
    gate = judge([passed], at_base(failed("", run(t1="failed", t2="passed", t3="passed"))))

    lines = gate.tests_lines({passed.key: selected})
    # t2 is not in the run and t3 deselected: left out of the selection, neither is lost.
    assert lines[3] == (
        "  at the claim: passed 1, failed 0, skipped 0, xfailed 0, not run 1 (from its pytest report, a run "
        "of a selection of the tests)"
    )
    assert lines[4].startswith("  the base's test files run against the claimed code: passed 1")
