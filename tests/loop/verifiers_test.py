"""The verifier subagents at their start: which are recorded for the pending verification, which are
told their verdict will not count, and which model family is weaker than the tier asks for."""

from __future__ import annotations

from dataclasses import replace

from testing.loopfacts import T0, verification, working

from tiergate.loop import verifiers
from tiergate.loop.events import SubagentStart
from tiergate.loop.state import LIMITS, VerifierRun

AGENT = "tiergate:architect-medium"
VERIFYING = working(phase="verifying", verification=verification())


def start(agent_id: str = "a1", agent_type: str = AGENT) -> SubagentStart:
    return SubagentStart(agent_id=agent_id, agent_type=agent_type, fingerprint="fp")


def test_the_requested_verifier_is_recorded_and_handed_the_packet() -> None:
    assert verifiers.would_record(VERIFYING, AGENT)
    outcome = verifiers.on_subagent_start(VERIFYING, start(), T0, LIMITS)
    assert outcome.decision == "verifier-started" and outcome.context
    run = verifiers.run_for(outcome.state, "a1")
    assert run == VerifierRun("a1", AGENT, T0, "fp")


def test_a_subagent_that_is_no_verifier_is_ignored() -> None:
    assert not verifiers.is_verifier("general-purpose")
    assert (
        verifiers.on_subagent_start(VERIFYING, start(agent_type="general-purpose"), T0, LIMITS).decision
        == "ignore"
    )


def test_a_verifier_nobody_asked_for_is_told_its_verdict_will_not_count() -> None:
    assert not verifiers.would_record(working(), AGENT)
    assert verifiers.on_subagent_start(working(), start(), T0, LIMITS).decision == "unrequested"
    wrong = verifiers.on_subagent_start(VERIFYING, start(agent_type="tiergate:architect-low"), T0, LIMITS)
    assert wrong.decision == "wrong-verifier"
    assert verifiers.run_for(wrong.state, "a1") is None


def test_no_more_runs_are_recorded_than_the_limit() -> None:
    runs = tuple(VerifierRun(f"r{n}", AGENT, T0, None) for n in range(LIMITS.runs))
    full = replace(VERIFYING, verification=replace(verification(), runs=runs))
    assert verifiers.on_subagent_start(full, start(), T0, LIMITS).decision == "unrequested"
    assert verifiers.on_subagent_start(full, start("r0"), T0, LIMITS).decision == "verifier-started"


def test_a_weaker_model_family_is_told_apart_and_an_unknown_one_given_the_benefit_of_the_doubt() -> None:
    assert verifiers.weaker_model("claude-haiku-5-5", "sonnet")
    assert not verifiers.weaker_model("claude-opus-5", "sonnet")
    assert not verifiers.weaker_model("claude-sonnet-5", "sonnet")
    assert not verifiers.weaker_model("some-new-model", "opus")
