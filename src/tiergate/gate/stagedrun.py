"""The staged run of a claim's checks: the compile stage, then (unless it fails anew) the behaviour
stage or a first pass standing for it, within the run's budget; the baseline each result is judged
against, and the runs more that judging asks for (with the base's tests, out of order).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from tiergate.gate import baseline, cleancopy, firstrun, orderrun, rusttests, scratch
from tiergate.gate import cache as evidencecache
from tiergate.gate.changedtests import project_tests
from tiergate.gate.checks import BEHAVIOUR_STAGE, COMPILE_STAGE, OUT_OF_TIME, Check, CheckResult
from tiergate.gate.pertest.basetests import base_tests_selection
from tiergate.gate.pertest.order import OrderFailure
from tiergate.gate.pertest.selection import TestSelection
from tiergate.gate.processes import Progress, Running, skipped
from tiergate.gate.request import RunStart
from tiergate.gate.reuse import base_tests_key, keepable, order_key
from tiergate.gate.ruling import GateResult, new_compile_failures
from tiergate.gate.runrequest import RunRequest
from tiergate.gate.standing import BaselineEntry
from tiergate.gate.testreports import run_reported
from tiergate.gate.timeouts import FLOOR, TimeLimits
from tiergate.git import repository
from tiergate.project import Project

NOT_RUN = "not run: the compile stage has a new failure"
NOT_RUN_FIRST = "not run: the tests the change affects, run first, refute the claim"
MIN_STAGE_SECONDS = 1.0


def deadline(budget: float | None) -> float | None:
    """The time.monotonic() by which a run given `budget` seconds must be done (None: no budget)."""
    return None if budget is None else time.monotonic() + budget


@dataclass
class StagedRun:
    """A claim's checks run in stages as `request` asks, and the runs more that judging them asks for."""

    project: Project
    request: RunRequest
    commit: str | None  # the base commit; None outside git or without one
    at_base: bool  # whether the workspace is exactly the base commit
    entries: dict[str, BaselineEntry]  # the baseline known so far, by check key
    changed: Sequence[str] | None = None  # the change's paths; None: asked of git when needed
    deadline: float | None = None  # time.monotonic() by which the gate must be done (`deadline`)
    env: dict[str, dict[str, str]] = field(default_factory=dict)  # added to some checks', by key
    mutants_time: dict[str, float] = field(default_factory=dict)  # a check's mutants' time, by key
    cut_short: bool = field(default=False, init=False)  # some check got less than the full timeout
    # Where the checks run: the claim's copy (`tiergate.gate.cleancopy`), else the workspace itself.
    cwd: Path = field(default=Path(), init=False)
    copy: cleancopy.Copy | None = field(default=None, init=False)  # the claim's copy, while it runs
    rust_tests: bool | None = field(default=None, init=False)  # the change edits a Rust file's tests
    # A first pass's key -> its whole check's (whose time at the base is its limit's measure).
    _whole: dict[str, str] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self.cwd = self.project.root

    @property
    def checks(self) -> tuple[Check, ...]:
        return self.request.checks

    @property
    def timeout(self) -> float:
        return self.request.check_timeout

    @property
    def limits(self) -> TimeLimits | None:
        return self.request.limits

    @property
    def strict(self) -> frozenset[str]:
        return self.request.gate.strict

    @property
    def progress(self) -> Progress | None:
        return self.request.progress

    @property
    def for_task(self) -> bool:
        # A check that ran past its own timeout in a task's run wants its baseline too, to tell a hang the
        # change brought from one the loop began with (`tiergate.gate.regressions`).
        return self.request.for_task

    @property
    def start(self) -> RunStart:
        return self.request.gate.start

    def staged(self) -> tuple[CheckResult, ...]:
        """Every check's result, in the order of the checks (a first pass that refutes stands in for
        its check)."""
        first = self._stage(COMPILE_STAGE)
        if new_compile_failures(first, self.baseline_for(first), self.strict):
            second = tuple(skipped(c, NOT_RUN) for c in self.checks if c.stage == BEHAVIOUR_STAGE)
        else:
            second = self._first_pass() or self._whole_base_then(BEHAVIOUR_STAGE)
        # By the check each stands for, in the stage's order: a first pass has a name of its own.
        by_check = {
            **dict(zip(self._keys_of(COMPILE_STAGE), first, strict=True)),
            **dict(zip(self._keys_of(BEHAVIOUR_STAGE), second, strict=True)),
        }
        return tuple(by_check[c.key] for c in self.checks)

    def _whole_base_then(self, stage: int) -> tuple[CheckResult, ...]:
        """`stage` run, after every check the base does not hold yet has run there (`whole_base`): their
        times at the base are its limits, their tests' outcomes what it is compared with."""
        missing = [c for c in self.checks if c.key not in self.entries and c.key not in self.strict]
        if self.request.whole_base and missing and self.commit is not None:
            running = Running(timeout=self.timeout, progress=self.progress)
            self.entries = baseline.ensure_baseline(
                self.project, self.commit, missing, running, start=self.start
            )
        return self._stage(stage)

    def _keys_of(self, stage: int) -> list[str]:
        return [c.key for c in self.checks if c.stage == stage]

    def _first_pass(self) -> tuple[CheckResult, ...]:
        """The behaviour stage's results when the tests the change affects, run first, refute the claim:
        the refuting first passes, the other checks unrun; empty otherwise (the stage then runs). Only
        where a claim is to be refuted fast (a deadline-bound task run has no time for two runs) and
        the change is not the base itself."""
        if self.commit is None or self.at_base or self.for_task or self.deadline is not None:
            return ()
        if self.changed is None:
            self.changed = baseline.changed_paths(self.project.root, self.commit)
        chosen = [c for c in self.checks if c.stage == BEHAVIOUR_STAGE and c.key not in self.strict]
        passes = firstrun.planned(self.project, self.commit, chosen, self.changed, self.entries)
        self._whole.update({p.first.key: p.check.key for p in passes})
        allowed = self._time_left()
        # The same tests at the base first, where its record does not hold them yet: never beside the
        # claimed code's run, which could reach into the base's worktree.
        then = firstrun.at_base(self.project, self.commit, passes, self.entries, allowed, self.start)
        running = Running(timeout=allowed, limits=self._limit, progress=self.progress)
        refuting = firstrun.refuting(passes, then, running, (self.cwd, self.env))
        if not refuting:
            return ()
        return tuple(
            refuting.get(c.key) or skipped(c, NOT_RUN_FIRST)
            for c in self.checks
            if c.stage == BEHAVIOUR_STAGE
        )

    def _limit(self, check: Check) -> float:
        """`check`'s time limit now: its time at the base known so far (a first pass's is its check's)."""
        return self._limit_of_key(check.key)

    def _limit_of_key(self, key: str) -> float:
        # The mutants a check's tests run after them (`tiergate.gate.mutation`) have time of their own.
        extra = self.mutants_time.get(key, 0.0)
        if self.limits is None:  # a run given no limits (a bench's, a test's): the timeout alone
            return self.timeout + extra
        return self.limits.limit(self._base_seconds(self._whole.get(key, key))) + extra

    def _base_seconds(self, key: str) -> float | None:
        entry = self.entries.get(key)
        if entry is not None:
            return entry.result.duration
        return None

    def _stage(self, stage: int) -> tuple[CheckResult, ...]:
        chosen = [c for c in self.checks if c.stage == stage]
        if not chosen:
            return ()
        allowed = self._time_left()
        if self.deadline is not None and allowed < min(MIN_STAGE_SECONDS, self.timeout):
            self.cut_short = True
            return tuple(_out_of_time(skipped(c, "")) for c in chosen)
        running = Running(timeout=allowed, limits=self._limit, progress=self.progress)
        results = run_reported(chosen, self.cwd, running, env=self.env)
        if allowed < self.timeout and any(r.status == "timed_out" for r in results):
            # A check its own limit ended is the check's doing, whatever the budget.
            results = tuple(self._out_of_time_or_own(r, allowed) for r in results)
        # Never the baseline, even when the workspace is the base: what git ignores (bytecode, a planted
        # build) can change what runs while the workspace still reads as the base, and a baseline is kept
        # for every later loop on that commit. The baseline runs in a worktree of the commit alone.
        return tuple(self._against_base(r) for r in results)

    def _out_of_time_or_own(self, result: CheckResult, allowed: float) -> CheckResult:
        if result.status != "timed_out":
            return result
        if self.limits is not None and self._limit_of_key(result.key) < allowed:
            return result
        self.cut_short = True
        return _out_of_time(result)

    def _against_base(self, result: CheckResult) -> CheckResult:
        """A check its limit ended, its reason naming how long it ran against its time at the base."""
        if result.status != "timed_out" or result.out_of_time or self.limits is None:
            return result
        said = self.limits.against_base(result.duration, self._base_seconds(result.key))
        return replace(result, reason=f"{result.reason}: {said}") if said else result

    def baseline_for(self, results: Sequence[CheckResult]) -> dict[str, BaselineEntry]:
        """The baseline, run at the base first for failing checks it does not hold yet (when the
        budget still holds a whole timeout for it)."""
        # A timeout, or a check that could not run, is never excused by the baseline (tiergate.gate),
        # so it needs none.
        missing = [
            r
            for r in results
            if (self._excusable(r) or self._contracted(r) or self._hung(r))
            and r.key not in self.entries
            and r.key not in self.strict
        ]
        if missing and self.commit is not None and self._time_left() >= self._room_needed():
            wanted = {r.key for r in missing}
            checks = [c for c in self.checks if c.key in wanted]
            running = Running(timeout=self._time_left(), progress=self.progress)
            budgeted = self._time_left() < self.timeout
            self.entries = baseline.ensure_baseline(
                self.project, self.commit, checks, running, budgeted=budgeted, start=self.start
            )
        return self.entries

    @staticmethod
    def _excusable(result: CheckResult) -> bool:
        return result.failing and result.status != "timed_out" and not result.could_not_run

    def _hung(self, result: CheckResult) -> bool:
        return self.for_task and result.status == "timed_out" and not result.out_of_time

    def _contracted(self, result: CheckResult) -> bool:
        """Whether the check's tests at the base are wanted, to tell the tests lost since then."""
        if result.kind != "tests" or result.status not in ("passed", "failed", "no_tests"):
            return False
        return self._touches_tests()

    def _touches_tests(self) -> bool:
        """Whether the change (from the loop's base, not at it) touches tests or test infrastructure."""
        if self.commit is None or self.at_base:
            return False
        if self.changed is None:
            self.changed = baseline.changed_paths(self.project.root, self.commit)
        if self.rust_tests is None:  # Rust's tests stand in its code files: read, once, where they are
            top = repository.repo_root(self.project.root)
            self.rust_tests = rusttests.touches_tests(top, self.commit, self.changed)
        return bool(project_tests(self.project, self.commit, self.changed)) or self.rust_tests

    def with_base_tests(
        self, results: Sequence[CheckResult], judged: GateResult, key: str | None
    ) -> dict[str, CheckResult]:
        """The test checks' runs on this workspace with the base's tests, by key, when nothing refutes
        the claim already (`base_tests_run`)."""
        if judged.refuted or not self.wants_base_tests(results):
            return {}
        return self.base_tests_run(results, key)

    def wants_base_tests(self, results: Sequence[CheckResult]) -> bool:
        """Whether the change touches tests and some test check ran to a verdict."""
        return bool(self._base_tests_wanted(results)) and self.commit is not None and self._touches_tests()

    def _base_tests_wanted(self, results: Sequence[CheckResult]) -> set[str]:
        return {
            r.key
            for r in results
            if r.kind == "tests" and r.status in ("passed", "failed") and r.key not in self.strict
        }

    def base_tests_run(self, results: Sequence[CheckResult], key: str | None) -> dict[str, CheckResult]:
        """The test checks' runs with the base's tests: kept ones under `key` (the claim's evidence key;
        None: none kept nor to keep), else run now when the budget holds a whole timeout."""
        wanted = self._base_tests_wanted(results)
        kept_key = None if key is None else base_tests_key(key)
        kept = evidencecache.load_evidence_and_coverage(self.project, kept_key) if kept_key else None
        found = {r.key: r for r in (kept[0] if kept else ())}
        if wanted <= set(found):
            return {k: found[k] for k in wanted}
        if self.commit is None or self._time_left() < self._room_needed():
            return {}
        select = self._base_tests_selection(results, wanted)
        checks = [c for c in self.checks if c.key in wanted and select.get(c.key) != _NOTHING]
        if not checks:
            return {}
        pycache = None if self.copy is None else self.copy.env["PYTHONPYCACHEPREFIX"]
        ran = scratch.run_base_tests(
            self.project.root,
            self.commit,
            checks,
            Running(timeout=self._time_left(), progress=self.progress),
            replace(self.start, pycache=pycache),
            select={k: v for k, v in select.items() if v is not None},
        )
        if kept_key and keepable(ran):
            evidencecache.store_evidence(self.project, kept_key, ran)
        return {r.key: r for r in ran}

    def out_of_order(
        self, results: Sequence[CheckResult], judged: GateResult, key: str | None
    ) -> dict[str, tuple[OrderFailure, ...]]:
        """The tests the task is about that pass only in the suite's order, by check key
        (`tiergate.gate.orderrun`), when nothing refutes the claim already: from the runs kept under
        `key` (the claim's evidence key), else run now in the claim's copy when the run has no deadline.
        Not for a completed task's run, bounded by its hook; nor for kept results with none of these kept
        beside them (no copy to run in: a run that was refuted, or kept before they were asked)."""
        if judged.refuted or self.for_task or self.commit is None:
            return {}
        kept_key = None if key is None else order_key(key)
        kept = evidencecache.load_evidence_and_coverage(self.project, kept_key) if kept_key else None
        if kept is not None:
            return orderrun.found(self.checks, results, self.entries, kept[0])
        if self.deadline is not None or self.cwd == self.project.root:
            return {}
        ran = orderrun.run_again(
            self.checks,
            results,
            self.entries,
            (self.cwd, self.env),
            timeout=self._time_left(),
            progress=self.progress,
        )
        self.untouched()
        if kept_key and keepable(ran):
            evidencecache.store_evidence(self.project, kept_key, ran)
        return orderrun.found(self.checks, results, self.entries, ran)

    def untouched(self) -> None:
        """Raises `cleancopy.CopyWrittenError` when the claim's copy changed while checks ran in it."""
        if self.copy is not None:
            cleancopy.check_untouched(self.copy)

    def _base_tests_selection(
        self, results: Sequence[CheckResult], wanted: set[str]
    ) -> dict[str, TestSelection | None]:
        """What each wanted test check runs with the base's tests: the touched test files and the tests
        failing or lost now, by the base's record of them;
        None: the whole check."""
        top = repository.repo_root(self.project.root)
        inside = self.project.root.resolve().relative_to(top.resolve()).as_posix()
        touched = project_tests(self.project, self.commit, self.changed or ())
        chosen: dict[str, TestSelection | None] = {}
        for result in results:
            if result.key in wanted:
                entry = self.entries.get(result.key)
                base = None if entry is None else entry.result.tests
                chosen[result.key] = base_tests_selection(
                    touched, base, result.tests, "" if inside == "." else inside
                )
        return chosen

    def _room_needed(self) -> float:
        """The time a run at the base needs before it is begun within the budget: a whole timeout, or,
        where limits follow the base, the least limit there is (the run is then cut at the budget, and a
        check it cut is not kept: `baseline.ensure_baseline`)."""
        return self.timeout if self.limits is None else min(self.timeout, FLOOR)

    def _time_left(self) -> float:
        # A check's mutants have time beside its own limit (`_limit_of_key`), which the whole run's must hold.
        most = self.timeout + max(self.mutants_time.values(), default=0.0)
        if self.deadline is None:
            return most
        return min(most, self.deadline - time.monotonic())


_NOTHING = TestSelection((), ())  # a selection of nothing: no test to run again with the base's tests


def _out_of_time(result: CheckResult) -> CheckResult:
    """A result cut short by the gate's budget (or never started for lack of it): a timeout."""
    reason = (
        f"timed out after {result.duration:.0f} s: {OUT_OF_TIME}"
        if result.status == "timed_out"
        else f"not run: {OUT_OF_TIME}"
    )
    return replace(result, status="timed_out", reason=reason)
