"""Which tests the task is about, and which of them pass only in the suite's order. Pure."""

from __future__ import annotations

from tiergate.gate.pertest.order import OrderFailure, order_failures, reason, task_tests
from tiergate.gate.pertest.record import TestOutcome, TestRun


def run(*outcomes: tuple[str, TestOutcome], complete: bool = True, subset: bool = False) -> TestRun:
    return TestRun("pytest report", "pytest", outcomes, complete, subset=subset)


THEN = run(("t::a", "passed"), ("t::b", "failed"), ("t::c", "error"), ("t::d", "failed"))
NOW = run(("t::a", "passed"), ("t::c", "passed"), ("t::b", "passed"), ("t::d", "failed"))


def test_the_task_is_the_tests_failing_then_and_passing_now_in_this_runs_order() -> None:
    assert task_tests(THEN, NOW) == ("t::c", "t::b")


def test_records_that_cannot_be_compared_name_no_task() -> None:
    assert task_tests(None, NOW) == ()
    assert task_tests(THEN, run(("t::b", "passed"), complete=False)) == ()
    assert task_tests(THEN, run(("t::b", "passed"), subset=True)) == ()
    node = TestRun("node --test report", "node", (("t::b", "passed"),), True)
    assert task_tests(node, node) == ()


def test_a_test_failing_alone_or_in_reverse_is_found_once_alone_first() -> None:
    alone = {"t::b": run(("t::b", "failed"), subset=True), "t::c": run(("t::c", "passed"), subset=True)}
    reverse = run(("t::c", "error"), ("t::b", "failed"), subset=True)

    found = order_failures(("t::c", "t::b"), alone, reverse)

    assert found == (
        OrderFailure("t::c", "in reverse order", "error"),
        OrderFailure("t::b", "alone", "failed"),
    )
    assert "t::b: failed when run alone" in reason(found) and reason(found).startswith("2 tests")


def test_runs_that_show_nothing_find_nothing() -> None:
    unfinished = TestRun("pytest report", "pytest", (("t::b", "failed"),), True, finished=False)
    assert order_failures(("t::b",), {"t::b": None}, None) == ()
    assert order_failures(("t::b",), {"t::b": unfinished}, None) == ()
    assert order_failures(("t::b",), {"t::b": run(("t::b", "skipped"))}, None) == ()
    assert order_failures(("t::b",), {"t::b": run()}, None) == (OrderFailure("t::b", "alone", "not run"),)
