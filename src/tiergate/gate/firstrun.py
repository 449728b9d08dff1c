"""The first pass as a claim's gate run runs it (`tiergate.gate.firstpass` says what it is and when it
refutes): the tests the change affects, chosen by the base's import graph, run on the claimed workspace
after, where the base's record does not hold them yet, the same tests at the base in a worktree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from tiergate.gate import baseline, firstpass
from tiergate.gate.checks import Check, CheckResult
from tiergate.gate.pertest import importmap
from tiergate.gate.pertest.record import TestRun
from tiergate.gate.processes import Running
from tiergate.gate.request import RunStart
from tiergate.gate.standing import BaselineEntry
from tiergate.gate.testreports import run_reported
from tiergate.git import repository
from tiergate.project import Project


def planned(
    project: Project,
    commit: str,
    checks: Sequence[Check],
    changed: Sequence[str],
    entries: Mapping[str, BaselineEntry],
) -> tuple[firstpass.FirstPass, ...]:
    """The first passes of `checks` for the `changed` paths, by `commit`'s import graph (none when the
    graph cannot be had: a map not had is only a first pass not run)."""
    top = repository.repo_root(project.root)
    inside = project.root.resolve().relative_to(top.resolve()).as_posix()
    inside = "" if inside == "." else inside
    try:
        graph = importmap.at_commit(top, commit, project.state_dir / importmap.CACHE_DIR, inside=inside)
    except Exception:
        return ()
    return firstpass.plan(checks, graph.affected(changed), inside, entries)


def refuting(
    passes: Sequence[firstpass.FirstPass],
    then: Mapping[str, TestRun],
    running: Running,
    where: tuple[Path, Mapping[str, Mapping[str, str]]],
) -> dict[str, CheckResult]:
    """The first passes that refute the claim, by their whole check's key (empty: none does), run as
    `running` says and judged against `then` (`at_base`). `where`: the folder the claim's checks run in
    and what each adds to its environment, by the whole check's key."""
    if not passes:
        return {}
    cwd, env = where
    ran = run_reported(
        [p.first for p in passes],
        cwd,
        running,
        select={p.first.key: p.selection for p in passes},
        env={p.first.key: dict(env.get(p.check.key, {})) for p in passes},
    )
    records = {p.first.key: then.get(p.check.key) for p in passes}
    found = {r.key: f for r in ran if (f := firstpass.refuting(r, records.get(r.key))) is not None}
    return {p.check.key: found[p.first.key] for p in passes if p.first.key in found}


def at_base(
    project: Project,
    commit: str,
    passes: Sequence[firstpass.FirstPass],
    entries: Mapping[str, BaselineEntry],
    timeout: float,
    start: RunStart,
) -> dict[str, TestRun]:
    """Each first pass's tests at the base, by the whole check's key: the base's record of them, else
    a run of the same selection at the base, in a worktree."""
    found = {p.check.key: r for p in passes if (r := firstpass.base_record(entries.get(p.check.key)))}
    wanted = [p for p in passes if p.check.key not in found]
    if wanted:
        select = {p.first.key: p.selection for p in wanted}
        try:
            firsts = [p.first for p in wanted]
            ran = baseline.run_selected(project, commit, firsts, select, Running(timeout=timeout), start)
        except baseline.BaseTamperedError:
            return found  # nothing to compare those with: no first pass refutes for them
        for p, result in zip(wanted, ran, strict=True):
            if result.tests is not None and result.tests.finished:
                found[p.check.key] = result.tests
    return found
