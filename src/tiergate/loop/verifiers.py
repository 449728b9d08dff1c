"""The verifier subagents: a SubagentStart recorded as a run of the pending verification (it gets the
evidence packet), and a SubagentStop judged: disqualified, sent back for a redo, or its verdict recorded."""

from __future__ import annotations

from dataclasses import replace

from tiergate.loop import messages, stalls
from tiergate.loop import packet as evidence
from tiergate.loop.events import Outcome, SubagentStart, SubagentStop
from tiergate.loop.logfields import run_facts, snapshot
from tiergate.loop.refutation import RefutedClaim, bind, verifier_refuted
from tiergate.loop.state import (
    REFUTATION_TEXT,
    VERIFIER_PREFIX,
    AttemptRecord,
    Limits,
    LoopState,
    RefutedWorkspace,
    Verification,
    VerifierRun,
)
from tiergate.loop.transitions import renew
from tiergate.loop.verdict import Judgement
from tiergate.text import plural


def is_verifier(agent_type: str) -> bool:
    return agent_type.startswith(VERIFIER_PREFIX)


def _pending(state: LoopState | None) -> Verification | None:
    if state is None or not state.active or state.phase != "verifying":
        return None
    return state.verification


def would_record(state: LoopState | None, agent_type: str) -> bool:
    """Whether a SubagentStart of `agent_type` would be recorded (and so needs a fingerprint)."""
    verification = _pending(state)
    return verification is not None and verification.agent == agent_type


def on_subagent_start(state: LoopState | None, ev: SubagentStart, now: float, limits: Limits) -> Outcome:
    if not is_verifier(ev.agent_type):
        return Outcome(state, "ignore", (f"not a tiergate verifier: {ev.agent_type!r}",))
    verification = _pending(state)
    if state is None or verification is None:
        reasons = ("unrequested: no verification pending in this session",)
        return Outcome(state, "unrequested", reasons, context=messages.UNREQUESTED)
    if ev.agent_type != verification.agent:
        reasons = (f"wrong-verifier: {ev.agent_type} started, {verification.agent} was requested",)
        context = messages.wrong_verifier(verification, ev.agent_type)
        return Outcome(state, "wrong-verifier", reasons, context=context)
    if any(run.agent_id == ev.agent_id for run in verification.runs):
        reasons = (f"verifier-started: {ev.agent_id} again",)
        return Outcome(state, "verifier-started", reasons, context=evidence.packet(state, verification))
    if len(verification.runs) >= limits.runs:
        started = plural(len(verification.runs), "verifier")
        reasons = (f"unrequested: {started} already started for {verification.id}",)
        return Outcome(state, "unrequested", reasons, context=messages.UNREQUESTED)
    run = VerifierRun(ev.agent_id, ev.agent_type, now, ev.fingerprint)
    runs = (*verification.runs, run)
    recorded = replace(state, verification=replace(verification, runs=runs, announced=True))
    reasons = (f"verifier-started: {ev.agent_type} ({ev.agent_id}) for verification {verification.id}",)
    return Outcome(recorded, "verifier-started", reasons, context=evidence.packet(recorded, verification))


def run_for(state: LoopState | None, agent_id: str) -> VerifierRun | None:
    """The recorded run of `agent_id` in the pending verification, if there is one."""
    verification = _pending(state)
    if verification is None:
        return None
    return next((run for run in verification.runs if run.agent_id == agent_id), None)


def on_subagent_stop(state: LoopState | None, ev: SubagentStop, now: float, limits: Limits) -> Outcome:
    if not ev.agent_type.strip():
        return Outcome(
            state, "ignore", ("phantom: a SubagentStop with an empty agent_type (an internal fork)",)
        )
    run = run_for(state, ev.agent_id)
    if state is None or run is None:
        reasons = (f"unmatched: no SubagentStart of {ev.agent_id} while a verification was pending",)
        return Outcome(state, "ignore", reasons)
    verification = state.verification
    assert verification is not None
    disqualified = _disqualification(verification, run, ev)
    if disqualified is not None:
        closed = snapshot(verification, "DISQUALIFIED", **run_facts(run, now, ev.model))
        outcome = renew(state, now, limits, disqualified, closed)
        return replace(outcome, message=messages.disqualified_message(run, disqualified))
    judgement = ev.judgement or Judgement(None, ("tiergate could not read your final message",))
    moved = _moved_by_others(run, ev)
    if not judgement.accepted:
        if run.redos < limits.redos:
            # Sent back, it verifies the workspace as it is now: what others changed is not its doing.
            rerun = run if moved is None else replace(run, fingerprint=ev.fingerprint)
            return _noted(_redo(state, verification, rerun, judgement, limits), moved)
        return _noted(_record_verdict(state, run, judgement, ev, now, None), moved)
    # A verdict stands for the workspace its verifier was given: a PASS on a workspace others changed
    # since does not finalize the new one (the next Stop sees the difference).
    judged = ev.fingerprint if moved is None else run.fingerprint
    return _noted(_record_verdict(state, run, judgement, ev, now, judged), moved)


