"""The checks' state when the loop began: each check's result at the loop's base commit.

Run in a temporary worktree of the base commit, never in the workspace (even one that reads as the base:
what git ignores can change what runs there), and kept by base commit (`tiergate.gate.cache`), so each
check runs at the base at most once. See docs/judging.md, "The baseline".
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from tiergate import foreign
from tiergate.errors import UserError
from tiergate.gate import bytecode, editables, sandbox, untouched
from tiergate.gate import cache as evidencecache
from tiergate.gate.checks import Check, CheckResult
from tiergate.gate.environment.places import is_environment
from tiergate.gate.pertest.selection import TestSelection
from tiergate.gate.processes import Running
from tiergate.gate.request import RunStart
from tiergate.gate.runnerbounds import pytest_bounds
from tiergate.gate.standing import BaselineEntry, Where
from tiergate.gate.testreports import run_reported
from tiergate.git import changes, objects, rawtree, repository, runner, untracked
from tiergate.project import Project
from tiergate.text import listed
from tiergate.tier.change import work_paths

LABEL = "baseline"


def base_commit(root: Path, base: str | None) -> str | None:
    """The commit `base` names (HEAD when None); None when it names no commit (the empty tree, or a
    repository without commits)."""
    top = repository.repo_root(root)
    rev = base or repository.head_sha(top)
    if rev is None:
        return None
    resolved = objects.resolve_rev(top, rev)
    return None if objects.is_empty_tree(resolved) else resolved


def workspace_at(root: Path, commit: str) -> bool:
    """Whether the work tree holding `root` is exactly `commit`: HEAD is it, and nothing differs."""
    top, head = repository.top_and_head(root)
    if head != commit or changes.changed_paths(top, commit):
        return False
    return not work_paths(top, untracked.untracked_files(top, commit), foreign.DEFAULT)


def changed_paths(root: Path, commit: str) -> list[str]:
    """The repository-relative paths that differ from `commit` in the work tree holding `root`, untracked
    ones included."""
    top = repository.repo_root(root)
    return [*changes.changed_paths(top, commit), *untracked.untracked_files(top, commit)]


def ensure_baseline(
    project: Project,
    commit: str,
    checks: Sequence[Check],
    running: Running | None = None,
    *,
    budgeted: bool = False,
    start: RunStart | None = None,
) -> dict[str, BaselineEntry]:
    """The baseline of `commit`, having run at the base those of `checks` it does not hold yet, as
    `running` says and started as `start` says (None: their defaults). `budgeted`: the timeout is what the
    caller's time budget leaves, not the checks' own limit."""
    known = evidencecache.load_baseline(project, commit)
    missing = [check for check in checks if check.key not in known]
    if not missing:
        return known
    try:
        results = _run_in_worktree(project, commit, missing, running or Running(), None, start or RunStart())
        entries = entries_from(results, "worktree")
    except BaseTamperedError as exc:
        # Nothing of that run is kept nor used: the checks it ran have no baseline (every failure new).
        from tiergate.log import record_error

        record_error(project, "baseline_tampered", "", exc)
        return known
    # A check ended at `timeout` says only that it took longer: a limit the caller's budget set is not a
    # fact of the base to keep for every later loop on this commit.
    kept = {k: e for k, e in entries.items() if not (budgeted and e.result.status == "timed_out")}
    stored = evidencecache.store_baseline(project, commit, kept) if kept else known
    return {**stored, **entries}


def run_selected(
    project: Project,
    commit: str,
    checks: Sequence[Check],
    select: Mapping[str, TestSelection],
    running: Running,
    start: RunStart,
) -> tuple[CheckResult, ...]:
    """`checks` run at `commit`, in a worktree, each with its selection of tests by key: a first pass's
    tests at the base (`tiergate.gate.firstpass`), never kept as the baseline."""
    return _run_in_worktree(project, commit, checks, running, select, start)


def entries_from(results: Sequence[CheckResult], where: Where) -> dict[str, BaselineEntry]:
    return {r.key: BaselineEntry(r, where) for r in results if r.status != "skipped"}


def _run_in_worktree(
    project: Project,
    commit: str,
    checks: Sequence[Check],
    running: Running,
    select: Mapping[str, TestSelection] | None,
    start: RunStart,
) -> tuple[CheckResult, ...]:
    """The checks run in a worktree of `commit`, as `running` says, started as `start` says (its own
    bytecode folder, whatever `start.pycache`)."""
    seed = start.seed
    top = repository.repo_root(project.root)
    inside = project.root.resolve().relative_to(top.resolve())
    with worktree(top, commit) as tree:
        cwd = tree / inside
        cwd.mkdir(parents=True, exist_ok=True)  # the project folder may not exist yet at the base
        # The environment the claim's copy runs with (a virtualenv the check's command names): without it
        # the base could not run where the claim does, and its tests would have no outcome to compare.
        links = link_environments(((top, tree), (project.root, cwd)))
        before = untouched.take(tree)
        # Bytecode neither read from nor written into the worktree (`tiergate.gate.untouched`): what
        # Python caches goes to a folder beside it, so bytecode planted in the worktree is never run. It
        # starts with the environment's from before the loop began, as a claim's copy does: else each
        # run at the base compiles the standard library and the runner anew (0.5 s of a pytest's 0.7).
        cache = str(tree.parent / "pycache")
        bytecode.seeded(cache, seed)
        added = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": cache}
        # Isolated as the claim's copy is (`tiergate.gate.sandbox`): else a test that reaches what the
        # sandbox hides would pass at the base and fail on the claim, a test lost that no change lost.
        added |= sandbox.isolation(top, tree.parent, links, start).variable()
        # The worktree's folders stand in for the workspace's that an editable install names, as in the
        # claim's copy: the workspace is not there to read (nor should the base read it).
        found = editables.search_path(seed, os.path.realpath(top), os.path.realpath(tree))
        if found:
            added["PYTHONPATH"] = os.pathsep.join(found)
        quiet = {c.key: {**added, **pytest_bounds(cwd, tree, tree.parent)} for c in checks}
        results = run_reported(checks, cwd, replace(running, label=LABEL), select=select, env=quiet)
        moved = _touched(tree, commit, before)
        for link in links:
            link.unlink(missing_ok=True)
        if moved:
            raise BaseTamperedError(moved)
        return results


def _touched(tree: Path, commit: str, before: untouched.Snapshot) -> tuple[str, ...]:
    """What of the worktree `tree` of `commit` (a commit or a tree) could have shaped the checks run there
    since `before` (`tiergate.gate.untouched`): its files' content is asked of git, against its blobs."""
    after = untouched.take(tree)
    tracked = {}
    listing = runner.run(tree, "ls-tree", "-r", "-z", "--full-tree", commit).stdout
    for record in listing.split(b"\0"):
        meta, tab, raw = record.partition(b"\t")
        if tab and meta.split(b" ")[0] in (b"100644", b"100755"):
            tracked[os.fsdecode(raw)] = meta.split(b" ")[2].decode()
    # One path a line: a name with a newline in it (git allows one) is left to the stamps alone.
    present = [p for p in tracked if p in after.files and "\n" not in p]
    hashed: dict[str, str] = {}
    if present:
        stdin = "".join(f"{p}\n" for p in present).encode()
        # --no-filters: no driver a check may have configured meanwhile runs, and no attribute is read.
        listed = runner.run(tree, "hash-object", "--no-filters", "--stdin-paths", stdin=stdin).stdout
        blobs = listed.decode().split()
        hashed = dict(zip(present, blobs, strict=False))
    return untouched.touched(before, after, tracked, hashed)


