"""Which tests a test check ran, test by test, and how each ended: the record a check result carries.

From the runner's report (`tiergate.gate.testreports`), else its output (`tiergate.gate.pertest.fromoutput`).
Only `complete` records with the same `naming` are compared test by test. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

from tiergate.frozen import frozen

TestOutcome = Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed", "deselected"]
OUTCOMES: tuple[TestOutcome, ...] = get_args(TestOutcome)
# Outcomes that show the test's code ran to a verdict; skipped, xfailed and deselected show nothing.
RAN: frozenset[str] = frozenset({"passed", "failed", "error", "xpassed"})
FAILING: frozenset[str] = frozenset({"failed", "error"})


@frozen
class TestRun:
    """One test check's tests. `counts` are the runner's own totals as it printed them (its summary
    line), which a report is checked against; empty when it printed none that was recognised."""

    __test__ = False  # not a pytest test class, whatever its name

    source: str  # where it was read: "pytest report", "node --test report", "pytest output", ...
    naming: str  # how ids are spelled: "pytest", "node", "unittest", "go", "cargo", ...
    outcomes: tuple[tuple[str, TestOutcome], ...]  # (test id, outcome), in the order met
    complete: bool  # names every test that ran, not only some
    counts: tuple[tuple[TestOutcome, int], ...] = ()
    finished: bool = True  # the runner reached its end (a report it began and never closed: False)
    # The run was limited to a selection of the tests (`tiergate.gate.pertest.selection`): a test it does
    # not name was not asked for, so its absence says nothing (see `lost`, `basetests`).
    subset: bool = False
    # What of the runner was replaced while the tests ran (`pytestoutcomes._RUNNER`): its report then
    # says what the replacement made of the tests, not what they did.
    patched: tuple[str, ...] = ()
    # Why its report is no evidence: it tells another story than what the tests streamed to the gate as
    # they ran (`tiergate.gate.pertest.streamed`); "" when it agrees, or nothing was streamed.
    disagrees: str = ""

    @property
    def by_test(self) -> dict[str, TestOutcome]:
        return dict(self.outcomes)

    def total(self, outcome: TestOutcome) -> int:
        """How many tests ended so: from the per-test outcomes when complete, else the runner's totals."""
        if self.complete:
            return sum(1 for _, o in self.outcomes if o == outcome)
        printed = dict(self.counts)
        return printed.get(outcome, sum(1 for _, o in self.outcomes if o == outcome))

    @property
    def ran(self) -> int:
        return sum(self.total(o) for o in OUTCOMES if o in RAN)

    @property
    def failing(self) -> int:
        return sum(self.total(o) for o in OUTCOMES if o in FAILING)

    def named(self, outcomes: frozenset[str]) -> tuple[str, ...]:
        return tuple(test for test, o in self.outcomes if o in outcomes)

    def describe_counts(self) -> str:
        """'3 passed, 1 failed, 2 skipped' (the outcomes that occur, in a fixed order)."""
        parts = [f"{n} {o}" for o in OUTCOMES if (n := self.total(o))]
        return ", ".join(parts) or "no test"

    def to_record(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "naming": self.naming,
            "outcomes": [list(pair) for pair in self.outcomes],
            "complete": self.complete,
            "counts": dict(self.counts),
            "finished": self.finished,
            **({"subset": True} if self.subset else {}),
            **({"patched": list(self.patched)} if self.patched else {}),
            **({"disagrees": self.disagrees} if self.disagrees else {}),
        }

    @staticmethod
    def from_record(record: Mapping[str, Any]) -> TestRun:
        """The record `to_record` wrote; ValueError for anything else. A record written before runs could
        be limited to a selection has no `subset`: a full run."""
        outcomes = tuple((str(t), outcome_of(o)) for t, o in record["outcomes"])
        counts = tuple((outcome_of(o), int(n)) for o, n in dict(record["counts"]).items())
        flags = (record["complete"], record["finished"], record.get("subset", False))
        if not all(isinstance(flag, bool) for flag in flags):
            raise ValueError("not a test run")
        source, naming = str(record["source"]), str(record["naming"])
        patched = tuple(str(p) for p in record.get("patched", ()))
        disagrees = str(record.get("disagrees", ""))
        return TestRun(source, naming, outcomes, flags[0], counts, flags[1], flags[2], patched, disagrees)


def outcome_of(value: object) -> TestOutcome:
    """`value` as an outcome; ValueError when it is none."""
    for outcome in OUTCOMES:
        if value == outcome:
            return outcome
    raise ValueError(f"not a test outcome: {value!r}")
