"""tiergate's plugin in the real Claude Code CLI: hooks registered, launcher found, verifiers spawned.

The plugin under test is this checkout (`--plugin-dir`), its hooks run tiergate under the test's own
interpreter (TIERGATE_PYTHON), and the model is the scripted API.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from testing.claude.cli import TIERGATE_PLUGIN, ClaudeRun, RunClaude, run_tiergate
from testing.claude.scripted_api import Failure, ScriptedApi, agent, bash, text, tool_use
from testing.statefolder import state_dir

pytestmark = pytest.mark.e2e

VERIFIERS = {
    "tiergate:architect-low": "claude-haiku-5-5",
    "tiergate:architect-medium": "claude-sonnet-5-5",
    "tiergate:architect": "claude-opus-5-5",
}


def tiergate_hooks(run: ClaudeRun) -> list[tuple[str, int]]:
    return [(h.event, h.status) for h in run.hook_runs() if "/hooks/tiergate-hook " in h.command]


def test_with_no_loop_every_hook_runs_tiergate_and_changes_nothing(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    scripted_api.sequence(agent("tiergate:architect-low", "check"), text("all done"), thread="main")
    scripted_api.on(text("verifier answer"), thread="subagent")

    run = run_tiergate(run_claude, "do the thing")

    assert run.returncode == 0, run.describe()
    assert tiergate_hooks(run) == [
        ("SessionStart", 0),
        ("UserPromptSubmit", 0),
        ("SubagentStart", 0),
        ("SubagentStop", 0),
        ("Stop", 0),
        ("SessionEnd", 0),
    ]
    assert all(h.command.endswith(f"/hooks/tiergate-hook {h.event}") for h in run.hook_runs())
    # No loop: no state folder appears, nothing reaches the model or the user, and the stop goes ahead.
    assert not state_dir(git_project).exists()
    assert all("hook additional context" not in r.conversation_text() for r in scripted_api.requests)
    assert all("hook feedback" not in r.conversation_text() for r in scripted_api.requests)
    assert run.notices == []
    assert run.result["result"] == "all done"


def test_verifiers_are_spawned_as_plugin_agents_on_their_tier_model_and_read_only(
    scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    spawns = [agent(name, "verify the claim") for name in VERIFIERS]
    scripted_api.sequence(*spawns, text("done"), thread="main")
    scripted_api.on(text("verdict"), thread="subagent")

    run = run_tiergate(run_claude, "verify", extra_args=["--model", "claude-scripted-main"])

    assert run.returncode == 0, run.describe()
    started = [h.matcher for h in run.hook_runs("SubagentStart") if "tiergate-hook" in h.command]
    assert started == list(VERIFIERS)
    subagent_calls = scripted_api.messages_calls("subagent")
    assert [r.model for r in subagent_calls] == list(VERIFIERS.values())
    for request in subagent_calls:
        assert not {"Edit", "Write", "NotebookEdit", "Agent"} & set(request.tool_names), request.tool_names
        assert "Bash" in request.tool_names


def test_every_hook_in_hooks_json_runs_tiergate_in_a_session_that_spawns_compacts_and_fails(
    scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    registered = set(json.loads((TIERGATE_PLUGIN / "hooks" / "hooks.json").read_text())["hooks"])
    session_id = str(uuid.uuid4())
    scripted_api.sequence(
        agent("tiergate:architect-low", "check"),
        tool_use("ToolSearch", {"query": "select:TaskCreate,TaskUpdate", "max_results": 5}),
        tool_use("TaskCreate", {"subject": "Check", "description": "check it", "activeForm": "Checking"}),
        tool_use("TaskUpdate", {"taskId": "1", "status": "completed"}),
        bash("true"),
        text("first reply"),
        thread="main",
    )
    scripted_api.on(text("verdict"), thread="subagent")
    tools = ("Bash", "Agent", "ToolSearch", "TaskCreate", "TaskUpdate")

    first = run_tiergate(run_claude, "start", session_id=session_id, allowed_tools=tools)
    compact = run_tiergate(run_claude, "/compact keep it short", resume=session_id)
    scripted_api.on(Failure(429, "rate_limit_error", "slow down"), thread="main")
    failed = run_tiergate(run_claude, "again", resume=session_id, await_hooks=["StopFailure"])

    assert first.returncode == 0, first.describe()
    assert compact.returncode == 0, compact.describe()
    assert failed.result["is_error"] is True, failed.describe()
    ran = [hook for run in (first, compact, failed) for hook in tiergate_hooks(run)]
    # PostToolUse is registered for Claude Code's goal tool alone, disabled in 2.1.332 offline: it ran for
    # none of the other tools (its matcher keeps every other call off tiergate); every other event ran.
    assert {event for event, _ in ran} == registered - {"PostToolUse"}
    assert {status for _, status in ran} == {0}
    assert ("PreCompact", 0) in tiergate_hooks(compact)
    # An API error ends the turn with StopFailure instead of Stop.
    assert "Stop" not in [event for event, _ in tiergate_hooks(failed)]


def test_the_launcher_fails_open_when_tiergate_is_not_installed(
    tmp_path: Path, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    # A copy of the plugin without the checkout's .venv, and no TIERGATE_PYTHON or installed venv.
    plugin = tmp_path / "plugin"
    for part in (".claude-plugin", "hooks", "agents", "commands"):
        if (TIERGATE_PLUGIN / part).exists():
            shutil.copytree(TIERGATE_PLUGIN / part, plugin / part)
    scripted_api.on(text("finished anyway"), thread="main")

    run = run_claude("work", plugin_dir=plugin, output_format="stream-json")

    assert run.returncode == 0, run.describe()
    assert run.result["result"] == "finished anyway"
    assert {status for _, status in tiergate_hooks(run)} == {0}
    assert run.notices, "the user was not told that tiergate is inactive"
    assert all("not installed" in notice and "install.sh" in notice for notice in run.notices)
    assert all("not installed" not in r.conversation_text() for r in scripted_api.requests)
