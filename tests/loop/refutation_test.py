"""A verdict stands for the workspace it was given for: a claim on a workspace already refuted (by the
gate or by a verifier's own FAIL or INCOMPLETE) gets the same refutation at once, with no gate run and no
verifier; what does not bind (timeouts, forced INCOMPLETE, disqualification) may be replaced. Empty
turns are a stall of the approach. Pure: the loop's decisions only."""

from __future__ import annotations

from dataclasses import replace

from testing.loopfacts import CLAIM, FAILING, LOW, PASSING_GATE, T0, TASK, claim, working

from tiergate.loop import store as state
from tiergate.loop.claims import check_claim
from tiergate.loop.decision import decide, empty_turn
from tiergate.loop.events import Outcome, Stop, SubagentStart, SubagentStop, UserPrompt
from tiergate.loop.interventions import InterventionPolicy
from tiergate.loop.refutation import may_stand_refuted, refutation_for
from tiergate.loop.stalls import StallPolicy
from tiergate.loop.state import REFUTED_KEPT, LoopState, Policies
from tiergate.loop.verdict import Criterion, Judgement, Verdict


def reclaim(current: LoopState, fingerprint: str, **fields: object) -> Outcome:
    """A claim as the Stop handler sends it for a workspace already refuted: nothing measured."""
    stop = Stop(message=CLAIM, claim=check_claim(CLAIM), fingerprint=fingerprint, **fields)  # type: ignore[arg-type]
    return decide(current, stop, T0 + 100)


def verdict(kind: str, critique: str = "") -> Judgement:
    status = "VERIFIED" if kind == "PASS" else "MISSING"
    return Judgement(Verdict(kind, (Criterion("lsp_diagnostics clean", status, "ran ruff"),), critique), ())


def verified(current: LoopState, judgement: Judgement, fingerprint: str = "fp-2") -> Outcome:
    spawned = decide(current, claim(PASSING_GATE, fingerprint), T0 + 10).state
    started = decide(spawned, SubagentStart("a1", LOW, fingerprint), T0 + 20).state
    return decide(started, SubagentStop("a1", LOW, judgement, fingerprint), T0 + 30)


def test_a_claim_on_the_workspace_the_gate_refuted_is_refuted_again_without_checks_or_verifier() -> None:
    first = decide(working(), claim(FAILING, "fp-2", dirty=False), T0 + 10).state
    assert first is not None and len(first.refuted) == 1

    again = reclaim(first, "fp-2")

    assert again.decision == "refuted-again"
    assert again.state is not None and again.state.phase == "working"
    assert again.state.verification is None and again.state.verifications == 0
    block = again.block or ""
    assert "tiergate-spawn" not in block
    assert "nothing has changed since the gate refuted this workspace" in block
    assert "no checks were run and no verifier was spawned" in block
    assert "assert 1 == 2" in block and "FAILED: tests" in block  # the refutation, repeated
    assert [(a.passed, a.by, a.fingerprint) for a in again.state.attempts] == [
        (False, "gate", "fp-2"),
        (False, "gate", "fp-2"),
    ]
    assert any(
        r.startswith("refuted-again: the workspace is unchanged since the gate") for r in again.reasons
    )
    assert any(r.startswith("unchanged-claim:") for r in again.reasons)
    assert again.intervention == "change-approach"  # the stall counts as the attempt limit


def test_a_changed_workspace_earns_a_new_gate_run_and_verifier() -> None:
    first = decide(working(), claim(FAILING, "fp-2"), T0 + 10).state
    assert first is not None
    outcome = decide(first, claim(PASSING_GATE, "fp-3"), T0 + 20)
    assert outcome.decision == "spawn"
    assert outcome.state is not None and outcome.state.verification is not None
    assert outcome.state.verification.fingerprint == "fp-3"


