"""An autopilot's features: the file and its one-line errors, where each feature stands, and the loop's
transitions with features as its items (next feature after a PASS, a regression refutes, skip, halt)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from testing.statefolder import state_dir

from tiergate.errors import UserError
from tiergate.loop import features
from tiergate.loop import store as state
from tiergate.loop.claims import check_claim
from tiergate.loop.decision import decide
from tiergate.loop.events import ClaimFacts, GateFacts, Stop, SubagentStart, SubagentStop
from tiergate.loop.features import Feature
from tiergate.loop.interventions import InterventionPolicy
from tiergate.loop.state import AttemptRecord, LoopState, Policies, new_loop, with_features
from tiergate.loop.verdict import Criterion, Judgement, Verdict
from tiergate.project import Project

T0 = 1_800_000_000.0
LOW = "tiergate:architect-low"
CLAIM = "Implemented.\n\n<promise>DONE</promise>"
F1 = Feature("F01", "List items", "GET /items lists every item.", (("list", "sh probe.sh list"),))
F2 = Feature("F02", "Filter by tag", "GET /items?tag=x filters.", (("filter", "sh probe.sh filter"),))
FACTS = ClaimFacts("LIGHT", LOW, "haiku", ("tests pass",), ("small: LIGHT",), 1.0, 20.0, 1, 3)
PASSING = GateFacts(False, "tiergate's checks pass (2 checks).", ("CHECKS", "- F01 list: passed"))


def failing(*names: str) -> GateFacts:
    return GateFacts(
        refuted=True,
        report="tiergate's checks refute the claim: new failures.\n"
        + "\n".join(f"FAILED: {n}" for n in names),
        packet=(),
        failing=tuple((name, "not ok 1") for name in names),
        headline="tiergate's checks refute the claim: new failures.",
    )


def autopilot(**changes: object) -> LoopState:
    begun = with_features(new_loop("s1", "", now=T0, base="b" * 40, promise="DONE"), (F1, F2))
    return replace(begun, **changes)  # type: ignore[arg-type]


def claim(gate: GateFacts, fingerprint: str = "fp-1", **fields: object) -> Stop:
    return Stop(CLAIM, check_claim(CLAIM), fingerprint, claim_facts=FACTS, gate=gate, **fields)  # type: ignore[arg-type]


def passed_by_verifier(current: LoopState, fingerprint: str) -> LoopState:
    spawned = decide(current, claim(PASSING, fingerprint), T0 + 10).state
    started = decide(spawned, SubagentStart("a1", LOW, fingerprint), T0 + 20).state
    verdict = Verdict("PASS", (Criterion("tests pass", "VERIFIED", "ran the probes: ok"),), "")
    outcome = decide(started, SubagentStop("a1", LOW, Judgement(verdict, ()), fingerprint), T0 + 30)
    assert outcome.state is not None and outcome.state.phase == "passed"
    return outcome.state


def test_the_file_parses_in_order_with_its_checks() -> None:
    entry = {"id": "F01", "title": "List", "description": "all items", "checks": {"a": "true", "b": "false"}}
    loaded = features.parse(json.dumps({"features": [entry, {**entry, "id": "F02"}]}), "features.json")
    assert [f.id for f in loaded] == ["F01", "F02"]
    assert loaded[0].checks == (("a", "true"), ("b", "false"))
    assert loaded[0].check_names() == (("F01 a", "true"), ("F01 b", "false"))


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{", "not JSON"),
        (json.dumps({"features": []}), "features: List should have at least 1 item"),
        (json.dumps({"features": [{"id": "F07", "title": "x", "checks": {}}]}), "feature F07.checks:"),
        (
            json.dumps({"features": [{"id": "F07", "checks": {"a": "true"}}]}),
            "feature F07.title: Field required",
        ),
        (
            json.dumps({"features": [{"title": "t", "checks": {"a": "true"}}]}),
            "feature #1.id: Field required",
        ),
        (json.dumps({"features": [{"id": "F1", "title": "t", "checks": {"a": " "}}]}), "a check needs"),
        (json.dumps({"features": [{"id": "F1", "title": "t", "checks": {"a": "x"}}] * 2}), "F1 is used more"),
    ],
)
def test_a_bad_file_is_one_line_naming_the_file_and_the_feature(content: str, expected: str) -> None:
    with pytest.raises(UserError) as raised:
        features.parse(content, "plans/features.json")
    assert str(raised.value).startswith("plans/features.json: ")
    assert expected in str(raised.value) and "\n" not in str(raised.value)


def test_standings_and_gate_checks_derive_from_the_approach_and_the_done_items() -> None:
    f3 = replace(F2, id="F03")
    assert features.standings((F1, F2, f3), 3, ("F01",)) == {
        "F01": "done",
        "F02": "skipped",
        "F03": "current",
    }
    assert features.gate_checks((F1, F2, f3), 3, ("F01",)) == (
        ("F03 filter", "sh probe.sh filter"),
        ("F01 list", "sh probe.sh list"),
    )
    assert features.broken((F1, F2), ("F01",), ("F02 filter", "F01 list")) == ("F01",)


def test_a_feature_passed_by_the_gate_and_its_verifier_moves_the_loop_to_the_next_then_finalizes() -> None:
    current = autopilot()
    assert current.item == "F01" and current.task == F1.task

    after_first = decide(passed_by_verifier(current, "fp-1"), Stop("ok", check_claim("ok"), "fp-1"), T0 + 40)

    assert after_first.decision == "next-feature" and after_first.green
    moved = after_first.state
    assert moved is not None and moved.phase == "working" and moved.item == "F02"
    assert moved.done == ("F01",)
    assert after_first.block is not None
    assert "F01 is done" in after_first.block and "Feature F02: Filter by tag" in after_first.block
    finished = decide(passed_by_verifier(moved, "fp-2"), Stop("ok", check_claim("ok"), "fp-2"), T0 + 50)
    assert finished.decision == "finalize" and finished.state is not None
    assert finished.state.done == ("F01", "F02") and not finished.state.active


def test_a_claim_that_breaks_a_done_feature_is_refuted_naming_it_even_if_its_own_checks_pass() -> None:
    current = autopilot(approach=2, task=F2.task, attempts=(AttemptRecord("F01", True, "v1: PASS"),))

    outcome = decide(current, claim(failing("F01 list")), T0 + 10)

    assert outcome.decision == "gate-refuted" and outcome.block is not None
    assert "breaks F01, already done" in outcome.block
    assert "regression: breaks F01" in outcome.reasons
    assert outcome.state is not None and outcome.state.item == "F02"
    assert outcome.state.attempts[-1] == replace(outcome.state.attempts[-1], item="F02", passed=False)
    assert "It breaks a feature already done: F01." in outcome.state.attempts[-1].reason


def test_at_the_attempt_limit_the_loop_skips_to_the_next_feature_rolling_back_when_dirty() -> None:
    policies = Policies(interventions=InterventionPolicy(attempt_limit=1))
    clean = decide(autopilot(), claim(failing("F01 list"), dirty=False, policies=policies), T0 + 10)
    dirty = decide(autopilot(), claim(failing("F01 list"), dirty=True, policies=policies), T0 + 10)

    assert clean.intervention == "change-approach" and clean.rollback is None
    assert dirty.intervention == "rollback-then-change-approach" and dirty.rollback is not None
    for outcome in (clean, dirty):
        assert outcome.state is not None and outcome.state.item == "F02"
        assert outcome.block is not None and "Feature F02: Filter by tag" in outcome.block
        assert features.standings(outcome.state.features, outcome.state.approach, outcome.state.done) == {
            "F01": "skipped",
            "F02": "current",
        }


def test_giving_up_at_the_skip_limit_or_on_the_last_feature_halts() -> None:
    at_limit = Policies(interventions=InterventionPolicy(attempt_limit=1, skip_limit=2))
    skipped = decide(autopilot(), claim(failing("F01 list"), policies=at_limit), T0 + 10).state
    halted = decide(skipped, claim(failing("F02 filter"), "fp-2", policies=at_limit), T0 + 20)
    assert halted.decision == "halt" and halted.alert is not None
    assert halted.state is not None and halted.state.end_reason is not None
    assert halted.state.end_reason.startswith("skip-limit: 2 items given up (F01, F02")

    roomy = Policies(interventions=InterventionPolicy(attempt_limit=1, skip_limit=5))
    skipped = decide(autopilot(), claim(failing("F01 list"), policies=roomy), T0 + 10).state
    last = decide(skipped, claim(failing("F02 filter"), "fp-2", policies=roomy), T0 + 20)
    assert last.decision == "halt" and last.state is not None
    assert last.state.end_reason == "no feature left: F02, the last one, was given up"


def test_the_features_survive_the_state_file(tmp_path: Path) -> None:
    project = Project(tmp_path, state_dir(tmp_path))
    current = autopilot(approach=2, attempts=(AttemptRecord("F01", True, "v1: PASS"),))
    state.update(project, "s1", lambda _: (current, None))
    assert state.read(project, "s1") == current
