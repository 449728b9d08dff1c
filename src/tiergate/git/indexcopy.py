"""The index a measurement reads: a copy of the user's, never the user's own.

git trusts an index entry flagged assume-unchanged or skip-worktree instead of looking at the file, and
`git diff` rewrites the index it reads; a measurement reads a copy with the flags cleared, and with the
paths of a loop's start workspace entered, so that the change is what is on disk. See
docs/ARCHITECTURE.md, section "git, asked safely".
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from tiergate.git import isolation, runner


@contextlib.contextmanager
def measuring_index(
    repo: Path, base: str, private: bool = False, env: Mapping[str, str] | None = None
) -> Iterator[Path | None]:
    """The index a measurement from `base` reads: None (the index as it is) when that is the truth and
    no `private` copy is asked for; else a copy, next to it (where a split index finds its shared part),
    removed afterwards, in which
    - the assume-unchanged and skip-worktree flags are cleared (git trusts a flagged entry instead of
      looking at the file);
    - every path `base` holds that the index does not is entered with `base`'s content: such a file is
      compared with what is on disk, not taken for a deletion plus an untracked file. That is how the
      user's untracked files in a loop's start workspace (`changes.workspace_tree`) stay out of the loop's
      change while they are as they were (and a file only untracked since, `git rm --cached`, is no
      change). Only for a base `measure_from_workspace` named: a commit of the history pays nothing.

    A command that may write the index it reads asks for a `private` one. `git diff` against the
    working tree does, whatever GIT_OPTIONAL_LOCKS says: when it finds files whose stat data is stale
    but whose content is not, it takes the index's lock and rewrites it. On the user's index that would
    be a measurement changing the repository: a lock in the way of the user's own git (or left behind,
    when the hook is killed), and an index replaced under the feet of the caches here (`flagged_paths`)
    and of a measurement running beside it in a child, which then differ by timing. `env`: the
    environment the copy is written in (`attributes.own`, where the measurement runs)."""
    flagged = flagged_paths(repo)
    absent = _only_in_base(repo, base) if base in _workspace_bases else b""
    if not any(flagged.values()) and not absent and not private:
        yield None
        return
    real = index_file(repo)
    fd, name = tempfile.mkstemp(prefix="tiergate-index-", dir=real.parent)
    os.close(fd)
    index = Path(name)
    try:
        if real.exists():
            # copy2 keeps the index's mtime, which git's racy-file check compares file mtimes with.
            shutil.copy2(real, index)
        else:
            index.unlink()  # no index yet: git reads a missing index file as an empty one
        clear_flags(repo, index, flagged, env)
        if absent:
            runner.run(repo, "update-index", "-z", "--index-info", stdin=absent, index=index, env=env)
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


def flagged_paths(repo: Path) -> dict[str, list[bytes]]:
    """Tracked paths the index marks, by the update-index option that clears the mark: assume-unchanged
    (a lowercase tag) and skip-worktree (S, or s with both). Kept for the process while the index file
    of a plain repository (`.git/index`) is the same file, unchanged: git replaces it on every write."""
    stamp = isolation.stamps((repo / ".git" / "index",))
    kept = _flags.get(repo)
    if kept is not None and kept[0] == stamp and stamp[0] is not None:
        return kept[1]
    flagged = _read_flags(repo)
    if (repo / ".git").is_dir():
        _flags[repo] = (stamp, flagged)
    return flagged


_flags: dict[Path, tuple[tuple[tuple[int, ...] | None, ...], dict[str, list[bytes]]]] = {}


def _read_flags(repo: Path) -> dict[str, list[bytes]]:
    out = runner.run(repo, "ls-files", "-v", "-z").stdout
    flagged: dict[str, list[bytes]] = {"--no-assume-unchanged": [], "--no-skip-worktree": []}
    for entry in out.split(b"\0"):
        tag, path = entry[:1], entry[2:]
        if tag.islower():
            flagged["--no-assume-unchanged"].append(path)
        if tag in (b"S", b"s"):
            flagged["--no-skip-worktree"].append(path)
    return flagged


def clear_flags(
    repo: Path,
    index: Path,
    flagged: Mapping[str, Sequence[bytes]] | None = None,
    env: Mapping[str, str] | None = None,
) -> None:
    """Clear assume-unchanged and skip-worktree in the index file `index` (a copy: never the user's)
    on the paths `flagged` (those of the repository's index when None), with `env`."""
    for option, paths in (flagged_paths(repo) if flagged is None else flagged).items():
        # One option a call: update-index applies only the last of two such options.
        if paths:
            listed = b"".join(path + b"\0" for path in paths)
            runner.run(repo, "update-index", option, "-z", "--stdin", stdin=listed, index=index, env=env)


def index_file(repo: Path) -> Path:
    """The index file of `repo` (its top): `.git/index` in a plain repository, git's answer otherwise
    (a linked worktree's is in its own git folder)."""
    if (repo / ".git").is_dir():
        return repo / ".git" / "index"
    return Path(
        runner.text(runner.run(repo, "rev-parse", "--path-format=absolute", "--git-path", "index").stdout)
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


def _only_in_base(repo: Path, base: str) -> bytes:
    """`update-index --index-info` lines for the paths `base` holds and the index does not: `base`'s
    mode and blob (zero stat information, so git compares the file's content)."""
    out = runner.run(
        repo, "diff-index", "--cached", "--raw", "-z", "--no-renames", "--diff-filter=D", base
    ).stdout
    fields = out.split(b"\0")
    entries = []
    for meta, path in zip(fields[0:-1:2], fields[1::2], strict=False):
        old_mode, _new_mode, old_id, *_ = meta.lstrip(b":").split(b" ")
        if old_mode != b"160000":  # a submodule pointer the index dropped stays a deletion
            entries.append(old_mode + b" " + old_id + b"\t" + path + b"\0")
    return b"".join(entries)
