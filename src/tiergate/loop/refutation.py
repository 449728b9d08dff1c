"""Refuted claims: a refutation bound to the workspace it judged (and found again for it), the gate's
refutation at a Stop, a verifier's at its SubagentStop, and the intervention each one gets (retry, change
of approach, rollback, halt); then the outcome once the adapter rolled the workspace back.

Which outcomes bind to their workspace: the note above `tiergate.loop.state.REFUTED_KEPT`.
"""

from __future__ import annotations

from dataclasses import replace

from tiergate.frozen import frozen
from tiergate.loop import features, interventions, messages, stalls
from tiergate.loop.events import Moment, Outcome
from tiergate.loop.logfields import gate_logged
from tiergate.loop.state import (
    REFUTATION_TEXT,
    REFUTED_KEPT,
    AttemptRecord,
    LoopState,
    Policies,
    RefutedWorkspace,
    next_approach,
)
from tiergate.loop.transitions import halt, send_back
from tiergate.text import quote_inline


def may_stand_refuted(state: LoopState) -> bool:
    """Whether some refutation is bound to a workspace of this task: then a claim's Stop fingerprints
    the workspace first, and measures nothing if it is that one."""
    return any(r.task == state.task for r in state.refuted)


def refutation_for(state: LoopState, fingerprint: str | None) -> RefutedWorkspace | None:
    """The refutation that stands for this workspace and task, if any (an unknown workspace: none)."""
    if fingerprint is None:
        return None
    matches = (r for r in reversed(state.refuted) if r.fingerprint == fingerprint and r.task == state.task)
    return next(matches, None)


def bind(state: LoopState, refuted: RefutedWorkspace) -> LoopState:
    """Remember `refuted` for its workspace (the newest replaces an older one of the same workspace)."""
    kept = tuple(r for r in state.refuted if (r.fingerprint, r.task) != (refuted.fingerprint, refuted.task))
    return replace(state, refuted=(*kept, refuted)[-REFUTED_KEPT:])


@frozen
class RefutedClaim:
    """A refuted claim (or a stalled approach): the attempt it records, the decision's name and reasons,
    what Claude is told (`head`, then the intervention's message, then `body`), whether the workspace
    is dirty, and the stall the caller found (empty turns)."""

    attempt: AttemptRecord
    decision: str
    reasons: tuple[str, ...]
    body: str
    dirty: bool | None
    head: str = ""
    stall: stalls.Stall | None = None


def gate_refuted(state: LoopState, at: Moment) -> Outcome:
    """The checks refute the claim: no verifier is spent; Claude gets the failures and the intervention."""
    ev = at.stop
    gate = ev.gate
    assert gate is not None
    failing = dict(gate.failing)
    named = ", ".join(quote_inline(name) for name in failing)  # the project's config names the checks
    why = f"the gate: {gate.headline}" + (f" Failing: {named}." if failing else "")
    broke = features.broken(state.features, state.done, tuple(failing))
    if broke:
        done = "features already done" if len(broke) > 1 else "a feature already done"
        why = f"{why} It breaks {done}: {', '.join(broke)}."
    attempt = AttemptRecord(
        state.item, False, messages.cut(why, 500), stalls.signature(checks=failing), ev.fingerprint, "gate"
    )
    reasons = (
        messages.claim_reason(state),
        "gate-refuted: the project's checks refute the claim; no verifier is spawned",
        *(("regression: breaks " + ", ".join(broke),) if broke else ()),
        *gate.reasons,
    )
    regression = f"\nThis change breaks {', '.join(broke)}, already done: fix that first." if broke else ""
    bound = state
    if gate.binds and ev.fingerprint is not None:
        text = messages.fit(f"{regression.strip()}\n\n{gate.report}".strip(), REFUTATION_TEXT)
        refuted = RefutedWorkspace(
            ev.fingerprint, state.task, "gate", "the gate", text, attempt.signature, attempt.reason, ev.dirty
        )
        bound = bind(state, refuted)
    head = f"{messages.GATE_REFUTED}{regression}"
    refuted_claim = RefutedClaim(attempt, "gate-refuted", reasons, gate.report, ev.dirty, head)
    outcome = refute_at_stop(bound, at, refuted_claim)
    return _told(replace(outcome, logged=gate_logged(gate)), gate.notice)


