"""Reading a hook input: `parse_input(event_name, payload)` is the event's model, or InputError (one line).

SubagentStop, PreCompact and SessionEnd are read here by hand, without pydantic; the other events with
the pydantic models of `tiergate.hook.models`, imported only then. Every model is also importable from
here (`tiergate.hook.inputs.StopInput`), imported when first used.

The hand-checked inputs are those of the events that must stay lean even with
an active loop. SubagentStop ends every verifier run and has a figure to meet (0.2 s on a 50 MB
transcript, of which importing pydantic alone would take a third); PreCompact and SessionEnd only leave
a record, and SessionEnd has 1.5 s in all.

Each model holds only the fields tiergate reads, checked as the pydantic models in `tiergate.hook.models`
would check them and reported in the same one-line form ("SubagentStop input: agent_id: Field
required"); the fields it does not read are neither checked nor kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from tiergate.errors import InputError
from tiergate.project import is_valid_session_id

# Not `from typing import TYPE_CHECKING`: importing typing alone costs a hook several milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, Literal, overload

    from tiergate.hook.models import (
        HookInput,
        SessionStartInput,
        StopFailureInput,
        StopInput,
        SubagentStartInput,
        UserPromptSubmitInput,
    )

__all__ = [
    "HookInput",
    "LeanInput",
    "PreCompactInput",
    "SessionEndInput",
    "SessionStartInput",
    "StopFailureInput",
    "StopInput",
    "SubagentStartInput",
    "SubagentStopInput",
    "UserPromptSubmitInput",
    "parse_input",
]

# The pydantic models, importable from here without importing pydantic before they are used.
_LAZY = frozenset(
    {
        "HookInput",
        "SessionStartInput",
        "StopFailureInput",
        "StopInput",
        "SubagentStartInput",
        "UserPromptSubmitInput",
    }
)

_MISSING = object()
_SESSION_ID_RULE = "Value error, must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$"


@dataclass(frozen=True)
class SubagentStopInput:
    session_id: str
    cwd: str
    agent_id: str
    agent_type: str = ""
    agent_transcript_path: str | None = None
    last_assistant_message: str | None = None

    @property
    def is_phantom(self) -> bool:
        """A SubagentStop that no subagent of ours caused: the CLI's internal compaction and summary
        forks stop with an empty agent_type, no SubagentStart and a copied last message (#91910)."""
        return not self.agent_type.strip()


@dataclass(frozen=True)
class PreCompactInput:
    session_id: str
    cwd: str
    trigger: str | None = None


@dataclass(frozen=True)
class SessionEndInput:
    session_id: str
    cwd: str
    reason: str | None = None


LeanInput = SubagentStopInput | PreCompactInput | SessionEndInput


class _Reader:
    """Reads fields of one payload, collecting every problem, as pydantic reports them."""

    def __init__(self, event_name: str, payload: Mapping[str, object]) -> None:
        self.event_name = event_name
        self.payload = payload
        self.problems: list[str] = []

    def text(self, key: str, *, required: bool = False, default: str | None = None) -> str:
        """A string field; missing means `default` unless it is required; null is refused."""
        value = self.payload.get(key, _MISSING)
        if value is _MISSING:
            if required:
                self.problems.append(f"{key}: Field required")
            return default or ""
        if not isinstance(value, str):
            self.problems.append(f"{key}: Input should be a valid string")
            return ""
        return value

    def optional_text(self, key: str, *, empty_is_none: bool = False) -> str | None:
        """A string field that may be missing or null (or "", where the CLI sends that for "none")."""
        value = self.payload.get(key)
        if value is None or (empty_is_none and value == ""):
            return None
        if not isinstance(value, str):
            self.problems.append(f"{key}: Input should be a valid string")
            return None
        return value

    def session(self) -> tuple[str, str]:
        """The fields every event carries: session_id (safe as a file name) and cwd."""
        session_id = self.text("session_id", required=True)
        if isinstance(self.payload.get("session_id"), str) and not is_valid_session_id(session_id):
            self.problems.append(f"session_id: {_SESSION_ID_RULE}")
        return session_id, self.text("cwd", required=True)

    def check(self) -> None:
        if self.problems:
            more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
            raise InputError(f"{self.event_name} input: {self.problems[0]}{more}")


def read_subagent_stop(payload: Mapping[str, object]) -> SubagentStopInput:
    fields = _Reader("SubagentStop", payload)
    session_id, cwd = fields.session()
    model = SubagentStopInput(
        session_id=session_id,
        cwd=cwd,
        agent_id=fields.text("agent_id", required=True),
        agent_type=fields.text("agent_type"),
        last_assistant_message=fields.optional_text("last_assistant_message"),
        agent_transcript_path=fields.optional_text("agent_transcript_path", empty_is_none=True),
    )
    fields.check()
    return model


def read_pre_compact(payload: Mapping[str, object]) -> PreCompactInput:
    fields = _Reader("PreCompact", payload)
    session_id, cwd = fields.session()
    model = PreCompactInput(session_id=session_id, cwd=cwd, trigger=fields.optional_text("trigger"))
    fields.check()
    return model


def read_session_end(payload: Mapping[str, object]) -> SessionEndInput:
    fields = _Reader("SessionEnd", payload)
    session_id, cwd = fields.session()
    model = SessionEndInput(session_id=session_id, cwd=cwd, reason=fields.optional_text("reason"))
    fields.check()
    return model


READERS: dict[str, Callable[[Mapping[str, object]], LeanInput]] = {
    "SubagentStop": read_subagent_stop,
    "PreCompact": read_pre_compact,
    "SessionEnd": read_session_end,
}


def _parse_input(event_name: str, payload: dict[str, Any]) -> HookInput | LeanInput:
    """The model of `payload` for `event_name`; InputError (one line) if it does not fit."""
    reader = READERS.get(event_name)
    if reader is not None:
        return reader(payload)
    from tiergate.hook import models

    return models.parse_input(event_name, payload)


if TYPE_CHECKING:
    # The overloads are for the type checker only: `typing` stays off the hook's import path.
    @overload
    def parse_input(event_name: Literal["SessionStart"], payload: dict[str, Any]) -> SessionStartInput: ...
    @overload
    def parse_input(
        event_name: Literal["UserPromptSubmit"], payload: dict[str, Any]
    ) -> UserPromptSubmitInput: ...
    @overload
    def parse_input(event_name: Literal["Stop"], payload: dict[str, Any]) -> StopInput: ...
    @overload
    def parse_input(event_name: Literal["SubagentStart"], payload: dict[str, Any]) -> SubagentStartInput: ...
    @overload
    def parse_input(event_name: Literal["SubagentStop"], payload: dict[str, Any]) -> SubagentStopInput: ...
    @overload
    def parse_input(event_name: Literal["PreCompact"], payload: dict[str, Any]) -> PreCompactInput: ...
    @overload
    def parse_input(event_name: Literal["SessionEnd"], payload: dict[str, Any]) -> SessionEndInput: ...
    @overload
    def parse_input(event_name: Literal["StopFailure"], payload: dict[str, Any]) -> StopFailureInput: ...
    @overload
    def parse_input(event_name: str, payload: dict[str, Any]) -> HookInput | LeanInput: ...
    def parse_input(event_name: str, payload: dict[str, Any]) -> HookInput | LeanInput:
        return _parse_input(event_name, payload)
else:
    parse_input = _parse_input

    # Hidden from the type checker, which sees the models through the TYPE_CHECKING import above and so
    # still reports a misspelt name.
    def __getattr__(name: str) -> object:
        if name in _LAZY:
            from tiergate.hook import models

            return getattr(models, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
