"""The configuration's schema: pydantic models derived key for key from the classes of `config.keys`.

`tiergate.config.settings` reads a table by hand when its values have their plain form and asks this schema
otherwise, which says in one line which key of which file is wrong, and why, or gives the values the
settings are built from. A key's checks beyond its type follow its kind (`Key.kind`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import MISSING
from typing import Annotated, Any, get_args, get_type_hints

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
)

from tiergate import foreign
from tiergate.config.keys import Config, Key, keys
from tiergate.errors import UserError


class _Section(BaseModel):
    # populate_by_name: a rule's `construct` is `name` in what a loop keeps (BaseModel has a `construct`).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, populate_by_name=True)


def _int_is_a_number(value: Any) -> Any:
    # TOML distinguishes 5 from 5.0; a person writing a cost or a number of seconds does not.
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _list_of_words(value: Any) -> Any:
    if isinstance(value, list):
        if not all(isinstance(w, str) and w.strip() for w in value):
            raise ValueError("must be a list of non-empty strings")
        return tuple(w.strip() for w in value)
    return value


def _list_of_globs(value: Any) -> Any:
    if isinstance(value, list):
        if not all(isinstance(g, str) and g.strip() for g in value):
            raise ValueError("must be a list of non-empty glob strings")
        return tuple(value)
    return value


def _gitignore_patterns(value: Any) -> Any:
    if not isinstance(value, (list, tuple)):
        raise ValueError("must be a list of gitignore-style patterns")
    problem = next(filter(None, map(foreign.pattern_error, value)), None)
    if problem is not None:
        raise ValueError(problem)
    return tuple(value)


def _list_of_rules(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _known_ecosystems(value: Any) -> Any:
    from tiergate.tier.content import BY_NAME

    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ValueError("must be a list of ecosystem names")
    unknown = [v for v in value if v not in BY_NAME]
    if unknown:
        raise ValueError(f"unknown ecosystem {unknown[0]!r} (known: {', '.join(BY_NAME)})")
    return tuple(value)


def _named(value: str) -> str:
    if not value.strip():
        raise ValueError("must name the construct")
    return value.strip()


def _a_regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as e:
        raise ValueError(f"not a regular expression: {e}") from None
    if re.search(value, "") is not None:
        raise ValueError("matches an empty line, so every line")
    return value


def _a_command(command: str) -> str:
    # An empty command would "pass" having checked nothing: a check must run something.
    if not command.strip():
        raise ValueError("the command is empty")
    return command


# Each kind's check beyond its type, run on the value as the file has it (before) or as typed (after).
_BEFORE: dict[str, Callable[[Any], Any]] = {
    "float": _int_is_a_number,
    "words": _list_of_words,
    "globs": _list_of_globs,
    "gitignore": _gitignore_patterns,
    "rules": _list_of_rules,
    "ecosystems": _known_ecosystems,
}
_AFTER: dict[str, Callable[[Any], Any]] = {"construct": _named, "regex": _a_regex}


def model_of(cls: type[Any]) -> type[BaseModel]:
    """The pydantic model of the class `cls` of `config.keys`: one field for each of its keys, in order."""
    model = _MODELS.get(cls)
    if model is None:
        hints = get_type_hints(cls)
        definitions: dict[str, Any] = {
            key.field.name: (_annotation(key, hints[key.field.name]), _field(key)) for key in keys(cls)
        }
        model = _MODELS[cls] = create_model(f"{cls.__name__}Schema", __base__=_Section, **definitions)
    return model


_MODELS: dict[type[Any], type[BaseModel]] = {}


def _annotation(key: Key, hint: Any) -> Any:
    """The type pydantic checks `key` by: its own (`hint`), a section's model, and its kind's checks."""
    if key.kind == "section":
        return model_of(hint)
    if key.kind == "rules":
        hint = tuple[model_of(get_args(hint)[0]), ...]  # type: ignore[misc]
    elif key.kind == "commands":
        hint = dict[str, Annotated[str, AfterValidator(_a_command)]]
    if key.kind in _BEFORE:
        return Annotated[hint, BeforeValidator(_BEFORE[key.kind])]
    if key.kind in _AFTER:
        return Annotated[hint, AfterValidator(_AFTER[key.kind])]
    return hint


def _field(key: Key) -> Any:
    f = key.field
    rules = {name: f.metadata[name] for name in ("ge", "gt") if name in f.metadata}
    if key.kind == "section":
        return Field(default_factory=model_of(type(f.default)))
    if key.kind == "construct":
        rules["alias"] = "construct"
    if key.kind == "source":
        rules["exclude"] = True
    if f.default_factory is not MISSING:
        return Field(default_factory=f.default_factory, **rules)
    return Field(... if f.default is MISSING else f.default, **rules)


ConfigSchema = model_of(Config)


def read_table(source: str, table: Mapping[str, Any]) -> dict[str, Any]:
    """The values of `table`, read from `source`, as validated; UserError naming the file and the key."""
    try:
        return ConfigSchema.model_validate({**table, "source": source}).model_dump()
    except ValidationError as exc:
        raise UserError(f"{source}: {_first_error(exc)}") from None


def read_kept(source: str | None, kept: Mapping[str, Any]) -> dict[str, Any]:
    """The values of a loop's kept configuration (its JSON form), as validated; UserError naming the key."""
    try:
        return ConfigSchema.model_validate_json(json.dumps({**kept, "source": source})).model_dump()
    except ValidationError as exc:
        raise UserError(
            f"the loop's kept configuration (from {source or 'the defaults'}): {_first_error(exc)}"
        ) from None


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    loc = error["loc"]
    key = ".".join(str(part) for part in loc) or "(top level)"
    if len(loc) == 2 and loc[0] == "checks":  # a check's name is the user's, dots and all
        key = f"[checks] {loc[1]}"
    if error["type"] == "extra_forbidden":
        return f"{key}: unknown key"
    value = error.get("input")
    shown = "" if isinstance(value, dict) or value == "" else f" (got {value!r})"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{key}: {message}{shown}"
