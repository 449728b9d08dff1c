"""The project's configuration: `.tiergate.toml`, or `[tool.tiergate]` in `pyproject.toml`.

Every key has the seed's default, so a project without configuration gets the seed's rules. Unknown keys
are errors, not silently ignored: a typo in a threshold must not quietly keep the default. Errors are one
line naming the file and the key (`UserError`).

Example::

    [tiers]
    light_files_below = 5        # LIGHT needs fewer files than this
    light_lines_below = 100      # ... and fewer changed lines than this
    thorough_files_above = 20    # more files than this is THOROUGH

    [costs]                      # relative cost of one verification per tier
    light = 1
    standard = 5
    thorough = 20

    [keywords]                   # words of the task prompt that ask for a tier
    thorough = ["thorough", "careful", "important", "critical"]
    light = ["quick", "simple", "trivial", "minor"]

    [patterns]                   # gitignore-style globs ADDED to the built-in path rules
    security = ["billing/**"]
    architecture = ["**/*.sql"]

    [loop]
    max_iterations = 20

    [checks]                     # name -> shell command, run by tiergate itself
    tests = "pytest -q"

    [gate]
    timeout_seconds = 300        # per check; its whole process group is killed after that

    [interventions]              # the seed's table: retry, change approach, roll back, halt
    attempt_limit = 3            # refuted attempts at one item before changing approach
    skip_limit = 3               # items given up before the loop halts
    rollback_on_retry = false

    [stalls]
    same_failure = 2             # the same failure this many times in a row is a stall
    empty_turns = 3              # turns with no claim and no change

    [alerts]
    command = "notify-send tiergate"   # run on a halt, the message on stdin and in TIERGATE_ALERT
    timeout_seconds = 10

    [interop]                    # the user's own loops: adopt and verify their claims, or leave them be
    ralph_loop = "verify"        # Anthropic's ralph-loop plugin: "verify" or "ignore"
    omc = "verify"               # oh-my-claudecode's ralph and autopilot modes: "verify" or "ignore"

    [workspace]                  # gitignore-style paths that are never the loop's change, nor a
    ignore = ["build/", "*.log"] # verifier's (besides the built-in ones: tiergate.foreign)

    [risk]
    content = true               # search the changed lines for risky constructs (docs/risk.md)

    [[risk.rules]]               # more constructs, ADDED to the built-in ones
    construct = "billing API call"
    pattern = "charge_card\\("     # a regular expression searched in one changed line
    ecosystems = ["python"]      # optional: python, javascript, go, rust, common (default: every file)
    category = "security"        # optional: "security" (default) or "architecture"
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from tiergate import foreign
from tiergate.configfile import read_table
from tiergate.errors import UserError
from tiergate.tier import keywords
from tiergate.tier.policy import Tier, TierPolicy


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class TiersConfig(_Section):
    light_files_below: int = Field(5, ge=0)
    light_lines_below: int = Field(100, ge=0)
    thorough_files_above: int = Field(20, ge=0)


class CostsConfig(_Section):
    light: float = Field(1.0, gt=0)
    standard: float = Field(5.0, gt=0)
    thorough: float = Field(20.0, gt=0)

    @field_validator("light", "standard", "thorough", mode="before")
    @classmethod
    def _int_is_a_number(cls, value: Any) -> Any:
        # TOML distinguishes 5 from 5.0; a person writing a cost does not.
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


class KeywordsConfig(_Section):
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


class PatternsConfig(_Section):
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


class LoopConfig(_Section):
    max_iterations: int = Field(20, ge=1)
    max_minutes: float = Field(240.0, gt=0)

    @field_validator("max_minutes", mode="before")
    @classmethod
    def _int_is_a_number(cls, value: Any) -> Any:
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


class GateConfig(_Section):
    timeout_seconds: float = Field(300.0, gt=0)

    @field_validator("timeout_seconds", mode="before")
    @classmethod
    def _int_is_a_number(cls, value: Any) -> Any:
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


class InterventionsConfig(_Section):
    attempt_limit: int = Field(3, ge=1)
    skip_limit: int = Field(3, ge=1)
    failure_limit: int | None = Field(None, ge=1)
    rollback_on_retry: bool = False


class StallsConfig(_Section):
    same_failure: int = Field(2, ge=2)
    empty_turns: int = Field(3, ge=1)


class AlertsConfig(_Section):
    command: str | None = None
    timeout_seconds: float = Field(10.0, gt=0)

    @field_validator("timeout_seconds", mode="before")
    @classmethod
    def _int_is_a_number(cls, value: Any) -> Any:
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


class InteropConfig(_Section):
    ralph_loop: Literal["verify", "ignore"] = "verify"
    omc: Literal["verify", "ignore"] = "verify"


class WorkspaceConfig(_Section):
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


class RiskRuleConfig(_Section):
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


class RiskConfig(_Section):
    content: bool = True
    rules: tuple[RiskRuleConfig, ...] = ()

    @field_validator("rules", mode="before")
    @classmethod
    def _list_of_rules(cls, value: Any) -> Any:
        return tuple(value) if isinstance(value, list) else value


def _a_command(command: str) -> str:
    # An empty command would "pass" having checked nothing: a check must run something.
    if not command.strip():
        raise ValueError("the command is empty")
    return command


class Config(_Section):
    source: str | None = Field(None, exclude=True)
    tiers: TiersConfig = TiersConfig()
    costs: CostsConfig = CostsConfig()
    keywords: KeywordsConfig = KeywordsConfig()
    patterns: PatternsConfig = PatternsConfig()
    loop: LoopConfig = LoopConfig()
    checks: dict[str, Annotated[str, AfterValidator(_a_command)]] = Field(default_factory=dict)
    gate: GateConfig = GateConfig()
    interventions: InterventionsConfig = InterventionsConfig()
    stalls: StallsConfig = StallsConfig()
    alerts: AlertsConfig = AlertsConfig()
    interop: InteropConfig = InteropConfig()
    workspace: WorkspaceConfig = WorkspaceConfig()
    risk: RiskConfig = RiskConfig()

    def kept(self) -> dict[str, Any]:
        """The configuration in its JSON form, as a loop keeps it (`source` apart: `kept_config`)."""
        return self.model_dump(mode="json")

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


def load_config(root: Path) -> Config:
    """The configuration of the project at `root`; the defaults when it has none."""
    found = read_table(root)
    if found is None:
        return Config()
    source, table = found
    return validate_table(source, table)


def kept_config(source: str | None, kept: dict[str, Any]) -> Config:
    """The configuration a loop kept (`Config.kept`), validated again: the state file is on disk."""
    import json

    try:
        return Config.model_validate_json(json.dumps({**kept, "source": source}))
    except ValidationError as exc:
        raise UserError(
            f"the loop's kept configuration (from {source or 'the defaults'}): {_first_error(exc)}"
        ) from None


def validate_table(source: str, table: dict[str, Any]) -> Config:
    """The configuration in `table`, read from `source`; UserError naming the file and the key."""
    try:
        return Config.model_validate({**table, "source": source})
    except ValidationError as exc:
        raise UserError(f"{source}: {_first_error(exc)}") from None


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
