"""The gate as a claim runs it: reused evidence or a staged run of the checks, the baseline, the verdict.

Results are kept per workspace state, so a claim on an unchanged workspace runs nothing again; the
compile stage runs first, and a new failure there leaves the behaviour stage unrun; a time budget keeps
the whole run inside the Stop hook's limit. See docs/judging.md, "A claim's gate run".
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from tiergate.gate import baseline, cleancopy, reuse, runnerpatched, stagedrun
from tiergate.gate import cache as evidencecache
from tiergate.gate.checks import CheckResult
from tiergate.gate.coverage.measuring import Measurement
from tiergate.gate.mutation.step import Step
from tiergate.gate.request import GateRequest
from tiergate.gate.ruling import GateResult, judge
from tiergate.gate.runrequest import RunRequest
from tiergate.gate.stagedrun import StagedRun
from tiergate.project import Project
from tiergate.tier.change import ChangeMeasurement, measure_change
from tiergate.tier.coverage.lines import GateCoverage
from tiergate.workspace.fingerprint import fingerprint

CHANGED_WHILE_MEASURED = "the checks changed the workspace: what they measured is not evidence for it"


def run_gate(project: Project, request: RunRequest) -> GateResult:
    """Run (or reuse) the checks `request` asks for on the workspace at `project.root`, judged against
    the baseline at its base (`RunRequest` says what each option does). Outside git there is no
    fingerprint and no base: the checks just run, every failure is new."""
    if not request.checks:
        return judge((), {})
    where = reuse.located(project, request)
    keys = reuse.keys(where, request.checks, request.check_timeout, for_task=request.for_task)
    measurement = _measurement(project, request, where)
    kept = request.kept
    if kept is None and keys.own and request.reuse:
        kept = reuse.reused(project, keys, measurement)
    run = _started(project, request, where)
    if kept is not None:
        results, coverage = kept
        return _judged(run, results, keys.own, fingerprint=where.before, reused=True, coverage=coverage)
    with _copy(project, where.commit, request.gate) as copy:
        results, coverage = _ran(run, copy, measurement)
        changed = fingerprint(project.root, request.base, request.exclusions) != where.before
        if coverage is not None and changed:
            coverage = replace(coverage, measured=(), off=(*coverage.off, CHANGED_WHILE_MEASURED))
        kept_key = keys.own if not changed and not run.cut_short and reuse.keepable(results) else None
        if kept_key:
            evidencecache.store_evidence(project, kept_key, results, coverage=coverage)
        facts = {"fingerprint": where.before, "workspace_changed": changed, "coverage": coverage}
        return _judged(run, results, kept_key, **facts)


def _measurement(project: Project, request: RunRequest, where: reuse.Located) -> Measurement | None:
    """The coverage of the change's files `request.measure` names, measured as the checks run (None:
    none); with the change's mutants (`tiergate.gate.mutation`) when it asks for them, in git."""
    if request.measure is None:
        return None
    step = None
    mutants, change, base = request.gate.mutants, request.change, request.base or "HEAD"
    if mutants is not None and where.in_git:
        # The job measures the change anew only if the mutants are made (no kept run).
        step = Step(mutants, lambda: change or measure_change(project.root, base, request.exclusions))
    return Measurement(project, request.checks, request.measure, step)


def _started(project: Project, request: RunRequest, where: reuse.Located) -> StagedRun:
    """The staged run, its budget begun now, with what it starts from: whether the workspace is the base
    (asked of git when its change does not tell) and the baseline kept for the base commit."""
    deadline = stagedrun.deadline(request.budget)
    commit, at_base = where.commit, False
    if commit is not None:
        told = None if where.measured is None else _at_base(where.measured)
        at_base = baseline.workspace_at(project.root, commit) if told is None else told
    entries = evidencecache.load_baseline(project, commit) if commit else {}
    changed = None if request.change is None else request.change.paths
    return StagedRun(project, request, commit, at_base, entries, changed, deadline)


def _ran(
    run: StagedRun, copy: cleancopy.Copy | None, measurement: Measurement | None
) -> tuple[tuple[CheckResult, ...], GateCoverage | None]:
    """The checks' results, run in stages in `copy` (None: in the workspace itself), and the coverage
    `measurement` took of them."""
    if copy is not None:
        run.cwd, run.copy = copy.cwd, copy
    try:
        if measurement is not None:
            measurement.where = run.cwd
            measurement.write = None if copy is None else functools.partial(cleancopy.rewrite, copy)
        added = measurement.env() if measurement else {}
        run.mutants_time = measurement.mutants_time() if measurement else {}
        run.env = {c.key: _joined(_copy_env(copy, c.key), added.get(c.key, {})) for c in run.checks}
        results = run.staged()
        run.untouched()
        if copy is not None and copy.watch is not None:
            results = copy.watch.told(results)
        # A run cut short has no time for mutants of its JavaScript, run after its checks.
        coverage = measurement.collect(results, run.env, node=not run.cut_short) if measurement else None
    finally:
        if measurement:
            measurement.close()
    return results, coverage


def _judged(run: StagedRun, results: Sequence[CheckResult], key: str | None, **facts: Any) -> GateResult:
    """The verdict on `results`: against the baseline, then (while nothing refutes) with the base's tests
    on this code, then with the task's tests alone and in reverse order; each run more kept under `key`
    (None: nothing kept). `facts`: the result's fingerprint, coverage, and whether it is reused or the
    workspace changed."""
    entries = run.baseline_for(results)
    results = runnerpatched.named(results, entries)
    found: dict[str, Any] = {}
    refute = run.request.gate.refute_regressions
    result = judge(results, entries, strict=run.strict, refute_regressions=refute)
    # One run after the other: code the agent wrote never runs while a run at the base does (it could
    # reach into the base's worktree); each asked only while the verdict so far refutes nothing.
    for name, more in (("with_base", run.with_base_tests), ("out_of_order", run.out_of_order)):
        shown = more(results, result, key)
        if shown:
            found[name] = shown
            result = judge(results, entries, strict=run.strict, refute_regressions=refute, **found)
    return replace(result, **facts)


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


@contextlib.contextmanager
def _copy(project: Project, commit: str | None, gate: GateRequest) -> Iterator[cleancopy.Copy | None]:
    """The claim's copy to run the checks in (`tiergate.gate.cleancopy`); None outside git or without a
    base commit, where the checks run in the workspace itself."""
    if commit is None:
        yield None
        return
    with cleancopy.claim_copy(
        project.root, commit, gate.exclusions, seed=gate.seed, own_network=gate.own_network
    ) as copy:
        yield copy


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
