"""Reading a hook input: `parse_input(event_name, payload)` is the event's input, or InputError (one line).

An input whose fields have their plain JSON form is read here by hand; any other goes to the pydantic
schema (`tiergate.hook.inputschema`), which words what is wrong or coerces as pydantic does. So a hook
whose input is as the CLI sends it never imports pydantic, which would cost it 118 to 176 ms of CPU
(bench/hook_import_bench.py). tests/hook/inputs_test.py holds the two readings equal on generated
payloads. Each input holds only the fields tiergate reads; the others are neither checked nor kept.
"""

from __future__ import annotations

from dataclasses import fields

from tiergate.errors import InputError
from tiergate.frozen import frozen
from tiergate.project import is_valid_session_id

# Not `from typing import TYPE_CHECKING`: importing typing alone costs a hook several milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Literal, overload

__all__ = [
    "HookInput",
    "PostToolUseInput",
    "PreCompactInput",
    "SessionEndInput",
    "SessionStartInput",
    "StopFailureInput",
    "StopInput",
    "SubagentStartInput",
    "SubagentStopInput",
    "TaskCompletedInput",
    "UserPromptSubmitInput",
    "parse_input",
]


@frozen
class HookInput:
    """Fields every hook event carries (or may carry)."""

    session_id: str
    cwd: str
    transcript_path: str | None = None  # "" (sent for "none") reads as None
    prompt_id: str | None = None


@frozen
class StopInput(HookInput):
    stop_hook_active: bool = False  # missing or null on some CLI versions (#83365): "not yet"
    last_assistant_message: str | None = None


@frozen
class SubagentStartInput(HookInput):
    agent_id: str = ""  # required: the reader refuses an input without it
    agent_type: str = ""


@frozen
class SubagentStopInput(HookInput):
    agent_id: str = ""  # required, as above
    agent_type: str = ""
    last_assistant_message: str | None = None
    agent_transcript_path: str | None = None

    @property
    def is_phantom(self) -> bool:
        """A SubagentStop that no subagent of ours caused: the CLI's internal compaction and summary
        forks stop with an empty agent_type, no SubagentStart and a copied last message (#91910)."""
        return not self.agent_type.strip()


@frozen
class SessionStartInput(HookInput):
    source: str | None = None


@frozen
class UserPromptSubmitInput(HookInput):
    prompt: str = ""  # required, as above


@frozen
class StopFailureInput(HookInput):
    """The turn ended on an API error instead of a Stop. `error` is also the hook's matcher value:
    rate_limit, authentication_failed, billing_error, invalid_request, server_error, ..."""

    error: str = "unknown"


@frozen
class TaskCompletedInput(HookInput):
    """A task of Claude Code's task list set to `completed` (CLI 2.1.332): exit 2 refuses it."""

    task_id: str = ""  # required, as above
    task_subject: str = ""
    task_description: str = ""


@frozen
class PostToolUseInput(HookInput):
    """A tool's call and result; tiergate registers it for Claude Code's goal tool alone. The tool's
    input and result are the tool's own JSON, read where they are used (`tiergate.loop.goal`)."""

    tool_name: str = ""  # required, as above


@frozen
class PreCompactInput(HookInput):
    trigger: str | None = None


@frozen
class SessionEndInput(HookInput):
    reason: str | None = None


INPUTS: dict[str, type[HookInput]] = {
    "SessionStart": SessionStartInput,
    "UserPromptSubmit": UserPromptSubmitInput,
    "Stop": StopInput,
    "SubagentStart": SubagentStartInput,
    "SubagentStop": SubagentStopInput,
    "PreCompact": PreCompactInput,
    "SessionEnd": SessionEndInput,
    "StopFailure": StopFailureInput,
    "TaskCompleted": TaskCompletedInput,
    "PostToolUse": PostToolUseInput,
}
# Fields without which an input is refused (the others have their defaults above).
REQUIRED = {"session_id", "cwd", "agent_id", "prompt", "task_id", "tool_name"}
# Optional paths: "" reads as None.
PATHS = {"transcript_path", "agent_transcript_path"}
_MISSING = object()


def _plain(name: str, value: object, default: object) -> bool:
    """Whether `value` is a field's plain JSON form, which the model would take as it is."""
    if value is _MISSING:
        return name not in REQUIRED
    if isinstance(default, bool):
        return value is None or isinstance(value, bool)
    if value is None:
        return default is None
    return isinstance(value, str)


def _read(event_name: str, payload: Mapping[str, object]) -> HookInput | None:
    """The input read by hand, or None where a field is not in its plain form."""
    cls = INPUTS[event_name]
    values: dict[str, object] = {}
    for field in fields(cls):
        value = payload.get(field.name, _MISSING)
        if not _plain(field.name, value, field.default):
            return None
        if value is _MISSING or value is None:
            continue  # the default; a bool's null is False, its default
        values[field.name] = None if field.name in PATHS and value == "" else value
    if not is_valid_session_id(values["session_id"]):
        return None
    return cls(**values)  # type: ignore[arg-type]


def _read_by_model(event_name: str, payload: Mapping[str, object]) -> HookInput:
    from tiergate.hook import inputschema

    model = inputschema.validate(event_name, payload)
    cls = INPUTS[event_name]
    return cls(**{field.name: getattr(model, field.name) for field in fields(cls)})


def _parse_input(event_name: str, payload: Mapping[str, object]) -> HookInput:
    """The input of `payload` for `event_name`; InputError (one line) if it does not fit."""
    if event_name not in INPUTS:
        raise InputError(f"tiergate does not handle {event_name!r} hook events")
    read = _read(event_name, payload)
    return read if read is not None else _read_by_model(event_name, payload)


if TYPE_CHECKING:
    # The overloads are for the type checker only: `typing` stays off the hook's import path.
    @overload
    def parse_input(event_name: Literal["SessionStart"], payload: Mapping[str, Any]) -> SessionStartInput: ...
    @overload
    def parse_input(
        event_name: Literal["UserPromptSubmit"], payload: Mapping[str, Any]
    ) -> UserPromptSubmitInput: ...
    @overload
    def parse_input(event_name: Literal["Stop"], payload: Mapping[str, Any]) -> StopInput: ...
    @overload
    def parse_input(
        event_name: Literal["SubagentStart"], payload: Mapping[str, Any]
    ) -> SubagentStartInput: ...
    @overload
    def parse_input(event_name: Literal["SubagentStop"], payload: Mapping[str, Any]) -> SubagentStopInput: ...
    @overload
    def parse_input(event_name: Literal["PreCompact"], payload: Mapping[str, Any]) -> PreCompactInput: ...
    @overload
    def parse_input(event_name: Literal["SessionEnd"], payload: Mapping[str, Any]) -> SessionEndInput: ...
    @overload
    def parse_input(event_name: Literal["StopFailure"], payload: Mapping[str, Any]) -> StopFailureInput: ...
    @overload
    def parse_input(
        event_name: Literal["TaskCompleted"], payload: Mapping[str, Any]
    ) -> TaskCompletedInput: ...
    @overload
    def parse_input(event_name: Literal["PostToolUse"], payload: Mapping[str, Any]) -> PostToolUseInput: ...
    @overload
    def parse_input(event_name: str, payload: Mapping[str, Any]) -> HookInput: ...
    def parse_input(event_name: str, payload: Mapping[str, Any]) -> HookInput:
        return _parse_input(event_name, payload)
else:
    parse_input = _parse_input