def _told(outcome: Outcome, notice: str) -> Outcome:
    """`outcome`, with `notice` added to what the user is told (if there is one)."""
    if not notice:
        return outcome
    return replace(outcome, message=f"{outcome.message}\n{notice}" if outcome.message else notice)


def refuted_again(state: LoopState, at: Moment, standing: RefutedWorkspace) -> Outcome:
    """A claim on a workspace already refuted: the same refutation at once, without a gate run or a
    verifier. It counts as another refuted attempt, so the interventions (the unchanged-claim stall
    among them) end a loop that keeps claiming on the same files."""
    attempt = AttemptRecord(
        state.item, False, standing.reason, standing.signature, standing.fingerprint, standing.by
    )
    reasons = (
        messages.claim_reason(state),
        f"refuted-again: the workspace is unchanged since {standing.label} refuted it; no checks run, "
        "no verifier spawned",
    )
    head = messages.refuted_again(standing)
    refuted_claim = RefutedClaim(attempt, "refuted-again", reasons, standing.text, standing.dirty, head)
    return refute_at_stop(state, at, refuted_claim)


def refute_at_stop(state: LoopState, at: Moment, refuted: RefutedClaim) -> Outcome:
    """A claim refuted at its Stop (or a stalled approach): the attempt recorded, the intervention
    chosen, and Claude sent back with what `refuted` says (or the loop halted)."""
    chosen, choice, why_chosen = _intervene(state, refuted, at.stop.policies)
    reasons = refuted.reasons
    if isinstance(choice, interventions.Halt):
        halted = halt(chosen, at.now, choice.reason, choice.message)
        return replace(halted, reasons=(*reasons, *why_chosen, *halted.reasons), intervention="halt")
    body = refuted.body
    feedback = f"{refuted.head}\n{choice.message}" + (f"\n\n{body}" if body else "")
    outcome = send_back(replace(chosen, feedback=feedback), at, refuted.decision, (*reasons, *why_chosen))
    if outcome.decision == "halt":
        return outcome
    return replace(outcome, rollback=_rollback_why(choice), intervention=_name(choice))


def verifier_refuted(
    state: LoopState,
    refuted: RefutedClaim,
    policies: Policies,
    now: float,
    message: str,
    closed: tuple[dict[str, object], ...],
) -> Outcome:
    """A verifier refuted the claim: the intervention's message, then `refuted.body`, go to Claude at
    the next Stop."""
    chosen, choice, why_chosen = _intervene(state, refuted, policies)
    reasons = refuted.reasons
    if isinstance(choice, interventions.Halt):
        halted = halt(chosen, now, choice.reason, choice.message)
        return replace(
            halted,
            reasons=(*reasons, *why_chosen, *halted.reasons),
            verifications=closed,
            intervention="halt",
        )
    reopened = replace(chosen, feedback=f"{choice.message}\n\n{refuted.body}")
    return Outcome(
        reopened,
        refuted.decision,
        (*reasons, *why_chosen),
        message=message,
        verifications=closed,
        rollback=_rollback_why(choice),
        intervention=_name(choice),
    )


def _intervene(
    state: LoopState, refuted: RefutedClaim, policies: Policies
) -> tuple[LoopState, interventions.Intervention, tuple[str, ...]]:
    """Record the refuted attempt and choose the intervention (the seed's table) with the stalls it
    sees; `refuted.stall` is one the caller found (empty turns), which is what the attempt is."""
    attempt, dirty, stall = refuted.attempt, refuted.dirty, refuted.stall
    earlier = _refutations(state.attempts)
    record = (*state.attempts, attempt)
    found = stalls.detect(
        stalls.Signals(
            refutations=_refutations(record),
            iteration=state.iteration,
            max_iterations=state.max_iterations,
        ),
        policies.stalls,
    )
    unchanged = None if stall is not None else stalls.unchanged_claim(attempt.fingerprint, earlier)
    found = (*found, *(s for s in (unchanged, stall) if s is not None))
    plain = tuple(interventions.Attempt(a.item, a.passed, a.reason) for a in record)
    choice = interventions.choose(plain, attempt.item, bool(dirty), found, policies.interventions)
    recorded = replace(state, attempts=record)
    if isinstance(choice, interventions.ChangeApproach | interventions.RollbackThenChangeApproach):
        recorded = next_approach(recorded)
        if state.features and not recorded.item:
            choice = _no_feature_left(choice, plain, bool(dirty))
    why = (*(s.reason for s in found), f"intervention: {_name(choice)}", *choice.reasons)
    if dirty is None:
        why = (*why, "dirty: unknown (no green point could be read); treated as clean")
    return recorded, choice, tuple(dict.fromkeys(why))


