"""Whether a worktree of the base stayed as git wrote it while the checks ran there.

Any process of the user's (the agent's, a daemon it left) can rewrite the base's worktree so that the base
fails as the claim does. So a base run is kept only when, afterwards, every tracked file holds the commit's
content unchanged (same inode and change time) and no file Python would import is untracked there; what
the checks leave (caches, reports) is let be. See docs/judging.md, "The baseline".
"""

from __future__ import annotations

# os.walk and os.lstat on purpose: a worktree of a large project holds tens of thousands of files, where
# pathlib's objects would only add to the cost of each.
# ruff: noqa: PTH118
import os
from collections.abc import Mapping
from pathlib import Path

from tiergate.frozen import frozen

# Files whose appearance can change what a Python run at the base imports or executes. Bytecode is not
# among them: the base runs with its bytecode cache outside the worktree (PYTHONPYCACHEPREFIX), so none
# in the worktree is ever read (and a compile check may write some there).
IMPORTABLE = (".py", ".so", ".pyd", ".pth")

Stamp = tuple[int, int]  # (inode, change time in ns)


@frozen
class Snapshot:
    """Every file under a folder, by path relative to it, with its stamp."""

    files: dict[str, Stamp]


def take(folder: Path) -> Snapshot:
    """The folder's files as they are now (the `.git` link of a worktree left out)."""
    found: dict[str, Stamp] = {}
    for top, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            if top == str(folder) and name == ".git":
                continue
            path = os.path.join(top, name)
            stamp = stamp_of(path)
            if stamp is not None:
                found[os.path.relpath(path, folder)] = stamp
    return Snapshot(found)


def stamp_of(path: str | Path) -> Stamp | None:
    """The stamp of the file or link at `path` (None: not there)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_ctime_ns)


def touched(
    before: Snapshot,
    after: Snapshot,
    tracked: Mapping[str, str],
    hashed: Mapping[str, str],
) -> tuple[str, ...]:
    """What could have shaped the checks that ran between `before` and `after` (sorted): a file changed
    while they ran (its stamp moved, even if its content was put back), a file git tracks whose content
    is not the commit's (`tracked`: its blob by path; `hashed`: the blob of what is there now), one that
    Python would import gone, or an importable file git does not track. Pure."""
    moved = [p for p, stamp in before.files.items() if after.files.get(p) != stamp]
    rewritten = [p for p, blob in tracked.items() if p in hashed and hashed[p] != blob]
    gone = [p for p in tracked if p not in after.files and p.endswith(IMPORTABLE)]
    planted = [p for p in after.files if p not in tracked and p.endswith(IMPORTABLE)]
    return tuple(sorted({*moved, *rewritten, *gone, *planted}))
