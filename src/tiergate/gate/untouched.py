"""Whether a worktree of the base stayed as git wrote it while the checks ran there.

The base's worktree is a folder of the user's, which any process of the user's can write: the agent's
shell, or a daemon its code left behind, can find it and rewrite a module so that the base fails the way
the claim does, and the claim's failures are excused. No order of runs keeps such a process out, so what a
run at the base shows is kept only when its worktree is untouched afterwards: every file git tracks holds
the commit's content, none changed while the checks ran (same inode and change time, which no user can set
back, so a file written and restored is still seen), and no file that Python would import (a module, a
package's `__init__`, an extension, a `.pth`) is there that git does not track; bytecode is cached outside
the worktree, so none there is read. What the checks themselves leave (caches, reports, logs) is not code,
and is let be. See docs/judging.md, "The baseline".
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