def _workspace_moved(run: VerifierRun, ev: SubagentStop) -> bool:
    return ev.fingerprint is not None and run.fingerprint is not None and ev.fingerprint != run.fingerprint


def _moved_by_others(run: VerifierRun, ev: SubagentStop) -> str | None:
    """Why the workspace changed under a verifier that cannot have changed it, or None."""
    return messages.moved_note(run, ev.changes) if _workspace_moved(run, ev) and ev.ran_nothing else None


def _noted(outcome: Outcome, note: str | None) -> Outcome:
    if note is None:
        return outcome
    return replace(outcome, reasons=(f"workspace-moved: {note}", *outcome.reasons))


def _disqualification(verification: Verification, run: VerifierRun, ev: SubagentStop) -> str | None:
    """Why this verifier's verdict cannot count whatever it says, or None. A changed workspace is held
    against the verifier only when it could have changed it: when its transcript shows no command, the
    change was someone else's (the main agent while a background verifier runs, the user, a watcher)."""
    if _workspace_moved(run, ev) and not ev.ran_nothing:
        return messages.disqualified_note(run, ev.changes)
    if ev.model is not None and weaker_model(ev.model, verification.model):
        return messages.weaker_model_note(run, ev.model, verification.model)
    return None


# Model families by strength: a verifier on a weaker model than its tier asks for does not count.
_MODEL_RANK = {"haiku": 1, "sonnet": 2, "opus": 3}


def weaker_model(model: str, requested: str) -> bool:
    """Whether `model` (a model id such as claude-haiku-5-5) is of a weaker family than `requested`.
    A model of no known family is given the benefit of the doubt."""
    ran = next((rank for family, rank in _MODEL_RANK.items() if family in model.lower()), None)
    wanted = _MODEL_RANK.get(requested.lower())
    return ran is not None and wanted is not None and ran < wanted


def _redo(
    state: LoopState, verification: Verification, run: VerifierRun, judgement: Judgement, limits: Limits
) -> Outcome:
    again = replace(run, redos=run.redos + 1)
    runs = tuple(again if r.agent_id == run.agent_id else r for r in verification.runs)
    updated = replace(state, verification=replace(verification, runs=runs))
    reasons = tuple(f"redo: {problem}" for problem in judgement.problems)
    text = messages.redo(verification, judgement.problems, again.redos, limits.redos)
    return Outcome(updated, "redo", reasons, redo=text)


def _record_verdict(
    state: LoopState,
    run: VerifierRun,
    judgement: Judgement,
    ev: SubagentStop,
    now: float,
    fingerprint: str | None,
) -> Outcome:
    """The verification is over: PASS ends the work; FAIL and INCOMPLETE reopen it with feedback. A
    judgement not accepted (its redos spent) is forced to INCOMPLETE."""
    verification = state.verification
    assert verification is not None
    forced, model = not judgement.accepted, ev.model
    verdict = "INCOMPLETE" if forced or judgement.verdict is None else judgement.verdict.verdict
    closed = (snapshot(verification, verdict, **run_facts(run, now, model)),)
    message = messages.verdict_message(verification, verdict, forced)
    reasons: tuple[str, ...] = (f"verdict: {verdict} from {run.agent_type} ({run.agent_id})",)
    if forced:
        reasons += tuple(f"unaccepted: {problem}" for problem in judgement.problems)
    if verdict == "PASS":
        attempt = AttemptRecord(state.item, True, f"{verification.id}: PASS", fingerprint=fingerprint)
        passed = replace(
            state,
            phase="passed",
            verification=None,
            verdict=verdict,
            verified_fingerprint=fingerprint,
            attempts=(*state.attempts, attempt),
        )
        return Outcome(passed, "verdict", reasons, message=message, verifications=closed)
    feedback = messages.verdict_feedback(verification, judgement, forced)
    critique = judgement.verdict.critique if judgement.verdict is not None else ""
    why = f"{verification.id} {verdict}: {critique or '; '.join(judgement.problems) or 'no critique'}"
    attempt = AttemptRecord(
        state.item,
        False,
        messages.cut(why, 500),
        stalls.signature(critique=f"{verdict} {critique}"),
        fingerprint,
        "verifier",
    )
    reopened = replace(state, phase="working", verification=None, verdict=verdict)
    judged = fingerprint or verification.fingerprint
    if not forced and judged is not None:
        label = f"verification {verification.id} ({verdict})"
        text = messages.fit(feedback, REFUTATION_TEXT)
        refuted = RefutedWorkspace(
            judged, state.task, "verifier", label, text, attempt.signature, attempt.reason, ev.dirty
        )
        reopened = bind(reopened, refuted)
    refuted_claim = RefutedClaim(attempt, "verdict", reasons, feedback, ev.dirty)
    return verifier_refuted(reopened, refuted_claim, ev.policies, now, message, closed)
