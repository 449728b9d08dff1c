"""Claude Code's /goal, adopted: the transcript and the hook inputs around the pure `tiergate.loop.goal`
and `tiergate.loop.goalloop`. The goal is set by the user's `/goal <condition>` (adopted as typed), or
by a goal the user approved ("Goal set: <condition>" queued as a prompt) or the model set (PostToolUse),
these two only when the transcript shows it running. The evaluator's answer to a Stop is written while
the Stop hooks run, so the Stop waits for it, within `EVALUATION_WAIT` (Claude Code waits too).
"""

from __future__ import annotations

import time

from tiergate import TYPE_CHECKING
from tiergate.loop import goal, goalloop
from tiergate.loop.goal import Goal, GoalAtStop

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from tiergate.hook.protocol import HookReply
    from tiergate.loop.adoption import Foreign, NotAdopted
    from tiergate.loop.state import LoopState
    from tiergate.project import Project

# How long a Stop waits for the evaluator's answer to it, once its own checks are done.
EVALUATION_WAIT = 60.0
_POLL = 0.1


def standing(transcript_path: str | None) -> Goal | None:
    """The goal as the transcript has it now (None: unreadable)."""
    from tiergate import transcript

    read = transcript.goal_statuses(transcript_path)
    if read is None:
        return None
    before, after, _ = read
    return goal.goal_of((*before, *after))


