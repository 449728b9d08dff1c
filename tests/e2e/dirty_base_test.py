"""A loop started from a shell on a dirty tree, end to end in the real Claude Code CLI (issue 13): the
user's own uncommitted edit of a security file and untracked notes are the loop's base, not its work, so
the claim is verified at the tier of what the loop did (a quick fix: LIGHT), not THOROUGH."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.claude.cli import RunClaude, run_tiergate
from testing.claude.scripted_api import ScriptedApi, stop_feedback
from testing.claude.tiergate_model import packet_of, script_implementer, script_verifier, spawn_directive
from testing.gitrepo import commit_all, write
from testing.tiergatecli import decisions, start_loop, tiergate

pytestmark = pytest.mark.e2e


def test_the_users_dirty_security_file_is_the_loops_base_and_lifts_no_tier(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    write(git_project, {"src/auth/session.py": "def valid(token):\n    return bool(token)\n"})
    commit_all(git_project, "a security file")
    # The user's own work in progress, uncommitted, when the loop starts.
    write(git_project, {"src/auth/session.py": "def valid(token):\n    return token == 'x'  # WIP\n"})
    write(git_project, {"notes.txt": "the user's notes\n"})
    start_loop(git_project, "a quick fix: add hello.py printing hello")
    assert "0 files, 0 lines since the loop began" in tiergate(git_project, "tier").stdout
    script_implementer(scripted_api, git_project, {"hello.py": "print('hello')\n"})
    script_verifier(scripted_api)

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    spawn = stop_feedback(scripted_api)[-1]
    directive = spawn_directive(spawn)
    assert directive is not None and directive["subagent_type"] == "tiergate:architect-low", spawn
    assert "Tier LIGHT: 1 file" in spawn
    packet = packet_of(scripted_api.messages_calls("subagent")[0])
    assert "- A hello.py" in packet and "session.py" not in packet and "notes.txt" not in packet
    assert ("Stop", "finalize") in decisions(git_project)
    assert "WIP" in (git_project / "src/auth/session.py").read_text()  # the user's work is untouched
