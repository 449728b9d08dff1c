"""The gate as a claim runs it: reused evidence or a staged run of the checks, the baseline, the verdict.

Results are kept per workspace state, so a claim on an unchanged workspace runs nothing again; the
compile stage runs first, and a new failure there leaves the behaviour stage unrun; a time budget keeps
the whole run inside the Stop hook's limit. See docs/judging.md, "A claim's gate run".
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tiergate import foreign
from tiergate.gate import baseline, cleancopy, firstrun, orderrun, runnerpatched, rusttests, scratch
from tiergate.gate import cache as evidencecache
from tiergate.gate.changedtests import project_tests
from tiergate.gate.checks import BEHAVIOUR_STAGE, COMPILE_STAGE, OUT_OF_TIME, Check, CheckResult
from tiergate.gate.coverage.measuring import Measurement
from tiergate.gate.mutation.step import Step
from tiergate.gate.pertest.basetests import base_tests_selection
from tiergate.gate.pertest.order import OrderFailure
from tiergate.gate.pertest.selection import TestSelection
from tiergate.gate.processes import DEFAULT_TIMEOUT, Progress, skipped
from tiergate.gate.request import MutantBounds, Seed
from tiergate.gate.ruling import GateResult, judge, new_compile_failures
from tiergate.gate.standing import BaselineEntry
from tiergate.gate.testreports import run_reported
from tiergate.gate.timeouts import FLOOR, TimeLimits
from tiergate.git import repository
from tiergate.project import Project, git_top_level
from tiergate.tier.change import measure_change
from tiergate.tier.coverage.lines import GateCoverage
from tiergate.workspace.fingerprint import fingerprint, of_change

if TYPE_CHECKING:
    from tiergate.foreign import Exclusions
    from tiergate.gate.request import GateRequest
    from tiergate.tier.change import ChangeMeasurement

NOT_RUN = "not run: the compile stage has a new failure"
NOT_RUN_FIRST = "not run: the tests the change affects, run first, refute the claim"
CHANGED_WHILE_MEASURED = "the checks changed the workspace: what they measured is not evidence for it"
MIN_STAGE_SECONDS = 1.0


def run_gate(
    project: Project,
    base: str | None,
    checks: Sequence[Check],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    budget: float | None = None,
    progress: Progress | None = None,
    reuse: bool = True,
    strict: Collection[str] = (),
    exclusions: Exclusions = foreign.DEFAULT,
    measure: Sequence[str] | None = None,
    refute_regressions: bool = False,
    change: ChangeMeasurement | None = None,
    for_task: bool = False,
    limits: TimeLimits | None = None,
    whole_base: bool = False,
    kept: tuple[tuple[CheckResult, ...], GateCoverage | None] | None = None,
    seed: Seed | None = None,
    own_network: bool = False,
    mutants: MutantBounds | None = None,
) -> GateResult:
    """Run (or reuse) the checks for the workspace at `project.root` and judge them against the
    baseline at `base` (the loop's base; HEAD when None). `timeout` is per check, `budget` (seconds,
    None: unbounded) for the whole gate, baseline runs included. The checks whose keys are in `strict`
    are never excused by the baseline (nor run at the base for it). The workspace's fingerprint leaves
    out other tools' state (`exclusions`): a plugin writing its state while the checks run has not
    changed the workspace they judged. `measure`: the change's code files, whose line coverage the test
    checks that can take it measure as they run (`tiergate.gate.coverage.measuring`; None: no measurement);
    it comes back as the result's `coverage`, and is kept with the results. `refute_regressions`: a
    test that passed at the base and fails with the base's tests refutes (`[gate] base_tests =
    "refute"`) rather than making the claim THOROUGH. `change`: the change from
    `base` with `exclusions`, measured by the caller with nothing run since (no check yet, no agent
    code): the workspace's fingerprint before the checks, the base commit and whether the workspace is
    that commit come from it rather than from git (a change measured otherwise is not used); its paths
    are the changed paths the base tests look at (None: asked of git when needed). `for_task`: the run
    of a completed task's step claim (`tiergate.handlers.task_completed`): it reuses what a claim kept for
    the workspace, but keeps its own results apart, so that a claim never stands on a task's run (a task
    may be marked completed again and again until a flaky test passes once). `limits`: each check's time
    limit follows its time at the base (`tiergate.gate.timeouts`), within `timeout`; None: `timeout`
    alone. `whole_base`: every check the base does not hold yet runs there first,
    before the behaviour stage (each test's outcome and each check's time at the base, for every loop:
    `tiergate.gate.job`); never beside a run of the claim's code, which could reach into its worktree.
    `kept`: results run for this very
    workspace by a background gate (`tiergate.gate.background`), judged as kept ones are. `seed`: the
    bytecode the claim's copy starts with (`tiergate.gate.bytecode`; None: none, all compiled anew).
    `own_network`: the checks run with a network of their own (`tiergate.gate.sandbox`). `mutants`: the
    change's Python lines get mutants, run by the measured pytest check once its tests pass
    (`tiergate.gate.mutation`; None, no `measure`, or outside git: none)."""
    checks = tuple(checks)
    strict = frozenset(strict)
    if not checks:
        return judge((), {})
    # Outside git there is no fingerprint and no base: the checks just run, every failure is new.
    in_git = git_top_level(str(project.root)) is not None
    measured = change if in_git and _measured_for(change, base, exclusions) else None
    commit, before = _located(project, base, exclusions, measured, in_git=in_git)
    at_base = _at_base(measured) if measured is not None else None
    changed = None if change is None else change.paths
    claim_key, key = _keys(before, commit, checks, timeout, for_task=for_task)
    step = None
    if mutants is not None and measure is not None and in_git:
        measured_now = change  # the job measures it anew only if the mutants are made (no kept run)
        step = Step(mutants, lambda: measured_now or measure_change(project.root, base or "HEAD", exclusions))
    measurement = None if measure is None else Measurement(project, checks, measure, step)
    if kept is None:
        kept = _reused(project, (claim_key, key), measurement) if key and reuse else None
    deadline = None if budget is None else time.monotonic() + budget
    run = _Run(
        project,
        commit,
        checks,
        timeout,
        deadline,
        progress,
        strict,
        changed=changed,
        at_base=at_base,
        for_task=for_task,
        limits=limits,
        whole_base=whole_base,
        seed=seed,
        own_network=own_network,
    )
    if kept is not None:
        return _judge_kept(run, kept, before, key, refute_regressions)
    with _copy(project, commit, exclusions, seed, own_network) as copy:
        if copy is not None:
            run.cwd, run.copy = copy.cwd, copy
        try:
            if measurement is not None:
                measurement.where = run.cwd
                measurement.write = None if copy is None else functools.partial(cleancopy.rewrite, copy)
            added = measurement.env() if measurement else {}
            run.mutants_time = measurement.mutants_time() if measurement else {}
            run.env = {c.key: _joined(_copy_env(copy, c.key), added.get(c.key, {})) for c in checks}
            results = run.staged()
            run.untouched()
            if copy is not None and copy.watch is not None:
                results = copy.watch.told(results)
            # A run cut short has no time for mutants of its JavaScript, run after its checks.
            coverage = measurement.collect(results, run.env, node=not run.cut_short) if measurement else None
        finally:
            if measurement:
                measurement.close()
        after = fingerprint(project.root, base, exclusions)
        if coverage is not None and after != before:
            coverage = replace(coverage, measured=(), off=(*coverage.off, CHANGED_WHILE_MEASURED))
        # A check that did not finish, or could not run, says nothing of this workspace (its program may
        # be installed next, the machine may be less loaded): such a run is not kept, the next claim runs it.
        finished = not any(r.status == "timed_out" or r.could_not_run for r in results)
        if key and after == before and not run.cut_short and finished:
            evidencecache.store_evidence(project, key, results, coverage=coverage)
        changed_now = after != before
        kept_key = key if key and not changed_now and not run.cut_short and finished else None
        judged = _verdict(
            run, results, kept_key, refute_regressions, fingerprint=before, workspace_changed=changed_now
        )
    return replace(judged, coverage=coverage)


def _copy_env(copy: cleancopy.Copy | None, key: str) -> dict[str, str]:
    """What a check run in `copy` adds to its environment: the copy's, and its watch's for this check."""
    if copy is None:
        return {}
    return {**copy.env, **(copy.watch.env(key) if copy.watch is not None else {})}


def _joined(env: dict[str, str], added: dict[str, str]) -> dict[str, str]:
    """`env` (the copy's) with `added`'s variables (the coverage measurement's). Each PYTHONPATH starts
    with a folder holding tiergate's one sitecustomize for the checks (`tiergate.gate.checksite`): the
    copy's is kept, since it holds the user's folders and the copy's stand-ins too; of the measurement's,
    only the folders after its sitecustomize's (the mutants' plugin) are added after it."""
    if "PYTHONPATH" not in env:
        return {**env, **added}
    kept = env["PYTHONPATH"].split(os.pathsep)
    more = [p for p in added.get("PYTHONPATH", "").split(os.pathsep)[1:] if p and p not in kept]
    path = os.pathsep.join([*kept, *more])
    return {**added, **env, "PYTHONPATH": path}


def _verdict(
    run: _Run,
    results: tuple[CheckResult, ...],
    key: str | None,
    refute_regressions: bool,
    **facts: Any,
) -> GateResult:
    """The verdict on `results`: against the baseline, then (while nothing refutes) with the base's tests
    on this code, then with the task's tests run alone and in reverse order; each run's results kept under
    the claim's evidence `key` (None: nothing kept). One run after the other: code the agent wrote never
    runs while a run at the base does (it could reach into the base's worktree). `facts`: the result's
    fingerprint and whether it is reused or the workspace changed."""
    entries = run.baseline_for(results)
    results = runnerpatched.named(results, entries)
    found: dict[str, Any] = {}
    result = judge(results, entries, strict=run.strict, **facts)
    # Each run more is asked only while the verdict so far refutes nothing, and judged with all before it.
    runs_more: tuple[tuple[str, Callable[[Sequence[CheckResult], GateResult, str | None], Any]], ...] = (
        ("with_base", run.with_base_tests),
        ("out_of_order", run.out_of_order),
    )
    for name, more in runs_more:
        shown = more(results, result, key)
        if shown:
            found[name] = shown
            result = judge(
                results, entries, strict=run.strict, refute_regressions=refute_regressions, **found, **facts
            )
    return result


@contextlib.contextmanager
def _copy(
    project: Project, commit: str | None, exclusions: Exclusions, seed: Seed | None, own_network: bool
) -> Iterator[cleancopy.Copy | None]:
    """The claim's copy to run the checks in (`tiergate.gate.cleancopy`); None outside git or without a
    base commit, where the checks run in the workspace itself."""
    if commit is None:
        yield None
        return
    with cleancopy.claim_copy(project.root, commit, exclusions, seed=seed, own_network=own_network) as copy:
        yield copy


def run_requested(project: Project, request: GateRequest, **options: Any) -> GateResult:
    """`run_gate` of what `request` asks for (`tiergate.gate.request`); `options` are run_gate's others."""
    return run_gate(
        project,
        request.base,
        request.checks,
        timeout=request.timeout,
        limits=request.limits,
        strict=request.strict,
        exclusions=request.exclusions,
        refute_regressions=request.refute_regressions,
        seed=request.seed,
        own_network=request.own_network,
        mutants=request.mutants,
        **options,
    )


def requested_key(
    project: Project, request: GateRequest, change: ChangeMeasurement | None = None
) -> str | None:
    """`claim_key` of what `request` asks for."""
    return claim_key(
        project,
        request.base,
        request.checks,
        timeout=request.timeout,
        exclusions=request.exclusions,
        change=change,
    )


def _judge_kept(
    run: _Run,
    kept: tuple[tuple[CheckResult, ...], GateCoverage | None],
    before: str | None,
    key: str | None,
    refute_regressions: bool,
) -> GateResult:
    """The verdict on results kept for this workspace, with the runs kept beside them."""
    results, coverage = kept
    judged = _verdict(run, results, key, refute_regressions, fingerprint=before, reused=True)
    return replace(judged, coverage=coverage)


def claim_key(
    project: Project,
    base: str | None,
    checks: Sequence[Check],
    *,
    timeout: float,
    exclusions: Exclusions = foreign.DEFAULT,
    change: ChangeMeasurement | None = None,
) -> str | None:
    """The evidence key a claim's run of `checks` keeps its results under for the workspace as it is now
    (None: outside git, or no fingerprint): what a background gate is bound to."""
    if not checks or git_top_level(str(project.root)) is None:
        return None
    measured = change if _measured_for(change, base, exclusions) else None
    commit, before = _located(project, base, exclusions, measured, in_git=True)
    return _keys(before, commit, tuple(checks), timeout, for_task=False)[0]


def _located(
    project: Project,
    base: str | None,
    exclusions: Exclusions,
    measured: ChangeMeasurement | None,
    *,
    in_git: bool,
) -> tuple[str | None, str | None]:
    """The base commit and the workspace's fingerprint: from `measured` (a change just measured from
    `base` with `exclusions`), else asked of git (no commit outside git)."""
    if measured is not None:
        return measured.base_commit, of_change(measured, just_measured=True)
    commit = baseline.base_commit(project.root, base) if in_git else None
    return commit, fingerprint(project.root, base, exclusions)


def _measured_for(change: ChangeMeasurement | None, base: str | None, exclusions: Exclusions) -> bool:
    """Whether `change` was measured from `base` (HEAD when None) with `exclusions`."""
    return change is not None and change.base_label == (base or "HEAD") and change.exclusions == exclusions


def _at_base(change: ChangeMeasurement) -> bool | None:
    """Whether the workspace is exactly the base commit, as a change just measured from it tells: not
    when it counts a file (git diffs it, or it is untracked work: a loop's exclusions only add to the
    built-in rules); yes when nothing differs at all and the base is HEAD; else None (git is asked,
    `baseline.workspace_at`)."""
    if change.files:
        return False
    if change.base_label == "HEAD" and not change.foreign_paths:
        return True
    return None


def kept_coverage(
    project: Project,
    base: str | None,
    checks: Sequence[Check],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    exclusions: Exclusions = foreign.DEFAULT,
) -> GateCoverage | None:
    """The coverage a gate run of `checks` measured on this very workspace state, when its results
    are kept (`tiergate tier` then judges as the claim did); None otherwise."""
    if git_top_level(str(project.root)) is None:
        return None
    before = fingerprint(project.root, base, exclusions)
    if not before:
        return None
    key = evidencecache.evidence_key(before, baseline.base_commit(project.root, base) or "", checks, timeout)
    kept = evidencecache.load_evidence_and_coverage(project, key)
    return None if kept is None else kept[1]


def _reused(
    project: Project, keys: tuple[str | None, ...], measurement: Measurement | None
) -> tuple[tuple[CheckResult, ...], GateCoverage | None] | None:
    """The first results kept under one of `keys` (a claim's, then this run's own)."""
    for key in dict.fromkeys(k for k in keys if k):
        kept = _kept(project, key, measurement)
        if kept is not None:
            return kept
    return None


def _keys(
    before: str | None, commit: str | None, checks: Sequence[Check], timeout: float, *, for_task: bool
) -> tuple[str | None, str | None]:
    """The evidence key a claim's run keeps its results under, and this run's own: a completed task's
    keeps them apart (None, None: no fingerprint, nothing is kept)."""
    if not before:
        return None, None
    claim_key = evidencecache.evidence_key(before, commit or "", checks, timeout)
    task_key = hashlib.sha256(f"task\0{claim_key}".encode()).hexdigest()
    return claim_key, task_key if for_task else claim_key


def _kept(
    project: Project, key: str, measurement: Measurement | None
) -> tuple[tuple[CheckResult, ...], GateCoverage | None] | None:
    """The results kept for `key`, with their coverage; a miss when this run would measure coverage
    the kept run did not (kept by a run that measured nothing, or other files)."""
    kept = evidencecache.load_evidence_and_coverage(project, key)
    if kept is None or measurement is None:
        return kept
    results, coverage = kept
    if measurement.mutants is not None and coverage is not None and coverage.mutation is None:
        return None  # kept by a run that made no mutants, which this one would
    if coverage is None or coverage.files != measurement.files:
        return None if measurement.taking else (results, measurement.nothing_taken())
    return kept


@dataclass
class _Run:
    project: Project
    commit: str | None
    checks: tuple[Check, ...]
    timeout: float
    deadline: float | None  # time.monotonic() by which the gate must be done
    progress: Progress | None
    strict: frozenset[str]
    env: dict[str, dict[str, str]] = field(default_factory=dict)  # added to some checks', by key
    mutants_time: dict[str, float] = field(default_factory=dict)  # a check's mutants' time, by key
    changed: Sequence[str] | None = None  # the change's paths; None: asked of git when needed
    at_base: bool | None = None  # whether the workspace is the base commit; None: asked of git
    # A completed task's run: a check that ran past its own timeout wants its baseline too, to tell a hang
    # the change brought from one the loop began with (`tiergate.gate.regressions`).
    for_task: bool = False
    limits: TimeLimits | None = None  # each check's limit follows its time at the base; None: `timeout`
    whole_base: bool = False  # every check runs at the base first (`run_gate`)
    seed: Seed | None = None  # the bytecode the runs start with (`tiergate.gate.bytecode`)
    own_network: bool = False  # the checks get a network of their own (`tiergate.gate.sandbox`)
    cut_short: bool = field(default=False, init=False)  # some check got less than the full timeout
    # Where the checks run: the claim's copy (`tiergate.gate.cleancopy`), else the workspace itself.
    cwd: Path = field(default=Path(), init=False)
    copy: cleancopy.Copy | None = field(default=None, init=False)  # the claim's copy, while it runs
    rust_tests: bool | None = field(default=None, init=False)  # the change edits a Rust file's tests
    # A first pass's key -> its whole check's (whose time at the base is its limit's measure).
    _whole: dict[str, str] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self.cwd = self.project.root
        if self.commit is None:
            self.at_base = False
        elif self.at_base is None:
            self.at_base = baseline.workspace_at(self.project.root, self.commit)
        self.entries: dict[str, BaselineEntry] = (
            evidencecache.load_baseline(self.project, self.commit) if self.commit else {}
        )

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
        if self.whole_base and missing and self.commit is not None:
            self.entries = baseline.ensure_baseline(
                self.project,
                self.commit,
                missing,
                timeout=self.timeout,
                progress=self.progress,
                seed=self.seed,
                own_network=self.own_network,
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
        refuting = firstrun.refuting(
            self.project,
            self.commit,
            passes,
            self.entries,
            self._time_left(),
            self._limit,
            self.progress,
            where=(self.cwd, self.env),
            seed=self.seed,
            own_network=self.own_network,
        )
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
        results = run_reported(
            chosen, self.cwd, timeout=allowed, progress=self.progress, env=self.env, limits=self._limit
        )
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
            self.entries = baseline.ensure_baseline(
                self.project,
                self.commit,
                checks,
                timeout=self._time_left(),
                progress=self.progress,
                budgeted=self._time_left() < self.timeout,
                seed=self.seed,
                own_network=self.own_network,
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
        kept_key = None if key is None else _base_tests_key(key)
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
        ran = scratch.run_base_tests(
            self.project.root,
            self.commit,
            checks,
            timeout=self._time_left(),
            progress=self.progress,
            select={k: v for k, v in select.items() if v is not None},
            pycache=None if self.copy is None else self.copy.env["PYTHONPYCACHEPREFIX"],
            seed=self.seed,
            own_network=self.own_network,
        )
        if kept_key and not any(r.status == "timed_out" or r.could_not_run for r in ran):
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
        kept_key = None if key is None else _order_key(key)
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
        if kept_key and not any(r.status == "timed_out" or r.could_not_run for r in ran):
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


def _order_key(key: str) -> str:
    """Where the runs of the task's tests alone and in reverse order are kept, beside the claim's."""
    return hashlib.sha256(f"out of order\0{key}".encode()).hexdigest()


def _base_tests_key(key: str) -> str:
    """Where the runs with the base's tests are kept, beside the claim's results under `key`."""
    return hashlib.sha256(f"base tests\0{key}".encode()).hexdigest()


def _out_of_time(result: CheckResult) -> CheckResult:
    """A result cut short by the gate's budget (or never started for lack of it): a timeout."""
    reason = (
        f"timed out after {result.duration:.0f} s: {OUT_OF_TIME}"
        if result.status == "timed_out"
        else f"not run: {OUT_OF_TIME}"
    )
    return replace(result, status="timed_out", reason=reason)
