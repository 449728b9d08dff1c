"""How much changed between a base and the working tree: files, and lines added plus deleted.

Everything the working tree holds counts, committed or not (staged and unstaged edits, deletions,
renames, untracked files git does not ignore), asked of git in two commands; another tool's state is set
aside with its reason (`tiergate.foreign`). How binary files, symlinks, nested repositories and a plain
`mv` count: docs/judging.md, "The change".
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from tiergate import TYPE_CHECKING, foreign
from tiergate.foreign import Exclusions, Verdict
from tiergate.frozen import frozen
from tiergate.git import changes, formats, objects, repository
from tiergate.git.untracked import untracked_files

if TYPE_CHECKING:
    from typing import Literal

    FileStatus = Literal["added", "modified", "deleted", "renamed", "copied", "typechange", "untracked"]

_STATUS: dict[str, FileStatus] = {
    "A": "added",
    "M": "modified",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "T": "typechange",
}
# git looks this far into a file for a NUL before calling it binary.
BINARY_PROBE = 8000
_CHUNK = 1 << 20


@frozen
class FileChange:
    path: str  # repo-relative, '/' separated, the new path for renames
    status: FileStatus
    additions: int
    deletions: int
    binary: bool = False
    old_path: str | None = None

    @property
    def lines_changed(self) -> int:
        return self.additions + self.deletions

    @property
    def mark(self) -> str:
        """git's name-status letter as a reader needs it: A (added, untracked, or a copy: new content at
        a new path), M (modified, or its type changed), D (deleted), R (renamed)."""
        return _MARKS[self.status]


_MARKS: dict[FileStatus, str] = {
    "added": "A",
    "untracked": "A",
    "copied": "A",
    "modified": "M",
    "typechange": "M",
    "deleted": "D",
    "renamed": "R",
}


@frozen
class ChangeMeasurement:
    root: Path
    base: str  # the resolved id (a commit, or the empty tree) the change is measured from
    base_label: str  # what the caller asked for: "HEAD", a sha, a branch
    files: tuple[FileChange, ...]
    # Paths other tools' rules matched: set aside (never counted), or kept as code; with the reasons.
    foreign_paths: tuple[Verdict, ...] = ()
    exclusions: Exclusions = foreign.DEFAULT  # the rules it was measured with
    # `git diff -U0 -M` of the tracked paths (other tools' included), when asked for (`with_patch`).
    patch: bytes | None = None

    @property
    def excluded(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.foreign_paths if v.excluded)

    @property
    def files_changed(self) -> int:
        return len(self.files)

    @property
    def lines_changed(self) -> int:
        return sum(f.additions + f.deletions for f in self.files)

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.files)

    @property
    def base_commit(self) -> str | None:
        """The commit the change is measured from; None before the first commit (the empty tree)."""
        return None if objects.is_empty_tree(self.base) else self.base


@frozen
class _Content:
    lines: int
    binary: bool
    blob_id: str | None


_NOTHING = _Content(0, False, None)


@frozen
class _Tracked:
    change: FileChange
    old_id: str


@frozen
class _Untracked:
    change: FileChange
    blob_id: str | None


def measure_change(
    repo: Path, base: str = "HEAD", exclusions: Exclusions = foreign.DEFAULT, with_patch: bool = False
) -> ChangeMeasurement:
    """The change from `base` (a revision) to the working tree of the repository holding `repo`, other
    tools' state (`exclusions`: the built-in rules, and the loop's `[workspace] ignore`) left out;
    with `with_patch`, the tracked files' `-U0` patch too, from the same git run."""
    root = repository.repo_root(repo)
    base_id = objects.resolve_rev(root, base)
    diff = changes.ChangeDiff(root, base_id, with_patch)  # diffs while the untracked files are listed
    try:
        listed = untracked_files(root, base_id)
    except BaseException:
        diff.cancel()
        raise
    entries, patch = diff.result()
    verdicts = classify(root, [p for e in entries for p in (e.path, e.old_path) if p] + listed, exclusions)
    tracked = [_tracked(e) for e in entries if not _set_aside(verdicts, e.path, e.old_path)]
    movable = _movable(tracked)
    id_length = len(next(iter(movable))) if movable else 0
    untracked = [_untracked(root, path, id_length) for path in listed if not _set_aside(verdicts, path)]
    files = _pair_moves([t.change for t in tracked], untracked, movable)
    aside = _aside(files, verdicts)
    return ChangeMeasurement(root, base_id, base, _in_order(files), aside, exclusions, patch)


def measure_commit(
    root: Path,
    base_id: str,
    base_label: str,
    entries: Iterable[formats.DiffEntry],
    exclusions: Exclusions = foreign.DEFAULT,
    patch: bytes | None = None,
) -> ChangeMeasurement:
    """The change a commit made: `entries` are git's diff from its parent (`base_id`) to it, read from
    `git log --raw --numstat -z` (and `patch` its `-U0` patch from the same run, if asked for). Measured
    as `measure_change` measures a working tree, with the executable bits from the entries' modes: no
    file on disk is read."""
    entries = list(entries)
    modes = {p: m for e in entries for p, m in _modes(e)}
    verdicts = classify(root, modes, exclusions, executable=lambda path: modes[path] == "100755")
    files = [_tracked(e).change for e in entries if not _set_aside(verdicts, e.path, e.old_path)]
    aside = _aside(files, verdicts)
    return ChangeMeasurement(root, base_id, base_label, _in_order(files), aside, exclusions, patch)


def _modes(entry: formats.DiffEntry) -> list[tuple[str, str]]:
    """Each path of a diff entry with its mode on the side where the path exists."""
    if entry.old_path:
        return [(entry.old_path, entry.old_mode), (entry.path, entry.new_mode)]
    return [(entry.path, entry.old_mode if entry.status == "D" else entry.new_mode)]


