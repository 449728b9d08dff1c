"""Stop: the main agent wants to end its turn. A claim is measured here (the costly part), once."""

from __future__ import annotations

import time

from tiergate import TYPE_CHECKING, foreign
from tiergate.handlers import common
from tiergate.handlers.claimmeasure import Measured, answer_by, log_claim_error, measure, stalled_approach
from tiergate.handlers.earlymeasure import Early, measure_early
from tiergate.handlers.turnend import api_error, background_work, measures
from tiergate.loop import store as state
from tiergate.loop.claims import ClaimCheck, check_claim
from tiergate.loop.decision import empty_turn
from tiergate.loop.events import Stop
from tiergate.loop.refutation import may_stand_refuted, refutation_for
from tiergate.loop.state import LoopState
from tiergate.workspace import fingerprint, loopbase

if TYPE_CHECKING:
    from typing import Any

    from tiergate.hook.inputs import StopInput
    from tiergate.hook.protocol import HookReply
    from tiergate.loop.goal import GoalAtStop
    from tiergate.project import Project


def handle(payload: dict[str, Any], project: Project) -> HookReply | None:
    """The Stop's answer. An active loop whose state cannot be trusted (not tiergate's writing, gone,
    unwritable) or whose decision fails unexpectedly fails closed (`tiergate.handlers.failclosed`):
    the one exception to the hook's fail-open rule, so that no claim ever goes through unchecked."""
    started = time.monotonic()
    # Begun before the rest of the start-up, which then costs the claim no time (`measure_early`).
    early = measure_early(payload, project)
    try:
        return _handle(payload, project, early, started)
    finally:
        if early is not None:
            early.cancel()  # nothing once its answers were read


def _handle(
    payload: dict[str, Any], project: Project, early: Early | None, started: float
) -> HookReply | None:
    from tiergate.handlers import failclosed
    from tiergate.hook.inputs import parse_input

    stop = parse_input("Stop", payload)
    try:
        current = state.read(project, stop.session_id)
    except state.StateError as exc:
        return failclosed.stop(project, stop.session_id, f"is not trustworthy ({exc})", damaged=True)
    if current is None:
        lost = failclosed.lost(project, stop.session_id)
        return None if lost is None else failclosed.stop(project, stop.session_id, lost)
    if not current.active or failclosed.halted_before(project, stop.session_id, current):
        return None
    try:
        reply = decide_stop(payload, project, stop, current, early, started)
    except Exception as exc:
        problem = _unexpected(project, current, exc)
        return failclosed.stop(project, stop.session_id, problem, current)
    failclosed.sound(project, stop.session_id)
    return reply


def _unexpected(project: Project, current: LoopState, exc: Exception) -> str:
    """What went wrong while the loop decided a claim, said as a problem of its state; logged if it can be."""
    import contextlib

    with contextlib.suppress(Exception):
        log_claim_error(project, current.session_id, exc)
    if isinstance(exc, OSError):
        return f"could not be written ({type(exc).__name__}: {exc})"
    return f"could not be decided (internal error {type(exc).__name__}: {exc})"


def decide_stop(
    payload: dict[str, Any],
    project: Project,
    stop: StopInput,
    current: LoopState,
    early: Early | None = None,
    started: float | None = None,
) -> HookReply | None:
    """An active loop's Stop, its state sound: measure the claim if there is one, decide, store, log.
    `started`: when the hook began (`time.monotonic`), which bounds what it may still wait for."""
    message = stop.last_assistant_message
    if message is None:  # a CLI too old to send it: read from the transcript
        from tiergate import transcript

        message = transcript.last_assistant_text(stop.transcript_path)
    claim, alive, gone = _claim(payload, project, current, message)
    background = background_work(payload)
    error = api_error(payload)
    quiet = not background and error is None
    watches_goal = current.adopted == "goal" and quiet
    workspace, measured = _judged(project, current, claim, quiet, early, started)
    from tiergate.log import log_path

    event = Stop(
        message=message,
        claim=claim,
        fingerprint=workspace,
        prompt_id=stop.prompt_id,
        stop_hook_active=stop.stop_hook_active,
        background=background,
        api_error=error,
        claim_facts=measured.facts,
        claim_error=measured.problem,
        checks_running=measured.pending,
        gate=measured.gate,
        dirty=measured.dirty,
        policies=measured.policies,
        foreign_alive=alive,
        foreign_gone=gone,
        log=str(log_path(project)),
        goal=_goal(stop, message, started) if watches_goal else None,
    )
    return common.reply(common.apply(project, "Stop", stop.session_id, event))


def _judged(
    project: Project,
    current: LoopState,
    claim: ClaimCheck,
    quiet: bool,
    early: Early | None,
    started: float | None,
) -> tuple[str | None, Measured]:
    """The workspace's fingerprint at this Stop, and what was measured of it: the claim (when the turn
    ended `quiet`), or what an empty turn needs."""
    measured = Measured()
    workspace: str | None = None
    # The workspace the loop began on (the user's own edits are not the loop's), or its base commit.
    loopbase.judging(current.started_at)
    base = loopbase.change_base(project, current.start, current.base)
    if current.adopted == "goal" and quiet and current.phase == "passed":
        # Under a goal a stop on a workspace changed since the PASS is a claim again: fingerprint first.
        workspace = fingerprint.fingerprint(project.root, base, foreign.of_loop(current))
    if measures(current, claim, quiet, workspace):
        # A claim on a workspace already refuted is answered from the state alone: fingerprint first.
        if may_stand_refuted(current) and workspace is None:
            workspace = fingerprint.fingerprint(project.root, base, foreign.of_loop(current))
        if refutation_for(current, workspace) is None:
            measured = measure(project, current, early, started)
            workspace = measured.workspace
    if workspace is None:
        workspace = fingerprint.fingerprint(project.root, base, foreign.of_loop(current))
    empty = empty_turn(current, claim, workspace) if measured.facts is None else 0
    if empty > 0:
        measured = stalled_approach(project, current, empty)
    return workspace, measured


def _goal(stop: StopInput, message: str | None, started: float | None) -> GoalAtStop | None:
    """The adopted goal at this Stop, with the evaluator's answer to it (waited for: `handlers.goal`),
    never past `answer_by()` seconds into the hook: one Claude Code kills at its timeout decides nothing."""
    from tiergate.handlers import goal

    spent = 0.0 if started is None else time.monotonic() - started
    wait = max(0.0, min(goal.EVALUATION_WAIT, answer_by() - spent))
    return goal.at_stop(stop.transcript_path, message, wait)


def _claim(
    payload: dict[str, Any], project: Project, current: LoopState, message: str | None
) -> tuple[ClaimCheck, bool, str]:
    """The Stop's claim, and for an adopted loop whether its own plugin still runs (and if not, why)."""
    if current.adopted is None:
        return check_claim(message, current.promise), False, ""
    from tiergate.handlers import adoption

    claim = adoption.claim(payload, project, current, message)
    alive, gone = (False, "") if claim.claimed else adoption.foreign_at_stop(payload, project, current)
    return claim, alive, gone
