"""The deterministic gate in the real Claude Code CLI: a claim the project's configured check refutes is
blocked with the check's output and no verifier is asked for; the fixed claim passes the gate, and only
then is the verifier spawned, with the check results in its evidence packet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testing.claude.cli import RunClaude, run_tiergate
from testing.claude.scripted_api import Rule, ScriptedApi, bash, stop_feedback, text, write_file
from testing.claude.tiergate_model import follow_spawn_directive, packet_of, passing_verdict
from testing.gitrepo import commit_all, write
from testing.tiergatecli import decisions, tiergate

pytestmark = pytest.mark.e2e

CLAIM = "value.txt is fixed.\n<promise>DONE</promise>"
CHECK = """\
if grep -qx good value.txt; then echo "test_value ... ok"; exit 0; fi
echo "FAIL: test_value (checks.ValueTest)"
echo "AssertionError: value.txt says $(cat value.txt), expected good"
exit 1
"""


def test_a_claim_the_configured_check_refutes_never_reaches_a_verifier_and_the_fix_does(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    write(
        git_project,
        {"value.txt": "good\n", "check.sh": CHECK, ".tiergate.toml": '[checks]\ntests = "sh check.sh"\n'},
    )
    commit_all(git_project, "value.txt and its check")
    started = tiergate(git_project, "ralph", "start", "make value.txt say best", "--max-iterations", "6")
    assert started.returncode == 0, started.stderr
    scripted_api.script(
        Rule(follow_spawn_directive, thread="main", last_user_contains="```tiergate-spawn", name="spawn"),
        Rule(text("The verifier has answered."), thread="main", last_user_contains="tiergate-verdict"),
    )
    scripted_api.sequence(
        write_file(git_project / "value.txt", "best\n"),
        text(CLAIM),
        write_file(git_project / "value.txt", "good\n"),
        text(CLAIM),
        thread="main",
    )
    scripted_api.on(bash("sh check.sh"), thread="subagent", after_tool_result=False)
    scripted_api.on(passing_verdict("ran `sh check.sh`: test_value ... ok"), thread="subagent")

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    feedback = stop_feedback(scripted_api)
    refuted, spawn = feedback[0], feedback[1]
    # The first claim: blocked with the check's own output, and no verifier asked for.
    assert "no verifier was spawned" in refuted
    assert "AssertionError: value.txt says best, expected good" in refuted
    assert "```tiergate-spawn" not in refuted
    # The fixed claim passes the gate and only then gets its verifier.
    assert spawn.count("```tiergate-spawn") == 1
    verifier_calls = scripted_api.messages_calls("subagent")
    assert verifier_calls, "the verifier was never spawned"
    packet = packet_of(verifier_calls[0])
    assert "CHECKS tiergate ran on this exact workspace" in packet
    assert "- tests (`sh check.sh`, tests): passed in" in packet
    assert "tiergate evidence packet for verification v1" in packet
    assert all("verification v2" not in packet_of(r) for r in verifier_calls)
    assert decisions(git_project) == [
        ("ralph start", "pending"),
        ("SessionStart", "bind"),
        ("UserPromptSubmit", "user-prompt"),
        ("Stop", "gate-refuted"),
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
        ("Stop", "finalize"),
    ]
    [status] = json.loads(tiergate(git_project, "status", "--json").stdout)
    assert (status["phase"], status["verdict"]) == ("passed", "PASS")
    assert any("loop finished" in notice for notice in run.notices), run.notices