class BaseTamperedError(Exception):
    """The base's worktree changed while the checks ran there: what they showed is not the base's."""

    def __init__(self, paths: Sequence[str]) -> None:
        shown = listed(paths, 5)
        super().__init__(f"the base's worktree was written while its checks ran ({shown}): not kept")
        self.paths = tuple(paths)


@contextlib.contextmanager
def worktree(top: Path, commit: str, *, checkout: bool = True, prefix: str = "baseline") -> Iterator[Path]:
    """A detached worktree of `commit` in a temporary folder named for `prefix`, removed (and
    unregistered) on exit; with `checkout` False its files are not written (the caller fills it)."""
    holder = Path(tempfile.mkdtemp(prefix=f"tiergate-{prefix}-"))
    tree = holder / "tree"
    try:
        # runner.run runs no hook (a post-checkout that installs things, say) and no filter; no checkout
        # either: one converts files by the attributes of `.git/info/attributes`, the agent's to write.
        runner.run(top, "worktree", "add", "--detach", "--quiet", "--no-checkout", str(tree), commit)
        if checkout:
            rawtree.write_tree(top, commit, tree)
            runner.run(tree, "read-tree", commit)
        yield tree
    finally:
        try:
            runner.run(top, "worktree", "remove", "--force", "--force", str(tree))
        except UserError:
            # A check that removed or broke its folder: the registration goes with a prune.
            shutil.rmtree(holder, ignore_errors=True)
            with contextlib.suppress(UserError):
                runner.run(top, "worktree", "prune")
        shutil.rmtree(holder, ignore_errors=True)


def link_environments(pairs: Sequence[tuple[Path, Path]]) -> list[Path]:
    """Links in each copy folder to the environment folders of its workspace folder; the links made."""
    links = []
    for folder, copy in pairs:
        for entry in _environments(folder):
            link = copy / entry.name
            if not link.exists() and not link.is_symlink():
                link.symlink_to(entry, target_is_directory=True)
                links.append(link)
    return links


def environments(folder: Path) -> list[Path]:
    """The environment folders in `folder` that a copy of it links in (`link_environments`)."""
    return _environments(folder)


def _environments(folder: Path) -> list[Path]:
    try:
        entries = list(folder.iterdir())
    except OSError:
        return []
    return [entry for entry in entries if entry.is_dir() and is_environment(entry.name, str(entry))]
