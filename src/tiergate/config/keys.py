"""Every configuration key, declared once: frozen dataclasses of the tables, each key's type, seed default,
bounds and form. `keys(cls)` reads a class's keys for the two readers: by hand (`tiergate.config.settings`)
and the pydantic schema derived from these classes (`tiergate.config.schema`). Pure; no pydantic.
"""

from __future__ import annotations

import json
from dataclasses import Field, asdict, field, fields, is_dataclass
from typing import Any, Literal

from tiergate import foreign
from tiergate.frozen import frozen
from tiergate.tier import keywords
from tiergate.tier.policy import Tier, TierPolicy

# A key's form, where its type alone does not say how it is read: words (stripped), globs, gitignore
# (patterns), rules (`[[risk.rules]]`), construct, regex, ecosystems (of a rule), commands (`[checks]`),
# source (where the table came from, not a key of the file).


def _value(default: object, **rules: object) -> Any:
    """A key's default and what its type does not say: its bounds (`ge`, `gt`) or its `form`."""
    return field(default=default, metadata=rules)


def _form(form: str) -> Any:
    return field(metadata={"form": form})


@frozen
class TiersConfig:
    light_files_below: int = _value(5, ge=0)
    light_lines_below: int = _value(100, ge=0)
    thorough_files_above: int = _value(20, ge=0)


@frozen
class CostsConfig:
    light: float = _value(1.0, gt=0)
    standard: float = _value(5.0, gt=0)
    thorough: float = _value(20.0, gt=0)


@frozen
class KeywordsConfig:
    thorough: tuple[str, ...] = _value(keywords.THOROUGH_KEYWORDS, form="words")
    light: tuple[str, ...] = _value(keywords.LIGHT_KEYWORDS, form="words")


@frozen
class PatternsConfig:
    security: tuple[str, ...] = _value((), form="globs")
    architecture: tuple[str, ...] = _value((), form="globs")


@frozen
class LoopConfig:
    max_iterations: int = _value(20, ge=1)
    max_minutes: float = _value(240.0, gt=0)


@frozen
class GateConfig:
    # None: each check's limit follows its time at the base (`tiergate.gate.timeouts`).
    timeout_seconds: float | None = _value(None, gt=0)
    base_tests: Literal["thorough", "refute"] = "thorough"
    # "own": the checks get a network of their own, with loopback only (`tiergate.gate.sandbox`).
    network: Literal["host", "own"] = "host"


@frozen
class InterventionsConfig:
    attempt_limit: int = _value(3, ge=1)
    skip_limit: int = _value(3, ge=1)
    failure_limit: int | None = _value(None, ge=1)
    rollback_on_retry: bool = False


@frozen
class StallsConfig:
    same_failure: int = _value(2, ge=2)
    empty_turns: int = _value(3, ge=1)


@frozen
class AlertsConfig:
    command: str | None = None
    timeout_seconds: float = _value(10.0, gt=0)


@frozen
class InteropConfig:
    ralph_loop: Literal["verify", "ignore"] = "verify"
    omc: Literal["verify", "ignore"] = "verify"
    goal: Literal["verify", "ignore"] = "verify"


@frozen
class WorkspaceConfig:
    ignore: tuple[str, ...] = _value((), form="gitignore")


@frozen
class RiskRuleConfig:
    name: str = _form("construct")  # `construct` in the file
    pattern: str = _form("regex")
    ecosystems: tuple[str, ...] = _value((), form="ecosystems")
    category: Literal["security", "architecture"] = "security"
    sides: Literal["added", "removed", "both"] = "both"


@frozen
class RiskConfig:
    content: bool = True
    rules: tuple[RiskRuleConfig, ...] = _value((), form="rules")


@frozen
class MutationConfig:
    # The changed lines' mutants, run by the tests once they pass (`tiergate.gate.mutation`).
    enabled: bool = True
    max_mutants: int = _value(100, ge=1)
    per_line: int = _value(3, ge=1)
    timeout_seconds: float = _value(60.0, gt=0)


@frozen
class Config:
    source: str | None = _value(None, form="source")  # where it was read from; not what a loop keeps
    tiers: TiersConfig = TiersConfig()
    costs: CostsConfig = CostsConfig()
    keywords: KeywordsConfig = KeywordsConfig()
    patterns: PatternsConfig = PatternsConfig()
    loop: LoopConfig = LoopConfig()
    checks: dict[str, str] = field(default_factory=dict, metadata={"form": "commands"})
    gate: GateConfig = GateConfig()
    interventions: InterventionsConfig = InterventionsConfig()
    stalls: StallsConfig = StallsConfig()
    alerts: AlertsConfig = AlertsConfig()
    interop: InteropConfig = InteropConfig()
    workspace: WorkspaceConfig = WorkspaceConfig()
    mutation: MutationConfig = MutationConfig()
    risk: RiskConfig = RiskConfig()

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


@frozen
class Key:
    """One key of a settings class as both readers see it: its field and its kind, which is its `form`
    when the field names one, else what its type says (int, float, bool, text, choice, section), with
    the `choices` of a Literal and whether None is allowed (`nullable`)."""

    field: Field[Any]
    kind: str
    nullable: bool = False
    choices: tuple[str, ...] = ()


_TYPE_KINDS = {"bool": "bool", "int": "int", "float": "float", "str": "text"}


def keys(cls: type[Any]) -> tuple[Key, ...]:
    """The keys of the settings class `cls`, in order: what the hand reader and the schema are made of."""
    found = _KEYS.get(cls)
    if found is None:
        found = _KEYS[cls] = tuple(_key(f) for f in fields(cls))
    return found


_KEYS: dict[type[Any], tuple[Key, ...]] = {}


def _key(f: Field[Any]) -> Key:
    # Read from the annotation's text (`from __future__ import annotations`): evaluating the types would
    # cost every hook that reads a configuration a millisecond or more. The schema evaluates them, and
    # tests/config/schema_test.py holds the two readings to agree.
    text = str(f.type)
    nullable = text.endswith(" | None")
    base = text.removesuffix(" | None")
    literal = base.startswith("Literal[")
    choices = tuple(c.strip().strip("\"'") for c in base[len("Literal[") : -1].split(",")) if literal else ()
    form = f.metadata.get("form")
    kind = form or ("choice" if literal else "section" if is_dataclass(f.default) else _TYPE_KINDS[base])
    return Key(f, kind, nullable, choices)
