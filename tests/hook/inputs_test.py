"""Reading hook inputs: by hand where the input is plain, by the pydantic models otherwise, always alike."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tiergate.errors import InputError
from tiergate.hook import inputfields, inputs, inputschema
from tiergate.hook.inputs import parse_input
from tiergate.hook.registry import EVENTS

COMMON = {
    "session_id": "3f2b8c1e-9d7a-4c1b-8e2f-5a6b7c8d9e0f",
    "transcript_path": "/home/me/.claude/projects/-home-me-proj/3f2b8c1e-9d7a-4c1b-8e2f-5a6b7c8d9e0f.jsonl",
    "cwd": "/home/me/proj",
}

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
    # Observed on 2.1.332 (a TaskUpdate setting task #1 completed).
    "TaskCompleted": {
        **COMMON,
        "prompt_id": "p1",
        "hook_event_name": "TaskCompleted",
        "task_id": "1",
        "task_subject": "Fix add",
        "task_description": "make add() correct",
    },
    # The goal tool's fields as sdk-tools.d.ts 0.3.332 declares them (print mode refuses the tool).
    "PostToolUse": {
        **COMMON,
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "SetGoal",
        "tool_input": {"condition": "every test passes", "ask_user": False},
        "tool_response": {"condition": "every test passes", "askUser": False},
        "tool_use_id": "toolu_1",
    },
}


def test_every_event_has_an_input_and_a_model_with_the_same_fields_and_defaults() -> None:
    assert set(inputfields.INPUTS) == set(inputschema.SCHEMAS) == set(EVENTS) == set(OBSERVED)
    for event, cls in inputfields.INPUTS.items():
        model = inputschema.SCHEMAS[event]
        by_hand = {f.name: (f.name in inputfields.REQUIRED, f.default) for f in dataclasses.fields(cls)}
        by_model = {
            name: (info.is_required(), None if info.is_required() else info.default)
            for name, info in model.model_fields.items()
        }
        for name, (required, _) in by_hand.items():
            if required:
                by_hand[name] = (True, None)
        assert by_hand == by_model, event


@pytest.mark.parametrize("event", EVENTS)
def test_observed_payloads_parse(event: str) -> None:
    model = parse_input(event, OBSERVED[event])

    assert type(model).__name__ == f"{event}Input"
    assert model.session_id == COMMON["session_id"]
    assert model.cwd == COMMON["cwd"]


@pytest.mark.parametrize("event", EVENTS)
def test_fields_tiergate_does_not_read_are_ignored(event: str) -> None:
    payload = {**OBSERVED[event], "field_from_the_future": {"x": [1, 2]}, "effort": "any shape"}

    assert parse_input(event, payload) == parse_input(event, OBSERVED[event])


@pytest.mark.parametrize("event", EVENTS)
def test_only_session_id_and_cwd_are_required_besides_the_events_own_keys(event: str) -> None:
    own_required = {
        "UserPromptSubmit": {"prompt": "p"},
        "SubagentStart": {"agent_id": "a1"},
        "TaskCompleted": {"task_id": "1"},
        "PostToolUse": {"tool_name": "SetGoal"},
    }
    payload = {"session_id": "s1", "cwd": "/p", **own_required.get(event, {})}
    if event == "SubagentStop":
        payload["agent_id"] = "a1"

    assert parse_input(event, payload).session_id == "s1"


@pytest.mark.parametrize(
    ("sent", "expected"), [("missing", False), (None, False), (False, False), (True, True), ("true", True)]
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
    assert parse_input("StopFailure", {**COMMON}).error == "unknown"


@pytest.mark.parametrize("event", ["Stop", "SubagentStop"])
def test_the_inputs_are_frozen(event: str) -> None:
    model = parse_input(event, OBSERVED[event])

    with pytest.raises(dataclasses.FrozenInstanceError):
        model.session_id = "other"  # type: ignore[misc]


_MISSING = object()
_VALUES = st.one_of(
    st.just(_MISSING),
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False),
    st.sampled_from(["", "a1", "../x", "tiergate:architect", "\u00e9", "true", "off", "0"]),
    st.lists(st.text(max_size=2), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)


def _fields_read(event: str) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(inputfields.INPUTS[event]))


@st.composite
def _payloads(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    event = draw(st.sampled_from(tuple(EVENTS)))
    payload: dict[str, Any] = dict(OBSERVED[event])
    for name in _fields_read(event):
        value = draw(_VALUES) if draw(st.booleans()) else payload.get(name, _MISSING)
        if value is _MISSING:
            payload.pop(name, None)
        else:
            payload[name] = value
    return event, payload


def _by_model(event: str, payload: dict[str, Any]) -> object:
    """What the pydantic model makes of `payload`: its fields as the input has them, or its error."""
    try:
        return inputschema.validate(event, payload)
    except InputError as exc:
        return str(exc)


@settings(max_examples=1500, deadline=None)
@given(_payloads())
def test_an_input_read_by_hand_is_what_the_model_makes_of_it(sent: tuple[str, dict[str, Any]]) -> None:
    event, payload = sent
    try:
        got: object = parse_input(event, payload)
    except InputError as exc:
        got = str(exc)
    by_hand = inputs._read(event, payload)

    assert got == _by_model(event, payload)
    if by_hand is not None:
        assert by_hand == got  # read by hand, pydantic agrees


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
    with pytest.raises(InputError, match="PreToolUse"):
        parse_input("PreToolUse", OBSERVED["Stop"])


def test_a_plain_input_is_read_without_importing_pydantic() -> None:
    code = (
        "import json, sys\n"
        "from tiergate.hook.protocol import HookReply, render\n"
        "render('Stop', HookReply(system_message='m'))\n"
        "from tiergate.hook.inputs import parse_input\n"
        f"observed = json.loads({json.dumps(json.dumps(OBSERVED))})\n"
        "for event, payload in observed.items():\n"
        "    parse_input(event, payload)\n"
        "assert 'pydantic' not in sys.modules, 'imported for a plain input'\n"
        "stop = parse_input('Stop', {**observed['Stop'], 'stop_hook_active': 'true'})\n"
        "assert stop.stop_hook_active is True and 'pydantic' in sys.modules\n"
    )

    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)

    assert result.returncode == 0, result.stderr
