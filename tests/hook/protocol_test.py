from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tiergate.errors import InputError
from tiergate.hook import inputs as leaninputs
from tiergate.hook import models as hookinputs
from tiergate.hook import protocol
from tiergate.hook.events import EVENTS
from tiergate.hook.inputs import parse_input
from tiergate.hook.protocol import HookAnswer, HookReply, render

ALL_EVENTS = EVENTS
NO_CONTEXT_EVENTS = ("PreCompact", "SessionEnd", "StopFailure")
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


def test_redo_feedback_is_stderr_with_exit_2() -> None:
    answer = render("SubagentStop", HookReply(redo_feedback="Run the tests and quote their output."))

    assert answer == HookAnswer(stdout="", stderr="Run the tests and quote their output.", exit_code=2)


def test_redo_feedback_keeps_a_system_message_for_the_user() -> None:
    answer = render("SubagentStop", HookReply(redo_feedback="Redo.", system_message="verdict 1/3 sent back"))

    assert answer.exit_code == 2 and answer.stderr == "Redo."
    assert _stdout_json(answer) == {"systemMessage": "verdict 1/3 sent back"}


@pytest.mark.parametrize("event", [e for e in ALL_EVENTS if e != "SubagentStop"])
def test_redo_feedback_only_on_subagent_stop(event: str) -> None:
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


# Input models -----------------------------------------------------------------------------------------

# Payloads as CLI 2.1.332 sends them (from the protocol reference), plus fields it may add later.
OBSERVED: dict[str, dict[str, Any]] = {
    "SessionStart": {**COMMON, "hook_event_name": "SessionStart", "source": "startup"},
    "UserPromptSubmit": {
        **COMMON,
        "prompt_id": "p1",
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "/tiergate:ralph fix the parser",
    },
    "Stop": {
        **COMMON,
        "permission_mode": "default",
        "effort": {"level": "medium"},
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": "main reply #2",
        "background_tasks": [],
        "session_crons": [],
    },
    "SubagentStart": {
        **COMMON,
        "prompt_id": "p1",
        "agent_id": "a3d98629b342db2b6",
        "agent_type": "tiergate:architect-low",
        "hook_event_name": "SubagentStart",
    },
    "SubagentStop": {
        **COMMON,
        "permission_mode": "default",
        "hook_event_name": "SubagentStop",
        "stop_hook_active": True,
        "agent_id": "a3d98629b342db2b6",
        "agent_type": "tiergate:architect-low",
        "agent_transcript_path": "/home/me/.claude/projects/p/s/subagents/agent-a3d98629b342db2b6.jsonl",
        "last_assistant_message": "VERDICT: PASS",
        "background_tasks": [{"id": "b1", "type": "shell", "status": "running", "description": "server"}],
    },
    "PreCompact": {
        **COMMON,
        "hook_event_name": "PreCompact",
        "trigger": "manual",
        "custom_instructions": "keep",
    },
    "SessionEnd": {**COMMON, "hook_event_name": "SessionEnd", "reason": "other"},
    "StopFailure": {
        **COMMON,
        "hook_event_name": "StopFailure",
        "error": "rate_limit",
        "error_details": "429 Too Many Requests",
        "last_assistant_message": "Working on it",
    },
}


LEAN_EVENTS = ("SubagentStop", "PreCompact", "SessionEnd")
PYDANTIC_EVENTS = tuple(e for e in ALL_EVENTS if e not in LEAN_EVENTS)


def test_every_event_the_hook_accepts_has_one_model() -> None:
    assert set(hookinputs.MODELS) | set(leaninputs.READERS) == set(ALL_EVENTS) == set(OBSERVED)
    assert set(hookinputs.MODELS) & set(leaninputs.READERS) == set()


@pytest.mark.parametrize("event", ALL_EVENTS)
def test_observed_payloads_parse(event: str) -> None:
    model = parse_input(event, OBSERVED[event])

    assert type(model).__name__ == f"{event}Input"
    assert model.session_id == COMMON["session_id"]
    assert model.cwd == COMMON["cwd"]


@pytest.mark.parametrize("event", PYDANTIC_EVENTS)
def test_unknown_fields_are_kept(event: str) -> None:
    payload = {**OBSERVED[event], "field_from_the_future": {"x": [1, 2]}, "another": "y"}

    model = parse_input(event, payload)

    assert isinstance(model, hookinputs.HookInput)
    assert model.model_extra == {"field_from_the_future": {"x": [1, 2]}, "another": "y"}


@pytest.mark.parametrize("event", LEAN_EVENTS)
def test_fields_read_by_hand_ignore_what_they_do_not_read(event: str) -> None:
    payload = {**OBSERVED[event], "field_from_the_future": {"x": [1, 2]}, "stop_hook_active": "perhaps"}

    assert parse_input(event, payload) == parse_input(event, OBSERVED[event])


@pytest.mark.parametrize("event", ALL_EVENTS)
def test_only_session_id_and_cwd_are_required_besides_the_events_own_keys(event: str) -> None:
    own_required = {"UserPromptSubmit": {"prompt": "p"}, "SubagentStart": {"agent_id": "a1"}}
    payload = {"session_id": "s1", "cwd": "/p", **own_required.get(event, {})}
    if event == "SubagentStop":
        payload["agent_id"] = "a1"

    parse_input(event, payload)


