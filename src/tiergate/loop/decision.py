"""The loop's decision: a loop's state and one event in; what to answer, the new state and why, out.
The phases (`working` -> `verifying` -> `passed`, or `halted`, `cancelled`), what each event does in
each, and why a Stop after an API error, a block and an internal error are handled as they are:
docs/judging.md, "The loop's phases". Pure: no I/O and no clock; the adapters (`tiergate.handlers`)
measure, fingerprint and read transcripts, and pass the facts in the events.
"""

from __future__ import annotations

from dataclasses import replace

from tiergate import TYPE_CHECKING
from tiergate.loop import messages, stalls
from tiergate.loop.events import (
    Cancel,
    Compaction,
    Event,
    Moment,
    Outcome,
    SessionEnd,
    Stop,
    StopFailure,
    SubagentStart,
    SubagentStop,
    TaskNotification,
    UserPrompt,
)
from tiergate.loop.logfields import snapshot
from tiergate.loop.refutation import RefutedClaim, gate_refuted, refutation_for, refute_at_stop, refuted_again
from tiergate.loop.state import LIMITS, AttemptRecord, Limits, LoopState, next_approach
from tiergate.loop.transitions import (
    block_stop,
    checks_running,
    claim_error,
    halt,
    request_again,
    request_verification,
    send_back,
)
from tiergate.text import clip, plural

if TYPE_CHECKING:
    from tiergate.loop.claims import ClaimCheck


def decide(state: LoopState | None, event: Event, now: float, limits: Limits = LIMITS) -> Outcome:
    """The loop's answer to `event` at time `now` (seconds since the epoch)."""
    if isinstance(event, Stop):
        return _on_stop(state, Moment(event, now, limits))
    if isinstance(event, SubagentStart | SubagentStop):
        # Imported here: the verifiers' half of the loop (their verdicts, the evidence packet) is no
        # part of a Stop's or a prompt's start-up.
        from tiergate.loop import verifiers

        if isinstance(event, SubagentStart):
            return verifiers.on_subagent_start(state, event, now, limits)
        return verifiers.on_subagent_stop(state, event, now, limits)
    if isinstance(event, Cancel):
        return _on_cancel(state, event, now)
    return _on_notice(state, event, now)


# Stop ---------------------------------------------------------------------------------------------------


def _on_stop(state: LoopState | None, at: Moment) -> Outcome:
    if state is None or not state.active:
        return Outcome(state, "pass", ("no active loop in this session",))
    if state.interrupted is None:
        return _stop_active(state, at)
    # A recorded API error is good for one Stop at most, whatever is decided here.
    error, turn = state.interrupted, state.interrupted_turn
    state = replace(state, interrupted=None, interrupted_turn=None)
    exempt, why = _exempt_after_failure(error, turn, at.stop)
    if exempt:
        return Outcome(state, "pass", (why,), message=messages.interrupted_message(state, error))
    outcome = _stop_active(state, at)
    return replace(outcome, reasons=(why, *outcome.reasons))


def _stop_active(state: LoopState, at: Moment) -> Outcome:
    ev, now = at.stop, at.now
    never_blocked = _never_blocked(state, ev, now)
    if never_blocked is not None:
        return never_blocked
    if ev.goal is not None:
        # Claude Code's /goal, adopted: a goal that ended other than met ends the loop (`goalloop`),
        # unless tiergate's own checks refute this very claim: the transcript's word never outweighs them.
        from tiergate.loop.goalloop import goal_ended, goal_notes, seen

        state = seen(state, ev.goal)
        ended = goal_ended(state, ev.goal, now)
        if ended is not None and not _refuted_here(state, ev):
            return ended
        outcome = _stop_phase(state, at)
        return replace(outcome, reasons=(*outcome.reasons, *goal_notes(state, ev.goal, ended)))
    return _stop_phase(state, at)


def _refuted_here(state: LoopState, ev: Stop) -> bool:
    """Whether tiergate's own evidence refutes this Stop's claim: the gate, or a refutation bound to the
    workspace."""
    if state.phase != "working" or not ev.claim.claimed:
        return False
    gate_refutes = ev.claim_facts is not None and ev.gate is not None and ev.gate.refuted
    return gate_refutes or refutation_for(state, ev.fingerprint) is not None


