"""The loop's moves at a Stop, shared by the decision and the refutations: block the stop (counted
against the no-progress limit), send Claude back to work, request a verification (again), block on an
internal error, halt."""

from __future__ import annotations

from dataclasses import replace

from tiergate.loop import messages
from tiergate.loop.claims import claim_evidence, claim_types
from tiergate.loop.events import Moment, Outcome
from tiergate.loop.logfields import gate_logged, snapshot
from tiergate.loop.state import Limits, LoopState, Verification


def send_back(state: LoopState, at: Moment, decision: str, reasons: tuple[str, ...]) -> Outcome:
    """Block the stop and send Claude back to work for one more iteration, unless the cap is reached."""
    if state.iteration >= state.max_iterations:
        return halt(state, at.now, f"the iteration cap is reached ({state.iteration}/{state.max_iterations})")
    advanced = replace(state, iteration=state.iteration + 1, feedback=None)
    text = messages.back_to_work(advanced, state.feedback, at.stop.claim.notes)
    counted = (*reasons, f"iteration {advanced.iteration}/{state.max_iterations}")
    return block_stop(advanced, at, Outcome(advanced, decision, counted, block=text))


def block_stop(state: LoopState, at: Moment, outcome: Outcome) -> Outcome:
    """Every Stop block goes through here, to count the blocks in a row that find the workspace
    unchanged; too many halt the loop instead."""
    fingerprint = at.stop.fingerprint
    unchanged = fingerprint is not None and fingerprint == state.last_block_fingerprint
    idle = state.idle_blocks + 1 if unchanged else 0
    if idle >= at.limits.idle_blocks:
        return halt(state, at.now, messages.idle_reason(idle + 1))
    return replace(outcome, state=replace(state, idle_blocks=idle, last_block_fingerprint=fingerprint))


def halt(state: LoopState, now: float, why: str, detail: str | None = None) -> Outcome:
    """End the loop with the reason; the stop goes through and the user is told why and what to do,
    in Claude Code and through the alert command."""
    halted = replace(state, phase="halted", ended_at=now, end_reason=why, verification=None)
    open_ = () if state.verification is None else (snapshot(state.verification, "VOID", why=why),)
    message = messages.halted_message(halted, why)
    if detail:
        message = f"{message}\n{detail}"
    return Outcome(halted, "halt", (f"halt: {why}",), message=message, verifications=open_, alert=message)


def request_again(state: LoopState, at: Moment, note: str, closed: dict[str, object]) -> Outcome:
    """`renew` at a Stop: the directive to spawn the verifier goes out at once."""
    outcome = renew(state, at.now, at.limits, note, closed, announced=True)
    requeued = outcome.state
    if outcome.decision == "halt" or requeued is None or requeued.verification is None:
        return outcome
    block = messages.spawn_directive(requeued, requeued.verification, ())
    return block_stop(requeued, at, replace(outcome, decision="spawn", block=block))


def renew(
    state: LoopState,
    now: float,
    limits: Limits,
    note: str,
    closed: dict[str, object],
    *,
    announced: bool = False,
) -> Outcome:
    """Request the pending verification again (a new id, no runs), or halt when that was done enough.
    `closed` is the log's snapshot of the verification that ends here. From a SubagentStop (not
    `announced`) the directive goes out at the next Stop."""
    old = state.verification
    assert old is not None
    if old.request >= limits.requests:
        why = f"verification was requested {old.request} times without a usable verdict ({note})"
        return replace(halt(replace(state, verification=None), now, why), verifications=(closed,))
    number = state.verifications + 1
    renewed = replace(
        old,
        id=f"v{number}",
        request=old.request + 1,
        runs=(),
        reminders=0,
        requested_at=now,
        note=note,
        announced=announced,
    )
    requeued = replace(state, verification=renewed, verifications=number)
    reasons = (
        f"request-again: {note}",
        f"verification {renewed.id} replaces {old.id} (request {renewed.request}/{limits.requests})",
    )
    snapshots = (closed, snapshot(renewed, "requested"))
    return Outcome(requeued, "request-again", reasons, verifications=snapshots)


def request_verification(state: LoopState, at: Moment) -> Outcome:
    """A claim measured and not refuted by the gate: its verification requested, the verifier spawned."""
    ev, now = at.stop, at.now
    facts = ev.claim_facts
    assert facts is not None
    kinds = claim_types(state.task, ev.message)
    labels = tuple(dict.fromkeys((*facts.tier_evidence, *(label for label, _ in claim_evidence(kinds)))))
    number = state.verifications + 1
    verification = Verification(
        id=f"v{number}",
        tier=facts.tier,
        agent=facts.agent,
        model=facts.model,
        evidence=labels,
        claim_types=tuple(str(k) for k in kinds),
        reasons=facts.reasons,
        relative_cost=facts.relative_cost,
        thorough_cost=facts.thorough_cost,
        files_changed=facts.files_changed,
        lines_changed=facts.lines_changed,
        paths=facts.paths,
        requested_at=now,
        checks=ev.gate.packet if ev.gate is not None else (),
        fingerprint=ev.fingerprint,
        marks=facts.marks,
        lead=ev.gate.lead if ev.gate is not None else (),
        tests=ev.gate.tests if ev.gate is not None else (),
        test_files=facts.test_files,
        test_changes=facts.test_changes,
        mutants=facts.mutants,
    )
    verifying = replace(
        state,
        phase="verifying",
        verification=verification,
        verifications=number,
        tier=facts.tier,
        verdict=None,
        feedback=None,
        claim_errors=0,
    )
    reasons = (
        messages.claim_reason(state),
        f"claim-type: {', '.join(verification.claim_types)}",
        *facts.reasons,
        *(ev.gate.reasons if ev.gate is not None else ()),
        *ev.claim.notes,
    )
    outcome = Outcome(
        verifying,
        "spawn",
        reasons,
        block=messages.spawn_directive(verifying, verification, ev.claim.notes),
        verifications=(snapshot(verification, "requested"),),
        logged=gate_logged(ev.gate),
    )
    return block_stop(verifying, at, outcome)


def checks_running(state: LoopState, where: str) -> Outcome:
    """Block a claim whose checks still run in the background: not refuted, not passed, no iteration
    spent and no attempt counted (tiergate's own lack of time is no evidence either way); the next Stop
    reads their result. Not an idle block either: the checks move on while the workspace stays put."""
    reasons = (
        messages.claim_reason(state),
        "checks-running: the claim's checks run in the background; it is judged once they have finished",
    )
    running = replace(state, claim_errors=0)
    return Outcome(running, "checks-running", reasons, block=messages.checks_running(running, where))


def claim_error(state: LoopState, at: Moment, error: str) -> Outcome:
    errors = state.claim_errors + 1
    if errors >= at.limits.claim_errors:
        return halt(
            state, at.now, f"tiergate could not check the claim {errors} times in a row (last: {error})"
        )
    failed = replace(state, claim_errors=errors)
    reasons = (f"claim-check-error: {error}; an active loop blocks rather than pass an unchecked claim",)
    outcome = Outcome(
        failed,
        "claim-error",
        reasons,
        block=messages.claim_error(failed, error),
        message=messages.claim_error_message(error, at.stop.log),
    )
    return block_stop(failed, at, outcome)
