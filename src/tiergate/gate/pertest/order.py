"""The tests the task is about, run again: each alone in a fresh process, and all of them in reverse order.

Code that keeps state between calls can pass each test in the suite's order and fail it alone. The tests
the task is about failed when the loop began and pass now; one that fails alone or in reverse order
refutes: its pass depends on the order. Only where the runner honours a selection (pytest). See
docs/judging.md, "The task's tests, run again". Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tiergate.frozen import frozen
from tiergate.gate.pertest.record import FAILING, TestRun
from tiergate.text import more_than, plural

# At most this many tests are run alone (a process each), the first ones the suite ran.
ALONE_AT_MOST = 8
SHOWN = 5


@frozen
class OrderFailure:
    """A test the task is about that passed in the suite's run and not when run again `how` ("alone",
    "in reverse order"), ending `outcome` there ("failed", "error", "not run")."""

    test: str
    how: str
    outcome: str

    def text(self) -> str:
        return f"{self.test}: {self.outcome} when run {self.how}"


def task_tests(then: TestRun | None, now: TestRun | None) -> tuple[str, ...]:
    """The tests the task is about: failing in the base's complete run, passing in this complete one, in
    the order this run met them; none when either record cannot be compared test by test."""
    if then is None or now is None or not (then.complete and now.complete) or now.subset:
        return ()
    if then.naming != now.naming or then.naming != "pytest":
        return ()
    failing_then = set(then.named(FAILING))
    return tuple(test for test, outcome in now.outcomes if outcome == "passed" and test in failing_then)


def order_failures(
    tests: Sequence[str], alone: Mapping[str, TestRun | None], reverse: TestRun | None
) -> tuple[OrderFailure, ...]:
    """Each of `tests` that did not pass when run again: `alone` by test (a run that shows nothing, None,
    is no finding), `reverse` the run of them all in reverse order (None: not run)."""
    found = []
    for test in tests:
        run = alone.get(test)
        outcome = _outcome(run, test)
        if outcome is not None:
            found.append(OrderFailure(test, "alone", outcome))
        elif (outcome := _outcome(reverse, test)) is not None:
            found.append(OrderFailure(test, "in reverse order", outcome))
    return tuple(found)


def _outcome(run: TestRun | None, test: str) -> str | None:
    """How `test` ended in `run` when that is not a pass ("not run" when the run finished without it);
    None when it passed or the run shows nothing."""
    if run is None or not run.finished:
        return None
    outcome = run.by_test.get(test)
    if outcome == "passed":
        return None
    if outcome is None:
        return "not run" if run.complete else None
    return outcome if outcome in FAILING else None


def reason(found: Sequence[OrderFailure]) -> str:
    """The refutation's words."""
    shown = "; ".join(f.text() for f in found[:SHOWN])
    more = more_than(len(found), SHOWN)
    verb = "passes" if len(found) == 1 else "pass"
    return (
        f"{plural(len(found), 'test')} the task is about (failing when the loop began) {verb} only in the "
        f"suite's own order: {shown}{more}. An answer that depends on which test asked first is not the code "
        "working"
    )
