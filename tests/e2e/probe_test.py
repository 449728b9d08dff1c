"""What the pinned Claude Code CLI does with a plugin's hooks and agents, seen through a recording plugin.

tiergate is built on these behaviours (docs/claude-code-findings.md); if a CLI upgrade changes one, a test
here fails before any tiergate test does.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest
from testing.claude.cli import RunClaude
from testing.claude.probe_plugin import (
    HookAnswer,
    ProbePlugin,
    context_answer,
    json_answer,
    make_probe_plugin,
    probe_fixture,  # noqa: F401  (the `probe` fixture)
    script_background_checker,
)
from testing.claude.scripted_api import Failure, ScriptedApi, agent, bash, text

pytestmark = pytest.mark.e2e

AGENT_ID = re.compile(r"^a[0-9a-f]{16}$")


def test_lifecycle_hooks_carry_the_fields_tiergate_reads(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    scripted_api.sequence(agent("probe:checker", "check the work"), text("main final"), thread="main")
    scripted_api.sequence(bash("echo checked"), text("checker verdict"), thread="subagent")

    run = run_claude("please verify", plugin_dir=probe.root)

    assert run.returncode == 0, run.describe()
    session_id = run.session_id
    [start] = probe.records("SessionStart")
    [prompt] = probe.records("UserPromptSubmit")
    [sub_start] = probe.records("SubagentStart")
    [sub_stop] = probe.records("SubagentStop")
    [stop] = probe.records("Stop")
    [end] = probe.records("SessionEnd")
    for payload in (start, prompt, sub_start, sub_stop, stop, end):
        assert payload["session_id"] == session_id
        assert Path(payload["cwd"]) == git_project
        assert payload["transcript_path"].endswith(f"/{session_id}.jsonl")
    assert start["source"] == "startup"
    assert prompt["prompt"] == "please verify"
    assert sub_start["agent_type"] == sub_stop["agent_type"] == "probe:checker"
    assert AGENT_ID.match(sub_start["agent_id"])
    assert sub_stop["agent_id"] == sub_start["agent_id"]
    assert sub_stop["stop_hook_active"] is False
    assert sub_stop["last_assistant_message"] == "checker verdict"
    assert sub_stop["agent_transcript_path"].endswith(
        f"/{session_id}/subagents/agent-{sub_start['agent_id']}.jsonl"
    )
    assert Path(sub_stop["agent_transcript_path"]).is_file()
    assert stop["stop_hook_active"] is False
    assert stop["last_assistant_message"] == "main final"
    assert end["reason"] == "other"
    assert [hook.event for hook in run.hook_runs()] == [
        "SessionStart",
        "UserPromptSubmit",
        "SubagentStart",
        "SubagentStop",
        "Stop",
        "SessionEnd",
    ]
    [stop_env] = probe.environments("Stop")
    assert Path(stop_env["CLAUDE_PROJECT_DIR"]) == git_project
    assert Path(stop_env["CLAUDE_PLUGIN_ROOT"]) == probe.root
    # The main agent's next turn carries the subagent's final text as the Agent tool's result.
    assert "checker verdict" in scripted_api.messages_calls("main")[-1].last_user_text()
    # The CLI needs nothing from the API but streamed Messages calls.
    assert {(r.method, r.path) for r in scripted_api.requests} == {("POST", "/v1/messages")}
    assert all(r.body.get("stream") is True for r in scripted_api.requests)


def test_plugin_agents_run_on_the_model_of_their_frontmatter(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    for name, model in (("low", "haiku"), ("medium", "sonnet"), ("high", "opus")):
        probe.add_agent(name, model=model, body=f"You are the {name.upper()} probe agent.")
    spawns = [agent(f"probe:{name}", "verify") for name in ("low", "medium", "high")]
    scripted_api.sequence(*spawns, text("done"), thread="main")
    scripted_api.on(text("verified"), thread="subagent")

    # A main model of its own, so that no agent can pass by merely inheriting it.
    run = run_claude(
        "verify three ways", plugin_dir=probe.root, extra_args=["--model", "claude-scripted-main"]
    )

    assert run.returncode == 0, run.describe()
    models = {
        name: {
            r.model
            for r in scripted_api.messages_calls("subagent")
            if f"You are the {name.upper()}" in r.system
        }
        for name in ("low", "medium", "high")
    }
    assert models == {
        "low": {"claude-haiku-5-5"},
        "medium": {"claude-sonnet-5-5"},
        "high": {"claude-opus-5-5"},
    }
    assert {r.model for r in scripted_api.messages_calls("main")} == {"claude-scripted-main"}
    assert [p["agent_type"] for p in probe.records("SubagentStart")] == [
        "probe:low",
        "probe:medium",
        "probe:high",
    ]


def test_a_stop_block_reason_reaches_the_main_agent_and_the_next_stop_is_marked_active(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    probe.answer("Stop", json_answer({"decision": "block", "reason": "Keep going: STOP-REASON-7"}))
    scripted_api.sequence(text("first try"), text("second try"), thread="main")

    run = run_claude("work", plugin_dir=probe.root)

    assert run.returncode == 0, run.describe()
    first, second = scripted_api.messages_calls("main")
    assert "STOP-REASON-7" not in first.conversation_text()
    assert "Stop hook feedback:\nKeep going: STOP-REASON-7" in second.last_user_text()
    stops = probe.records("Stop")
    assert [(s["stop_hook_active"], s["last_assistant_message"]) for s in stops] == [
        (False, "first try"),
        (True, "second try"),
    ]
    assert run.result["result"] == "second try"


def test_subagent_start_context_reaches_that_subagent_and_nobody_else(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    probe.answer("SubagentStart", context_answer("SubagentStart", "EVIDENCE-PACKET-42"))
    scripted_api.sequence(agent("probe:checker", "check"), text("done"), thread="main")
    scripted_api.on(text("checked"), thread="subagent")

    run = run_claude("go", plugin_dir=probe.root)

    assert run.returncode == 0, run.describe()
    [subagent_call] = scripted_api.messages_calls("subagent")
    assert "SubagentStart hook additional context: EVIDENCE-PACKET-42" in subagent_call.conversation_text()
    assert all("EVIDENCE-PACKET-42" not in r.conversation_text() for r in scripted_api.messages_calls("main"))


def test_subagent_stop_exit_2_sends_stderr_to_the_subagent_which_answers_again(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    probe.answer("SubagentStop", HookAnswer(stderr="REDO: show the command output", exit_code=2))
    scripted_api.sequence(agent("probe:checker", "check"), text("main done"), thread="main")
    scripted_api.sequence(text("looks fine"), text("ran it: 3 passed"), thread="subagent")

    run = run_claude("go", plugin_dir=probe.root)

    assert run.returncode == 0, run.describe()
    first, second = scripted_api.messages_calls("subagent")
    assert "REDO: show the command output" not in first.conversation_text()
    assert "Stop hook feedback:" in second.last_user_text()
    assert "REDO: show the command output" in second.last_user_text()
    stops = probe.records("SubagentStop")
    assert [(s["stop_hook_active"], s["last_assistant_message"]) for s in stops] == [
        (False, "looks fine"),
        (True, "ran it: 3 passed"),
    ]
    assert [hook.status for hook in run.hook_runs("SubagentStop")] == [2, 0]
    # The parent sees only the redone answer.
    agent_result = scripted_api.messages_calls("main")[-1].last_user_text()
    assert "ran it: 3 passed" in agent_result
    assert "looks fine" not in agent_result


def test_subagent_hooks_with_a_plugin_prefix_matcher_fire_only_for_that_plugins_agents(
    tmp_path: Path, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    matchers = {"SubagentStart": "^probe:architect", "SubagentStop": "^probe:architect"}
    probe = make_probe_plugin(tmp_path / "probe-plugin", matchers=matchers)
    probe.add_agent("architect-low", model="haiku", body="You are ARCHITECT-LOW.")
    probe.add_agent("helper", model="haiku", body="You are HELPER.")
    spawns = [agent("probe:helper", "help"), agent("probe:architect-low", "verify")]
    scripted_api.sequence(*spawns, text("done"), thread="main")
    scripted_api.on(text("finished"), thread="subagent")

    run = run_claude("go", plugin_dir=probe.root)

    assert run.returncode == 0, run.describe()
    assert len(scripted_api.messages_calls("subagent")) == 2
    assert [p["agent_type"] for p in probe.records("SubagentStart")] == ["probe:architect-low"]
    assert [p["agent_type"] for p in probe.records("SubagentStop")] == ["probe:architect-low"]


def test_a_plugin_slash_command_reaches_user_prompt_submit_as_typed(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    probe.add_command("ralph", "Work on this task until it is done: $ARGUMENTS")
    probe.answer("UserPromptSubmit", context_answer("UserPromptSubmit", "PROMPT-CONTEXT-9"))
    probe.answer("SessionStart", context_answer("SessionStart", "SESSION-CONTEXT-5"))
    scripted_api.on(text("on it"), thread="main")

    run = run_claude("/probe:ralph fix the parser --max-iterations 3", plugin_dir=probe.root)

    assert run.returncode == 0, run.describe()
    [prompt] = probe.records("UserPromptSubmit")
    assert prompt["prompt"] == "/probe:ralph fix the parser --max-iterations 3"
    [call] = scripted_api.messages_calls("main")
    user_text = call.last_user_text()
    assert "<command-name>/probe:ralph</command-name>" in user_text
    assert "<command-args>fix the parser --max-iterations 3</command-args>" in user_text
    assert "Work on this task until it is done: fix the parser --max-iterations 3" in user_text
    assert "UserPromptSubmit hook additional context: PROMPT-CONTEXT-9" in call.conversation_text()
    assert "SessionStart hook additional context: SESSION-CONTEXT-5" in call.conversation_text()


def test_a_system_message_never_reaches_the_model_and_reaches_the_user_only_from_some_events(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    events = ("SessionStart", "UserPromptSubmit", "SubagentStart", "SubagentStop", "Stop", "SessionEnd")
    for event in events:
        probe.answer(event, json_answer({"systemMessage": f"NOTE-FROM-{event}"}))
    scripted_api.sequence(agent("probe:checker", "check"), text("answer"), thread="main")
    scripted_api.on(text("checked"), thread="subagent")

    run = run_claude("hello", plugin_dir=probe.root, output_format="stream-json")

    assert run.returncode == 0, run.describe()
    assert all("NOTE-FROM-" not in r.conversation_text() for r in scripted_api.requests)
    # In print mode only these two events' notices are shown; the others' are dropped.
    assert run.notices == ["UserPromptSubmit says: NOTE-FROM-UserPromptSubmit", "Stop says: NOTE-FROM-Stop"]
    # Without a block, a note changes nothing: one Stop, and the answer stands.
    assert len(probe.records("Stop")) == 1
    assert run.result["result"] == "answer"


@pytest.mark.parametrize(
    ("status", "error_type", "message", "expected_error"),
    [
        (429, "rate_limit_error", "slow down", "rate_limit"),
        (401, "authentication_error", "invalid x-api-key", "authentication_failed"),
        (
            400,
            "invalid_request_error",
            "prompt is too long: 300000 tokens > 200000 maximum",
            "invalid_request",
        ),
        (400, "invalid_request_error", "something else", "unknown"),
        (500, "api_error", "internal", "server_error"),
    ],
)
def test_an_api_failure_fires_stop_failure_and_no_stop(
    probe: ProbePlugin,
    scripted_api: ScriptedApi,
    run_claude: RunClaude,
    status: int,
    error_type: str,
    message: str,
    expected_error: str,
) -> None:
    scripted_api.on(Failure(status, error_type, message), thread="main")

    # StopFailure hooks start after the result; in plain -p the CLI would exit and kill them.
    run = run_claude("hello", plugin_dir=probe.root, await_hooks=["StopFailure"])

    assert run.result["is_error"] is True, run.describe()
    [failure] = probe.records("StopFailure")
    assert failure["error"] == expected_error
    assert failure["session_id"] == run.session_id
    assert isinstance(failure["last_assistant_message"], str)
    assert probe.records("Stop") == []


def test_resume_and_compact_keep_the_session_and_fire_their_hooks(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    session_id = str(uuid.uuid4())
    scripted_api.on(text("first session reply"), thread="main", times=1)
    scripted_api.on(text("resumed reply"), thread="main", last_user_contains="second prompt")

    first = run_claude("first prompt", plugin_dir=probe.root, session_id=session_id)
    second = run_claude("second prompt", plugin_dir=probe.root, resume=session_id)
    compact = run_claude("/compact keep the verdicts", plugin_dir=probe.root, resume=session_id)

    for run in (first, second, compact):
        assert run.returncode == 0, run.describe()
        assert run.session_id == session_id
    assert "first session reply" in scripted_api.messages_calls("main")[-1].conversation_text()
    assert [s["source"] for s in probe.records("SessionStart")] == ["startup", "resume", "resume", "compact"]
    [pre_compact] = probe.records("PreCompact")
    assert (pre_compact["trigger"], pre_compact["custom_instructions"]) == ("manual", "keep the verdicts")
    assert [p["prompt"] for p in probe.records("UserPromptSubmit")] == ["first prompt", "second prompt"]
    # Compaction runs as an internal fork whose SubagentStop has no agent type and no SubagentStart.
    assert probe.records("SubagentStart") == []
    assert [s["agent_type"] for s in probe.records("SubagentStop")] == [""]
    assert len([r for r in scripted_api.messages_calls() if r.is_compaction]) == 1


def test_every_recorded_payload_is_one_json_object_per_firing(
    probe: ProbePlugin, run_claude: RunClaude
) -> None:
    # Guards the probe itself: a hook that crashed would leave the other tests asserting on nothing.
    run = run_claude("hello", plugin_dir=probe.root)

    assert run.returncode == 0, run.describe()
    assert all(hook.status == 0 for hook in run.hook_runs()), run.hook_runs()
    files = sorted((probe.root / "records").glob("*.json"))
    assert [f.name.rsplit("-", 1)[0] for f in files] == [
        "SessionEnd",
        "SessionStart",
        "Stop",
        "UserPromptSubmit",
    ]
    assert all(isinstance(json.loads(f.read_text())["payload"], dict) for f in files)


def test_consecutive_stop_blocks_without_work_are_overridden_after_eight(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    probe.answer("Stop", *[json_answer({"decision": "block", "reason": f"again {n}"}) for n in range(20)])
    scripted_api.on(text("nothing to add"), thread="main")

    run = run_claude("hello", plugin_dir=probe.root, output_format="stream-json")

    assert run.returncode == 0, run.describe()
    # Eight blocks are honoured; the ninth is overridden and the turn ends.
    assert len(probe.records("Stop")) == 9
    assert len(scripted_api.messages_calls("main")) == 9
    [notice] = run.notices
    assert "blocked the turn from ending 9 consecutive times" in notice
    assert "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP" in notice


def test_a_tool_call_between_stop_blocks_resets_the_block_cap(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    probe.answer("Stop", *[json_answer({"decision": "block", "reason": f"again {n}"}) for n in range(12)])
    # A working loop: each continuation runs a command before it tries to stop again.
    scripted_api.on(bash("echo working"), thread="main", after_tool_result=False, last_user_contains="again")
    scripted_api.on(text("iteration done"), thread="main")

    run = run_claude("hello", plugin_dir=probe.root, output_format="stream-json")

    assert run.returncode == 0, run.describe()
    stops = probe.records("Stop")
    assert len(stops) == 13
    assert [s["stop_hook_active"] for s in stops] == [False] + [True] * 12
    assert run.notices == []


def test_an_agent_call_without_run_in_background_false_runs_in_the_background(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    # What a model may do with a spawn directive that does not insist on the foreground.
    script_background_checker(scripted_api, probe)

    run = run_claude("hello", plugin_dir=probe.root)

    assert run.returncode == 0, run.describe()
    events = [h.event for h in run.hook_runs()]
    # The main turn ends (Stop) while the subagent is still running...
    assert events.index("Stop") < events.index("SubagentStop")
    first_stop, second_stop = probe.records("Stop")
    [running] = first_stop["background_tasks"]
    assert (running["type"], running["status"], running["agent_type"]) == (
        "subagent",
        "running",
        "probe:checker",
    )
    assert running["id"] == probe.records("SubagentStart")[0]["agent_id"]
    # ...and its completion comes back as a new prompt, a task notification, which starts another turn.
    prompts = [p["prompt"] for p in probe.records("UserPromptSubmit")]
    assert prompts[0] == "hello"
    assert prompts[1].startswith("<task-notification>")
    assert "checker verdict" in scripted_api.messages_calls("main")[-1].last_user_text()
    assert second_stop["last_assistant_message"] == "saw the result"
    assert second_stop["background_tasks"] == []


def test_several_prompts_in_one_streaming_session_are_separate_turns(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    scripted_api.on(text("first answer"), thread="main", last_user_contains="first prompt")
    scripted_api.on(text("second answer"), thread="main", last_user_contains="second prompt")

    run = run_claude(["first prompt", "second prompt"], plugin_dir=probe.root)

    assert run.returncode == 0, run.describe()
    assert [r["result"] for r in run.results] == ["first answer", "second answer"]
    assert [p["prompt"] for p in probe.records("UserPromptSubmit")] == ["first prompt", "second prompt"]
    assert [s["last_assistant_message"] for s in probe.records("Stop")] == ["first answer", "second answer"]
    assert len({p["session_id"] for p in probe.records("Stop")}) == 1
    assert [s["source"] for s in probe.records("SessionStart")] == ["startup"]
    # The second turn sees the first.
    assert "first answer" in scripted_api.messages_calls("main")[1].conversation_text()