def test_a_verifier_fail_binds_the_workspace_it_judged() -> None:
    failed = verified(working(), verdict("FAIL", "the empty input still crashes")).state
    assert failed is not None
    assert [(r.by, r.label, r.fingerprint) for r in failed.refuted] == [
        ("verifier", "verification v1 (FAIL)", "fp-2")
    ]

    again = reclaim(failed, "fp-2")

    assert again.decision == "refuted-again"
    assert again.state is not None and again.state.verifications == 1  # no second verifier requested
    block = again.block or ""
    assert "nothing has changed since verification v1 (FAIL) refuted this workspace" in block
    assert "Critique: the empty input still crashes" in block
    assert "lsp_diagnostics clean [MISSING]" in block  # the unmet criteria
    assert "tiergate-spawn" not in block


def test_a_verifier_incomplete_binds_too() -> None:
    incomplete = verified(working(), verdict("INCOMPLETE", "no test covers the new branch")).state
    assert incomplete is not None
    again = reclaim(incomplete, "fp-2")
    assert again.decision == "refuted-again"
    assert "verification v1 (INCOMPLETE)" in (again.block or "")


def test_a_verdict_sent_back_until_it_counted_as_incomplete_does_not_bind() -> None:
    spawned = decide(working(), claim(PASSING_GATE, "fp-2"), T0 + 10).state
    current = decide(spawned, SubagentStart("a1", LOW, "fp-2"), T0 + 20).state
    hedged = Judgement(verdict("PASS").verdict, ("hedging: 'should' in the verdict",))
    for _ in range(3):  # two redos, then it counts as INCOMPLETE
        outcome = decide(current, SubagentStop("a1", LOW, hedged, "fp-2"), T0 + 30)
        current = outcome.state
    assert current is not None and current.verdict == "INCOMPLETE"
    assert current.refuted == ()
    assert decide(current, claim(PASSING_GATE, "fp-2"), T0 + 40).decision == "spawn"


def test_a_refutation_by_a_check_that_did_not_finish_does_not_bind() -> None:
    timed_out = replace(FAILING, binds=False)
    first = decide(working(), claim(timed_out, "fp-2"), T0 + 10).state
    assert first is not None and first.refuted == ()
    assert decide(first, claim(PASSING_GATE, "fp-2"), T0 + 20).decision == "spawn"


def test_a_refuted_workspace_stays_refuted_after_other_work() -> None:
    """Refuted at fp-2, refuted again at fp-3 (another failure), back to fp-2: refuted at once."""
    first = decide(working(), claim(FAILING, "fp-2"), T0 + 10).state
    other = replace(FAILING, failing=(("lint", "E501 line too long"),), report="lint fails\nE501")
    second = decide(first, claim(other, "fp-3"), T0 + 20).state
    assert second is not None
    again = reclaim(second, "fp-2")
    assert again.decision == "refuted-again"
    assert "assert 1 == 2" in (again.block or "") and "E501" not in (again.block or "")


def test_another_feature_is_not_bound_by_the_refutation_of_the_last() -> None:
    first = decide(working(), claim(FAILING, "fp-2"), T0 + 10).state
    assert first is not None
    moved = replace(first, task="Add the export command")
    assert refutation_for(moved, "fp-2") is None
    assert not may_stand_refuted(moved)
    assert may_stand_refuted(first)


def test_claiming_again_and_again_on_one_workspace_ends_the_loop_by_its_interventions() -> None:
    current = decide(working(), claim(FAILING, "fp-2", dirty=False), T0 + 10).state
    decisions = []
    for _ in range(10):
        assert current is not None
        outcome = reclaim(current, "fp-2")
        decisions.append((outcome.decision, outcome.intervention))
        current = outcome.state
        if outcome.decision == "halt":
            break
    assert decisions[-1] == ("halt", "halt")
    assert len(decisions) <= 3  # every unchanged claim gives an approach up: three end it
    assert current is not None and current.phase == "halted"
    assert "given up" in (current.end_reason or "")


def test_a_dirty_refuted_workspace_claimed_again_is_rolled_back_first() -> None:
    first = decide(working(), claim(FAILING, "fp-2", dirty=True), T0 + 10).state
    assert first is not None
    again = reclaim(first, "fp-2")
    assert again.intervention == "rollback-then-change-approach"
    assert again.rollback is not None


