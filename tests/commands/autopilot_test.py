"""An autopilot through the real hook entry point in a real git repository: the features file started by
`/tiergate:autopilot` (and `tiergate autopilot start`), a feature's acceptance check that fails at the base
never excused, a feature passed by the gate and its verifier handing over to the next, a change that breaks
the done feature refuted naming it, the fix passed and the loop finalized."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from testing.autopilotproject import BOTH, FEATURES, LIST, autopilot_files
from testing.gitrepo import git, init_repo, write
from testing.hooksession import HookSession, verifier_transcript
from testing.statefolder import state_dir

from tiergate.loop import slash as loopcommands

SESSION = "aaaaaaaa-2222-3333-4444-555555555555"
CLAIM = "The feature works; its checks pass.\n\n<promise>DONE</promise>"
# Filters on an empty tag when none is given: list then prints nothing, though the filter works.
NO_GUARD = 'grep " $2$" items.txt\n'


class Autopilot(HookSession):
    def __init__(self, root: Path) -> None:
        project = init_repo(
            root / "project",
            {**autopilot_files(), ".gitignore": ".tiergate/\n"},
        )
        super().__init__(root, project, SESSION)

    def verify(self, agent_id: str) -> dict[str, Any]:
        """A verifier that ran the checks and says PASS, through SubagentStart and SubagentStop."""
        verification = self.loop().verification
        assert verification is not None
        packet = self.hook("SubagentStart", agent_id=agent_id, agent_type=verification.agent)
        assert "CHECKS tiergate ran" in packet["hookSpecificOutput"]["additionalContext"]
        criteria = [
            {"criterion": label, "status": "VERIFIED", "evidence": "$ sh app.sh -> as required"}
            for label in verification.evidence
        ]
        verdict = json.dumps({"verdict": "PASS", "criteria": criteria, "critique": ""})
        return self.hook(
            "SubagentStop",
            agent_id=agent_id,
            agent_type=verification.agent,
            agent_transcript_path=str(
                verifier_transcript(self.root / f"agent-{agent_id}.jsonl", "sh app.sh list", "apple red")
            ),
            last_assistant_message=f"I ran the checks.\n\n```tiergate-verdict\n{verdict}\n```",
        )

    def status(self) -> dict[str, str]:
        [entry] = json.loads(self.run("status", "--json").stdout)
        return {f["id"]: f["status"] for f in entry["features"]}


def test_features_are_done_one_at_a_time_and_a_regression_is_refuted_until_fixed(tmp_path: Path) -> None:
    pilot = Autopilot(tmp_path)
    started = pilot.hook("UserPromptSubmit", prompt="/tiergate:autopilot features.json --max-iterations 12")
    assert "loop started" in started["systemMessage"]
    assert "Feature F01: List items" in started["hookSpecificOutput"]["additionalContext"]
    assert pilot.status() == {"F01": "current", "F02": "pending"}

    # F01's check fails at the base too (there is no app.sh): an acceptance check is never excused.
    nothing = pilot.hook("Stop", last_assistant_message=CLAIM)["reason"]
    assert "no verifier was spawned" in nothing and "F01 list" in nothing

    write(pilot.project, {"app.sh": LIST})
    assert "```tiergate-spawn" in pilot.hook("Stop", last_assistant_message=CLAIM)["reason"]
    assert "returned PASS" in pilot.verify("a1")["systemMessage"]
    handed_over = pilot.hook("Stop", last_assistant_message="F01 done.")
    assert handed_over["decision"] == "block"
    assert "F01 is done" in handed_over["reason"] and "Feature F02: Filter by tag" in handed_over["reason"]
    assert pilot.status() == {"F01": "done", "F02": "current"}
    store = state_dir(pilot.project, pilot.env) / "backups.git"
    green = git(store, f"--git-dir={store}", "rev-parse", f"refs/green/{SESSION}").strip()
    assert git(store, f"--git-dir={store}", "show", f"{green}:files/app.sh") == LIST

    # F02's own check passes, but list prints nothing now: the regression suite refutes the claim.
    write(pilot.project, {"app.sh": NO_GUARD})
    broken = pilot.hook("Stop", last_assistant_message=CLAIM)["reason"]
    assert "no verifier was spawned" in broken and "tiergate-spawn" not in broken
    assert "breaks F01, already done" in broken and "F01 list" in broken
    assert (
        "in 1 check of 3, acceptance or regression checks that must pass" in broken
        and "Passed: F02 filter" in broken
    )
    assert pilot.loop().item == "F02" and pilot.loop().attempts[-1].by == "gate"

    write(pilot.project, {"app.sh": BOTH})
    assert "```tiergate-spawn" in pilot.hook("Stop", last_assistant_message=CLAIM)["reason"]
    assert "returned PASS" in pilot.verify("a2")["systemMessage"]
    assert "loop finished" in pilot.hook("Stop", last_assistant_message="F02 done.")["systemMessage"]
    assert pilot.loop().phase == "passed" and not pilot.loop().active
    assert pilot.status() == {"F01": "done", "F02": "done"}
    assert "features: F01 done, F02 done" in pilot.run("status").stdout


def test_autopilot_start_from_a_shell_waits_with_its_features_and_a_bad_file_is_one_line(
    tmp_path: Path,
) -> None:
    pilot = Autopilot(tmp_path)
    started = pilot.run("autopilot", "start", "features.json", "--max-iterations", "7")
    assert started.returncode == 0, started.stderr
    assert "autopilot pending" in started.stdout and "(F01, F02)" in started.stdout
    [entry] = json.loads(pilot.run("status", "--json").stdout)
    assert entry["pending"] and entry["max_iterations"] == 7
    assert [(f["id"], f["status"]) for f in entry["features"]] == [("F01", "current"), ("F02", "pending")]

    write(pilot.project, {"bad.json": json.dumps({"features": [{"id": "F09", "title": "x", "checks": 3}]})})
    bad = pilot.run("autopilot", "start", "bad.json")
    assert bad.returncode != 0
    assert bad.stderr.strip().count("\n") == 0 and "bad.json: feature F09.checks" in bad.stderr
    refused = pilot.hook("UserPromptSubmit", prompt="/tiergate:autopilot missing.json")
    assert "cannot start a loop" in refused["systemMessage"] and "missing.json" in refused["systemMessage"]


def test_one_feature_and_one_iteration_are_counted_in_the_singular(tmp_path: Path) -> None:
    pilot = Autopilot(tmp_path)
    write(pilot.project, {"one.json": json.dumps({"features": FEATURES["features"][:1]})})
    started = pilot.run("autopilot", "start", "one.json", "--max-iterations", "1")
    assert started.returncode == 0, started.stderr
    assert "with 1 feature (F01)" in started.stdout and "(at most 1 iteration)" in started.stdout
    assert "features" not in started.stdout and "iterations" not in started.stdout


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("/tiergate:autopilot features.json", loopcommands.StartAutopilot("features.json", None)),
        (
            "/tiergate:autopilot --max-iterations 9 'my features.json'",
            loopcommands.StartAutopilot("my features.json", 9),
        ),
        (
            "/tiergate:autopilot",
            loopcommands.CommandError(f"no features file given; {loopcommands.AUTOPILOT_USAGE}"),
        ),
        ("please run /tiergate:autopilot features.json", None),
    ],
)
def test_the_autopilot_command_is_parsed_only_at_the_start_of_a_prompt(
    prompt: str, expected: loopcommands.Command | None
) -> None:
    assert loopcommands.parse(prompt) == expected


def test_the_autopilot_command_file_hands_claude_the_arguments_and_the_promise() -> None:
    text = (Path(__file__).resolve().parents[2] / "commands" / "autopilot.md").read_text()
    head, body = text.split("---\n", 2)[1:]
    assert "argument-hint: <features.json> [--max-iterations N]" in head
    assert body.count("$ARGUMENTS") == 1 and "<promise>DONE</promise>" in body
