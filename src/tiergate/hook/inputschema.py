"""Pydantic models of the Claude Code hook inputs tiergate handles: the definition of what it accepts.

`tiergate.hook.inputs` reads an input by hand when its fields are in their plain JSON form and asks these
models otherwise, so pydantic (about 70 ms to import) is on a hook's path only for an odd input. Each
model holds the fields tiergate reads, with the types and defaults of its twin in `tiergate.hook.inputs`
(tests/hook/inputs_test.py holds them to it); the quirks of the reference are absorbed here once
(`stop_hook_active` missing or null, "" for a missing path).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from tiergate.errors import InputError
from tiergate.project import is_valid_session_id


class HookInputModel(BaseModel):
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


class StopModel(HookInputModel):
    stop_hook_active: bool = False
    last_assistant_message: str | None = None

    # Seen missing or null on the first SubagentStop of CLI 2.1.220 (issue #83365): it means "not yet".
    @field_validator("stop_hook_active", mode="before")
    @classmethod
    def _missing_is_false(cls, value: object) -> object:
        return False if value is None else value


class SubagentStartModel(HookInputModel):
    agent_id: str
    agent_type: str = ""


class SubagentStopModel(HookInputModel):
    agent_id: str
    agent_type: str = ""
    last_assistant_message: str | None = None
    agent_transcript_path: str | None = None

    @field_validator("agent_transcript_path", mode="before")
    @classmethod
    def _empty_agent_path_is_none(cls, value: object) -> object:
        return None if value == "" else value


class SessionStartModel(HookInputModel):
    source: str | None = None


class UserPromptSubmitModel(HookInputModel):
    prompt: str


class StopFailureModel(HookInputModel):
    error: str = "unknown"


class PreCompactModel(HookInputModel):
    trigger: str | None = None


class SessionEndModel(HookInputModel):
    reason: str | None = None


# By event: each event's model is named after it (tests/hook/inputs_test.py: one per registry event).
MODELS: dict[str, type[HookInputModel]] = {
    model.__name__.removesuffix("Model"): model for model in HookInputModel.__subclasses__()
}


def validate(event_name: str, payload: Mapping[str, object]) -> HookInputModel:
    """The model of `payload` for `event_name`; InputError (one line) if it does not fit.

    Call `tiergate.hook.inputs.parse_input`, which reads plain inputs without pydantic."""
    model = MODELS.get(event_name)
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