@pytest.mark.parametrize(
    ("sent", "expected"), [("missing", False), (None, False), (False, False), (True, True)]
)
def test_stop_hook_active_missing_or_null_is_false(sent: object, expected: bool) -> None:
    payload = dict(OBSERVED["Stop"])
    if sent == "missing":
        del payload["stop_hook_active"]
    else:
        payload["stop_hook_active"] = sent

    assert parse_input("Stop", payload).stop_hook_active is expected


@pytest.mark.parametrize(("agent_type", "phantom"), [("", True), ("  ", True), ("tiergate:architect", False)])
def test_subagent_stop_from_a_compaction_fork_is_phantom(agent_type: str, phantom: bool) -> None:
    model = parse_input("SubagentStop", {**OBSERVED["SubagentStop"], "agent_type": agent_type})

    assert model.is_phantom is phantom


def test_subagent_stop_without_agent_type_is_phantom() -> None:
    payload = dict(OBSERVED["SubagentStop"])
    del payload["agent_type"]

    assert parse_input("SubagentStop", payload).is_phantom


def test_empty_paths_read_as_absent() -> None:
    stop = parse_input("SubagentStop", {**OBSERVED["SubagentStop"], "agent_transcript_path": ""})
    start = parse_input("SessionStart", {**OBSERVED["SessionStart"], "transcript_path": ""})

    assert stop.agent_transcript_path is None
    assert start.transcript_path is None


def test_stop_failure_defaults_to_unknown_error() -> None:
    model = parse_input("StopFailure", {**COMMON})

    assert model.error == "unknown"
    assert model.last_assistant_message is None


@pytest.mark.parametrize("event", ["Stop", "SubagentStop"])
def test_the_models_are_frozen(event: str) -> None:
    model = parse_input(event, OBSERVED[event])

    with pytest.raises((ValueError, AttributeError), match=r"frozen|cannot assign"):
        model.session_id = "other"  # type: ignore[misc]


class _SubagentStopByPydantic(hookinputs.HookInput):
    """What pydantic says of the fields the hand-read SubagentStop model reads (the same field types,
    the same session_id rule): the reference for its errors."""

    agent_id: str
    agent_type: str = ""
    last_assistant_message: str | None = None
    agent_transcript_path: str | None = None


_VALUES = st.one_of(
    st.just(_MISSING := object()),
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False),
    st.sampled_from(["", "a1", "../x", "tiergate:architect", "\u00e9"]),
    st.lists(st.text(max_size=2), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)


_READ_BY_HAND = (
    "session_id",
    "cwd",
    "agent_id",
    "agent_type",
    "last_assistant_message",
    "agent_transcript_path",
)


@settings(max_examples=500, deadline=None)
@given(st.fixed_dictionaries(dict.fromkeys(_READ_BY_HAND, _VALUES)))
def test_subagent_stop_read_by_hand_fails_exactly_where_and_as_pydantic_does(sent: dict[str, object]) -> None:
    payload: dict[str, Any] = {**OBSERVED["SubagentStop"], "transcript_path": None}
    for key, value in sent.items():
        if value is _MISSING:
            payload.pop(key, None)
        else:
            payload[key] = value
    try:
        _SubagentStopByPydantic.model_validate(payload)
        expected = None
    except ValidationError as exc:
        expected = hookinputs._summary("SubagentStop", exc)
    try:
        model = parse_input("SubagentStop", payload)
        got = None
    except InputError as exc:
        got = str(exc)

    assert got == expected
    if got is None:
        assert (model.session_id, model.agent_id) == (payload["session_id"], payload["agent_id"])


@pytest.mark.parametrize(
    ("event", "change", "where"),
    [
        ("Stop", {"session_id": "../../etc/passwd"}, "session_id"),
        ("Stop", {"session_id": 7}, "session_id"),
        ("Stop", {"stop_hook_active": "perhaps"}, "stop_hook_active"),
        ("Stop", {"last_assistant_message": ["not", "text"]}, "last_assistant_message"),
        ("UserPromptSubmit", {"prompt": None}, "prompt"),
        ("SubagentStop", {"agent_id": None}, "agent_id"),
        ("Stop", {"cwd": None}, "cwd"),
    ],
)
def test_a_payload_that_does_not_fit_is_one_line_input_error(
    event: str, change: dict[str, Any], where: str
) -> None:
    with pytest.raises(InputError) as caught:
        parse_input(event, {**OBSERVED[event], **change})

    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{event} input: {where}: ")


def test_an_unknown_event_is_an_input_error() -> None:
    with pytest.raises(InputError, match="PostToolUse"):
        parse_input("PostToolUse", OBSERVED["Stop"])


def test_importing_protocol_and_the_lean_inputs_does_not_import_pydantic() -> None:
    code = (
        "import sys\n"
        "from tiergate.hook.protocol import HookReply, render\n"
        "render('Stop', HookReply(system_message='m'))\n"
        "from tiergate.hook.inputs import parse_input\n"
        "for event in ('SubagentStop', 'PreCompact', 'SessionEnd'):\n"
        "    parse_input(event, {'session_id': 's', 'cwd': '/', 'agent_id': 'a1'})\n"
        "assert 'pydantic' not in sys.modules, 'eager'\n"
        "from tiergate.hook.inputs import StopInput\n"
        "assert 'pydantic' in sys.modules\n"
        "assert parse_input('Stop', {'session_id': 's', 'cwd': '/'}).__class__ is StopInput\n"
    )

    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)

    assert result.returncode == 0, result.stderr


def test_the_inputs_module_re_exports_the_models() -> None:
    assert leaninputs.StopInput is hookinputs.StopInput
    with pytest.raises(AttributeError):
        _ = leaninputs.NoSuchThing  # type: ignore[attr-defined]
