"""The index a measurement reads: a copy of the user's, never the user's own.

The copy has the assume-unchanged and skip-worktree flags cleared, the entries written since the loop
began made to be read again, and the paths of a loop's start workspace entered, so that the change is
what is on disk. See docs/ARCHITECTURE.md, section "git, asked safely".
"""
# Why: git trusts a flagged entry instead of looking at the file, and one whose stat data matches the
# file for the blob id it holds; `git diff` rewrites the index it reads.

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from tiergate.git import formats, isolation, objects, runner


@contextlib.contextmanager
def measuring_index(
    root: Path, base: str, private: bool = False, env: Mapping[str, str] | None = None
) -> Iterator[Path | None]:
    """The index a measurement from `base` reads: None (the index as it is) when that is the truth and
    no `private` copy is asked for; else a copy next to it (where a split index finds its shared part),
    removed afterwards, its flags cleared, with `private` the entries since the loop began
    (`read_again_since`) entered with no stat data, and for a base `measure_from_workspace` named the
    paths `base` holds and the index does not entered with `base`'s content. `env`: the environment
    the copy is written in (`attributes.own`, where the measurement runs)."""
    # Cleared flags: git trusts a flagged entry instead of looking at the file. No stat data: git reads
    # the file from disk. `base`'s paths: such a file is compared with what is on disk, not taken for a
    # deletion plus an untracked file; that is how the user's untracked files in a loop's start workspace
    # (`changes.workspace_tree`) stay out of the loop's change while they are as they were (and a file only
    # untracked since, `git rm --cached`, is no change). A commit of the history pays nothing for it.
    # A command that may write the index it reads asks for a `private` one. `git diff` against the working
    # tree does, whatever GIT_OPTIONAL_LOCKS says: when it finds files whose stat data is stale but whose
    # content is not, it takes the index's lock and rewrites it. On the user's index that would be a
    # measurement changing the repository: a lock in the way of the user's own git (or left behind, when
    # the hook is killed), and an index replaced under the feet of the caches here (`flagged_paths`) and
    # of a measurement running beside it in a child, which then differ by timing.
    flagged = flagged_paths(root)
    absent = _only_in_base(root, base) if base in _workspace_bases else b""
    if not any(flagged.values()) and not absent and not private:
        yield None
        return
    real = index_file(root)
    fd, name = tempfile.mkstemp(prefix="tiergate-index-", dir=real.parent)
    os.close(fd)
    index = Path(name)
    try:
        if real.exists():
            # copy2 keeps the index's mtime, which git's racy-file check compares file mtimes with.
            shutil.copy2(real, index)
        else:
            index.unlink()  # no index yet: git reads a missing index file as an empty one
        # Only a copy that will be diffed needs them: listing the untracked files reads no content.
        again = written_since(root, index, base, _since[0]) if private and _since and real.exists() else b""
        clear_flags(root, index, flagged, env)
        if absent or again:
            entered = absent + again
            runner.run(root, "update-index", "-z", "--index-info", stdin=entered, index=index, env=env)
        yield index
    finally:
        index.unlink(missing_ok=True)


@contextlib.contextmanager
def scratch_index() -> Iterator[Path]:
    """The path of an index file of tiergate's own, empty (git reads a missing index file as an empty
    one), removed afterwards: where a tree is put together from parts."""
    fd, name = tempfile.mkstemp(prefix="tiergate-index-")
    os.close(fd)
    index = Path(name)
    index.unlink()
    try:
        yield index
    finally:
        index.unlink(missing_ok=True)


def flagged_paths(root: Path) -> dict[str, list[bytes]]:
    """Tracked paths the index marks, by the update-index option that clears the mark: assume-unchanged
    (a lowercase tag) and skip-worktree (S, or s with both)."""
    return _listing(root)[1]


# When the loop being judged began, for this process (`read_again_since`).
_since: list[float] = []

# How long before the loop's start a ctime may be and still be read again: the file system stamps files
# from a coarse clock, a few milliseconds behind `time.time()`, and some only to the second or two (FAT).
_MARGIN = 2.0


def read_again_since(when: float) -> None:
    """Have every diffed measurement of this process (`measuring_index` with `private`) read from disk
    each tracked file whose index entry records a ctime of `when` or later (the loop's start, as
    `time.time()` gives it)."""
    # git takes the blob id of an index entry whose stat data matches the file instead of reading the
    # file, and that id is what the git that wrote the entry made of the file: the agent's, through a
    # filter, `ident` or an encoding it set for a `git add` and removed afterwards (or an index file it
    # wrote itself), the blob of the base for a file that holds the answer. git trusts an entry only when
    # the file's ctime is the one the entry records, and no process can set a ctime back: an entry
    # recording a ctime from before the loop that git trusts is a file untouched since the loop began,
    # which holds what the loop's base measured; the entries recording a later one are read again (the
    # agent's `git add`, a refresh of a file it touched).
    _since[:] = [min([when, *_since])]  # two loops read in one process: the earlier start holds for both


def read_again_from() -> float | None:
    """The time `read_again_since` set for this process, None when no loop is judged here: what a
    process measuring for it (the gate's job in the background) is handed, to measure alike."""
    return _since[0] if _since else None


