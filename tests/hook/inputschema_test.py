"""The pydantic models of the hook inputs, asked directly: what each event's payload becomes, and the one
line said when it does not fit."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from testing.classfields import declared_fields

from tiergate.errors import InputError
from tiergate.hook import inputfields, inputschema

SESSION = "3f2b8c1e-9d7a-4c1b-8e2f-5a6b7c8d9e0f"
COMMON = {"session_id": SESSION, "cwd": "/home/me/proj", "transcript_path": "/home/me/t.jsonl"}


def test_each_event_gets_its_own_model_and_fields_it_does_not_read_are_dropped() -> None:
    model = inputschema.validate("UserPromptSubmit", {**COMMON, "prompt": "go", "permission_mode": "plan"})
    assert isinstance(model, inputfields.UserPromptSubmitInput)
    assert model.prompt == "go"
    assert "permission_mode" not in dataclasses.asdict(model)


def test_an_empty_transcript_path_is_no_path() -> None:
    model = inputschema.validate("SessionStart", {**COMMON, "transcript_path": ""})
    assert model.transcript_path is None


def test_stop_hook_active_sent_as_null_means_not_yet() -> None:
    model = inputschema.validate("Stop", {**COMMON, "stop_hook_active": None})
    assert isinstance(model, inputfields.StopInput)
    assert model.stop_hook_active is False


def test_a_subagent_s_empty_transcript_path_is_no_path() -> None:
    model = inputschema.validate("SubagentStop", {**COMMON, "agent_id": "a1", "agent_transcript_path": ""})
    assert isinstance(model, inputfields.SubagentStopInput)
    assert (model.agent_id, model.agent_type, model.agent_transcript_path) == ("a1", "", None)


def test_an_event_tiergate_does_not_handle_is_refused_by_name() -> None:
    with pytest.raises(InputError, match="tiergate does not handle 'PreToolUse' hook events"):
        inputschema.validate("PreToolUse", COMMON)


def test_a_session_id_that_could_escape_a_folder_is_refused() -> None:
    with pytest.raises(InputError) as caught:
        inputschema.validate("Stop", {**COMMON, "session_id": "../x"})
    assert str(caught.value) == (
        "Stop input: session_id: Value error, must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$"
    )


def test_the_summary_names_the_first_wrong_field_and_counts_the_others() -> None:
    with pytest.raises(InputError) as caught:
        inputschema.validate("SubagentStart", {"transcript_path": 3})
    message = str(caught.value)
    assert message.startswith("SubagentStart input: session_id: Field required")
    assert message.endswith("(and 3 more)")  # cwd, transcript_path and agent_id


def test_the_schema_declares_no_field_of_its_own_each_model_has_its_input_class_s_fields() -> None:
    assert declared_fields(inputschema.__file__) == []
    assert list(inputschema.SCHEMAS) == list(inputfields.INPUTS)
    for event, cls in inputfields.INPUTS.items():
        model = inputschema.SCHEMAS[event]
        assert list(model.model_fields) == [f.name for f in dataclasses.fields(cls)], event
        assert model.__name__ == f"{event}Schema"


def test_a_model_s_text_fields_are_checked_as_text() -> None:
    payload: dict[str, Any] = {**COMMON, "agent_id": 3}
    with pytest.raises(InputError) as caught:
        inputschema.validate("SubagentStart", payload)
    assert str(caught.value) == "SubagentStart input: agent_id: Input should be a valid string"