def test_refutations_survive_the_state_file() -> None:
    first = decide(working(), claim(FAILING, "fp-2", dirty=True), T0 + 10).state
    assert first is not None
    restored = state.from_dict(state.to_dict(first))
    assert restored == first
    assert restored.refuted[0].dirty is True


def test_only_the_newest_refuted_workspaces_are_kept() -> None:
    current = working()
    for n in range(REFUTED_KEPT + 3):
        rules = InterventionPolicy(attempt_limit=100, skip_limit=100, failure_limit=100)
        detail = replace(FAILING, failing=(("tests", f"failure {chr(97 + n)}"),))  # signatures differ
        outcome = decide(current, claim(detail, f"fp-{n}", policies=Policies(interventions=rules)), T0 + n)
        assert outcome.decision == "gate-refuted" and outcome.state is not None
        current = outcome.state
    assert len(current.refuted) == REFUTED_KEPT
    assert current.refuted[-1].fingerprint == f"fp-{REFUTED_KEPT + 2}"


# Empty turns ---------------------------------------------------------------------------------------------


def turn(current: LoopState, fingerprint: str, **fields: object) -> Outcome:
    said = "still looking"
    stop = Stop(message=said, claim=check_claim(said), fingerprint=fingerprint, **fields)  # type: ignore[arg-type]
    return decide(current, stop, T0 + 50)


def test_empty_turns_stall_the_approach_and_change_it() -> None:
    current = working()
    outcomes = []
    for _ in range(4):
        outcome = turn(current, "fp-1", dirty=False)
        outcomes.append(outcome)
        assert outcome.state is not None
        current = outcome.state
    # The first Stop sees the workspace for the first time; the next three are empty.
    assert [o.decision for o in outcomes] == ["continue", "continue", "continue", "empty-turns"]
    stalled = outcomes[-1]
    assert stalled.intervention == "change-approach"
    assert "this approach has stalled (3 turns in a row ended without a claim" in (stalled.block or "")
    assert any(r.startswith("empty-turns: 3 turns in a row") for r in stalled.reasons)
    assert stalled.state is not None and stalled.state.empty_turns == 0 and stalled.state.approach == 2
    assert [(a.by, a.signature) for a in stalled.state.attempts] == [("stall", "empty-turns")]


def test_empty_turns_on_a_dirty_workspace_roll_back_first() -> None:
    current = working(empty_turns=2, last_block_fingerprint="fp-1")
    outcome = turn(current, "fp-1", dirty=True)
    assert outcome.decision == "empty-turns"
    assert outcome.intervention == "rollback-then-change-approach" and outcome.rollback is not None


def test_the_configured_empty_turns_act() -> None:
    policies = Policies(stalls=StallPolicy(empty_turns=1))
    current = working(last_block_fingerprint="fp-1")
    assert turn(current, "fp-1", policies=policies).decision == "empty-turns"
    assert turn(current, "fp-1").decision == "continue"  # the default is 3


def test_a_change_or_a_claim_or_the_user_resets_the_empty_turns() -> None:
    current = working(empty_turns=2, last_block_fingerprint="fp-1")
    changed = turn(current, "fp-2").state
    assert changed is not None and changed.empty_turns == 0
    claimed = decide(current, claim(PASSING_GATE, "fp-1"), T0 + 60).state
    assert claimed is not None and claimed.empty_turns == 0
    spoke = decide(current, UserPrompt(), T0 + 60).state
    assert spoke is not None and spoke.empty_turns == 0


def test_the_turn_after_a_refutation_is_not_empty() -> None:
    current = working(empty_turns=2, last_block_fingerprint="fp-1", feedback="Critique: still wrong")
    outcome = turn(current, "fp-1")
    assert outcome.decision == "feedback"
    assert empty_turn(current, check_claim("x"), "fp-1") == 0
    assert TASK in (outcome.block or "")
