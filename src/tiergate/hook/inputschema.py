"""The schema of the Claude Code hook inputs tiergate handles, as pydantic models: what it accepts.

`tiergate.hook.inputs` reads an input by hand when its fields have their plain JSON form and asks this
schema otherwise. Each schema holds the fields of its twin in `tiergate.hook.inputs`, with the same types
and defaults (tests/hook/inputs_test.py holds them to it); the reference's quirks are absorbed here once
(`stop_hook_active` missing or null, "" for a missing path).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from tiergate.errors import InputError
from tiergate.project import is_valid_session_id


class HookInputSchema(BaseModel):
    """Fields every hook event carries (or may carry). Fields tiergate does not read are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    session_id: str
    cwd: str
    transcript_path: str | None = None
    prompt_id: str | None = None

    @field_validator("session_id")
    @classmethod
    def _session_id_is_safe(cls, value: str) -> str:
        if not is_valid_session_id(value):
            raise ValueError("must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")
        return value

    @field_validator("transcript_path", mode="before")
    @classmethod
    def _empty_path_is_none(cls, value: object) -> object:
        return None if value == "" else value


class StopSchema(HookInputSchema):
    stop_hook_active: bool = False
    last_assistant_message: str | None = None

    # Seen missing or null on the first SubagentStop of CLI 2.1.220 (issue #83365): it means "not yet".
    @field_validator("stop_hook_active", mode="before")
    @classmethod
    def _missing_is_false(cls, value: object) -> object:
        return False if value is None else value


class SubagentStartSchema(HookInputSchema):
    agent_id: str
    agent_type: str = ""


class SubagentStopSchema(HookInputSchema):
    agent_id: str
    agent_type: str = ""
    last_assistant_message: str | None = None
    agent_transcript_path: str | None = None

    @field_validator("agent_transcript_path", mode="before")
    @classmethod
    def _empty_agent_path_is_none(cls, value: object) -> object:
        return None if value == "" else value


class SessionStartSchema(HookInputSchema):
    source: str | None = None


class UserPromptSubmitSchema(HookInputSchema):
    prompt: str


class StopFailureSchema(HookInputSchema):
    error: str = "unknown"


class PreCompactSchema(HookInputSchema):
    trigger: str | None = None


class SessionEndSchema(HookInputSchema):
    reason: str | None = None


class TaskCompletedSchema(HookInputSchema):
    task_id: str
    task_subject: str = ""
    task_description: str = ""


class PostToolUseSchema(HookInputSchema):
    tool_name: str


# By event: each event's model is named after it (tests/hook/inputs_test.py: one per registry event).
SCHEMAS: dict[str, type[HookInputSchema]] = {
    model.__name__.removesuffix("Schema"): model for model in HookInputSchema.__subclasses__()
}


def validate(event_name: str, payload: Mapping[str, object]) -> HookInputSchema:
    """The model of `payload` for `event_name`; InputError (one line) if it does not fit.

    Call `tiergate.hook.inputs.parse_input`, which reads plain inputs without pydantic."""
    model = SCHEMAS.get(event_name)
    if model is None:
        raise InputError(f"tiergate does not handle {event_name!r} hook events")
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        raise InputError(summary(event_name, exc)) from None


def summary(event_name: str, exc: ValidationError) -> str:
    errors = exc.errors(include_url=False, include_input=False)
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"]) or "input"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{event_name} input: {where}: {first['msg']}{more}"
