"""What every event adapter does: apply the loop's decision under the session's lock, log it, reply."""

from __future__ import annotations

import os
import time
from dataclasses import replace

from tiergate import TYPE_CHECKING
from tiergate.hook.protocol import HookReply
from tiergate.loop import messages
from tiergate.loop import store as state
from tiergate.loop.decision import decide
from tiergate.loop.events import Event, Outcome
from tiergate.loop.logfields import log_fields
from tiergate.loop.state import LIMITS, Limits, LoopState

if TYPE_CHECKING:
    from collections.abc import Mapping

    from tiergate.project import Project


def apply(project: Project, event_name: str, session_id: str, event: Event) -> Outcome:
    """Decide `event` against the session's current state, store the new state, log the decision."""
    now = time.time()

    bounds = limits(os.environ)

    def change(current: LoopState | None) -> tuple[LoopState | None, Outcome]:
        outcome = decide(current, event, now, bounds)
        if outcome.rollback is not None:
            from tiergate.handlers import effects

            # Under the session's lock: the rollback and the state that names its backup go together.
            outcome = effects.roll_back(project, outcome, now)
        return outcome.state, outcome

    outcome = state.update(project, session_id, change)
    if outcome.green or outcome.alert is not None:
        from tiergate.handlers import effects

        outcome = effects.follow_up(project, session_id, outcome)
    log_outcome(project, event_name, session_id, outcome)
    return outcome


def limits(env: Mapping[str, str]) -> Limits:
    """The loop's limits, with the no-progress limit kept within Claude Code's own block cap when the
    user lowered it (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP, 8 by default): the loop then halts with its
    reason rather than being cut off silently by the CLI."""
    cap = env.get("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "")
    if not cap.isdigit() or int(cap) < 1:
        return LIMITS
    return replace(LIMITS, idle_blocks=min(LIMITS.idle_blocks, int(cap)))


def log_outcome(project: Project, event_name: str, session_id: str, outcome: Outcome) -> None:
    """Log a hook's decision with the lean writer (the command line uses structlog's, for the same
    record: see `tiergate.log`)."""
    from tiergate.log import write_decision

    write_decision(project, event_name, log_fields(session_id, outcome))


def reply(outcome: Outcome) -> HookReply | None:
    if outcome.block is None and outcome.context is None and outcome.message is None and outcome.redo is None:
        return None
    return HookReply(
        block_reason=outcome.block,
        additional_context=outcome.context,
        system_message=outcome.message,
        redo_feedback=outcome.redo,
    )


def bind_pending(project: Project, session_id: str, event_name: str) -> LoopState | None:
    """Bind a loop started from a shell to this session, if it has no active loop of its own.

    A pending file tiergate did not write as it is binds nothing, and is logged: it must not stop this
    session's own loop from being decided (every hook of the session would be ignored otherwise)."""
    try:
        bound = state.take_pending(project, session_id, time.time())
    except state.StateError as exc:
        _log_rejected_pending(project, session_id, event_name, exc)
        return None
    if bound is not None:
        from tiergate.handlers import effects
        from tiergate.loop.start import take_pending_green

        # The green point was kept at `tiergate ralph start`: what changed since is not the user's start.
        if not take_pending_green(project, session_id, bound):
            effects.mark_start(project, session_id, bound.base)
        effects.begin_baseline(project, bound)
        outcome = Outcome(
            bound,
            "bind",
            (f"the loop started from a shell is bound to this session at {event_name}",),
            logged=(("task", bound.task),),
        )
        log_outcome(project, event_name, session_id, outcome)
    return bound


def _log_rejected_pending(project: Project, session_id: str, event_name: str, exc: Exception) -> None:
    import contextlib

    from tiergate.log import record

    with contextlib.suppress(OSError):
        record(
            project,
            "warning",
            "pending_rejected",
            session_id=session_id,
            hook_event=event_name,
            reason=str(exc),
        )


def with_binding(event_name: str, answer: HookReply | None, bound: LoopState) -> HookReply | None:
    """Tell the model and the user about a loop that was just bound, where the event can say so."""
    if event_name not in ("SessionStart", "UserPromptSubmit"):
        return answer
    answer = answer or HookReply()
    context = answer.additional_context or messages.started_context(bound)
    message = answer.system_message or messages.bound_message(bound)
    return HookReply(
        block_reason=answer.block_reason,
        additional_context=context,
        system_message=message,
        redo_feedback=answer.redo_feedback,
    )
