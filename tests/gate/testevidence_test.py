"""A test check's exit status is not the whole story: failures behind an exit 0, a report that shows fewer
failures than the runner printed, a report never finished, and a run of no test."""

from __future__ import annotations

from dataclasses import replace

from tiergate.gate.checks import CheckResult, Status
from tiergate.gate.pertest.record import TestOutcome, TestRun
from tiergate.gate.testevidence import with_tests


def result(status: Status = "passed", code: int = 0) -> CheckResult:
    return CheckResult("tests", "pytest", "tests", 2, status, code, 1.0, "", 0, f"exit {code}")


def report(finished: bool = True, **outcomes: TestOutcome) -> TestRun:
    return TestRun("pytest report", "pytest", tuple(outcomes.items()), True, finished=finished)


def printed(**counts: int) -> TestRun:
    return TestRun("pytest output", "pytest", (), False, tuple(counts.items()))  # type: ignore[arg-type]


def test_an_exit_0_with_a_failing_test_in_the_report_is_failed_naming_it() -> None:
    judged = with_tests(result(), report(a="passed", b="failed"), printed(passed=2))

    # The runner's own line said all passed: a report rewritten after the runner made it shows it.
    assert judged.status == "failed" and judged.exit_code == 0
    assert judged.reason == "exit 0, but 1 test failed: b (from its pytest report)"


def test_an_exit_0_whose_totals_line_says_failed_is_failed() -> None:
    judged = with_tests(result(), report(a="passed", b="failed"), printed(passed=1, failed=1))

    assert (
        judged.status == "failed" and judged.reason == "exit 0, but 1 test failed: b (from its pytest report)"
    )


def test_a_report_with_fewer_failures_than_the_runner_printed_is_not_a_pass() -> None:
    judged = with_tests(result(), report(a="passed"), printed(failed=3))

    assert judged.status == "failed" and "the report is not evidence of a pass" in judged.reason


def test_a_report_never_finished_behind_an_exit_0_is_failed() -> None:
    judged = with_tests(result(), report(finished=False, a="passed"), None)

    assert judged.status == "failed" and "never finished" in judged.reason


def test_a_run_of_no_test_is_no_evidence_whatever_its_exit() -> None:
    for status, code in (("passed", 0), ("failed", 5)):
        judged = with_tests(result(status, code), report(a="skipped", b="deselected"), None)  # type: ignore[arg-type]
        assert judged.status == "no_tests" and judged.could_not_run
        assert judged.reason == "ran no test (1 skipped, 1 deselected, from its pytest report): no evidence"


def test_a_sound_run_keeps_its_status_and_carries_its_tests() -> None:
    tests = report(a="passed", b="skipped")
    judged = with_tests(result(), tests, printed(passed=1, skipped=1))

    assert judged.status == "passed" and judged.tests == tests


def test_a_report_that_disagrees_with_what_the_tests_streamed_fails_the_check_whatever_its_exit() -> None:
    why = "the report disagrees with the outcomes the tests streamed as they ran: it has b passed"
    forged = replace(report(a="passed", b="failed"), disagrees=why)

    passed = with_tests(result(), forged, printed(passed=2))
    failed = with_tests(result("failed", 1), forged, None)

    assert passed.status == "failed" and passed.reason == f"exit 0, but {why}"
    assert failed.status == "failed" and failed.reason == why
