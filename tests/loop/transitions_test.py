"""The loop's moves at a Stop: send back (until the cap), count blocks on an unchanged workspace
(until they halt the loop), halt (closing an open verification), request a verification again."""

from __future__ import annotations

from dataclasses import replace

from testing.loopfacts import T0, claim, verification, working

from tiergate.loop import transitions
from tiergate.loop.events import Moment, Outcome
from tiergate.loop.state import LIMITS


def test_send_back_advances_the_iteration_and_blocks() -> None:
    outcome = transitions.send_back(working(), Moment(claim(None), T0, LIMITS), "continue", ("no claim",))
    assert outcome.decision == "continue" and outcome.block
    assert outcome.state is not None and outcome.state.iteration == 2
    assert outcome.reasons == ("no claim", "iteration 2/20")


def test_send_back_at_the_cap_halts() -> None:
    outcome = transitions.send_back(working(iteration=20), Moment(claim(None), T0, LIMITS), "continue", ())
    assert outcome.decision == "halt" and outcome.state is not None and outcome.state.phase == "halted"


def test_blocks_on_an_unchanged_workspace_are_counted_until_they_halt() -> None:
    state = working(last_block_fingerprint="fp-2", idle_blocks=LIMITS.idle_blocks - 2)
    once = transitions.block_stop(state, Moment(claim(None), T0, LIMITS), Outcome(state, "continue", ()))
    assert once.state is not None and once.state.idle_blocks == LIMITS.idle_blocks - 1
    again = transitions.block_stop(
        once.state, Moment(claim(None), T0, LIMITS), Outcome(once.state, "continue", ())
    )
    assert again.decision == "halt"
    moved = transitions.block_stop(
        state, Moment(claim(None, "fp-3"), T0, LIMITS), Outcome(state, "continue", ())
    )
    assert moved.state is not None and moved.state.idle_blocks == 0


def test_a_halt_ends_the_loop_closes_its_verification_and_alerts() -> None:
    outcome = transitions.halt(working(phase="verifying", verification=verification()), T0, "budget spent")
    assert outcome.state is not None and outcome.state.phase == "halted" and outcome.state.ended_at == T0
    assert [v["status"] for v in outcome.verifications] == ["VOID"]
    assert outcome.alert and "budget spent" in outcome.alert


def test_a_verification_requested_too_often_halts_instead() -> None:
    state = working(phase="verifying", verification=verification())
    again = transitions.request_again(state, Moment(claim(None), T0, LIMITS), "lost", {"id": "v1"})
    assert again.decision != "halt" and again.state is not None and again.state.verification is not None
    assert again.state.verification.request == 2
    worn = working(phase="verifying", verification=replace(verification(), request=LIMITS.requests))
    assert (
        transitions.request_again(worn, Moment(claim(None), T0, LIMITS), "lost", {"id": "v2"}).decision
        == "halt"
    )
