"""Lost tests: what ran at the base and does not at the claim, and when two records cannot be compared."""

from __future__ import annotations

from tiergate.gate.pertest.lost import lost_tests, unreported
from tiergate.gate.pertest.record import TestOutcome, TestRun


def report(**outcomes: TestOutcome) -> TestRun:
    return TestRun("pytest report", "pytest", tuple(outcomes.items()), True)


def test_a_test_missing_skipped_xfailed_or_deselected_now_is_lost_with_how() -> None:
    base = report(a="passed", b="failed", c="failed", d="error", e="passed", f="skipped")
    now = report(a="passed", c="skipped", d="xfailed", e="deselected", g="passed")

    lost = lost_tests(base, now)

    assert [(t.test, t.failed_then) for t in lost] == [("b", True), ("c", True), ("d", True), ("e", False)]
    how = "not run now (deleted, renamed, deselected or dropped from collection)"
    assert lost[0].text() == f"b: failed when the loop began, {how}"
    assert lost[1].text() == "c: failed when the loop began, skipped now"
    assert lost[2].text().endswith("marked as an expected failure now")
    assert lost[3].text() == "e: passed when the loop began, deselected now"


def test_a_test_that_fails_now_is_not_lost_it_is_a_failure() -> None:
    assert lost_tests(report(a="passed"), report(a="failed")) == ()


def test_records_that_are_incomplete_or_spelled_otherwise_are_not_compared() -> None:
    partial = TestRun("pytest output", "pytest", (("a", "failed"),), False)
    node = TestRun("node output", "node output", (), True)

    assert lost_tests(report(a="failed", b="failed"), partial) == ()
    assert lost_tests(report(a="failed"), node) == ()


def test_a_report_written_at_the_base_and_missing_now_is_the_finding() -> None:
    output = TestRun("pytest output", "pytest", (), False, (("passed", 3),))

    assert "wrote tiergate's pytest report when the loop began and none now" in unreported(
        report(a="passed"), output
    )
    assert unreported(report(a="passed"), report(a="passed")) == ""
    assert unreported(output, None) == ""  # no report then either: nothing to miss


def test_a_run_of_a_selection_loses_only_the_tests_it_reached_and_did_not_run() -> None:
    base = report(a="passed", b="failed", c="passed", d="passed")
    selected = TestRun(
        "pytest report", "pytest", (("a", "passed"), ("c", "deselected"), ("d", "skipped")), True, subset=True
    )

    lost = lost_tests(base, selected)

    # b is not in the run and c was deselected: neither was selected, so neither is lost.
    assert [(t.test, t.now) for t in lost] == [("d", "skipped")]
