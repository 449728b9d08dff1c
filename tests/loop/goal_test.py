"""Claude Code's goal as its transcript records it: the last record decides, by Claude Code's own rule."""

from __future__ import annotations

from typing import Any

import pytest

from tiergate.loop.goal import NO_GOAL, Goal, GoalAtStop, goal_of, still_held

CONDITION = "every test in test_calc.py passes"
# The records as Claude Code 2.1.332 writes them (docs/interop.md, "Claude Code's /goal and task list").
SET = {"type": "goal_status", "met": False, "sentinel": True, "condition": CONDITION}
UNMET = {"type": "goal_status", "met": False, "condition": CONDITION, "reason": "not yet"}
MET = {
    "type": "goal_status",
    "met": True,
    "condition": CONDITION,
    "reason": "the agent says so",
    "iterations": 1,
}
FAILED = {
    "type": "goal_status",
    "met": False,
    "failed": True,
    "condition": CONDITION,
    "reason": "contradiction",
}
CLEARED = {"type": "goal_status", "met": True, "sentinel": True, "condition": CONDITION}


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        ((), NO_GOAL),
        ((SET,), Goal("active", CONDITION)),
        ((SET, UNMET), Goal("active", CONDITION, "not yet")),
        ((SET, UNMET, MET), Goal("met", CONDITION, "the agent says so")),
        ((SET, FAILED), Goal("impossible", CONDITION, "contradiction")),
        ((SET, UNMET, CLEARED), Goal("cleared", CONDITION)),
        # the last record decides: a goal set again after one was met runs again
        ((SET, MET, {**SET, "condition": "the build is green"}), Goal("active", "the build is green")),
        # a record without a condition keeps the one before it
        ((SET, {"type": "goal_status", "met": False}), Goal("active", CONDITION)),
    ],
)
def test_the_goal_is_what_its_last_record_says(records: tuple[dict[str, Any], ...], expected: Goal) -> None:
    assert goal_of(records) == expected


def test_a_goal_holds_the_session_while_it_runs_after_the_stop() -> None:
    running = Goal("active", CONDITION, "not yet")

    assert still_held(GoalAtStop(running, running, evaluated=True))
    assert not still_held(GoalAtStop(running, Goal("met", CONDITION), evaluated=True))
    assert not still_held(GoalAtStop(NO_GOAL, NO_GOAL))
    assert not still_held(None)
