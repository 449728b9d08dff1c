"""Claude Code's own loop, `/goal`, as its session's transcript records it: set, evaluated at each Stop
(not yet, met, impossible), cleared. Claude Code's rule, which tiergate reads the same way: the last record
decides, and a goal runs until one says met or failed. The records and how they were established (CLI
2.1.332): docs/interop.md, "Claude Code's /goal and task list". Pure: parsed JSON in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from tiergate.frozen import frozen

Status = Literal["active", "met", "impossible", "cleared", "none"]


@frozen
class Goal:
    """The session's goal as the transcript has it at one moment: active (set, and no evaluation met it
    yet), met (the evaluator said so: Claude Code cleared it), impossible (the evaluator gave up),
    cleared (`/goal clear`, or Claude Code after an unrecoverable error), or none ever set. `reason`: the
    evaluator's last word on it."""

    status: Status
    condition: str = ""
    reason: str = ""

    @property
    def running(self) -> bool:
        """Whether Claude Code's Stop hook still holds the session for it."""
        return self.status == "active"


NO_GOAL = Goal("none")


@frozen
class GoalAtStop:
    """The goal at a Stop of an adopted goal loop: as the transcript had it when the turn's final message
    was written (`before`), and with what the evaluator said of this Stop when it said it in time (`now`;
    `evaluated` False: it had not, and `now` is `before`). `doubt`: why these records cannot be Claude
    Code's own ("" when nothing says so): the transcript is a file the agent can write."""

    before: Goal
    now: Goal
    evaluated: bool = False
    doubt: str = ""


def goal_of(records: Sequence[Mapping[str, object]]) -> Goal:
    """The goal after the transcript's `goal_status` records (oldest first), by Claude Code's own rule:
    the last record decides, and a goal is running until one says met or failed."""
    goal = NO_GOAL
    for record in records:
        goal = _status(record, goal)
    return goal


def _status(record: Mapping[str, object], before: Goal) -> Goal:
    """What one record says. Its fields (2.1.332): `sentinel` (true on the records the command writes),
    `met`, `failed`, `condition`, `reason`."""
    raw = record.get("condition")
    condition = raw if isinstance(raw, str) else before.condition
    why = record.get("reason")
    reason = why if isinstance(why, str) else ""
    if record.get("sentinel") is True:
        # Set by /goal (or an approved proposal); with `met`, cleared by /goal clear or after an error.
        return Goal("cleared" if record.get("met") is True else "active", condition)
    if record.get("met") is True:
        return Goal("met", condition, reason)
    if record.get("failed") is True:
        return Goal("impossible", condition, reason)
    return Goal("active", condition, reason)


def doubt_of(after: Sequence[Mapping[str, object]]) -> str:
    """Why the records written after the turn's final message cannot all be Claude Code's: it writes one
    evaluation per Stop, and none of the records that set or clear a goal while a turn ends."""
    if len(after) > 1:
        return f"the transcript holds {len(after)} goal records for one stop, where Claude Code writes one"
    if any(record.get("sentinel") is True for record in after):
        return "the transcript holds a goal set or cleared after the turn's final message"
    return ""


def still_held(goal: GoalAtStop | None) -> bool:
    """Whether Claude Code's goal still holds the session after this Stop, so that a passed loop must not
    finish yet: its goal runs, and the evaluator did not say met (or said nothing in time)."""
    return goal is not None and goal.now.running
