from __future__ import annotations

import json
from typing import Any

import pytest

from tiergate.hook import protocol
from tiergate.hook.protocol import HookAnswer, HookReply, render
from tiergate.hook.registry import EVENTS

ALL_EVENTS = EVENTS
NO_CONTEXT_EVENTS = ("PreCompact", "SessionEnd", "StopFailure", "TaskCompleted")
COMMON = {
    "session_id": "3f2b8c1e-9d7a-4c1b-8e2f-5a6b7c8d9e0f",
    "transcript_path": "/home/me/.claude/projects/-home-me-proj/3f2b8c1e-9d7a-4c1b-8e2f-5a6b7c8d9e0f.jsonl",
    "cwd": "/home/me/proj",
}


def _stdout_json(answer: HookAnswer) -> dict[str, Any]:
    assert answer.stdout.endswith("\n") and answer.stdout.count("\n") == 1, "one JSON line"
    value = json.loads(answer.stdout)
    assert isinstance(value, dict)
    return value


# Rendering ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("event", ALL_EVENTS)
def test_an_empty_reply_says_nothing(event: str) -> None:
    assert render(event, HookReply()) == HookAnswer(stdout="", stderr="", exit_code=0)


@pytest.mark.parametrize("event", ["Stop", "SubagentStop"])
def test_block(event: str) -> None:
    answer = render(event, HookReply(block_reason="Not done: tests fail.\nRun them."))

    assert answer.exit_code == 0 and answer.stderr == ""
    assert _stdout_json(answer) == {"decision": "block", "reason": "Not done: tests fail.\nRun them."}


@pytest.mark.parametrize("event", [e for e in ALL_EVENTS if e not in ("Stop", "SubagentStop")])
def test_block_is_refused_where_the_event_cannot_block(event: str) -> None:
    with pytest.raises(ValueError, match="cannot block"):
        render(event, HookReply(block_reason="no"))


@pytest.mark.parametrize("reason", ["", "   \n"])
def test_a_block_without_a_reason_is_refused(reason: str) -> None:
    with pytest.raises(ValueError, match="needs a reason"):
        render("Stop", HookReply(block_reason=reason))


@pytest.mark.parametrize("event", ["SubagentStop", "TaskCompleted"])
def test_redo_feedback_is_stderr_with_exit_2(event: str) -> None:
    answer = render(event, HookReply(redo_feedback="Run the tests and quote their output."))

    assert answer == HookAnswer(stdout="", stderr="Run the tests and quote their output.", exit_code=2)


def test_redo_feedback_keeps_a_system_message_for_the_user() -> None:
    answer = render("SubagentStop", HookReply(redo_feedback="Redo.", system_message="verdict 1/3 sent back"))

    assert answer.exit_code == 2 and answer.stderr == "Redo."
    assert _stdout_json(answer) == {"systemMessage": "verdict 1/3 sent back"}


@pytest.mark.parametrize("event", [e for e in ALL_EVENTS if e not in ("SubagentStop", "TaskCompleted")])
def test_redo_feedback_only_on_subagent_stop_and_task_completed(event: str) -> None:
    with pytest.raises(ValueError, match="back to work"):
        render(event, HookReply(redo_feedback="again"))


@pytest.mark.parametrize(
    "reply",
    [
        HookReply(redo_feedback="again", block_reason="no"),
        HookReply(redo_feedback="again", additional_context="c"),
    ],
)
def test_redo_feedback_cannot_be_mixed_with_a_decision(reply: HookReply) -> None:
    with pytest.raises(ValueError, match="alone"):
        render("SubagentStop", reply)


@pytest.mark.parametrize("event", [e for e in ALL_EVENTS if e not in NO_CONTEXT_EVENTS])
def test_additional_context_names_its_event(event: str) -> None:
    answer = render(event, HookReply(additional_context="The evidence packet."))

    assert _stdout_json(answer) == {
        "hookSpecificOutput": {"hookEventName": event, "additionalContext": "The evidence packet."}
    }


@pytest.mark.parametrize("event", NO_CONTEXT_EVENTS)
def test_additional_context_is_refused_where_the_schema_has_no_hook_specific_output(event: str) -> None:
    with pytest.raises(ValueError, match="cannot add context"):
        render(event, HookReply(additional_context="x"))


@pytest.mark.parametrize("event", ALL_EVENTS)
def test_system_message_goes_anywhere(event: str) -> None:
    assert _stdout_json(render(event, HookReply(system_message="tiergate: loop 2/10"))) == {
        "systemMessage": "tiergate: loop 2/10"
    }


def test_block_context_and_message_together_make_one_object() -> None:
    answer = render("Stop", HookReply(block_reason="r", additional_context="c", system_message="m"))

    assert _stdout_json(answer) == {
        "decision": "block",
        "reason": "r",
        "hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "c"},
        "systemMessage": "m",
    }


def test_any_text_survives_the_wire() -> None:
    text = 'quotes " \\ newline\n tab\t nul\0 emoji \U0001f600 lone surrogate \ud800 end'

    answer = render("Stop", HookReply(block_reason=text))

    assert answer.stdout.isascii()
    assert _stdout_json(answer)["reason"] == text


def test_system_message_line_is_one_line_and_bounded() -> None:
    line = protocol.system_message_line("first\nsecond\r\n" + "x" * 5000)

    assert line.count("\n") == 1
    message = json.loads(line)["systemMessage"]
    assert message.startswith("tiergate: first second x")
    assert len(message) < 700
