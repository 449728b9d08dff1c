"""The configuration's schema: pydantic models of every key, its type, range and checks.

`tiergate.config.settings` reads a table by hand when its values have their plain form and asks this
schema otherwise: it says in one line which key of which file is wrong, and why, or gives the values the
settings are built from. Each schema mirrors a settings dataclass field for field, with the same defaults
(tests/config/settings_test.py holds them equal).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from tiergate import foreign
from tiergate.errors import UserError
from tiergate.tier import keywords


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class TiersSchema(_Section):
    light_files_below: int = Field(5, ge=0)
    light_lines_below: int = Field(100, ge=0)
    thorough_files_above: int = Field(20, ge=0)


class CostsSchema(_Section):
    light: float = Field(1.0, gt=0)
    standard: float = Field(5.0, gt=0)
    thorough: float = Field(20.0, gt=0)

    @field_validator("light", "standard", "thorough", mode="before")
    @classmethod
    def _int_is_a_number(cls, value: Any) -> Any:
        # TOML distinguishes 5 from 5.0; a person writing a cost does not.
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


class KeywordsSchema(_Section):
    thorough: tuple[str, ...] = keywords.THOROUGH_KEYWORDS
    light: tuple[str, ...] = keywords.LIGHT_KEYWORDS

    @field_validator("thorough", "light", mode="before")
    @classmethod
    def _list_of_words(cls, value: Any) -> Any:
        if isinstance(value, list):
            if not all(isinstance(w, str) and w.strip() for w in value):
                raise ValueError("must be a list of non-empty strings")
            return tuple(w.strip() for w in value)
        return value


class PatternsSchema(_Section):
    security: tuple[str, ...] = ()
    architecture: tuple[str, ...] = ()

    @field_validator("security", "architecture", mode="before")
    @classmethod
    def _list_of_globs(cls, value: Any) -> Any:
        if isinstance(value, list):
            if not all(isinstance(g, str) and g.strip() for g in value):
                raise ValueError("must be a list of non-empty glob strings")
            return tuple(value)
        return value


class LoopSchema(_Section):
    max_iterations: int = Field(20, ge=1)
    max_minutes: float = Field(240.0, gt=0)

    @field_validator("max_minutes", mode="before")
    @classmethod
    def _int_is_a_number(cls, value: Any) -> Any:
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


class GateSchema(_Section):
    timeout_seconds: float | None = Field(None, gt=0)
    base_tests: Literal["thorough", "refute"] = "thorough"
    network: Literal["host", "own"] = "host"

    @field_validator("timeout_seconds", mode="before")
    @classmethod
    def _int_is_a_number(cls, value: Any) -> Any:
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


class InterventionsSchema(_Section):
    attempt_limit: int = Field(3, ge=1)
    skip_limit: int = Field(3, ge=1)
    failure_limit: int | None = Field(None, ge=1)
    rollback_on_retry: bool = False


class MutationSchema(_Section):
    enabled: bool = True
    max_mutants: int = Field(100, ge=1)
    per_line: int = Field(3, ge=1)
    timeout_seconds: float = Field(60.0, gt=0)

    @field_validator("timeout_seconds", mode="before")
    @classmethod
    def _int_is_a_number(cls, value: Any) -> Any:
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


class StallsSchema(_Section):
    same_failure: int = Field(2, ge=2)
    empty_turns: int = Field(3, ge=1)


class AlertsSchema(_Section):
    command: str | None = None
    timeout_seconds: float = Field(10.0, gt=0)

    @field_validator("timeout_seconds", mode="before")
    @classmethod
    def _int_is_a_number(cls, value: Any) -> Any:
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


class InteropSchema(_Section):
    ralph_loop: Literal["verify", "ignore"] = "verify"
    omc: Literal["verify", "ignore"] = "verify"
    goal: Literal["verify", "ignore"] = "verify"


class WorkspaceSchema(_Section):
    ignore: tuple[str, ...] = ()

    @field_validator("ignore", mode="before")
    @classmethod
    def _gitignore_patterns(cls, value: Any) -> Any:
        if not isinstance(value, (list, tuple)):
            raise ValueError("must be a list of gitignore-style patterns")
        problem = next(filter(None, map(foreign.pattern_error, value)), None)
        if problem is not None:
            raise ValueError(problem)
        return tuple(value)


class RiskRuleSchema(_Section):
    # `construct` in the file; `name` here, since pydantic's BaseModel has a `construct` of its own.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, populate_by_name=True)
    name: str = Field(alias="construct")
    pattern: str
    ecosystems: tuple[str, ...] = ()
    category: Literal["security", "architecture"] = "security"
    sides: Literal["added", "removed", "both"] = "both"

    @field_validator("name")
    @classmethod
    def _named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must name the construct")
        return value.strip()

    @field_validator("pattern")
    @classmethod
    def _a_regex(cls, value: str) -> str:
        import re

        try:
            re.compile(value)
        except re.error as e:
            raise ValueError(f"not a regular expression: {e}") from None
        if re.search(value, "") is not None:
            raise ValueError("matches an empty line, so every line")
        return value

    @field_validator("ecosystems", mode="before")
    @classmethod
    def _known_ecosystems(cls, value: Any) -> Any:
        from tiergate.tier.content import BY_NAME

        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ValueError("must be a list of ecosystem names")
        unknown = [v for v in value if v not in BY_NAME]
        if unknown:
            raise ValueError(f"unknown ecosystem {unknown[0]!r} (known: {', '.join(BY_NAME)})")
        return tuple(value)


class RiskSchema(_Section):
    content: bool = True
    rules: tuple[RiskRuleSchema, ...] = ()

    @field_validator("rules", mode="before")
    @classmethod
    def _list_of_rules(cls, value: Any) -> Any:
        return tuple(value) if isinstance(value, list) else value


def _a_command(command: str) -> str:
    # An empty command would "pass" having checked nothing: a check must run something.
    if not command.strip():
        raise ValueError("the command is empty")
    return command


class ConfigSchema(_Section):
    source: str | None = Field(None, exclude=True)
    tiers: TiersSchema = TiersSchema()
    costs: CostsSchema = CostsSchema()
    keywords: KeywordsSchema = KeywordsSchema()
    patterns: PatternsSchema = PatternsSchema()
    loop: LoopSchema = LoopSchema()
    checks: dict[str, Annotated[str, AfterValidator(_a_command)]] = Field(default_factory=dict)
    gate: GateSchema = GateSchema()
    interventions: InterventionsSchema = InterventionsSchema()
    stalls: StallsSchema = StallsSchema()
    alerts: AlertsSchema = AlertsSchema()
    interop: InteropSchema = InteropSchema()
    workspace: WorkspaceSchema = WorkspaceSchema()
    mutation: MutationSchema = MutationSchema()
    risk: RiskSchema = RiskSchema()


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
