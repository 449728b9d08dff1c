"""What the decision log keeps: of a decision, of a verification at one point of its life, of a
verifier run and of a gate run (`tiergate history` is derived from them)."""

from __future__ import annotations

from tiergate.loop.events import GateFacts, Outcome
from tiergate.loop.state import Verification, VerifierRun


def snapshot(verification: Verification, status: str, **extra: object) -> dict[str, object]:
    """What the decision log keeps of a verification at one point of its life, for `tiergate history`.

    `status` is "requested", a verdict (PASS, FAIL, INCOMPLETE), DISQUALIFIED, or VOID (it ended
    without a verdict: its verifier was lost, never started, or the loop ended first)."""
    return {
        "id": verification.id,
        "status": status,
        "tier": verification.tier,
        "agent": verification.agent,
        "model": verification.model,
        "claim_types": list(verification.claim_types),
        "files_changed": verification.files_changed,
        "lines_changed": verification.lines_changed,
        "relative_cost": verification.relative_cost,
        "thorough_cost": verification.thorough_cost,
        "requested_at": verification.requested_at,
        "request": verification.request,
        **extra,
    }


def log_fields(session_id: str, outcome: Outcome) -> dict[str, object]:
    """What the decision log keeps of a decision (`tiergate.log.decision_record` adds the event, the
    level and the time): the session, the decision and its reasons, where the loop stands, and the
    verifications it requested or closed."""
    fields: dict[str, object] = {
        "session_id": session_id,
        "decision": outcome.decision,
        "reasons": list(outcome.reasons),
    }
    if outcome.state is not None:
        fields.update(phase=outcome.state.phase, iteration=outcome.state.iteration)
    if outcome.verifications:
        fields["verifications"] = list(outcome.verifications)
    if outcome.intervention is not None:
        fields["intervention"] = outcome.intervention
    fields.update(outcome.logged)
    if outcome.state is not None and outcome.state.phase == "halted" and outcome.decision == "halt":
        fields["halt_reason"] = outcome.state.end_reason
    return fields


def run_facts(run: VerifierRun, now: float, model: str | None) -> dict[str, object]:
    duration = round(now - run.started_at, 3)
    return {"agent_id": run.agent_id, "duration_s": duration, "redos": run.redos, "ran_on": model}


def gate_logged(gate: GateFacts | None) -> tuple[tuple[str, object], ...]:
    return () if gate is None else (("gate", dict(gate.record)),)
