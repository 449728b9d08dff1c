"""The configuration's settings: finding the project's table and reading it into `Config` (`config.keys`).

A table whose values all have their plain form is read here by hand; any other goes to the pydantic schema
derived from the same classes (`tiergate.config.schema`), which words the error. So a hook with an ordinary
configuration never imports pydantic. Every key: docs/configuration.md ("Every key", "How it is read").
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from tiergate import TYPE_CHECKING
from tiergate.config.keys import SECTIONS, Config, Key, RiskConfig, RiskRuleConfig, keys
from tiergate.errors import UserError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "SECTIONS",
    "Config",
    "RiskRuleConfig",
    "from_values",
    "kept_config",
    "load_config",
    "read_plain",
    "read_table",
    "validate_table",
]


def load_config(root: Path) -> Config:
    """The configuration of the project at `root`; the defaults when it has none."""
    found = read_table(root)
    if found is None:
        return Config()
    source, table = found
    return validate_table(source, table)


CONFIG_FILE = ".tiergate.toml"
PYPROJECT = "pyproject.toml"


def read_table(root: Path) -> tuple[str, dict[str, Any]] | None:
    """The project's tiergate table and where it came from, or None when the project has none."""
    dedicated = root / CONFIG_FILE
    if dedicated.is_file():
        return CONFIG_FILE, _parse(dedicated, CONFIG_FILE)
    pyproject = root / PYPROJECT
    if pyproject.is_file():
        data = _parse(pyproject, PYPROJECT)
        tool = data.get("tool", {})
        section = tool.get("tiergate") if isinstance(tool, dict) else None
        if section is None:
            return None
        if not isinstance(section, dict):
            raise UserError(f"{PYPROJECT}: tool.tiergate: must be a table")
        return f"{PYPROJECT} [tool.tiergate]", section
    return None


def _parse(path: Path, label: str) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{label}: invalid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{label}: cannot read: {exc}") from None


def validate_table(source: str, table: Mapping[str, Any]) -> Config:
    """The configuration in `table`, read from `source`; UserError naming the file and the key."""
    read = read_plain(table, source)
    if read is not None:
        return read
    from tiergate.config import schema

    return from_values(schema.read_table(source, table), source)


def kept_config(source: str | None, kept: Mapping[str, Any]) -> Config:
    """The configuration a loop kept (`Config.kept`), validated again: the state file is on disk."""
    read = read_plain(kept, source)
    if read is not None:
        return read
    from tiergate.config import schema

    return from_values(schema.read_kept(source, kept), source)


def from_values(values: Mapping[str, Any], source: str | None) -> Config:
    """The configuration of values the schema validated (`tiergate.config.schema`)."""
    sections = {name: SECTIONS[name](**value) for name, value in values.items() if name in SECTIONS}
    risk = values["risk"]
    rules = tuple(RiskRuleConfig(**rule) for rule in risk["rules"])
    sections["risk"] = RiskConfig(risk["content"], rules)
    return Config(source=source, checks=dict(values["checks"]), **sections)


_NOT_PLAIN = object()


def read_plain(table: Mapping[str, Any], source: str | None) -> Config | None:
    """The configuration in `table` when every value in it has its plain form, else None."""
    sections: dict[str, Any] = {}
    for key, value in table.items():
        if key == "checks":
            if not _plain_checks(value):
                return None
            sections[key] = dict(value)
            continue
        cls = SECTIONS.get(key)
        read = _read_section(cls, value) if cls is not None and isinstance(value, dict) else None
        if read is None:
            return None
        sections[key] = read
    return Config(source=source, **sections)


def _plain_checks(value: object) -> bool:
    return isinstance(value, dict) and all(
        isinstance(name, str) and isinstance(command, str) and command.strip()
        for name, command in value.items()
    )


def _read_section(cls: type[Any], table: Mapping[str, object]) -> object | None:
    known = {key.field.name: key for key in keys(cls)}
    values: dict[str, object] = {}
    for name, value in table.items():
        key = known.get(name)
        reader = None if key is None else _KINDS.get(key.kind)
        read = _NOT_PLAIN if reader is None or key is None else reader(value, key)
        if read is _NOT_PLAIN:
            return None
        values[name] = read
    section: object = cls(**values)
    return section


# Each kind's plain form: `value` as the field holds it when it is in that form, else _NOT_PLAIN.


def _bool(value: object, key: Key) -> object:
    return value if isinstance(value, bool) else _NOT_PLAIN


def _text(value: object, key: Key) -> object:
    return value if isinstance(value, str) or (value is None and key.nullable) else _NOT_PLAIN


def _choice(value: object, key: Key) -> object:
    return value if isinstance(value, str) and value in key.choices else _NOT_PLAIN


def _strings(value: object, key: Key) -> object:
    if not isinstance(value, list) or not all(isinstance(w, str) and w.strip() for w in value):
        return _NOT_PLAIN
    return tuple(w.strip() for w in value) if key.kind == "words" else tuple(value)


def _empty(value: object, key: Key) -> object:
    return () if value == [] else _NOT_PLAIN  # only the empty list: anything else is for the schema


def _number(value: object, key: Key) -> object:
    if value is None:
        return None if key.nullable else _NOT_PLAIN
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return _NOT_PLAIN
    if key.kind == "int" and not isinstance(value, int):
        return _NOT_PLAIN
    rules = key.field.metadata
    if ("ge" in rules and not value >= rules["ge"]) or ("gt" in rules and not value > rules["gt"]):
        return _NOT_PLAIN
    return float(value) if key.kind == "float" else value


_KINDS = {
    "int": _number,
    "float": _number,
    "bool": _bool,
    "text": _text,
    "choice": _choice,
    "words": _strings,
    "globs": _strings,
    "gitignore": _empty,
    "rules": _empty,
}
