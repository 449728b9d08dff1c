"""Pydantic models of the Claude Code hook inputs tiergate handles (except SubagentStop, PreCompact and
SessionEnd, which are read without pydantic: `tiergate.hook.inputs`).

Tolerant of what the CLI adds or drops over time: unknown fields are kept, anything not sent on every
version is optional, and the quirks of the reference are absorbed here once (`stop_hook_active` missing
or null, "" for a missing transcript path).

Importing pydantic costs a hook about 70 ms, so only `tiergate.hook.inputs.parse_input` (or a handler that
has already decided there is work to do) should import this module.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from tiergate.errors import InputError
from tiergate.project import is_valid_session_id


class HookInput(BaseModel):
    """Fields every hook event carries (or may carry)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    session_id: str
    cwd: str
    transcript_path: str | None = None
    hook_event_name: str | None = None
    permission_mode: str | None = None
    prompt_id: str | None = None
    effort: dict[str, Any] | None = None
    agent_id: str | None = None
    agent_type: str | None = None

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


class _StopLike(HookInput):
    stop_hook_active: bool = False
    last_assistant_message: str | None = None
    background_tasks: list[dict[str, Any]] = []
    session_crons: list[dict[str, Any]] = []

    # Seen missing or null on the first SubagentStop of CLI 2.1.220 (issue #83365): it means "not yet".
    @field_validator("stop_hook_active", mode="before")
    @classmethod
    def _missing_is_false(cls, value: object) -> object:
        return False if value is None else value


class StopInput(_StopLike):
    pass


class SubagentStartInput(HookInput):
    agent_id: str
    agent_type: str = ""


class SessionStartInput(HookInput):
    source: str | None = None
    model: str | None = None
    session_title: str | None = None


class UserPromptSubmitInput(HookInput):
    prompt: str
    source: str | None = None
    session_title: str | None = None


class StopFailureInput(HookInput):
    """The turn ended on an API error instead of a Stop. `error` is also the hook's matcher value:
    rate_limit, authentication_failed, billing_error, invalid_request, server_error,
    max_output_tokens, unknown, ... (the list grows)."""

    error: str = "unknown"
    error_details: str | None = None
    last_assistant_message: str | None = None


MODELS: dict[str, type[HookInput]] = {
    "SessionStart": SessionStartInput,
    "UserPromptSubmit": UserPromptSubmitInput,
    "Stop": StopInput,
    "SubagentStart": SubagentStartInput,
    "StopFailure": StopFailureInput,
}


def parse_input(event_name: str, payload: dict[str, Any]) -> HookInput:
    """The model of `payload` for `event_name`; InputError (one line) if it does not fit.

    Call `tiergate.hook.inputs.parse_input`, which also knows the events read without pydantic."""
    model = MODELS.get(event_name)
    if model is None:
        raise InputError(f"tiergate does not handle {event_name!r} hook events")
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        raise InputError(_summary(event_name, exc)) from None


def _summary(event_name: str, exc: ValidationError) -> str:
    errors = exc.errors(include_url=False, include_input=False)
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"]) or "input"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{event_name} input: {where}: {first['msg']}{more}"
