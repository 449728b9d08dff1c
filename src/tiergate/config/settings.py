"""The configuration's settings: frozen dataclasses of every key with the seed's default, and reading them.

A table whose values all have their plain form is read here by hand; any other, and any `[workspace]
ignore` or `[[risk.rules]]`, goes to the pydantic schema (`tiergate.config.schema`), which words the error.
So a hook with an ordinary configuration never imports pydantic. Every key, and why it is read this way:
docs/configuration.md ("Every key", "How it is read").
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import asdict, field, fields, is_dataclass
from pathlib import Path
from typing import Any, Literal

from tiergate import foreign
from tiergate.errors import UserError
from tiergate.frozen import frozen
from tiergate.tier import keywords
from tiergate.tier.policy import Tier, TierPolicy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


def _value(default: object, kind: str, **rules: object) -> Any:
    """A field's default and how its plain form is recognised (`_plain`): its kind and bounds."""
    return field(default=default, metadata={"kind": kind, **rules})


@frozen
class TiersConfig:
    light_files_below: int = _value(5, "int", ge=0)
    light_lines_below: int = _value(100, "int", ge=0)
    thorough_files_above: int = _value(20, "int", ge=0)


@frozen
class CostsConfig:
    light: float = _value(1.0, "float", gt=0)
    standard: float = _value(5.0, "float", gt=0)
    thorough: float = _value(20.0, "float", gt=0)


@frozen
class KeywordsConfig:
    thorough: tuple[str, ...] = _value(keywords.THOROUGH_KEYWORDS, "words")
    light: tuple[str, ...] = _value(keywords.LIGHT_KEYWORDS, "words")


@frozen
class PatternsConfig:
    security: tuple[str, ...] = _value((), "globs")
    architecture: tuple[str, ...] = _value((), "globs")


@frozen
class LoopConfig:
    max_iterations: int = _value(20, "int", ge=1)
    max_minutes: float = _value(240.0, "float", gt=0)


@frozen
class GateConfig:
    # None: each check's limit follows its time at the base (`tiergate.gate.timeouts`).
    timeout_seconds: float | None = _value(None, "float", gt=0, nullable=True)
    base_tests: Literal["thorough", "refute"] = _value("thorough", "choice", choices=("thorough", "refute"))
    # "own": the checks get a network of their own, with loopback only (`tiergate.gate.sandbox`).
    network: Literal["host", "own"] = _value("host", "choice", choices=("host", "own"))


@frozen
class InterventionsConfig:
    attempt_limit: int = _value(3, "int", ge=1)
    skip_limit: int = _value(3, "int", ge=1)
    failure_limit: int | None = _value(None, "int", ge=1, nullable=True)
    rollback_on_retry: bool = _value(False, "bool")


@frozen
class StallsConfig:
    same_failure: int = _value(2, "int", ge=2)
    empty_turns: int = _value(3, "int", ge=1)


@frozen
class AlertsConfig:
    command: str | None = _value(None, "text")
    timeout_seconds: float = _value(10.0, "float", gt=0)


@frozen
class InteropConfig:
    ralph_loop: Literal["verify", "ignore"] = _value("verify", "choice", choices=("verify", "ignore"))
    omc: Literal["verify", "ignore"] = _value("verify", "choice", choices=("verify", "ignore"))
    goal: Literal["verify", "ignore"] = _value("verify", "choice", choices=("verify", "ignore"))


@frozen
class WorkspaceConfig:
    ignore: tuple[str, ...] = _value((), "schema")  # gitignore-style: the schema checks each


@frozen
class RiskRuleConfig:
    name: str  # `construct` in the file
    pattern: str
    ecosystems: tuple[str, ...] = ()
    category: Literal["security", "architecture"] = "security"
    sides: Literal["added", "removed", "both"] = "both"


@frozen
class RiskConfig:
    content: bool = _value(True, "bool")
    rules: tuple[RiskRuleConfig, ...] = _value((), "schema")  # regular expressions: the schema checks


@frozen
class MutationConfig:
    # The changed lines' mutants, run by the tests once they pass (`tiergate.gate.mutation`).
    enabled: bool = _value(True, "bool")
    max_mutants: int = _value(100, "int", ge=1)
    per_line: int = _value(3, "int", ge=1)
    timeout_seconds: float = _value(60.0, "float", gt=0)


