"""The changed lines of a working-tree change, searched by the content rules (`tiergate.tier.content`).

Tracked files: one `git diff -U0 -M <base>` of the change's files (`patch_of`, once per assessment: the
coverage judgement reads the same patch). Untracked files: every line added, read from disk. Other
tools' state, binary files, symlinks (a target name) and nested repositories are not read.
"""

from __future__ import annotations

import stat
from collections.abc import Sequence
from typing import NamedTuple

from tiergate.git import changes
from tiergate.tier.change import ChangeMeasurement, FileChange
from tiergate.tier.content import (
    ContentHit,
    Ecosystem,
    FileLines,
    added_file,
    judged_paths,
    parse_patch,
    scan_files,
)
from tiergate.tier.content.patch import generated

# Beyond this many paths the diff runs unrestricted and is filtered here, keeping the command line short.
_MAX_PATHSPECS = 1000


def patch_of(change: ChangeMeasurement) -> bytes:
    """`git diff -U0 -M` from the change's base to the working tree, for its tracked files that have
    changed lines (b"" when none has): the one measured with the change, else run now."""
    if change.patch is not None:
        return change.patch
    tracked = [f for f in change.files if _diffed(f)]
    if not tracked:
        return b""
    paths = [p for f in tracked for p in (f.path, f.old_path) if p]
    return changes.diff_patch(change.root, change.base, paths if len(paths) <= _MAX_PATHSPECS else ())


class ContentScan(NamedTuple):
    hits: tuple[ContentHit, ...]
    # The files a judge read whole (CI workflows): the content rules, not their path, decide them.
    judged: frozenset[str] = frozenset()


def judge_change(
    change: ChangeMeasurement, ecosystems: Sequence[Ecosystem], patch: bytes | None = None
) -> ContentScan:
    """The content rules' hits in the change's added and removed lines (`patch`: `patch_of(change)`,
    when the caller already has it; nothing is read without ecosystems), and the files whose path floor
    the content rules replace: those a judge read. A file not read (binary, a symlink, not in the
    patch) is never among them. Code that reaches into its tests is judged against the base too
    (`tiergate.tier.reachingbase`: what a testing tool's code does by nature is not named)."""
    if not ecosystems:
        return ContentScan(())
    from tiergate.tier.reachingbase import judge_at_base

    files = changed_lines(change, patch)
    hits = judge_at_base(scan_files(files, ecosystems), files, change.root, change.base)
    return ContentScan(hits, judged_paths(files, ecosystems))


def changed_lines(change: ChangeMeasurement, patch: bytes | None = None) -> list[FileLines]:
    """The change's files with their changed lines: the tracked ones from `patch` (`patch_of(change)`
    when None), the untracked ones read from the disk, every line added."""
    wanted = {f.path for f in change.files if _diffed(f)}
    files = [f for f in parse_patch(patch_of(change) if patch is None else patch) if f.path in wanted]
    files += [lines for f in change.files if (lines := _untracked_lines(change, f)) is not None]
    return files


def _diffed(f: FileChange) -> bool:
    return f.status != "untracked" and not f.binary and f.lines_changed > 0


def _untracked_lines(change: ChangeMeasurement, f: FileChange) -> FileLines | None:
    if f.status != "untracked" or f.binary or not f.additions or f.path.endswith("/") or generated(f.path):
        return None
    path = change.root / f.path
    try:
        if not stat.S_ISREG(path.lstat().st_mode):
            return None
        data = path.read_bytes()
    except OSError:  # gone since it was measured: nothing to read
        return None
    return added_file(f.path, data.decode("utf-8", "surrogateescape"))
