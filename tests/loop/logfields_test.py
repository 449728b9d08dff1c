"""What the decision log keeps of a decision, a verification, a verifier run and a gate run."""

from __future__ import annotations

from dataclasses import replace

from testing.loopfacts import verification

from tiergate.loop import logfields
from tiergate.loop.events import GateFacts, Outcome
from tiergate.loop.state import VerifierRun, new_loop

STATE = new_loop("s1", "fix it", now=0.0, base="b" * 40, promise="DONE")
VERIFICATION = verification(("a.py", "b.py"))


def test_a_decision_keeps_its_session_name_reasons_and_where_the_loop_stands() -> None:
    outcome = Outcome(STATE, "continue", ("no claim",), intervention="retry", logged=(("backup", "x"),))
    assert logfields.log_fields("s1", outcome) == {
        "session_id": "s1",
        "decision": "continue",
        "reasons": ["no claim"],
        "phase": "working",
        "iteration": STATE.iteration,
        "intervention": "retry",
        "backup": "x",
    }


def test_a_halt_keeps_why_the_loop_ended_and_no_loop_keeps_no_phase() -> None:
    halted = replace(STATE, phase="halted", end_reason="budget spent")
    assert logfields.log_fields("s1", Outcome(halted, "halt", ()))["halt_reason"] == "budget spent"
    assert "phase" not in logfields.log_fields("s1", Outcome(None, "ignore", ()))


def test_a_verification_snapshot_keeps_its_status_and_extra_facts() -> None:
    snapshot = logfields.snapshot(VERIFICATION, "PASS", agent_id="a1")
    assert snapshot["id"] == "v1" and snapshot["status"] == "PASS" and snapshot["agent_id"] == "a1"
    assert snapshot["claim_types"] == ["Implemented"] and snapshot["files_changed"] == 2


def test_a_verifier_run_keeps_its_duration_redos_and_model() -> None:
    run = VerifierRun("a1", "tiergate:architect", started_at=10.0, fingerprint=None, redos=1)
    assert logfields.run_facts(run, 12.5, "sonnet") == {
        "agent_id": "a1",
        "duration_s": 2.5,
        "redos": 1,
        "ran_on": "sonnet",
    }


def test_a_gate_run_is_kept_as_its_record_and_no_run_as_nothing() -> None:
    gate = GateFacts(refuted=False, report="", packet=(), record=(("checks", 2),))
    assert logfields.gate_logged(gate) == (("gate", {"checks": 2}),)
    assert logfields.gate_logged(None) == ()