def _in_order(files: list[FileChange]) -> tuple[FileChange, ...]:
    return tuple(sorted(files, key=_key))


def _aside(files: list[FileChange], verdicts: dict[str, Verdict]) -> tuple[Verdict, ...]:
    """The verdicts on the paths set aside: a tool's path that is one side of a rename still counted
    is not reported."""
    counted = {p for f in files for p in (f.path, f.old_path) if p}
    return tuple(verdicts[p] for p in sorted(verdicts) if not (verdicts[p].excluded and p in counted))


def classify(
    root: Path,
    paths: Iterable[str],
    exclusions: Exclusions,
    executable: Callable[[str], bool] | None = None,
) -> dict[str, Verdict]:
    """The paths of `paths` another tool's rule matches, with the verdict: excluded, or code kept as
    work. Only those paths have their executable bit read (`executable`, else from the disk, for the
    fingerprint and the measurement to agree whatever git's core.fileMode says)."""
    found: dict[str, Verdict] = {}
    for path in paths:
        if path not in found and exclusions.may_exclude(path):
            runs = executable(path) if executable else _executable(root / path)
            verdict = exclusions.verdict(path, executable=runs)
            if verdict is not None:
                found[path] = verdict
    return found


def work_paths(root: Path, paths: Iterable[str], exclusions: Exclusions) -> set[str]:
    """`paths` without those another tool's rule (or `[workspace] ignore`) excludes: the work among them."""
    wanted = set(paths)
    verdicts = classify(root, wanted, exclusions)
    return {path for path in wanted if path not in verdicts or not verdicts[path].excluded}


def _executable(path: Path) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and bool(info.st_mode & stat.S_IXUSR)


def _set_aside(verdicts: dict[str, Verdict], path: str, old_path: str | None = None) -> bool:
    """Whether a change is left out: every path of it excluded (a rename out of the user's files into
    a tool's folder is still the user's deletion)."""
    return all(p in verdicts and verdicts[p].excluded for p in (path, old_path) if p)


def _movable(tracked: list[_Tracked]) -> dict[str, _Tracked]:
    """Deleted files, by blob id, whose content may have reappeared under an untracked name.

    Empty files are left out: one empty file is as good a source as any other (git agrees).
    """
    deleted = [t for t in tracked if t.change.status == "deleted" and t.old_id.strip("0")]
    empty = {formats.blob_id(b"", len(t.old_id)) for t in deleted}
    return {t.old_id: t for t in deleted if t.old_id not in empty}


def _key(change: FileChange) -> str:
    return change.path


def _tracked(entry: formats.DiffEntry) -> _Tracked:
    status = _STATUS.get(entry.status, "modified")  # U (unmerged) and X (unknown) are edits in progress
    binary = entry.additions is None
    pointer = formats.SUBMODULE_MODE in (entry.old_mode, entry.new_mode)
    counted = not (binary or pointer)
    change = FileChange(
        path=entry.path,
        status=status,
        additions=(entry.additions or 0) if counted else 0,
        deletions=(entry.deletions or 0) if counted else 0,
        binary=binary,
        old_path=entry.old_path,
    )
    return _Tracked(change, entry.old_id)


def _untracked(root: Path, path: str, id_length: int) -> _Untracked:
    """Measure an untracked path; compute its blob id only when `id_length` says moves are possible."""
    content = _read(root / path, id_length, foreign.is_source(path)) if not path.endswith("/") else _NOTHING
    change = FileChange(
        path=path, status="untracked", additions=content.lines, deletions=0, binary=content.binary
    )
    return _Untracked(change, content.blob_id)


def _read(path: Path, id_length: int, source: bool) -> _Content:
    """An untracked file's lines and blob id; `source`: a file read as source is text whatever it holds
    (`foreign.is_source`), as tiergate's git reads a tracked one (`tiergate.git.attributes`)."""
    try:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            target = os.fsencode(path.readlink())
            return _measure([target], id_length, len(target), source=False)
        if not stat.S_ISREG(info.st_mode):
            return _NOTHING
        with path.open("rb") as f:
            return _measure(iter(lambda: f.read(_CHUNK), b""), id_length, info.st_size, source)
    except OSError:
        # Gone since git listed it, or unreadable: it still changed, but has no lines we can count.
        return _NOTHING


def _measure(chunks: Iterable[bytes], id_length: int, size: int, source: bool) -> _Content:
    digest = formats.blob_hasher(size, id_length) if id_length else None
    newlines, last, first = 0, b"", b""
    for chunk in chunks:
        if not first:
            first = chunk[:BINARY_PROBE]
        newlines += chunk.count(b"\n")
        last = chunk[-1:]
        if digest:
            digest.update(chunk)
    binary = b"\0" in first and not source
    lines = 0 if binary else newlines + (1 if last and last != b"\n" else 0)
    return _Content(lines, binary, digest.hexdigest() if digest else None)


def _pair_moves(
    tracked: list[FileChange], untracked: list[_Untracked], deleted: dict[str, _Tracked]
) -> list[FileChange]:
    """Report an untracked file that is exactly a deleted file's content as a rename of it."""
    moved: dict[str, FileChange] = {}  # deleted path -> the rename that replaces it
    files: list[FileChange] = []
    for new in untracked:
        source = deleted.get(new.blob_id or "")
        if source is None or source.change.path in moved:
            files.append(new.change)
            continue
        moved[source.change.path] = FileChange(
            path=new.change.path,
            status="renamed",
            additions=0,
            deletions=0,
            binary=new.change.binary,
            old_path=source.change.path,
        )
    files.extend(
        moved.get(change.path, change) if change.status == "deleted" else change for change in tracked
    )
    return files
