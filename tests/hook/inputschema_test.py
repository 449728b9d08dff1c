"""The pydantic models of the hook inputs, asked directly: what each event's payload becomes, and the one
line said when it does not fit."""

from __future__ import annotations

import pytest

from tiergate.errors import InputError
from tiergate.hook import inputschema

SESSION = "3f2b8c1e-9d7a-4c1b-8e2f-5a6b7c8d9e0f"
COMMON = {"session_id": SESSION, "cwd": "/home/me/proj", "transcript_path": "/home/me/t.jsonl"}


def test_each_event_gets_its_own_model_and_fields_it_does_not_read_are_dropped() -> None:
    model = inputschema.validate("UserPromptSubmit", {**COMMON, "prompt": "go", "permission_mode": "plan"})
    assert isinstance(model, inputschema.UserPromptSubmitSchema)
    assert model.prompt == "go"
    assert "permission_mode" not in model.model_dump()


def test_an_empty_transcript_path_is_no_path() -> None:
    model = inputschema.validate("SessionStart", {**COMMON, "transcript_path": ""})
    assert model.transcript_path is None


def test_stop_hook_active_sent_as_null_means_not_yet() -> None:
    model = inputschema.validate("Stop", {**COMMON, "stop_hook_active": None})
    assert isinstance(model, inputschema.StopSchema)
    assert model.stop_hook_active is False


def test_a_subagent_s_empty_transcript_path_is_no_path() -> None:
    model = inputschema.validate("SubagentStop", {**COMMON, "agent_id": "a1", "agent_transcript_path": ""})
    assert isinstance(model, inputschema.SubagentStopSchema)
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