def _no_feature_left(
    choice: interventions.ChangeApproach | interventions.RollbackThenChangeApproach,
    record: tuple[interventions.Attempt, ...],
    dirty: bool,
) -> interventions.Halt:
    """An autopilot that gives up its last feature has nothing to change to: it halts."""
    why = f"no feature left: {choice.item}, the last one, was given up"
    skipped = (*interventions.skipped_items(record), choice.item)
    done = interventions.done_items(record)
    message = (
        f"tiergate halted the autopilot: {why}. Given up: {', '.join(skipped)}."
        + (f" Done: {', '.join(done)}." if done else "")
        + " The workspace is left as it is; `tiergate backups` lists any saved work."
    )
    return interventions.Halt(why, skipped, dirty, message, (*choice.reasons, why))


def _refutations(record: tuple[AttemptRecord, ...]) -> tuple[stalls.Refutation, ...]:
    """The refuted claims since the last pass, as stall detection reads them."""
    since: list[stalls.Refutation] = []
    for a in record:
        since = [] if a.passed else [*since, stalls.Refutation(a.signature, a.fingerprint, a.reason)]
    return tuple(since)


def _name(choice: interventions.Intervention) -> str:
    names = {
        interventions.Retry: "retry",
        interventions.ChangeApproach: "change-approach",
        interventions.RollbackThenChangeApproach: "rollback-then-change-approach",
        interventions.Halt: "halt",
    }
    return names[type(choice)]


def _rollback_why(choice: interventions.Intervention) -> str | None:
    if isinstance(choice, interventions.RollbackThenChangeApproach):
        return f"{choice.item} refuted {choice.attempts} times on a dirty workspace; changing approach"
    if isinstance(choice, interventions.Retry) and choice.rollback_first:
        return f"retry {choice.attempt} of {choice.item} from the last green point (rollback_on_retry)"
    return None


def after_rollback(
    outcome: Outcome,
    now: float,
    *,
    backup: str | None,
    point: str,
    ref: str | None = None,
    error: str | None = None,
) -> Outcome:
    """The outcome once the adapter rolled back (or failed to): the backup is named to Claude and in
    the reasons; a rollback that could not be made halts the loop, the workspace left as it is."""
    state = outcome.state
    assert state is not None
    if error is not None:
        why = f"the rollback to the last green point ({point}) failed: {error}"
        halted = halt(replace(state, feedback=None), now, why)
        return replace(
            halted, reasons=(*outcome.reasons, *halted.reasons), verifications=outcome.verifications
        )
    if backup is None:
        note = f"Nothing to roll back: the workspace already is the last green point ({point})."
        reason = f"rollback: the workspace already is the last green point ({point}); nothing saved"
    else:
        note = (
            f"tiergate rolled the workspace back to the last green point ({point}). Your changes are saved "
            f"as backup {backup}: `tiergate restore {backup}` brings them back."
        )
        reason = f"rollback: to {point}; the work is saved as backup {backup}"
    reasons = (*outcome.reasons, reason)
    rolled = (("rollback", {"to": point, "backup": backup, "backup_ref": ref}),)
    outcome = replace(outcome, logged=(*outcome.logged, *rolled))
    if outcome.block is not None:
        return replace(outcome, block=f"{note}\n\n{outcome.block}", reasons=reasons, rollback=None)
    feedback = f"{note}\n\n{state.feedback}" if state.feedback else note
    return replace(outcome, state=replace(state, feedback=feedback), reasons=reasons, rollback=None)