@frozen
class Config:
    source: str | None = None  # where it was read from; not part of what a loop keeps
    tiers: TiersConfig = TiersConfig()
    costs: CostsConfig = CostsConfig()
    keywords: KeywordsConfig = KeywordsConfig()
    patterns: PatternsConfig = PatternsConfig()
    loop: LoopConfig = LoopConfig()
    checks: dict[str, str] = field(default_factory=dict)
    gate: GateConfig = GateConfig()
    interventions: InterventionsConfig = InterventionsConfig()
    stalls: StallsConfig = StallsConfig()
    alerts: AlertsConfig = AlertsConfig()
    interop: InteropConfig = InteropConfig()
    workspace: WorkspaceConfig = WorkspaceConfig()
    risk: RiskConfig = RiskConfig()
    mutation: MutationConfig = MutationConfig()

    def kept(self) -> dict[str, Any]:
        """The configuration in its JSON form, as a loop keeps it (`source` apart: `kept_config`)."""
        data: dict[str, Any] = json.loads(json.dumps(asdict(self)))
        del data["source"]
        return data

    @property
    def exclusions(self) -> foreign.Exclusions:
        """What is never work: the built-in rules and `[workspace] ignore` (from this file)."""
        return foreign.Exclusions(self.workspace.ignore, self.source)

    @property
    def tier_policy(self) -> TierPolicy:
        return TierPolicy(
            light_files_below=self.tiers.light_files_below,
            light_lines_below=self.tiers.light_lines_below,
            thorough_files_above=self.tiers.thorough_files_above,
            relative_costs={
                Tier.LIGHT: self.costs.light,
                Tier.STANDARD: self.costs.standard,
                Tier.THOROUGH: self.costs.thorough,
            },
        )


# The configuration's tables by name, each field of Config whose default is a section (not `source`,
# not `checks`, a table of names).
SECTIONS: dict[str, type[Any]] = {f.name: type(f.default) for f in fields(Config) if is_dataclass(f.default)}


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
    known = {f.name: f.metadata for f in fields(cls)}
    values: dict[str, object] = {}
    for key, value in table.items():
        rules = known.get(key)
        read = _NOT_PLAIN if rules is None else _plain(value, rules)
        if read is _NOT_PLAIN:
            return None
        values[key] = read
    section: object = cls(**values)
    return section


def _plain(value: object, rules: Mapping[str, Any]) -> object:
    """`value` as the field holds it when it is in its plain form, else _NOT_PLAIN."""
    return _KINDS[rules["kind"]](value, rules)


def _bool(value: object, rules: Mapping[str, Any]) -> object:
    return value if isinstance(value, bool) else _NOT_PLAIN


def _text(value: object, rules: Mapping[str, Any]) -> object:
    return value if value is None or isinstance(value, str) else _NOT_PLAIN


def _choice(value: object, rules: Mapping[str, Any]) -> object:
    return value if isinstance(value, str) and value in rules["choices"] else _NOT_PLAIN


def _strings(value: object, rules: Mapping[str, Any]) -> object:
    if not isinstance(value, list) or not all(isinstance(w, str) and w.strip() for w in value):
        return _NOT_PLAIN
    return tuple(w.strip() for w in value) if rules["kind"] == "words" else tuple(value)


def _schema(value: object, rules: Mapping[str, Any]) -> object:
    return () if value == [] else _NOT_PLAIN  # only the empty list: anything else is for the schema


def _number(value: object, rules: Mapping[str, Any]) -> object:
    if value is None:
        return None if rules.get("nullable") else _NOT_PLAIN
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return _NOT_PLAIN
    if rules["kind"] == "int" and not isinstance(value, int):
        return _NOT_PLAIN
    if ("ge" in rules and not value >= rules["ge"]) or ("gt" in rules and not value > rules["gt"]):
        return _NOT_PLAIN
    return float(value) if rules["kind"] == "float" else value


_KINDS = {
    "int": _number,
    "float": _number,
    "bool": _bool,
    "text": _text,
    "choice": _choice,
    "words": _strings,
    "globs": _strings,
    "schema": _schema,
}
