"""The pure decision on a test check's run with the base's tests: which test of the base refutes the claim,
which makes it THOROUGH, and which says nothing."""

from __future__ import annotations

from tiergate.gate.pertest.basetests import base_test_failures, comparable, whole_check_failure
from tiergate.gate.pertest.record import Outcome, TestRun


def run(*outcomes: tuple[str, Outcome], naming: str = "pytest", complete: bool = True) -> TestRun:
    return TestRun("pytest report", naming, outcomes, complete)


BASE = run(("t::add", "passed"), ("t::div", "failed"), ("t::mul", "failed"))
MESSAGES = {"t::div": "assert 18 == 2", "t::add": "assert 4 == 3"}


def test_a_failing_test_that_fails_as_it_was_and_passes_as_edited_refutes() -> None:
    now = run(("t::add", "passed"), ("t::div", "passed"), ("t::mul", "passed"))
    restored = run(("t::add", "passed"), ("t::div", "failed"), ("t::mul", "passed"))

    [found] = base_test_failures(BASE, now, restored, MESSAGES)

    assert (found.test, found.refutes, found.edited_to_pass) == ("t::div", True, True)
    assert found.text() == (
        "t::div failed when the loop began and still fails with the tests as they were then; it passes "
        "only with the tests as the change edited them (as they were: assert 18 == 2)"
    )


def test_a_failing_test_fixed_by_the_code_or_still_failing_says_nothing() -> None:
    now = run(("t::add", "passed"), ("t::div", "passed"), ("t::mul", "failed"))
    restored = run(("t::add", "passed"), ("t::div", "passed"), ("t::mul", "failed"))

    assert base_test_failures(BASE, now, restored, MESSAGES) == ()


def test_a_failing_test_deleted_that_still_fails_as_it_was_refutes_saying_it_is_not_run() -> None:
    now = run(("t::add", "passed"), ("t::mul", "passed"))
    restored = run(("t::add", "passed"), ("t::div", "failed"), ("t::mul", "passed"))

    [found] = base_test_failures(BASE, now, restored, {})

    assert found.refutes and found.now is None
    assert found.text().endswith("then; it is not run at all with the tests as the change left them")


def test_a_passing_test_failing_as_it_was_goes_thorough_or_refutes_by_the_setting() -> None:
    now = run(("t::add", "passed"), ("t::div", "passed"), ("t::mul", "passed"))
    restored = run(("t::add", "failed"), ("t::div", "passed"), ("t::mul", "passed"))

    [thorough] = base_test_failures(BASE, now, restored, MESSAGES)
    [refuting] = base_test_failures(BASE, now, restored, MESSAGES, refute_regressions=True)

    assert not thorough.refutes and refuting.refutes and not refuting.edited_to_pass
    assert thorough.text().startswith(
        "t::add passed when the loop began and fails with the tests as they were then (assert 4 == 3): "
        "a behaviour change the task asked for"
    )


def test_a_base_test_missing_from_a_failing_run_as_it_was_counts_as_failing() -> None:
    now = run(("t::add", "passed"), ("t::div", "passed"), ("t::mul", "passed"))
    collection_error = run(("t", "error"))

    found = base_test_failures(BASE, now, collection_error, {})

    assert [(f.test, f.refutes) for f in found] == [("t::add", False), ("t::div", True), ("t::mul", True)]


def test_records_that_cannot_be_compared_test_by_test_give_nothing() -> None:
    now = run(("t::add", "passed"), ("t::div", "passed"), ("t::mul", "passed"))
    restored = run(("t::div", "failed"), complete=False)
    other = run(("add", "passed"), naming="node")

    assert not comparable(BASE, now, restored) and not comparable(BASE, now, other)
    assert base_test_failures(BASE, now, restored, {}) == ()
    assert base_test_failures(None, now, now, {}) == ()


def test_a_whole_check_failing_as_it_was_goes_thorough_and_refutes_only_when_it_passed_at_the_base() -> None:
    found = whole_check_failure(False, True, True, "FAILED x", refute_regressions=True)
    passed = whole_check_failure(True, True, True, "FAILED x", refute_regressions=True)

    assert found is not None and not found.refutes and found.test == ""
    assert passed is not None and passed.refutes
    assert "the check fails with the tests as they were when the loop began (FAILED x)" in found.text()
    assert whole_check_failure(True, False, True, "", refute_regressions=False) is None
    assert whole_check_failure(True, True, False, "", refute_regressions=False) is None
