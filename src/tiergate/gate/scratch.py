"""The claimed workspace with the base's tests, in a scratch worktree: where the gate runs the test
checks against the claimed code with the tests as they were when the loop began
(`tiergate.gate.pertest.basetests` says what that run shows). Never in the workspace.
See docs/judging.md, "The base's tests on the claimed code".
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from tiergate.gate import cleancopy, rusttests
from tiergate.gate.changedtests import changed_tests
from tiergate.gate.checks import Check, CheckResult
from tiergate.gate.pertest.selection import TestSelection
from tiergate.gate.processes import Running
from tiergate.gate.request import RunStart, Seed
from tiergate.gate.testreports import run_reported
from tiergate.git import changes, indexcopy, rawtree, repository, runner, untracked

LABEL = "base tests"


def run_base_tests(
    root: Path,
    commit: str,
    checks: Sequence[Check],
    running: Running,
    start: RunStart,
    *,
    select: Mapping[str, TestSelection] | None = None,
) -> tuple[CheckResult, ...]:
    """`checks` run on the claimed workspace at `root` with its test paths as `commit` holds them, as
    `running` says and started as `start` says (its `pycache`: the claim's bytecode folder; None: one of
    its own); those in `select` (by check key) only on their selection (`tiergate.gate.pertest.basetests.
    base_tests_selection`: what differs from the claim's own run)."""
    with base_tests_copy(
        root, commit, pycache=start.pycache, seed=start.seed, own_network=start.own_network
    ) as copy:
        env = {c.key: copy.env for c in checks}
        ran = run_reported(checks, copy.cwd, replace(running, label=LABEL), select=select, env=env)
        cleancopy.check_untouched(copy)
        return ran


@contextlib.contextmanager
def base_tests_copy(
    root: Path,
    commit: str,
    *,
    pycache: str | None = None,
    seed: Seed | None = None,
    own_network: bool = False,
) -> Iterator[cleancopy.Copy]:
    """A scratch worktree holding the claim's copy (`tiergate.gate.cleancopy`) with
    its test paths as at `commit`; removed on exit. Every path that differs from `commit` is asked of git
    here (a rename's old path too, which a measured change names only as the new one)."""
    top = repository.repo_root(root)
    # Asked once, for the tests among them and for the workspace's tree.
    differing = (changes.changed_paths(top, commit), untracked.untracked_files(top, commit))
    tests = changed_tests(root, commit, [*differing[0], *differing[1]])  # the base's test helpers too
    tree = _scratch_tree(top, commit, tests, differing)
    with cleancopy.written(root, tree, pycache=pycache, seed=seed, own_network=own_network) as copy:
        yield copy


def _scratch_tree(
    top: Path, commit: str, tests: Sequence[str], differing: tuple[list[str], list[str]]
) -> str:
    """The workspace's tree with `tests` as in `commit` (or without them where it has none); `differing`:
    the changed and the untracked paths, put in as the bytes on disk (`tiergate.git.rawtree`)."""
    tree = rawtree.workspace_tree(top, commit, [*differing[0], *differing[1]]).tree
    at_base = _entries(top, commit, set(tests))
    # Rust's tests stand in its code files: those the change touched get their tests as at the base.
    at_base.update(rusttests.base_test_entries(top, commit, tree, [*differing[0], *differing[1]]))
    with indexcopy.scratch_index() as index:
        runner.run(top, "read-tree", tree, index=index)
        if at_base:
            runner.run(
                top, "update-index", "-z", "--index-info", stdin=b"".join(at_base.values()), index=index
            )
        gone = b"".join(os.fsencode(p) + b"\0" for p in tests if p not in at_base)
        if gone:
            runner.run(top, "update-index", "-z", "--force-remove", "--stdin", stdin=gone, index=index)
        return runner.run(top, "write-tree", index=index).stdout.decode().strip()


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