def _stop_phase(state: LoopState, at: Moment) -> Outcome:
    if state.phase == "working":
        return _stop_working(state, at)
    if state.phase == "verifying":
        return _stop_verifying(state, at)
    return _stop_passed(state, at)


def _exempt_after_failure(error: str, turn: str | None, ev: Stop) -> tuple[bool, str]:
    """Whether an API error (`error`, ending the turn `turn`) lets this Stop through, and why. When the
    turn cannot be matched to this Stop (no prompt id on one side), a claim is checked as usual, never
    let through on a guess, and a Stop that claims nothing goes through (docs/judging.md, "API errors")."""
    if turn is not None and ev.prompt_id is not None:
        if turn == ev.prompt_id:
            return True, f"api-error: an API error ({error}) ended this turn; such a stop is never blocked"
        return False, (
            f"api-error-later-turn: the API error ({error}) ended an earlier turn, not this one; this stop "
            "is decided as usual"
        )
    if ev.claim.claimed:
        return False, (
            f"api-error-unidentified: an API error ({error}) ended a turn this stop cannot be matched to; "
            "its claim is checked as usual, never let through on a guess"
        )
    return True, (
        f"api-error: an API error ({error}) ended the last turn and no prompt came since; a stop without "
        "a claim goes through"
    )


def _never_blocked(state: LoopState, ev: Stop, now: float) -> Outcome | None:
    """The stops that go through whatever the phase: one reporting an API error itself, past the
    budget, and while background work is in flight."""
    if ev.api_error:
        return Outcome(
            _unpassed(state, ev),
            "pass",
            (f"api-error: the turn ended on an API error ({ev.api_error}); such a stop is never blocked",),
            message=messages.interrupted_message(state, ev.api_error),
        )
    if now - state.started_at > state.budget:
        return halt(state, now, messages.budget_reason(state, now))
    if ev.background:
        work = clip("; ".join(ev.background), 300)
        tasks = plural(len(ev.background), "task")
        reason = f"background-work: {tasks} in flight ({work}); the session is not done"
        return Outcome(_unpassed(state, ev), "pass", (reason,))
    return None


def _unpassed(state: LoopState, ev: Stop) -> LoopState:
    """A passed loop whose workspace changed since its PASS, at a stop let through unjudged: it is not
    passed any more (its PASS was for another workspace), and its next stop says so."""
    if state.phase != "passed" or not reopens(state, ev.fingerprint):
        return state
    return replace(state, phase="working", feedback=messages.changed_after_pass(state))


def wants_claim_facts(state: LoopState | None, claim: ClaimCheck, fingerprint: str | None = None) -> bool:
    """Whether a Stop with `claim` needs the change measured (the costly part of a Stop), unless its
    workspace is one already refuted (`refutation_for`). A passed goal loop claims again on a workspace
    changed since its PASS (`fingerprint`: the workspace now, when known): every stop under a goal is a
    claim."""
    if state is None or not state.active or not claim.claimed:
        return False
    if state.phase == "passed" and state.adopted == "goal":
        return reopens(state, fingerprint)
    return state.phase == "working"


def reopens(state: LoopState, fingerprint: str | None) -> bool:
    """Whether the workspace at a Stop is not the one a passed loop's verifier passed."""
    known = fingerprint is not None and state.verified_fingerprint is not None
    return known and fingerprint != state.verified_fingerprint


def _stop_working(state: LoopState, at: Moment) -> Outcome:
    ev = at.stop
    if ev.claim.claimed:
        return _stop_claim(replace(state, empty_turns=0), at)
    if state.adopted is not None and not state.feedback:
        # The user's loop, adopted: its non-claim stops are its own while it runs (`adoption`).
        from tiergate.loop.adoption import adopted_stop

        adopted = adopted_stop(state, ev, at.now)
        if adopted is not None:
            return adopted
    reasons: tuple[str, ...]
    if state.feedback:
        reasons = ("feedback: the last verification did not pass; its findings go back to Claude",)
        return send_back(replace(state, empty_turns=0), at, "feedback", reasons)
    reasons = ("no-claim: the final message does not end with the promise", *ev.claim.notes)
    count = empty_turn(state, ev.claim, ev.fingerprint)
    stall = stalls.empty_turn_stall(count, ev.policies.stalls)
    if stall is not None:
        return _empty_turns(state, at, stall, reasons)
    return send_back(replace(state, empty_turns=count), at, "continue", reasons)


