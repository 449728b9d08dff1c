"""An autopilot's features: the file that lists them, and where each one stands. The file is
`{"features": [{"id": "F01", "title": ..., "description": ..., "checks": {"name": "command"}}]}`. One
feature at a time, in the file's order; the current one is the loop's approach number (a change of
approach is a skip). Done and skipped derive from the attempts (`tiergate.loop.interventions`). `parse`
imports pydantic itself, off the hooks' lean path; reading the file is `tiergate.loop.start.read_features`.
"""

from __future__ import annotations

from collections.abc import Sequence

from tiergate import TYPE_CHECKING
from tiergate.errors import UserError
from tiergate.frozen import frozen

if TYPE_CHECKING:
    from typing import Literal

    Standing = Literal["done", "current", "skipped", "pending"]

# Check names carry their feature's id so that a failure names the feature it breaks.
_CHECK_NAME = "{feature} {check}"


@frozen
class Feature:
    id: str
    title: str
    description: str
    checks: tuple[tuple[str, str], ...]  # (name, command), in the file's order

    @property
    def task(self) -> str:
        """What Claude is told to build, and what the verifier checks it against."""
        checks = "\n".join(f"- {name}: `{command}`" for name, command in self.checks)
        return (
            f"Feature {self.id}: {self.title}\n{self.description}\nAcceptance checks (must pass):\n{checks}"
        )

    def check_names(self) -> tuple[tuple[str, str], ...]:
        return tuple((_CHECK_NAME.format(feature=self.id, check=n), c) for n, c in self.checks)


def current(features: Sequence[Feature], approach: int) -> Feature | None:
    """The feature the loop works on at approach `approach` (1: the first); None past the last."""
    return features[approach - 1] if 1 <= approach <= len(features) else None


def standings(features: Sequence[Feature], approach: int, done: Sequence[str]) -> dict[str, Standing]:
    """Each feature's standing: done (its last attempt passed), the current one, skipped (left behind
    without being done), or pending."""
    finished = set(done)
    result: dict[str, Standing] = {}
    for index, feature in enumerate(features, start=1):
        if feature.id in finished:
            result[feature.id] = "done"
        elif index < approach:
            result[feature.id] = "skipped"
        elif index == approach:
            result[feature.id] = "current"
        else:
            result[feature.id] = "pending"
    return result


def gate_checks(
    features: Sequence[Feature], approach: int, done: Sequence[str]
) -> tuple[tuple[str, str], ...]:
    """The current feature's acceptance checks, then those of every feature already done (the
    regression suite), as (name, command)."""
    chosen = current(features, approach)
    finished = set(done)
    regression = [f for f in features if f.id in finished and f is not chosen]
    ordered = ([chosen] if chosen is not None else []) + regression
    return tuple(pair for feature in ordered for pair in feature.check_names())


def broken(features: Sequence[Feature], done: Sequence[str], failing: Sequence[str]) -> tuple[str, ...]:
    """The done features whose checks are among the `failing` check names."""
    names = set(failing)
    finished = set(done)
    return tuple(f.id for f in features if f.id in finished and any(n in names for n, _ in f.check_names()))


def parse(text: str, origin: str) -> tuple[Feature, ...]:
    """The features in `text`, the content of the features file `origin` names; UserError in one line
    naming the file and what is wrong."""
    import json

    from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

    class _Feature(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True)
        id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
        title: str = Field(min_length=1)
        description: str = ""
        checks: dict[str, str] = Field(min_length=1)

        @field_validator("checks")
        @classmethod
        def _commands(cls, value: dict[str, str]) -> dict[str, str]:
            empty = [name for name, command in value.items() if not name.strip() or not command.strip()]
            if empty:
                raise ValueError(f"a check needs a name and a command: {empty[0]!r}")
            return value

    class _File(BaseModel):
        model_config = ConfigDict(extra="forbid")
        features: list[_Feature] = Field(min_length=1)

    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UserError(f"{origin}: not JSON ({exc})") from None
    try:
        parsed = _File.model_validate(data)
    except ValidationError as exc:
        raise UserError(f"{origin}: {_where(data, exc)}") from None
    ids = [f.id for f in parsed.features]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise UserError(f"{origin}: feature id {twice[0]} is used more than once")
    return tuple(
        Feature(f.id, f.title.strip(), f.description.strip(), tuple(f.checks.items()))
        for f in parsed.features
    )


def _where(data: object, exc: object) -> str:
    """The first validation error in one line, the feature named by its id when it has one."""
    from pydantic import ValidationError

    assert isinstance(exc, ValidationError)
    error = exc.errors()[0]
    loc = list(error["loc"])
    if len(loc) >= 2 and loc[0] == "features" and isinstance(loc[1], int):
        index = loc[1]
        entries = data.get("features") if isinstance(data, dict) else None
        entry = entries[index] if isinstance(entries, list) and index < len(entries) else None
        name = entry.get("id") if isinstance(entry, dict) else None
        loc[:2] = [f"feature {name}" if isinstance(name, str) and name else f"feature #{index + 1}"]
    where = ".".join(str(part) for part in loc) or "the file"
    return f"{where}: {error['msg']}"