def at_stop(
    transcript_path: str | None,
    message: str | None,
    wait: float = EVALUATION_WAIT,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> GoalAtStop | None:
    """The goal at a Stop whose final message is `message`: as it stood when the turn ended, and with the
    evaluator's answer to this Stop when the goal was running then, waited for up to `wait` seconds (and
    for the transcript to hold the final message: it may lag, issue #25121). None: unreadable."""
    from tiergate import transcript

    deadline = clock() + wait
    while True:
        read = transcript.goal_statuses(transcript_path)
        if read is None:
            return None
        before, after, last = read
        flushed = last is None or message is None or message.strip().endswith(last.strip())
        then = goal.goal_of(before)
        if flushed and after:
            now = goal.goal_of((*before, *after))
            return GoalAtStop(then, now, evaluated=True, doubt=goal.doubt_of(after))
        if flushed and not then.running:  # no evaluation comes for a goal that ran no more
            return GoalAtStop(then, then)
        if clock() >= deadline:
            whole = goal.goal_of((*before, *after))  # unflushed: the last records are the earlier turn's
            return GoalAtStop(whole, whole)
        sleep(_POLL)


def at_prompt(transcript_path: str | None) -> GoalAtStop | None:
    """The goal as it stands when the user's next prompt comes (no evaluation is pending then)."""
    now = standing(transcript_path)
    return None if now is None else GoalAtStop(now, now)


# Adopting a goal --------------------------------------------------------------------------------------


def typed(project: Project, session_id: str, prompt: str) -> HookReply | None:
    """`/goal <condition>` as the user typed it, adopted: it replaces an adopted loop of the session, as
    any loop command the user types. (Claude Code 2.1.332 runs no UserPromptSubmit hook for `/goal clear`
    nor `/goal` alone: a clear is seen in the transcript, `tiergate.loop.goalloop.goal_ended`.)"""
    found = goalloop.parse_goal_command(prompt)
    if found is None:
        return None
    return _adopt(project, session_id, "UserPromptSubmit", found, by_command=True)


def approved(project: Project, session_id: str, prompt: str, transcript_path: str | None) -> HookReply | None:
    """The prompt Claude Code queues when the user approves a goal the model proposed, once the
    transcript shows that goal running: the user's own goal, but one the agent under verification wrote
    and may have proposed to move what its work is measured from. So a goal loop that runs takes it as
    its task and keeps its base; with no loop running it is adopted as the user's /goal."""
    condition = goalloop.approved_condition(prompt)
    if condition is None or not _running(transcript_path, condition):
        return None
    from tiergate.loop import store as state
    from tiergate.loop.adoption import Foreign

    current = state.read(project, session_id)
    if current is not None and current.active and current.adopted == goalloop.KIND:
        return _retask(project, session_id, condition)
    found = Foreign(goalloop.KIND, condition)
    return _adopt(
        project, session_id, "UserPromptSubmit", found, by_command=current is None or not current.active
    )


def set_by_model(payload: dict[str, Any], project: Project) -> HookReply | None:
    """The model's goal tool ran (PostToolUse): the goal it set, when the transcript shows it running.
    The model is the agent under verification: its goal becomes a loop only in a session that had none
    (and its words may not ask for a lighter tier); it never changes the task or the base of a loop that
    runs, nor starts one where one ended."""
    condition = _tool_condition(payload)
    session_id: str = payload["session_id"]
    if condition is None or not _running(payload.get("transcript_path"), condition):
        return None
    from tiergate.handlers.adoption import declined
    from tiergate.loop import store as state
    from tiergate.loop.adoption import Foreign

    current = state.read(project, session_id)
    if current is None:
        return _adopt(project, session_id, "PostToolUse", Foreign(goalloop.KIND, condition, by_agent=True))
    if current.active:
        why = (
            f"the model set the goal {condition[:200]!r} itself; the loop that runs keeps its task and "
            "its base (the agent may not change what its work is judged by)"
        )
    else:
        why = "this session already had a loop: a goal the model sets itself does not start another"
    declined(project, "PostToolUse", session_id, goalloop.KIND, why)
    return None


def _tool_condition(payload: dict[str, Any]) -> str | None:
    """The condition the goal tool reports it set (its result, else its input)."""
    for field in ("tool_response", "tool_input"):
        data = payload.get(field)
        if isinstance(data, dict) and isinstance(data.get("condition"), str) and data["condition"].strip():
            return str(data["condition"]).strip()
    return None


def _running(transcript_path: object, condition: str) -> bool:
    current = standing(transcript_path if isinstance(transcript_path, str) else None)
    return current is not None and current.running and current.condition.strip() == condition


def _adopt(
    project: Project,
    session_id: str,
    event_name: str,
    found: Foreign | NotAdopted,
    *,
    by_command: bool = False,
) -> HookReply | None:
    """Adopt the goal; a goal the user set that tiergate does not adopt is said so: it runs unverified."""
    from tiergate.handlers import adoption as adopting
    from tiergate.hook.protocol import HookReply

    loop = adopting.adopt_or_why(project, session_id, event_name, found, by_command=by_command)
    if not isinstance(loop, str):
        return adopting.adopted_reply(loop)
    if event_name != "UserPromptSubmit":
        return None
    return HookReply(system_message=f"tiergate: this /goal is not verified by tiergate: {loop}.")


def _retask(project: Project, session_id: str, condition: str) -> HookReply | None:
    """A running goal loop's new condition, approved by the user: the task changes, nothing else."""
    from dataclasses import replace

    from tiergate.handlers import common
    from tiergate.loop import store as state
    from tiergate.loop.events import Outcome

    def retask(current: LoopState | None) -> tuple[LoopState | None, LoopState | None]:
        if current is None or not current.active or current.adopted != goalloop.KIND:
            return current, None
        changed = replace(current, task=condition)
        return changed, changed

    changed = state.update(project, session_id, retask)
    if changed is None:
        return None
    reasons = (
        f"goal-changed: the user approved the goal {condition[:200]!r} the model proposed; the loop takes "
        "it as its task and keeps its base (a proposal may not move what the work is measured from)",
    )
    outcome = Outcome(changed, "goal-changed", reasons, logged=(("task", condition),))
    common.log_outcome(project, "UserPromptSubmit", session_id, outcome)
    from tiergate.hook.protocol import HookReply

    return HookReply(
        system_message="tiergate: the adopted /goal loop now verifies the approved goal, from the same base."
    )
