"""What a claim's gate runs: the checks against the loop's base, and the rules it runs them by, as the
Stop builds it from the loop's kept configuration (`tiergate.handlers.loopgate.gate_request`) and a
background job reads it back (`tiergate.gate.job`). Pure.
"""

from __future__ import annotations

from typing import Any, cast, get_args

from tiergate import foreign
from tiergate.foreign import Exclusions
from tiergate.frozen import frozen
from tiergate.gate.checks import Check, Kind
from tiergate.gate.timeouts import TimeLimits


@frozen
class Seed:
    """What a claim's bytecode folder starts with (`tiergate.gate.bytecode`): the `.pyc` files under
    `folders` (the environment's) and `stdlib` (the interpreters' standard libraries, their own
    site-packages and test suites aside) older than `before` (seconds since the epoch: the loop's
    start)."""

    folders: tuple[str, ...]
    before: float
    stdlib: tuple[str, ...] = ()


@frozen
class RunStart:
    """How each run of the checks starts, wherever it runs: the bytecode it starts with (`seed`; None:
    all compiled anew), or a folder of it already made (`pycache`: the claim's copy's), and whether it
    gets a network of its own (`tiergate.gate.sandbox`)."""

    seed: Seed | None = None
    own_network: bool = False
    pycache: str | None = None


@frozen
class GateRequest:
    """What a claim's gate runs: the checks against the loop's base, and the rules it runs them by."""

    base: str | None  # the loop's base (its start's workspace, or commit); None: HEAD
    checks: tuple[Check, ...]
    strict: frozenset[str] = frozenset()  # never excused by the baseline (acceptance checks)
    exclusions: Exclusions = foreign.DEFAULT
    limits: TimeLimits = TimeLimits()
    refute_regressions: bool = False
    seed: Seed | None = None  # the bytecode a claim's copy starts with (`tiergate.gate.bytecode`)
    own_network: bool = False  # the checks get a network of their own (`tiergate.gate.sandbox`)
    mutants: MutantBounds | None = None  # the mutation step's bounds (`tiergate.gate.mutation`); None: off

    @property
    def timeout(self) -> float:
        return self.limits.ceiling

    @property
    def start(self) -> RunStart:
        return RunStart(self.seed, self.own_network)

    def to_record(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "checks": [[c.name, c.command, c.kind, c.source] for c in self.checks],
            "strict": sorted(self.strict),
            "ignore": list(self.exclusions.ignore),
            "ignore_source": self.exclusions.source,
            "timeout_seconds": self.limits.configured,
            "refute_regressions": self.refute_regressions,
            "seed": None
            if self.seed is None
            else [list(self.seed.folders), self.seed.before, list(self.seed.stdlib)],
            "own_network": self.own_network,
            "mutants": None
            if self.mutants is None
            else [self.mutants.mutants, self.mutants.per_line, self.mutants.seconds],
        }

    @staticmethod
    def from_record(record: dict[str, Any]) -> GateRequest:
        """The request `to_record` wrote (a background job's, `tiergate.gate.job`); ValueError otherwise."""
        try:
            checks = tuple(
                Check(str(n), str(c), kind_of_record(k), str(s)) for n, c, k, s in record["checks"]
            )
            configured = record["timeout_seconds"]
            return GateRequest(
                base=None if record["base"] is None else str(record["base"]),
                checks=checks,
                strict=frozenset(str(k) for k in record["strict"]),
                exclusions=foreign.Exclusions(
                    tuple(str(p) for p in record["ignore"]), record["ignore_source"]
                ),
                limits=TimeLimits(None if configured is None else float(configured)),
                refute_regressions=bool(record["refute_regressions"]),
                seed=_seed(record.get("seed")),
                own_network=bool(record.get("own_network", False)),
                mutants=_bounds(record.get("mutants")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a gate request: {exc}") from exc


@frozen
class MutantBounds:
    """How many mutants a claim's change gets (`tiergate.gate.mutation`), at most per changed line, and
    in how many seconds."""

    mutants: int = 100
    per_line: int = 3
    seconds: float = 60.0


def _bounds(value: Any) -> MutantBounds | None:
    if value is None:
        return None
    most, per_line, seconds = value
    return MutantBounds(int(most), int(per_line), float(seconds))


def _seed(value: Any) -> Seed | None:
    if value is None:
        return None
    folders, before, stdlib = value
    return Seed(tuple(str(f) for f in folders), float(before), tuple(str(f) for f in stdlib))


def kind_of_record(value: object) -> Kind:
    for kind in get_args(Kind):
        if value == kind:
            return cast("Kind", kind)
    raise ValueError(f"not a check kind: {value!r}")
