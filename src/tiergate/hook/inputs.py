"""Reading a hook input: `parse_input(event_name, payload)` is the event's input, or InputError (one line).

An input whose fields have their plain JSON form is read here by hand; any other goes to the pydantic schema
derived from the same classes (`tiergate.hook.inputschema`), which words what is wrong or coerces as pydantic
does. So a hook whose input is as the CLI sends it never imports pydantic, 118 to 176 ms of CPU
(bench/hook_import_bench.py). tests/hook/inputs_test.py holds the two readings equal on generated payloads.
"""

from __future__ import annotations

from dataclasses import fields

from tiergate import TYPE_CHECKING
from tiergate.errors import InputError
from tiergate.hook.inputfields import (
    INPUTS,
    PATHS,
    REQUIRED,
    HookInput,
    PostToolUseInput,
    PreCompactInput,
    SessionEndInput,
    SessionStartInput,
    StopFailureInput,
    StopInput,
    SubagentStartInput,
    SubagentStopInput,
    TaskCompletedInput,
    UserPromptSubmitInput,
)
from tiergate.project import is_valid_session_id

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


def _parse_input(event_name: str, payload: Mapping[str, object]) -> HookInput:
    """The input of `payload` for `event_name`; InputError (one line) if it does not fit."""
    if event_name not in INPUTS:
        raise InputError(f"tiergate does not handle {event_name!r} hook events")
    read = _read(event_name, payload)
    if read is not None:
        return read
    from tiergate.hook import inputschema

    return inputschema.validate(event_name, payload)


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
