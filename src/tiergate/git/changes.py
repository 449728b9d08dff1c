"""The change between a base and the working tree: the paths, their line counts, the patch, as a tree.

Measured as it is on disk, on `indexcopy`'s copy of the index, each file read as its bytes with
tiergate's own attributes (`attributes.own`: no `.gitattributes` makes a file binary, re-encodes it or
rewrites its line ends), with git's own diff format whatever the user configured (no external diff, no
text conversion, no colour).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from tiergate.git import attributes, indexcopy, objects, runner, untracked
from tiergate.git.formats import DiffEntry, parse_raw_numstat, with_patch_counts

# Options that keep a diff in git's own plain format whatever the user configured (external diff tools,
# text conversion filters, colours, custom prefixes).
_PLAIN_DIFF = ("--no-ext-diff", "--no-textconv", "--no-color")


class ChangeDiff:
    """Every tracked path that differs between `base` and the working tree, renames detected, and with
    `with_patch` the `-U0` patch of the same paths: one git run in the background (`start`), on
    `indexcopy.measuring_index`, kept until `result` reads its answer or `cancel` drops it."""

    # Without `--numstat` beside `-p`, which would make git diff every file a second time: the hunks'
    # counts are the same numbers (`formats.with_patch_counts`). When the patch does not line up with
    # the records (an unmerged path, a type change), one run with `--numstat` gives both.

    def __init__(self, root: Path, base: str, with_patch: bool) -> None:
        self.root, self.base, self.with_patch = root, base, with_patch
        resources = contextlib.ExitStack()
        try:
            oid, index, env = resources.enter_context(measuring(root, base))
            self._run = runner.start(
                root,
                "diff",
                *_PLAIN_DIFF,
                *_diff_options(with_patch, False),
                oid,
                "--",
                index=index,
                env=env,
                resources=resources,
            )
        except BaseException:
            resources.close()
            raise

    def result(self) -> tuple[list[DiffEntry], bytes | None]:
        out = self._run.result()
        if not self.with_patch:
            return parse_raw_numstat(out), None
        entries, patch = _entries_and_patch(out)
        counted = with_patch_counts(entries, patch)
        if counted is not None:
            return counted, patch
        return _entries_and_patch(_disk_diff(self.root, *_diff_options(True, True), base=self.base))

    def cancel(self) -> None:
        self._run.cancel()


def _diff_options(with_patch: bool, numstat: bool) -> tuple[str, ...]:
    counts = ("--numstat",) if numstat or not with_patch else ()
    patch = ("-p", "-U0", "--src-prefix=a/", "--dst-prefix=b/") if with_patch else ()
    return ("--raw", *counts, "-z", "-M", "--no-abbrev", *patch)


def _entries_and_patch(out: bytes) -> tuple[list[DiffEntry], bytes]:
    # The NUL-separated records end with an empty field; the patch follows. Records hold no empty
    # field before that (a path is never empty), so the first two NULs in a row are the boundary.
    end = out.find(b"\0\0")
    if end == -1:
        return parse_raw_numstat(out), b""
    return parse_raw_numstat(out[: end + 1]), out[end + 2 :]


def changed_paths(root: Path, base: str) -> list[str]:
    """Every tracked path that differs between `base` and the working tree of `root` (its top): a
    rename is its old and its new path. Cheaper than `ChangeDiff` (no line counts, no rename
    detection) for callers that only need the names."""
    out = _disk_diff(root, "--name-only", "-z", "--no-renames", base=base)
    return [os.fsdecode(p) for p in out.split(b"\0") if p]


def changed_statuses(root: Path, base: str) -> list[tuple[str, str]]:
    """`changed_paths` with git's status letter of each (A: not in `base`; D, M, T, U: in it)."""
    out = _disk_diff(root, "--name-status", "-z", "--no-renames", base=base)
    fields = out.split(b"\0")
    return [(fields[i].decode()[:1], os.fsdecode(fields[i + 1])) for i in range(0, len(fields) - 1, 2)]


def diff_patch(root: Path, base: str, paths: Iterable[str] = (), context: int = 0) -> bytes:
    """The unified diff between `base` and the working tree, limited to `paths` (taken literally) if any."""
    options = ("--src-prefix=a/", "--dst-prefix=b/")
    return _disk_diff(root, f"-U{context}", "-M", *options, base=base, paths=paths, literal=True)


def _disk_diff(root: Path, *args: str, base: str, paths: Iterable[str] = (), literal: bool = False) -> bytes:
    """`git diff ARGS BASE -- PATHS` against the working tree as it is on disk (`measuring`)."""
    command = ("--literal-pathspecs",) if literal else ()
    with measuring(root, base) as (oid, index, env):
        diff = ("diff", *_PLAIN_DIFF, *args, oid, "--", *paths)
        return runner.run(root, *command, *diff, index=index, env=env).stdout


@contextlib.contextmanager
def measuring(root: Path, base: str) -> Iterator[tuple[str, Path | None, dict[str, str]]]:
    """What a git call that measures the working tree of `root` (its top) from `base` runs with: `base`
    as an id, a private `indexcopy.measuring_index`, and the environment that has git read each file
    as its bytes, with tiergate's attributes (`attributes.own`), never the repository's."""
    oid = base if objects.is_object_id(base) else objects.resolve_rev(root, base)
    with attributes.own(root, oid) as env, indexcopy.measuring_index(root, oid, True, env) as index:
        yield oid, index, env


def workspace_tree(
    root: Path, base: str, differing: tuple[Sequence[str], Sequence[str]] | None = None
) -> str | None:
    """The working tree of `root` (its top) as a tree in its objects, as a measurement from `base` sees
    it: the files that differ from `base` and the untracked ones (`untracked.untracked_files`), hashed as
    `git diff` reads them (`measuring`: bytes, no conversion), on a copy of the index: what a loop begun
    on a dirty workspace measures from. None when no file differs; UserError when the index has
    unresolved conflicts. `differing`: `changed_paths` and `untracked_files`, when just asked."""
    changed, found = differing or (changed_paths(root, base), untracked.untracked_files(root, base))
    new = [p for p in found if not p.endswith("/")]  # not a nested repository
    if not changed and not new:
        return None
    with measuring(root, base) as (_, index, env):
        listed = b"".join(os.fsencode(p) + b"\0" for p in sorted({*changed, *new}))
        adding = ("update-index", "--add", "--remove", "-z", "--stdin")
        runner.run(root, *adding, stdin=listed, index=index, env=env)
        return runner.text(runner.run(root, "write-tree", index=index, env=env).stdout)