def _stop_claim(state: LoopState, at: Moment) -> Outcome:
    """A completion claim: refuted again when its workspace already was, refuted by the gate, or sent
    to a verifier."""
    ev = at.stop
    standing = refutation_for(state, ev.fingerprint)
    if standing is not None:
        return refuted_again(state, at, standing)
    if ev.checks_running is not None:
        return checks_running(state, ev.checks_running)
    if ev.claim_facts is not None and ev.gate is not None and ev.gate.refuted:
        return gate_refuted(state, at)
    if ev.claim_facts is not None:
        return request_verification(state, at)
    return claim_error(state, at, ev.claim_error or "the change was not measured")


def empty_turn(state: LoopState, claim: ClaimCheck, fingerprint: str | None) -> int:
    """How many empty turns in a row this Stop makes: a working turn that ends without a claim, with no
    feedback pending, on a workspace unchanged since the last Stop (0: this one is not empty)."""
    if not state.active or state.phase != "working" or claim.claimed or state.feedback:
        return 0
    unchanged = fingerprint is not None and fingerprint == state.last_block_fingerprint
    return state.empty_turns + 1 if unchanged else 0


def _empty_turns(state: LoopState, at: Moment, stall: stalls.Stall, reasons: tuple[str, ...]) -> Outcome:
    """Empty turns are a stall of the approach: answered like a refuted attempt (change of approach,
    rolled back first when the workspace is dirty, or halt), so that a loop going nowhere moves on."""
    ev = at.stop
    attempt = AttemptRecord(state.item, False, stall.reason, "empty-turns", ev.fingerprint, "stall")
    head = messages.empty_turns(stall.reason)
    refuted = RefutedClaim(attempt, "empty-turns", reasons, "", ev.dirty, head, stall)
    return refute_at_stop(replace(state, empty_turns=0), at, refuted)


def _stop_verifying(state: LoopState, at: Moment) -> Outcome:
    ev, now, limits = at.stop, at.now, at.limits
    verification = state.verification
    assert verification is not None
    if verification.runs:
        youngest = max(run.started_at for run in verification.runs)
        if ev.background is None and now - youngest < limits.verifier_timeout:
            return Outcome(state, "pass", ("verifier-running: a verifier started and may still be running",))
        ids = ", ".join(run.agent_id for run in verification.runs)
        note = messages.lost_note(verification, ids)
        return request_again(state, at, note, snapshot(verification, "VOID", why=note))
    if not verification.announced:
        announced = replace(state, verification=replace(verification, announced=True))
        outcome = Outcome(
            announced,
            "spawn",
            (f"spawn: verification {verification.id} requested again: {verification.note}",),
            block=messages.spawn_directive(announced, verification, ()),
        )
        return block_stop(announced, at, outcome)
    if verification.reminders >= limits.reminders:
        reminders = plural(verification.reminders, "reminder")
        why = f"no verifier started for verification {verification.id} after {reminders}"
        return halt(state, now, why)
    reminded = replace(state, verification=replace(verification, reminders=verification.reminders + 1))
    reasons = (
        f"remind: verification {verification.id} is pending and no verifier started "
        f"(reminder {verification.reminders + 1}/{limits.reminders})",
    )
    outcome = Outcome(reminded, "remind", reasons, block=messages.reminder(reminded, limits.reminders))
    return block_stop(reminded, at, outcome)


def _stop_passed(state: LoopState, at: Moment) -> Outcome:
    ev = at.stop
    if reopens(state, ev.fingerprint):
        if state.adopted == "goal":
            # Under a goal this stop is itself the claim on the changed workspace: judged at once.
            reopened = replace(state, phase="working", verdict=None, verified_fingerprint=None)
            return _stop_claim(reopened, at)
        reopened = replace(state, phase="working", feedback=messages.changed_after_pass(state))
        reasons = ("changed-after-pass: the workspace is not the one the verifier passed",)
        return send_back(reopened, at, "feedback", reasons)
    if state.features and state.approach < len(state.features):
        return _next_feature(state, at)
    if state.adopted == "goal":
        from tiergate.loop.goal import still_held
        from tiergate.loop.goalloop import pending_reason

        if ev.goal is not None and still_held(ev.goal):
            # Claude Code's goal holds the session: the loop finishes when the goal does.
            return Outcome(state, "goal-pending", (pending_reason(ev.goal),))
    done = replace(state, ended_at=at.now, end_reason="verified: PASS")
    reasons = ("passed: the verifier's PASS stands for this workspace",)
    # The workspace is the one the verifier passed: it becomes the last green point.
    return Outcome(done, "finalize", reasons, message=messages.finished_message(state), green=True)