def written_since(root: Path, index: Path, base: str, when: float) -> bytes:
    """`update-index --index-info` lines for the file entries (stage 0, no submodule) of the index file
    `index` (a copy of `root`'s) that record a ctime of `when` or later (less `_MARGIN`): their mode and
    blob id with no stat data, so that git compares the file's content. Read from the file itself (object
    ids as long as `base`'s), as git reads it; where that cannot be (a split index), the entries of the
    files whose ctime on disk is that recent, as `git ls-files` lists them."""
    data = index.read_bytes()
    key = (hashlib.blake2b(data, digest_size=16).digest(), when)
    if key not in _written:
        since = int(when - _MARGIN)
        oid_size = len(base) // 2 if objects.is_object_id(base) else 20
        entries = formats.index_entries(data, oid_size, since)
        if entries is None:
            top = os.fsencode(root) + b"/"
            _written[key] = b"".join(line for path, line in _listing(root)[2] if _ctime(top + path) >= since)
        else:
            _written[key] = b"".join(entry.info_line for entry in entries)
    return _written[key]


_written: dict[tuple[bytes, float], bytes] = {}  # by the index file's bytes: what they record never changes


def _ctime(path: bytes) -> float:
    try:
        return os.lstat(path).st_ctime
    except OSError:  # gone: git finds it deleted
        return 0.0


_Stamp = tuple[tuple[int, ...] | None, ...]
_Entries = list[tuple[bytes, bytes]]  # each file entry's path, with its `--index-info` line


def _listing(root: Path) -> tuple[_Stamp, dict[str, list[bytes]], _Entries]:
    """The index's stamp, its flagged paths and its file entries (stage 0, no submodule), from one `git
    ls-files -v -s -z`. Kept for the process while the index file of a plain repository (`.git/index`) is
    the same file, unchanged: git replaces it on every write."""
    stamp = isolation.stamps((root / ".git" / "index",))
    kept = _listings.get(root)
    if kept is not None and kept[0] == stamp and stamp[0] is not None:
        return kept
    flagged: dict[str, list[bytes]] = {"--no-assume-unchanged": [], "--no-skip-worktree": []}
    entries: _Entries = []
    for record in runner.run(root, "ls-files", "-v", "-s", "-z").stdout.split(b"\0"):
        meta, _, path = record.partition(b"\t")  # "TAG MODE ID STAGE"
        if not path:
            continue
        tag, mode, oid, stage = meta.split(b" ")
        if tag.islower():
            flagged["--no-assume-unchanged"].append(path)
        if tag in (b"S", b"s"):
            flagged["--no-skip-worktree"].append(path)
        if stage == b"0" and mode != b"160000":
            entries.append((path, mode + b" " + oid + b"\t" + path + b"\0"))
    listing = (stamp, flagged, entries)
    if (root / ".git").is_dir():
        _listings[root] = listing
    return listing


_listings: dict[Path, tuple[_Stamp, dict[str, list[bytes]], _Entries]] = {}


def clear_flags(
    root: Path,
    index: Path,
    flagged: Mapping[str, Sequence[bytes]] | None = None,
    env: Mapping[str, str] | None = None,
) -> None:
    """Clear assume-unchanged and skip-worktree in the index file `index` (a copy: never the user's)
    on the paths `flagged` (those of the repository's index when None), with `env`."""
    for option, paths in (flagged_paths(root) if flagged is None else flagged).items():
        # One option a call: update-index applies only the last of two such options.
        if paths:
            listed = b"".join(path + b"\0" for path in paths)
            runner.run(root, "update-index", option, "-z", "--stdin", stdin=listed, index=index, env=env)


def index_file(root: Path) -> Path:
    """The index file of `root` (its top): `.git/index` in a plain repository, git's answer otherwise
    (a linked worktree's is in its own git folder)."""
    if (root / ".git").is_dir():
        return root / ".git" / "index"
    return Path(
        runner.text(runner.run(root, "rev-parse", "--path-format=absolute", "--git-path", "index").stdout)
    )


# The bases that are a workspace a loop began on (`changes.workspace_tree`), named for this process by
# `tiergate.workspace.loopbase` before anything is measured from them.
_workspace_bases: set[str] = set()


def measure_from_workspace(base: str) -> None:
    """Measure from `base` as from a workspace: its paths the index lacks are compared with the disk
    (`measuring_index`), at the price of one more git call per measurement."""
    _workspace_bases.add(base)


def workspace_bases() -> frozenset[str]:
    """The bases named so far in this process by `measure_from_workspace`."""
    return frozenset(_workspace_bases)


def _only_in_base(root: Path, base: str) -> bytes:
    """`update-index --index-info` lines for the paths `base` holds and the index does not: `base`'s
    mode and blob (zero stat information, so git compares the file's content)."""
    out = runner.run(
        root, "diff-index", "--cached", "--raw", "-z", "--no-renames", "--diff-filter=D", base
    ).stdout
    fields = out.split(b"\0")
    entries = []
    for meta, path in zip(fields[0:-1:2], fields[1::2], strict=False):
        old_mode, _new_mode, old_id, *_ = meta.lstrip(b":").split(b" ")
        if old_mode != b"160000":  # a submodule pointer the index dropped stays a deletion
            entries.append(old_mode + b" " + old_id + b"\t" + path + b"\0")
    return b"".join(entries)
