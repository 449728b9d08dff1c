"""The claimed workspace with the base's tests, in a scratch worktree: where the gate runs the test
checks against the claimed code with the tests as they were when the loop began
(`tiergate.gate.pertest.basetests` says what that run shows). Never in the workspace.
See docs/judging.md, "The base's tests on the claimed code".
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from tiergate.gate.baseline import worktree
from tiergate.gate.checks import Check, CheckResult
from tiergate.gate.pertest.selection import TestSelection
from tiergate.gate.pertest.testfiles import tests_among
from tiergate.gate.processes import Progress
from tiergate.gate.testreports import run_reported
from tiergate.git import changes, repository, runner, untracked

LABEL = "base tests"
# Folders that hold a project's environment rather than its code, linked into the scratch copy.
ENVIRONMENTS = frozenset({".venv", "venv", ".virtualenv", "env", "node_modules", ".tox", ".nox", "vendor"})


def run_base_tests(
    root: Path,
    commit: str,
    checks: Sequence[Check],
    *,
    timeout: float,
    progress: Progress | None = None,
    select: Mapping[str, TestSelection] | None = None,
) -> tuple[CheckResult, ...]:
    """`checks` run on the claimed workspace at `root` with its test paths as `commit` holds them; those
    in `select` (by check key) only on their selection (`tiergate.gate.pertest.basetests.
    base_tests_selection`: what differs from the claim's own run)."""
    with base_tests_copy(root, commit) as cwd:
        return run_reported(checks, cwd, timeout=timeout, progress=progress, label=LABEL, select=select)


@contextlib.contextmanager
def base_tests_copy(root: Path, commit: str) -> Iterator[Path]:
    """The project folder of a scratch worktree holding the workspace with its test paths as at
    `commit`; removed on exit. Every path that differs from `commit` is asked of git here (a rename's
    old path too, which a measured change names only as the new one)."""
    top = repository.repo_root(root)
    inside = root.resolve().relative_to(top.resolve())
    # Asked once, for the tests among them and for the workspace's tree.
    differing = (changes.changed_paths(top, commit), untracked.untracked_files(top, commit))
    tree = _scratch_tree(top, commit, tests_among([*differing[0], *differing[1]]), differing)
    with worktree(top, repository.head_sha(top) or commit, checkout=False) as scratch:
        runner.run(scratch, "read-tree", "--reset", "-u", tree)
        cwd = scratch / inside
        cwd.mkdir(parents=True, exist_ok=True)
        links = _link_environments(((top, scratch), (root, cwd)))
        try:
            yield cwd
        finally:
            # Unlinked first, so that removing the worktree can never reach into what they point at.
            for link in links:
                link.unlink(missing_ok=True)


def _scratch_tree(
    top: Path, commit: str, tests: Sequence[str], differing: tuple[list[str], list[str]]
) -> str:
    """The workspace's tree with `tests` as in `commit` (or without them where it has none); `differing`:
    the changed and the untracked paths (`changes.workspace_tree`)."""
    tree = changes.workspace_tree(top, commit, differing) or f"{commit}^{{tree}}"
    at_base = _entries(top, commit, set(tests))
    fd, name = tempfile.mkstemp(prefix="tiergate-index-")
    os.close(fd)
    index = Path(name)
    index.unlink()  # git reads a missing index file as an empty one
    try:
        runner.run(top, "read-tree", tree, index=index)
        if at_base:
            runner.run(
                top, "update-index", "-z", "--index-info", stdin=b"".join(at_base.values()), index=index
            )
        gone = b"".join(os.fsencode(p) + b"\0" for p in tests if p not in at_base)
        if gone:
            runner.run(top, "update-index", "-z", "--force-remove", "--stdin", stdin=gone, index=index)
        return runner.run(top, "write-tree", index=index).stdout.decode().strip()
    finally:
        index.unlink(missing_ok=True)


def _entries(top: Path, commit: str, paths: set[str]) -> dict[str, bytes]:
    """`update-index --index-info` lines for those of `paths` that `commit` holds, by path."""
    out = runner.run(top, "ls-tree", "-r", "-z", "--full-tree", commit).stdout
    entries = {}
    for record in out.split(b"\0"):
        meta, tab, raw = record.partition(b"\t")
        path = os.fsdecode(raw)
        if tab and path in paths:
            mode, _kind, blob = meta.split(b" ")
            entries[path] = mode + b" " + blob + b"\t" + raw + b"\0"
    return entries


def _link_environments(pairs: Sequence[tuple[Path, Path]]) -> list[Path]:
    """Links in each copy folder to the environment folders of its workspace folder; the links made."""
    links = []
    for folder, copy in pairs:
        for entry in _environments(folder):
            link = copy / entry.name
            if not link.exists() and not link.is_symlink():
                link.symlink_to(entry, target_is_directory=True)
                links.append(link)
    return links


def _environments(folder: Path) -> list[Path]:
    try:
        entries = list(folder.iterdir())
    except OSError:
        return []
    return [
        entry
        for entry in entries
        if entry.is_dir() and (entry.name in ENVIRONMENTS or (entry / "pyvenv.cfg").is_file())
    ]