def _next_feature(state: LoopState, at: Moment) -> Outcome:
    """An autopilot's feature is done: its workspace becomes the green point and the next feature
    the task, instead of finalizing."""
    finished = state.item
    moved = next_approach(replace(state, phase="working", verdict=None, verified_fingerprint=None))
    note = f"{finished} is done: its checks and the regression suite passed and its verifier said PASS."
    reasons = (f"feature-done: {finished}; next feature {moved.item}",)
    outcome = send_back(replace(moved, feedback=note), at, "next-feature", reasons)
    if outcome.decision == "halt":
        return outcome
    return replace(outcome, green=True, message=f"tiergate autopilot: {finished} done; now {moved.item}")


# Other events -------------------------------------------------------------------------------------------


def _on_notice(
    state: LoopState | None,
    ev: StopFailure | UserPrompt | TaskNotification | Compaction | SessionEnd,
    now: float,
) -> Outcome:
    """The events that only tell the loop something: none blocks, and none ends it but an adopted goal
    that ended (`tiergate.loop.goalloop`)."""
    if state is None or not state.active:
        return Outcome(state, "ignore", ("no active loop in this session",))
    if isinstance(ev, StopFailure):
        return _on_stop_failure(state, ev)
    if isinstance(ev, UserPrompt | TaskNotification):
        return _on_prompt(state, ev, now)
    return _on_session_event(state, ev)


def _on_stop_failure(state: LoopState, ev: StopFailure) -> Outcome:
    turn = f"turn {ev.prompt_id}" if ev.prompt_id else "a turn the CLI did not identify"
    reasons = (f"api-error: {ev.error} ended {turn}; a stop of that turn goes through",)
    return Outcome(replace(state, interrupted=ev.error, interrupted_turn=ev.prompt_id), "recorded", reasons)


def _on_prompt(state: LoopState, ev: UserPrompt | TaskNotification, now: float) -> Outcome:
    """A new turn starts: an API error that ended an earlier one exempts none of its stops. Only the
    user speaking counts as activity for the no-progress limit."""
    fresh = replace(state, interrupted=None, interrupted_turn=None)
    dropped = (
        (f"api-error-dropped: the exemption for the API error ({state.interrupted}) ends with its turn",)
        if state.interrupted is not None
        else ()
    )
    if isinstance(ev, TaskNotification):
        reasons = ("task-notification: a background task reported back; not the user, so not activity",)
        return Outcome(fresh, "task-notification", (*reasons, *dropped))
    if ev.goal is not None:
        from tiergate.loop.goalloop import goal_ended, seen

        fresh = seen(fresh, ev.goal)
        ended = goal_ended(fresh, ev.goal, now)
        if ended is not None:
            return ended
    fresh = replace(fresh, idle_blocks=0, empty_turns=0, last_block_fingerprint=None)
    reasons = ("the user spoke: the no-progress count starts again",)
    return Outcome(fresh, "user-prompt", (*reasons, *dropped))


def _on_session_event(state: LoopState, ev: Compaction | SessionEnd) -> Outcome:
    """Nothing changes; the decision log shows that the loop saw it."""
    where = f"phase {state.phase}, iteration {state.iteration}/{state.max_iterations}"
    if isinstance(ev, Compaction):
        reason = (
            f"compaction ({ev.trigger}) at {where}: the loop is restated to Claude at the SessionStart "
            "that follows"
        )
        return Outcome(state, "compaction", (reason,))
    reason = f"session-end ({ev.reason}) at {where}: the loop stays as it is; resuming the session resumes it"
    return Outcome(state, "session-end", (reason,))


def _on_cancel(state: LoopState | None, ev: Cancel, now: float) -> Outcome:
    if state is None or not state.active:
        return Outcome(state, "ignore", ("no active loop to cancel",))
    why = f"cancelled by {ev.by}"
    cancelled = replace(state, phase="cancelled", ended_at=now, end_reason=why, verification=None)
    open_ = () if state.verification is None else (snapshot(state.verification, "VOID", why=why),)
    return Outcome(cancelled, "cancel", (why,), verifications=open_)
