"""The last green point: the latest workspace a verification passed on, derived from git.

When a verification passes, tiergate saves the workspace it passed on as a snapshot (see `backups`) and
points `refs/tiergate/green/<loop id>` at it: the files, uncommitted changes included, that a verifier
found good. With no such ref yet, the green point is the loop's start commit (`LoopState.base`), and with
no start either, HEAD. git is the only record: nothing is copied into the loop's state.

The workspace is dirty when its files differ from the green point's. That, not the number of failures,
is what decides a rollback.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tiergate import git
from tiergate.errors import UserError
from tiergate.project import is_valid_session_id
from tiergate.workspace import backups
from tiergate.workspace.backups import Workspace

GREEN = "refs/tiergate/green/"
Source = Literal["verified", "loop start", "HEAD"]


@dataclass(frozen=True)
class GreenPoint:
    workspace: Workspace
    source: Source
    commit: str | None  # the snapshot, or the start commit; None before a repository's first commit

    def describe(self) -> str:
        where = self.commit[:12] if self.commit else "no commit yet"
        what = {"verified": "the last verified state", "loop start": "the loop's start", "HEAD": "HEAD"}
        return f"{what[self.source]} ({where})"


def ref_for(loop_id: str) -> str:
    if not is_valid_session_id(loop_id):
        raise UserError(f"not a loop id: {loop_id!r}")
    return GREEN + loop_id


def mark(root: Path, loop_id: str, why: str = "verification passed", now: float | None = None) -> str:
    """Record the workspace as it is now as the loop's green point; returns the snapshot's id."""
    ref = ref_for(loop_id)
    top = git.repo_root(root)
    workspace = backups.capture(top)
    commit = backups.snapshot(
        top,
        workspace,
        f"tiergate green point of loop {loop_id}: {why}",
        "The working tree, tracked and untracked files (not ignored), when a verification passed on it.\n"
        "First parent: HEAD; last parent: the index as it was.",
        now,
    )
    backups.write_ref(top, ref, commit, f"tiergate green point: {why}")
    return commit


def last_green(root: Path, loop_id: str, start: str | None) -> GreenPoint:
    """The loop's last green point: its ref, else `start` (a commit, or the empty tree), else HEAD."""
    top = git.repo_root(root)
    snapshot = backups.read_ref(top, ref_for(loop_id))
    if snapshot is not None:
        return GreenPoint(backups.workspace_of(top, snapshot), "verified", snapshot)
    workspace = backups.workspace_at(top, start or "HEAD")
    return GreenPoint(workspace, "loop start" if start else "HEAD", workspace.head)


def is_dirty(root: Path, point: GreenPoint) -> bool:
    """Whether the workspace's files (tracked and untracked, not ignored) differ from the green point's."""
    return backups.differs(root, point.workspace)
