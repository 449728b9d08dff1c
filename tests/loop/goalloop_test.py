"""The pure part of adopting Claude Code's /goal: the command read as Claude Code reads it, and what an
adopted goal loop decides at a Stop: every stop a claim, a goal that ended other than met ending the loop
(halted, or cleared with a word to the user), a PASS that waits for the goal to end, a change after it
judged at once."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from testing.loopfacts import FACTS, PASSING_GATE

from tiergate.loop.adoption import Foreign, NotAdopted
from tiergate.loop.claims import ClaimCheck
from tiergate.loop.decision import decide, wants_claim_facts
from tiergate.loop.events import GateFacts, Stop, UserPrompt
from tiergate.loop.goal import NO_GOAL, Goal, GoalAtStop
from tiergate.loop.goalloop import approved_condition, parse_goal_command
from tiergate.loop.state import LoopState, new_loop

NOW = 1_000_000.0
CONDITION = "every test in test_calc.py passes"


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        (f"/goal {CONDITION}", Foreign("goal", CONDITION)),
        (f"  /goal   {CONDITION}  \n", Foreign("goal", CONDITION)),
        ("/goal\tthe build is green", Foreign("goal", "the build is green")),
        # clearing the goal (Claude Code runs no prompt hook for it): never a condition to adopt
        ("/goal clear", None),
        ("/goal CANCEL", None),
        ("/goal off", None),
        # /goal alone shows the goal; other commands and prompts are not the goal's
        ("/goal", None),
        ("/goal   ", None),
        ("/goals list", None),
        ("please /goal x", None),
        ("/tiergate:ralph fix it", None),
    ],
)
def test_the_goal_command_is_read_as_claude_code_reads_it(prompt: str, expected: object) -> None:
    assert parse_goal_command(prompt) == expected


def test_a_condition_claude_code_refuses_is_not_adopted() -> None:
    found = parse_goal_command("/goal " + "x" * 4001)

    assert isinstance(found, NotAdopted)
    assert "4,000 characters" in found.reason
    assert parse_goal_command("/goal " + "x" * 4000) == Foreign("goal", "x" * 4000)


def test_an_approved_goals_prompt_names_its_condition() -> None:
    assert approved_condition(f"Goal set: {CONDITION}") == CONDITION
    assert approved_condition("Goal set:  ") is None
    assert approved_condition(f"goal set: {CONDITION}") is None


# At a Stop ---------------------------------------------------------------------------------------------


def loop(**changes: Any) -> LoopState:
    started = new_loop("s-1", CONDITION, now=NOW, base="abc123", promise="DONE")
    return replace(started, adopted="goal", **changes)


RUNNING = Goal("active", CONDITION)


def at_stop(before: Goal, now: Goal | None = None) -> GoalAtStop:
    return GoalAtStop(before, now or before, evaluated=now is not None)


def stop(goal: GoalAtStop | None, **fields: Any) -> Stop:
    return Stop(
        message="All tests pass.", claim=ClaimCheck(claimed=True), fingerprint="w1", goal=goal, **fields
    )


@pytest.mark.parametrize(
    ("now", "why"),
    [
        (Goal("impossible", CONDITION, "contradiction"), "goal declared impossible: contradiction"),
        (NO_GOAL, "did not set the goal"),
    ],
)
def test_a_goal_that_ended_other_than_met_halts_the_loop_and_the_stop_goes_through(
    now: Goal, why: str
) -> None:
    before = NO_GOAL if now == NO_GOAL else RUNNING
    outcome = decide(loop(), stop(at_stop(before, now), claim_facts=FACTS, gate=PASSING_GATE), NOW + 5)

    assert outcome.decision == "halt"
    assert outcome.block is None
    assert outcome.state is not None and outcome.state.phase == "halted"
    assert why in (outcome.state.end_reason or "")
    assert outcome.message is not None and outcome.alert is not None


def test_a_cleared_goal_ends_the_loop_at_a_stop_or_the_next_prompt_and_says_so() -> None:
    cleared = Goal("cleared", CONDITION)
    verifying = loop(phase="verifying")

    at_stop_ = decide(loop(), stop(at_stop(cleared)), NOW + 5)
    at_prompt = decide(loop(), UserPrompt(at_stop(cleared)), NOW + 5)
    unrelated = decide(loop(), UserPrompt(at_stop(RUNNING)), NOW + 5)

    for outcome in (at_stop_, at_prompt):
        assert outcome.decision == "goal-cleared"
        assert outcome.block is None
        assert outcome.state is not None and outcome.state.phase == "cancelled"
        assert outcome.message is not None and "records the goal cleared" in outcome.message
        assert outcome.alert == outcome.message
    assert unrelated.decision == "user-prompt"
    assert decide(verifying, UserPrompt(at_stop(NO_GOAL)), NOW).decision == "halt"


def test_the_evaluators_met_is_not_evidence_the_claim_is_judged_as_any_claim() -> None:
    met = Goal("met", CONDITION, "the agent says all tests pass")
    refuted = GateFacts(
        refuted=True, report="FAILED test_calc.py::test_add", packet=(), headline="1 new failure"
    )

    outcome = decide(loop(), stop(at_stop(RUNNING, met), claim_facts=FACTS, gate=refuted), NOW + 5)

    assert outcome.decision == "gate-refuted"
    assert outcome.block is not None and "test_add" in outcome.block
    assert outcome.state is not None and outcome.state.active


def test_every_stop_under_a_goal_asks_for_the_tiers_verifier_when_the_gate_holds() -> None:
    outcome = decide(loop(), stop(at_stop(RUNNING, RUNNING), claim_facts=FACTS, gate=PASSING_GATE), NOW + 5)

    assert outcome.decision == "spawn"
    assert outcome.block is not None and "tiergate:architect-low" in outcome.block
    assert "claim: every stop under Claude Code's /goal is a completion claim" in outcome.reasons


def test_a_pass_finishes_the_loop_once_the_goal_no_longer_holds_the_session() -> None:
    passed = loop(phase="passed", verdict="PASS", verified_fingerprint="w1", tier="LIGHT")

    finished = decide(passed, stop(at_stop(Goal("met", CONDITION))), NOW + 5)
    unknown = decide(passed, stop(None), NOW + 5)

    assert finished.decision == unknown.decision == "finalize"
    assert finished.state is not None and finished.state.ended_at == NOW + 5


def test_a_pass_the_goal_still_holds_lets_the_stop_go_and_waits_for_the_goal() -> None:
    passed = loop(phase="passed", verdict="PASS", verified_fingerprint="w1", tier="LIGHT", goal_seen=True)

    outcome = decide(passed, stop(at_stop(RUNNING, Goal("active", CONDITION, "not convinced"))), NOW + 5)

    assert outcome.decision == "goal-pending"
    assert outcome.block is None
    assert outcome.state == passed
    assert "not convinced" in outcome.reasons[0]
    # A passed loop keeps its PASS whatever the transcript says of the goal.
    impossible = decide(passed, stop(at_stop(RUNNING, Goal("impossible", CONDITION))), NOW + 5)
    assert impossible.decision == "finalize"


def test_a_change_after_the_pass_is_a_claim_again_judged_at_the_same_stop() -> None:
    passed = loop(phase="passed", verdict="PASS", verified_fingerprint="w0", tier="LIGHT")
    changed = stop(at_stop(RUNNING, RUNNING), claim_facts=FACTS, gate=PASSING_GATE)

    assert wants_claim_facts(passed, changed.claim, "w1")
    assert not wants_claim_facts(passed, changed.claim, "w0")
    outcome = decide(passed, changed, NOW + 5)

    assert outcome.decision == "spawn"
    assert outcome.state is not None and outcome.state.phase == "verifying"
    assert outcome.state.verified_fingerprint is None


def test_a_stop_after_an_api_error_goes_through_whatever_the_goal() -> None:
    outcome = decide(loop(), stop(at_stop(Goal("impossible", CONDITION)), api_error="rate_limit"), NOW + 5)

    assert outcome.decision == "pass"
    assert outcome.state is not None and outcome.state.active


def test_records_claude_code_would_not_write_end_nothing_and_are_named() -> None:
    impossible = Goal("impossible", CONDITION, "a watcher's words")
    doubted = GoalAtStop(RUNNING, impossible, evaluated=True, doubt="two goal records for one stop")
    vanished = at_stop(NO_GOAL)

    for state, goal in ((loop(), doubted), (loop(goal_seen=True), vanished)):
        outcome = decide(state, stop(goal, claim_facts=FACTS, gate=PASSING_GATE), NOW + 5)
        assert outcome.decision == "spawn"
        assert outcome.reasons[-1].startswith("goal-records-doubted: ")


def test_a_refutation_stands_whatever_the_transcript_says_of_the_goal() -> None:
    refuted = GateFacts(refuted=True, report="FAILED test_calc.py::test_add", packet=(), headline="1 new")
    ended = at_stop(RUNNING, Goal("impossible", CONDITION, "contradiction"))

    outcome = decide(loop(), stop(ended, claim_facts=FACTS, gate=refuted), NOW + 5)

    assert outcome.decision == "gate-refuted"
    assert outcome.state is not None and outcome.state.active
    assert outcome.reasons[-1].startswith("goal-ended-refuted: the transcript says halt: ")
