"""What the pinned Claude Code CLI does with its own loops, `/goal` and the task list, seen through a
recording plugin: the behaviours tiergate's adoption of them stands on (docs/interop.md, "Claude Code's
/goal and task list"). If a CLI upgrade changes one, a test here fails before any tiergate test does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from testing.claude.cli import RunClaude
from testing.claude.goal_judge import is_evaluation, stop_input
from testing.claude.probe_plugin import HookAnswer, ProbePlugin, make_probe_plugin
from testing.claude.scripted_api import ApiRequest, Reply, Rule, ScriptedApi, text, tool_use, write_file

pytestmark = pytest.mark.e2e

CONDITION = "out.txt exists and says hello"
TASK_TOOLS = ("Write", "ToolSearch", "TaskCreate", "TaskUpdate")


@pytest.fixture(name="probe")
def probe_fixture(tmp_path: Path) -> ProbePlugin:
    events = ("UserPromptSubmit", "Stop", "TaskCompleted")
    return make_probe_plugin(tmp_path / "probe-plugin", events=events)


def evaluator(*verdicts: str) -> Rule:
    """The goal evaluator answering `verdicts` in turn (met, unmet, impossible), the last one after."""
    asked: list[ApiRequest] = []

    def answer(request: ApiRequest) -> Reply:
        asked.append(request)
        verdict = verdicts[min(len(asked), len(verdicts)) - 1]
        body: dict[str, Any] = {"ok": verdict == "met", "reason": f"evaluation {len(asked)}: {verdict}"}
        if verdict == "impossible":
            body["impossible"] = True
        return text(json.dumps(body))

    return Rule(answer, when=is_evaluation, name="goal evaluator")


def goal_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        r["attachment"]
        for r in records
        if r.get("type") == "attachment" and r["attachment"].get("type") == "goal_status"
    ]


def transcript(run_home: Path) -> list[dict[str, Any]]:
    [path] = run_home.glob(".claude/projects/*/*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def test_a_goal_is_recorded_in_the_transcript_and_its_evaluation_is_written_while_the_stop_hooks_run(
    probe: ProbePlugin,
    scripted_api: ScriptedApi,
    run_claude: RunClaude,
    git_project: Path,
    claude_home: Path,
) -> None:
    probe.delay("Stop", 1.5)
    probe.answer("Stop", HookAnswer(stderr="probe: not yet", exit_code=2))
    scripted_api.script(evaluator("met"))
    scripted_api.sequence(
        write_file(git_project / "out.txt", "hello\n"), text("Done."), text("Done again."), thread="main"
    )

    run = run_claude(f"/goal {CONDITION}", plugin_dir=probe.root)

    assert run.returncode == 0, run.describe()
    # UserPromptSubmit sees the command as typed, before Claude Code records the goal.
    [prompt] = probe.records("UserPromptSubmit")
    assert prompt["prompt"] == f"/goal {CONDITION}"
    # One evaluation, tool-less, of the first Stop; its input is the Stop hook's input.
    [asked] = [r for r in scripted_api.requests if is_evaluation(r)]
    assert asked.tool_names == ()
    assert "Based on the conversation transcript above" in asked.last_user_text()
    assert stop_input(asked)["last_assistant_message"] == "Done."
    # The evaluation is in the transcript while the Stop hooks still run, after the final message.
    first_stop, second_stop = probe.transcript_seen("Stop")
    last_assistant = max(i for i, r in enumerate(first_stop) if r.get("type") == "assistant")
    assert goal_records(first_stop[:last_assistant]) == [
        {"type": "goal_status", "met": False, "sentinel": True, "condition": CONDITION}
    ]
    [evaluation] = goal_records(first_stop[last_assistant:])
    assert {k: evaluation[k] for k in ("met", "condition", "reason")} == {
        "met": True,
        "condition": CONDITION,
        "reason": "evaluation 1: met",
    }
    # A command hook's block outlives the goal met at the same Stop: the session went on, and the goal,
    # cleared, was not evaluated again.
    assert run.result["result"] == "Done again."
    assert goal_records(second_stop) == goal_records(first_stop)


def test_an_impossible_goal_ends_and_goal_clear_is_recorded_with_no_prompt_hook(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude, claude_home: Path
) -> None:
    scripted_api.script(evaluator("impossible", "unmet"))
    scripted_api.on(text("It cannot be done."), thread="main")

    prompts = [f"/goal {CONDITION}", "/goal", f"/goal {CONDITION} again", "/goal clear"]
    run = run_claude(prompts, plugin_dir=probe.root, env={"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "2"})

    assert run.returncode == 0, run.describe()
    records = goal_records(transcript(claude_home))
    failed = {"met": False, "failed": True, "condition": CONDITION, "reason": "evaluation 1: impossible"}
    assert {k: records[1][k] for k in failed} == failed
    # The second goal, never met, ran until /goal clear, which writes a sentinel with met.
    again = f"{CONDITION} again"
    assert records[2] == {"type": "goal_status", "met": False, "sentinel": True, "condition": again}
    assert records[-1] == {
        "type": "goal_status",
        "met": True,
        "sentinel": True,
        "condition": f"{CONDITION} again",
    }
    # UserPromptSubmit runs for a /goal that sets a condition (the model is asked to work on it), not for
    # /goal alone nor /goal clear: a clear is seen only in the transcript.
    assert [p["prompt"] for p in probe.records("UserPromptSubmit")] == [prompts[0], prompts[2]]


def test_exit_2_from_task_completed_keeps_the_task_open_with_the_hooks_reason(
    probe: ProbePlugin, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    probe.answer("TaskCompleted", HookAnswer(stderr="probe: test_x broke", exit_code=2))
    scripted_api.sequence(
        tool_use("ToolSearch", {"query": "select:TaskCreate,TaskUpdate", "max_results": 5}),
        tool_use(
            "TaskCreate", {"subject": "Fix add", "description": "make add() right", "activeForm": "Fixing"}
        ),
        tool_use("TaskUpdate", {"taskId": "1", "status": "completed"}),
        tool_use("TaskUpdate", {"taskId": "1", "status": "completed"}),
        text("all done"),
        thread="main",
    )

    run = run_claude("do the tasks", plugin_dir=probe.root, allowed_tools=TASK_TOOLS)

    assert run.returncode == 0, run.describe()
    first, second = probe.records("TaskCompleted")
    assert {k: first[k] for k in ("task_id", "task_subject", "task_description")} == {
        "task_id": "1",
        "task_subject": "Fix add",
        "task_description": "make add() right",
    }
    assert first["session_id"] == second["session_id"] == run.session_id
    results = [r.last_user_text() for r in scripted_api.messages_calls("main")]
    assert any("TaskCompleted hook feedback:" in t and "probe: test_x broke" in t for t in results)
    assert any(t.strip().endswith("Updated task #1 status") for t in results)
