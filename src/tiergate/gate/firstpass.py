"""The tests the change affects, run first: a wrong change is refuted in the time its own tests take.

They are chosen by the base commit's import graph (`tiergate.gate.pertest.importmap`), never a map the agent
could shape, and run on the claim, each against the same test at the base (its record, or a run there): a
test failing now and not then refutes at once, the rest unrun. Anything else falls through to the whole
suite, which alone can pass a claim. See docs/judging.md, "The tests the change affects, first".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from tiergate.frozen import frozen
from tiergate.gate.checks import Check, CheckResult
from tiergate.gate.pertest.record import FAILING, TestRun
from tiergate.gate.pertest.selection import TestSelection
from tiergate.gate.standing import BaselineEntry
from tiergate.text import listed, plural

NAME_SUFFIX = " (the tests the change affects, first)"
SHOWN = 5


@frozen
class FirstPass:
    """The first pass of one test check: its selection, and the check as that run is named."""

    check: Check  # the whole check
    selection: TestSelection

    @property
    def first(self) -> Check:
        """The run of the selection, under a name (and so a key) of its own: never the whole check's."""
        return replace(self.check, name=self.check.name + NAME_SUFFIX)


def plan(
    checks: Sequence[Check],
    affected: Sequence[str] | None,
    inside: str,
    entries: Mapping[str, BaselineEntry],
) -> tuple[FirstPass, ...]:
    """The first passes worth running: the test checks whose runner takes a selection (its record at the
    base is pytest's own report, or, with no record yet, its command runs pytest), for the test files
    `affected` (repository-relative) inside the project folder `inside` ("" at the top). None or none
    affected: no first pass."""
    if not affected:
        return ()
    files = tuple(_relative(path, inside) for path in affected)
    if any(f is None for f in files):
        return ()
    selection = TestSelection(tuple(f for f in files if f is not None), ())
    return tuple(FirstPass(c, selection) for c in checks if c.kind == "tests" and _selects(c, entries))


def _selects(check: Check, entries: Mapping[str, BaselineEntry]) -> bool:
    entry = entries.get(check.key)
    record = None if entry is None else entry.result.tests
    if record is not None:
        return record.naming == "pytest" and record.source == "pytest report" and record.complete
    return entry is None and "pytest" in check.command


def _relative(path: str, inside: str) -> str | None:
    if not inside:
        return path
    prefix = inside.rstrip("/") + "/"
    return path[len(prefix) :] if path.startswith(prefix) else None


def new_failures(now: TestRun, then: TestRun) -> tuple[str, ...]:
    """The tests that fail in the first pass `now` and did not fail in `then` (the base's run of them, or
    its whole record): absent then counts as not failing (a test the change added, a module that now
    fails to import)."""
    was = then.by_test
    return tuple(
        test for test, outcome in now.outcomes if outcome in FAILING and was.get(test) not in FAILING
    )


def refuting(result: CheckResult, then: TestRun | None) -> CheckResult | None:
    """`result` (a first pass) as the result that refutes the claim, or None when it does not: it is not
    a selected run, shows no new failure, or the base's record of its tests is not to be compared."""
    if result.status == "timed_out" and not result.out_of_time:
        return result  # its own limit ended it: the tests the change affects hang (a whole run would too)
    now = result.tests
    if now is None or not now.subset or then is None or not now.finished or now.naming != then.naming:
        return None
    if result.status != "failed":
        return None
    new = new_failures(now, then)
    if not new:
        return None
    shown = listed(new, SHOWN)
    reason = (
        f"{plural(len(new), 'test')} the change affects {'fails' if len(new) == 1 else 'fail'} and did not "
        f"when the loop began: {shown}; run first, so the rest of the suite was not run"
    )
    return replace(result, reason=reason)


def base_record(entry: BaselineEntry | None) -> TestRun | None:
    """The base's whole record of a check's tests, when it is one to compare test by test."""
    record = None if entry is None else entry.result.tests
    if record is None or not record.complete or not record.finished or record.subset:
        return None
    return record
