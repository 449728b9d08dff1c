"""One autopilot in the real Claude Code CLI: two features, each claimed, gated with its acceptance checks
(the second's with the first's as its regression suite) and passed by its verifier; the loop hands over to
the second feature after the first and finalizes after the second."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testing.autopilotproject import BOTH, LIST, autopilot_files
from testing.claude.cli import RunClaude, run_tiergate
from testing.claude.scripted_api import ScriptedApi, stop_feedback, text, write_file
from testing.claude.tiergate_model import follow_tiergate, packet_of, verify_by_running
from testing.gitrepo import commit_all, write
from testing.tiergatecli import decisions, tiergate

pytestmark = pytest.mark.e2e

CLAIM = "The feature works and its checks pass.\n<promise>DONE</promise>"


def test_an_autopilot_of_two_features_is_gated_verified_and_finalized_after_the_second(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    write(git_project, autopilot_files())
    commit_all(git_project, "items and the features to build")
    started = tiergate(git_project, "autopilot", "start", "features.json", "--max-iterations", "8")
    assert started.returncode == 0, started.stderr
    follow_tiergate(scripted_api)
    scripted_api.sequence(
        write_file(git_project / "app.sh", LIST),
        text(CLAIM),
        write_file(git_project / "app.sh", BOTH),
        text(CLAIM),
        thread="main",
    )
    verify_by_running(scripted_api, "sh app.sh list", "ran `sh app.sh list`: the items")

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    feedback = stop_feedback(scripted_api)
    assert [f.count("```tiergate-spawn") for f in feedback] == [1, 0, 1]
    assert "F01 is done" in feedback[1] and "Feature F02: Filter by tag" in feedback[1]
    packets = [packet_of(r) for r in scripted_api.messages_calls("subagent")]
    first = next(p for p in packets if "verification v1" in p)
    second = next(p for p in packets if "verification v2" in p)
    assert "- F01 list (" in first and "F02 filter" not in first
    # The second feature's gate ran its own check and, as the regression suite, the first's.
    assert "- F02 filter (" in second and "- F01 list (" in second
    assert decisions(git_project) == [
        ("autopilot start", "pending"),
        ("SessionStart", "bind"),
        ("UserPromptSubmit", "user-prompt"),
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
        ("Stop", "next-feature"),
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
        ("Stop", "finalize"),
    ]
    [status] = json.loads(tiergate(git_project, "status", "--json").stdout)
    assert status["phase"] == "passed"
    assert [(f["id"], f["status"]) for f in status["features"]] == [("F01", "done"), ("F02", "done")]
    assert any("loop finished" in notice for notice in run.notices), run.notices
