"""The deterministic gate in the real Claude Code CLI: a claim the project's configured check refutes is
blocked with the check's output and no verifier is asked for; the fixed claim passes the gate, and only
then is the verifier spawned, with the check results in its evidence packet."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.claude.cli import RunClaude, run_tiergate
from testing.claude.gated_loop import (
    commit_checked_project,
    refuted_then_verified,
    script_refuted_then_verified,
)
from testing.claude.scripted_api import ScriptedApi, write_file
from testing.claude.tiergate_model import packet_of
from testing.tiergatecli import start_loop
from testing.valueproject import CHECK

pytestmark = pytest.mark.e2e

CLAIM = "value.txt is fixed.\n<promise>DONE</promise>"


def test_a_claim_the_configured_check_refutes_never_reaches_a_verifier_and_the_fix_does(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    files = {"value.txt": "good\n", "check.sh": CHECK}
    commit_checked_project(git_project, files, "sh check.sh", "value.txt and its check")
    start_loop(git_project, "make value.txt say best", max_iterations=6)
    script_refuted_then_verified(
        scripted_api,
        first_try=[write_file(git_project / "value.txt", "best\n")],
        fix=[write_file(git_project / "value.txt", "good\n")],
        claim=CLAIM,
        check="sh check.sh",
        evidence="ran `sh check.sh`: test_value ... ok",
    )

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    # The first claim: blocked with the check's own output, and no verifier asked for; the fixed claim
    # passes the gate and only then gets its verifier.
    refuted, _ = refuted_then_verified(scripted_api, git_project)
    assert "no verifier was spawned" in refuted
    assert "AssertionError: value.txt says best, expected good" in refuted
    verifier_calls = scripted_api.messages_calls("subagent")
    assert verifier_calls, "the verifier was never spawned"
    packet = packet_of(verifier_calls[0])
    assert "CHECKS tiergate ran on this exact workspace" in packet
    assert "- tests (`sh check.sh`, tests): passed in" in packet
    assert "tiergate evidence packet for verification v1" in packet
    assert all("verification v2" not in packet_of(r) for r in verifier_calls)
    assert any("loop finished" in notice for notice in run.notices), run.notices
