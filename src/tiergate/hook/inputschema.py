"""The schema of the hook inputs tiergate handles: pydantic models derived field for field from the
classes of `tiergate.hook.inputfields`, for the inputs `tiergate.hook.inputs` does not read by hand.

The reference's quirks are absorbed here once: a bool sent as null is False (`stop_hook_active`,
#83365), "" for a path is no path, and a session id that could name another folder is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Annotated, Any, get_type_hints

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, ValidationError, create_model

from tiergate.errors import InputError
from tiergate.hook.inputfields import INPUTS, PATHS, REQUIRED, HookInput
from tiergate.project import is_valid_session_id
from tiergate.text import PAREN_AND_MORE, more_than


class _Input(BaseModel):
    # Fields tiergate does not read are ignored.
    model_config = ConfigDict(extra="ignore", frozen=True)


def _session_id_is_safe(value: str) -> str:
    if not is_valid_session_id(value):
        raise ValueError("must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")
    return value


def _empty_path_is_none(value: object) -> object:
    return None if value == "" else value


def _null_is_false(value: object) -> object:
    # Seen missing or null on the first SubagentStop of CLI 2.1.220 (issue #83365): it means "not yet".
    return False if value is None else value


def _annotation(name: str, hint: Any) -> Any:
    if name == "session_id":
        return Annotated[hint, AfterValidator(_session_id_is_safe)]
    if name in PATHS:
        return Annotated[hint, BeforeValidator(_empty_path_is_none)]
    if hint is bool:
        return Annotated[hint, BeforeValidator(_null_is_false)]
    return hint


def model_of(event_name: str, cls: type[HookInput]) -> type[BaseModel]:
    """The model of the input class `cls`: its fields, in order; those in REQUIRED without a default."""
    hints = get_type_hints(cls)
    definitions: dict[str, Any] = {
        f.name: (_annotation(f.name, hints[f.name]), ... if f.name in REQUIRED else f.default)
        for f in fields(cls)
    }
    return create_model(f"{event_name}Schema", __base__=_Input, **definitions)


# By event, as `tiergate.hook.inputfields.INPUTS` has them.
SCHEMAS: dict[str, type[BaseModel]] = {event: model_of(event, cls) for event, cls in INPUTS.items()}


def validate(event_name: str, payload: Mapping[str, object]) -> HookInput:
    """The input of `payload` for `event_name` as its model reads it; InputError (one line) if it does not
    fit. Call `tiergate.hook.inputs.parse_input`, which reads plain inputs without pydantic."""
    model = SCHEMAS.get(event_name)
    if model is None:
        raise InputError(f"tiergate does not handle {event_name!r} hook events")
    try:
        read = model.model_validate(payload)
    except ValidationError as exc:
        raise InputError(summary(event_name, exc)) from None
    return INPUTS[event_name](**{name: getattr(read, name) for name in type(read).model_fields})


def summary(event_name: str, exc: ValidationError) -> str:
    errors = exc.errors(include_url=False, include_input=False)
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"]) or "input"
    return f"{event_name} input: {where}: {first['msg']}{more_than(len(errors), 1, PAREN_AND_MORE)}"
