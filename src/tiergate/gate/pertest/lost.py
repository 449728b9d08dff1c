"""Tests the loop began with that do not run at the claim: the loop's test contract, kept or broken.

A test that ran to a verdict at the base and is missing, skipped, xfailed or deselected now is lost;
the ruling (`tiergate.gate.ruling`) says what that means. Only complete records named the same way are
compared. See docs/judging.md, "Each test's outcome". Pure: no I/O.
"""

from __future__ import annotations

from tiergate.frozen import frozen
from tiergate.gate.pertest.record import FAILING, RAN, TestOutcome, TestRun

_HOW: dict[TestOutcome | None, str] = {
    None: "not run now (deleted, renamed, deselected or dropped from collection)",
    "skipped": "skipped now",
    "xfailed": "marked as an expected failure now",
    "deselected": "deselected now",
}


@frozen
class LostTest:
    test: str
    was: TestOutcome  # at the base: a verdict (passed, failed, error, xpassed)
    now: TestOutcome | None  # at the claim: skipped, xfailed, deselected; None when it is not there at all

    @property
    def failed_then(self) -> bool:
        return self.was in FAILING

    def text(self) -> str:
        then = "failed" if self.failed_then else "passed"
        return f"{self.test}: {then} when the loop began, {_HOW.get(self.now, 'not run now')}"


def lost_tests(base: TestRun | None, now: TestRun | None) -> tuple[LostTest, ...]:
    """The tests that ran at the base and do not at the claim, in the base's order (none when the two
    records cannot be compared). When the claim's run was a selection (`TestRun.subset`), only the tests
    it reached and did not run (skipped, xfailed) are lost: one it does not name, or deselected, may
    simply not have been selected."""
    if base is None or now is None or not (base.complete and now.complete) or base.naming != now.naming:
        return ()
    current = now.by_test
    return tuple(
        LostTest(test, outcome, current.get(test))
        for test, outcome in base.outcomes
        if outcome in RAN and current.get(test) not in RAN and (not now.subset or _reached(current.get(test)))
    )


def _reached(outcome: TestOutcome | None) -> bool:
    return outcome is not None and outcome != "deselected"


def unreported(base: TestRun | None, now: TestRun | None) -> str:
    """Why the claim's run is no evidence when its runner wrote a report at the base and none now, or
    reached its end at the base and not now ("" when it did, or never did)."""
    if base is not None and now is not None and base.finished and not now.finished:
        return (
            f"its runner reached its end when the loop began and not now ({now.source}: a test process "
            "ended before its totals): which tests ran cannot be told, so it is no evidence"
        )
    if base is None or not base.source.endswith(" report") or (now is not None and now.source == base.source):
        return ""
    return (
        f"its runner wrote tiergate's {base.source} when the loop began and none now (a plugin or reporter "
        "disabled, the run bypassed or ended early): which tests ran cannot be told, so it is no evidence"
    )
