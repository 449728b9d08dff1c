"""State the agent can reach is not trusted, in the real CLI: an implementer that rewrites its own loop file
to "passed" and claims completion is blocked once, then the loop halts and the session ends saying that the
claim was NOT verified; there is no PASS and no new green point."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.claude.cli import RunClaude, run_tiergate
from testing.claude.scripted_api import ScriptedApi, bash, text
from testing.gitrepo import git
from testing.statefolder import state_dir
from testing.tiergatecli import decisions, tiergate

pytestmark = pytest.mark.e2e

CLAIM = "The work is done.\n<promise>DONE</promise>"


def test_a_loop_file_rewritten_by_the_agent_ends_the_session_halted_without_a_pass(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    started = tiergate(git_project, "ralph", "start", "add hello.py printing hello")
    assert started.returncode == 0, started.stderr
    passed = '{"schema": 1, "active": false, "phase": "passed", "verdict": "PASS"}'
    tamper = bash(f"for f in {state_dir(git_project)}/loops/*.json; do printf '%s' '{passed}' > \"$f\"; done")
    scripted_api.sequence(tamper, text(CLAIM), text("Stopping here."), thread="main")

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    feedback = [r.last_user_text() for r in scripted_api.messages_calls("main")]
    [block] = [t for t in feedback if "Stop hook feedback:" in t]
    assert "tiergate cannot accept this claim" in block and "The claim is NOT accepted" in block
    [halt] = [n for n in run.notices if "loop halted" in n]
    assert "is not trustworthy" in halt and "The claim was NOT verified" in halt
    assert not any("loop finished" in n or "PASS stands" in n for n in run.notices), run.notices
    assert run.result["result"] == "Stopping here."
    stops = [d for event, d in decisions(git_project) if event == "Stop"]
    assert stops == ["fail_closed", "loop_halted"]
    assert not any(d == "finalize" for _, d in decisions(git_project))  # no new green point either
    assert git(git_project, "for-each-ref", "refs/tiergate/") == ""
