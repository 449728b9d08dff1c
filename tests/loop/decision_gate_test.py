"""The loop's transitions for the gate and the interventions: a claim the checks refute, the
intervention after every refutation (gate or verifier), the rollback's outcome, halts and their alerts."""

from __future__ import annotations

from dataclasses import replace

from testing.loopfacts import FAILING, LOW, PASSING_GATE, T0, TASK, claim, working

from tiergate.loop import store as state
from tiergate.loop.claims import check_claim
from tiergate.loop.decision import decide
from tiergate.loop.events import Outcome, Stop, SubagentStart, SubagentStop
from tiergate.loop.interventions import InterventionPolicy
from tiergate.loop.logfields import log_fields
from tiergate.loop.refutation import after_rollback
from tiergate.loop.state import AttemptRecord, LoopState, Policies
from tiergate.loop.verdict import Criterion, Judgement, Verdict


def refuted_by_gate(current: LoopState, fingerprint: str, **fields: object) -> Outcome:
    outcome = decide(current, claim(FAILING, fingerprint, **fields), T0 + 10)
    assert outcome.state is not None
    return outcome


def test_a_claim_the_checks_refute_is_blocked_at_once_without_a_verifier() -> None:
    outcome = refuted_by_gate(working(), "fp-2")

    assert outcome.decision == "gate-refuted"
    assert outcome.state is not None
    assert outcome.state.phase == "working" and outcome.state.verification is None
    assert outcome.state.verifications == 0  # no verifier was requested
    block = outcome.block or ""
    assert "tiergate-spawn" not in block
    assert "no verifier was spawned" in block
    assert "assert 1 == 2" in block and "FAILED: tests" in block
    assert outcome.intervention == "retry" and outcome.rollback is None
    assert f"Attempt 1 of 3 at {TASK} was refuted: the gate:" in block
    assert "(2 attempts left before the approach must change)" in block
    assert [(a.item, a.passed, a.by) for a in outcome.state.attempts] == [(TASK, False, "gate")]
    assert "gate-refuted: the project's checks refute the claim; no verifier is spawned" in outcome.reasons


def test_a_gate_notice_reaches_the_user_with_the_block_and_with_a_halt() -> None:
    notice = "tiergate: lint (`ruff check .`): could not run: `ruff` is not on PATH."
    unrunnable = replace(FAILING, notice=notice)
    assert refuted_by_gate(working(), "fp-2").message is None  # an ordinary refutation is Claude's alone
    blocked = decide(working(), claim(unrunnable, "fp-2"), T0 + 10)
    assert (blocked.decision, blocked.message) == ("gate-refuted", notice)
    capped = decide(working(iteration=20), claim(unrunnable, "fp-2"), T0 + 10)
    assert capped.decision == "halt" and capped.message is not None
    assert "iteration cap" in capped.message and capped.message.endswith(notice)


def test_a_claim_the_checks_pass_gets_its_results_into_the_evidence_packet() -> None:
    outcome = decide(working(), claim(PASSING_GATE), T0 + 10)
    assert outcome.state is not None and outcome.state.phase == "verifying"
    verification = outcome.state.verification
    assert verification is not None
    assert verification.checks == PASSING_GATE.packet
    started = decide(outcome.state, SubagentStart("a1", LOW, "fp-2"), T0 + 20)
    packet = started.context or ""
    assert "- tests (`pytest -q`, tests): passed in 0.4 s" in packet
    assert "ran no project checks" not in packet
    assert log_fields("s1", outcome)["gate"] == {"refuted": False}


def test_without_a_gate_the_packet_says_no_checks_ran() -> None:
    outcome = decide(working(), claim(None), T0 + 10)
    assert outcome.state is not None
    started = decide(outcome.state, SubagentStart("a1", LOW, "fp-2"), T0 + 20)
    assert "tiergate ran no project checks for this claim" in (started.context or "")


def test_a_second_failure_of_a_different_kind_retries_with_the_last_reason() -> None:
    first = refuted_by_gate(working(), "fp-2").state
    assert first is not None
    other = replace(FAILING, failing=(("lint", "E501 line too long"),), headline="lint fails.")
    outcome = decide(first, claim(other, "fp-3"), T0 + 20)
    assert outcome.intervention == "retry"
    assert f"Attempt 2 of 3 at {TASK} was refuted: the gate: lint fails. Failing: lint." in (
        outcome.block or ""
    )
    assert "(1 attempt left before the approach must change)" in (outcome.block or "")


def test_the_same_failure_again_is_a_stall_and_on_a_dirty_workspace_rolls_back_first() -> None:
    first = refuted_by_gate(working(), "fp-2").state
    assert first is not None
    outcome = refuted_by_gate(first, "fp-3", dirty=True)

    assert outcome.intervention == "rollback-then-change-approach"
    assert outcome.rollback is not None
    assert any(r.startswith("repeated-failure:") for r in outcome.reasons)
    assert outcome.state is not None and outcome.state.approach == 2
    assert outcome.state.item == f"{TASK}#2"
    assert "Change approach" in (outcome.block or "")


def test_the_same_failure_on_a_clean_workspace_changes_approach_without_rollback() -> None:
    first = refuted_by_gate(working(), "fp-2").state
    assert first is not None
    outcome = refuted_by_gate(first, "fp-3", dirty=False)
    assert outcome.intervention == "change-approach" and outcome.rollback is None
    assert any(r.startswith("clean:") for r in outcome.reasons)


def test_a_claim_on_an_unchanged_workspace_is_a_stall() -> None:
    first = refuted_by_gate(working(), "fp-2").state
    assert first is not None
    other = replace(FAILING, failing=(("lint", "E501"),))
    outcome = decide(first, claim(other, "fp-2", dirty=False), T0 + 20)
    assert any(r.startswith("unchanged-claim:") for r in outcome.reasons)
    assert outcome.intervention == "change-approach"


