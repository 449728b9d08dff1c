"""Reuse of kept evidence: where the workspace stands (its fingerprint, the base commit), the keys a
gate run's results are kept under for it, and the results kept under them (`tiergate.gate.cache`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tiergate import foreign
from tiergate.frozen import frozen
from tiergate.gate import baseline
from tiergate.gate import cache as evidencecache
from tiergate.gate.checks import Check, CheckResult
from tiergate.gate.environment import walk
from tiergate.gate.processes import DEFAULT_TIMEOUT
from tiergate.project import Project, git_top_level
from tiergate.tier.coverage.lines import GateCoverage
from tiergate.workspace.fingerprint import fingerprint, of_change

if TYPE_CHECKING:
    from tiergate.foreign import Exclusions
    from tiergate.gate.coverage.measuring import Measurement
    from tiergate.gate.request import GateRequest
    from tiergate.gate.runrequest import Kept, RunRequest
    from tiergate.tier.change import ChangeMeasurement


@frozen
class Located:
    """Where the workspace stands for a run: outside git (no commit, no fingerprint), or its base commit
    and fingerprint; `measured`: the run's change, when measured from its base with its exclusions."""

    in_git: bool
    commit: str | None
    before: str | None  # the workspace's fingerprint before the checks
    measured: ChangeMeasurement | None = None
    environment: str = ""  # the environment linked into the claim's copy (`environment`)


@frozen
class Keys:
    """The evidence key a claim's run keeps its results under, and this run's own (a task's apart)."""

    claim: str | None
    own: str | None


def located(project: Project, request: RunRequest) -> Located:
    """Where the workspace stands: from the run's change when measured for it, else asked of git."""
    in_git = git_top_level(str(project.root)) is not None
    change = request.change
    measured = change if in_git and _measured_for(change, request.base, request.exclusions) else None
    commit, before = _located(project, request.base, request.exclusions, measured, in_git=in_git)
    return Located(in_git, commit, before, measured, environment(project.root) if before else "")


def keys(where: Located, checks: Sequence[Check], timeout: float, *, for_task: bool) -> Keys:
    """The keys a run keeps its results under: a completed task's keeps them apart (None: no fingerprint,
    nothing is kept)."""
    if not where.before:
        return Keys(None, None)
    state = f"{where.before}\0{where.environment}"
    claim_key = evidencecache.evidence_key(state, where.commit or "", checks, timeout)
    task_key = hashlib.sha256(f"task\0{claim_key}".encode()).hexdigest()
    return Keys(claim_key, task_key if for_task else claim_key)


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
    where = Located(True, commit, before, environment=environment(project.root) if before else "")
    return keys(where, tuple(checks), timeout, for_task=False).claim


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
    where = Located(
        True, baseline.base_commit(project.root, base), before, environment=environment(project.root)
    )
    key = keys(where, tuple(checks), timeout, for_task=False).claim
    kept = evidencecache.load_evidence_and_coverage(project, key) if key else None
    return None if kept is None else kept[1]


def reused(project: Project, found: Keys, measurement: Measurement | None) -> Kept | None:
    """The first results kept under one of `found`'s keys (a claim's, then this run's own)."""
    for key in dict.fromkeys(k for k in (found.claim, found.own) if k):
        kept = _kept(project, key, measurement)
        if kept is not None:
            return kept
    return None


def environment(root: Path) -> str:
    """A digest of the environment folders linked into the claim's copy (`baseline.link_environments`: the
    project's and its work tree top's `.venv`, `node_modules`, ...), every file's stamp (size, times,
    inode): git ignores them, so the workspace's fingerprint does not hold them, and the checks ran with
    them. Results kept with one environment are not reused with another, even one put back as it was (its
    change times moved): a dependency quietened for one claim and put back would have the next reuse the
    pass it gave (red team 36, `tests/scenarios/mutants_redteam36_test.py`)."""
    digest = hashlib.sha256()
    top = git_top_level(str(root))
    for folder in dict.fromkeys((Path(top) if top else root, root)):
        for entry in sorted(baseline.environments(folder)):
            digest.update(f"{entry}\0".encode())
            files = walk.files_under(str(entry)) or {}
            for name in sorted(files):
                digest.update(f"{name}\0{files[name]!r}\0".encode())
    return digest.hexdigest()


def keepable(results: Sequence[CheckResult]) -> bool:
    """Whether `results` may be kept: a check that did not finish, or could not run, says nothing of this
    workspace (its program may be installed next, the machine may be less loaded): the next claim runs it."""
    return not any(r.status == "timed_out" or r.could_not_run for r in results)


def order_key(key: str) -> str:
    """Where the runs of the task's tests alone and in reverse order are kept, beside the claim's."""
    return hashlib.sha256(f"out of order\0{key}".encode()).hexdigest()


def base_tests_key(key: str) -> str:
    """Where the runs with the base's tests are kept, beside the claim's results under `key`."""
    return hashlib.sha256(f"base tests\0{key}".encode()).hexdigest()


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


def _kept(project: Project, key: str, measurement: Measurement | None) -> Kept | None:
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