def test_giving_up_the_skip_limit_th_approach_halts_with_an_alert() -> None:
    policies = Policies(interventions=InterventionPolicy(attempt_limit=1, skip_limit=2))
    current = working()
    outcome = refuted_by_gate(current, "fp-2", policies=policies)
    assert outcome.intervention == "change-approach"
    assert outcome.state is not None
    outcome = decide(outcome.state, claim(FAILING, "fp-3", policies=policies), T0 + 30)

    assert outcome.decision == "halt" and outcome.intervention == "halt"
    assert outcome.block is None  # the stop goes through
    assert outcome.state is not None and outcome.state.phase == "halted"
    assert (outcome.state.end_reason or "").startswith("skip-limit: 2 items given up")
    assert outcome.alert is not None and "tiergate halted the loop: skip-limit" in outcome.alert
    assert "loop halted" in (outcome.message or "")
    assert log_fields("s1", outcome)["halt_reason"] == outcome.state.end_reason


def test_every_halt_carries_an_alert() -> None:
    capped = working(max_iterations=1)
    outcome = decide(capped, Stop(message="not yet", claim=check_claim("not yet"), fingerprint="x"), T0 + 1)
    assert outcome.decision == "halt" and outcome.alert == outcome.message


def verifier_fail(current: LoopState, critique: str, fingerprint: str, **fields: object) -> Outcome:
    spawned = decide(current, claim(PASSING_GATE, fingerprint), T0 + 10).state
    assert spawned is not None
    started = decide(spawned, SubagentStart("a1", LOW, fingerprint), T0 + 20).state
    judgement = Judgement(
        Verdict("FAIL", (Criterion("lsp_diagnostics clean", "MISSING", "ran it: 2 errors"),), critique), ()
    )
    event = SubagentStop("a1", LOW, judgement, fingerprint, **fields)  # type: ignore[arg-type]
    return decide(started, event, T0 + 30)


def test_a_verifier_fail_is_recorded_and_its_intervention_reaches_claude_at_the_next_stop() -> None:
    outcome = verifier_fail(working(), "the empty input still crashes", "fp-2")
    assert outcome.intervention == "retry"
    assert outcome.state is not None and outcome.state.phase == "working"
    assert [(a.passed, a.by) for a in outcome.state.attempts] == [(False, "verifier")]
    after = decide(outcome.state, Stop(message="ok", claim=check_claim("ok"), fingerprint="fp-9"), T0 + 40)
    block = after.block or ""
    assert "Attempt 1 of 3" in block and "the empty input still crashes" in block


def test_a_verifier_fail_that_repeats_on_a_dirty_workspace_asks_for_a_rollback() -> None:
    first = verifier_fail(working(), "the empty input still crashes", "fp-2").state
    assert first is not None
    outcome = verifier_fail(first, "The  empty input still crashes", "fp-3", dirty=True)
    assert outcome.intervention == "rollback-then-change-approach"
    assert outcome.rollback is not None and outcome.block is None


def test_a_pass_is_recorded_and_the_finalized_workspace_is_marked_green() -> None:
    spawned = decide(working(), claim(PASSING_GATE), T0 + 10).state
    started = decide(spawned, SubagentStart("a1", LOW, "fp-2"), T0 + 20).state
    judgement = Judgement(
        Verdict("PASS", (Criterion("lsp_diagnostics clean", "VERIFIED", "ran ruff: clean"),), ""), ()
    )
    passed = decide(started, SubagentStop("a1", LOW, judgement, "fp-2"), T0 + 30)
    assert passed.state is not None and not passed.green
    assert [a.passed for a in passed.state.attempts] == [True]
    done = decide(passed.state, Stop(message="done", claim=check_claim("done"), fingerprint="fp-2"), T0 + 40)
    assert done.decision == "finalize" and done.green


def test_after_a_rollback_claude_and_the_log_get_the_backup() -> None:
    first = refuted_by_gate(working(), "fp-2").state
    assert first is not None
    outcome = refuted_by_gate(first, "fp-3", dirty=True)

    rolled = after_rollback(
        outcome, T0 + 11, backup="20261130-1", point="the loop's start (bbbb)", ref="refs/tiergate/backups/x"
    )
    assert rolled.rollback is None
    assert "Your changes are saved as backup 20261130-1" in (rolled.block or "")
    assert "tiergate restore 20261130-1" in (rolled.block or "")
    fields = log_fields("s1", rolled)
    assert fields["rollback"] == {
        "to": "the loop's start (bbbb)",
        "backup": "20261130-1",
        "backup_ref": "refs/tiergate/backups/x",
    }
    assert fields["intervention"] == "rollback-then-change-approach"


def test_a_rollback_that_cannot_be_made_halts_and_leaves_the_workspace() -> None:
    first = refuted_by_gate(working(), "fp-2").state
    assert first is not None
    outcome = refuted_by_gate(first, "fp-3", dirty=True)

    failed = after_rollback(outcome, T0 + 11, backup=None, point="p", error="not in the history of HEAD")
    assert failed.decision == "halt" and failed.block is None
    assert failed.state is not None and failed.state.phase == "halted"
    assert "rollback to the last green point (p) failed: not in the history of HEAD" in (
        failed.state.end_reason or ""
    )
    assert failed.alert is not None


def test_the_attempts_record_survives_the_state_file() -> None:
    outcome = refuted_by_gate(working(), "fp-2")
    assert outcome.state is not None
    again = state.from_dict(state.to_dict(outcome.state))
    assert again == outcome.state
    assert isinstance(again.attempts[0], AttemptRecord)
