"""The last green point: the latest workspace a verification passed on, derived from git.

A snapshot in tiergate's store (`snapshots`, `refs/green/<loop id>`), else the loop's base, else HEAD;
git is the only record. The workspace is dirty when its files differ from the green point's: that, not
the number of failures, decides a rollback. See docs/state.md, section "Green points".
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tiergate.errors import UserError
from tiergate.frozen import frozen
from tiergate.git import objectstore, repository
from tiergate.project import is_valid_session_id
from tiergate.workspace import putback, snapshots
from tiergate.workspace.snapshots import Workspace

if TYPE_CHECKING:
    from tiergate.project import Project

GREEN = "refs/green/"  # in the store
OLD_GREEN = "refs/tiergate/green/"  # in the repository: the old layout
Source = Literal["verified", "loop start", "HEAD"]


@frozen
class GreenPoint:
    workspace: Workspace
    source: Source
    commit: str | None  # the snapshot, or the start commit; None before a repository's first commit

    def describe(self) -> str:
        where = self.commit[:12] if self.commit else "no commit yet"
        what = {"verified": "the last verified state", "loop start": "the loop's start", "HEAD": "HEAD"}
        return f"{what[self.source]} ({where})"


def ref_for(loop_id: str, prefix: str = GREEN) -> str:
    if not is_valid_session_id(loop_id):
        raise UserError(f"not a loop id: {loop_id!r}")
    return prefix + loop_id


def mark(project: Project, loop_id: str, why: str = "verification passed", now: float | None = None) -> str:
    """Record the workspace as it is now as the loop's green point; returns the snapshot's id."""
    ref = ref_for(loop_id)
    commit = snapshots.keep_snapshot(
        project,
        ref,
        f"tiergate green point of loop {loop_id}: {why}",
        "The working tree, tracked and untracked files (not ignored), when a verification passed on it.",
        now,
    )
    snapshots.delete_ref(repository.repo_root(project.root), ref_for(loop_id, OLD_GREEN))
    return commit


def hand_over(project: Project, from_id: str, to_id: str) -> bool:
    """Move the green point kept for `from_id` (a loop started from a shell, before a session took it)
    to the loop `to_id`; False when there was none."""
    snapshot = snapshots.read_snapshot(project, ref_for(from_id))
    if snapshot is None:
        return False
    store = snapshots.store_path(project)
    objectstore.run_in(store, "update-ref", "-m", f"taken by loop {to_id}", ref_for(to_id), snapshot)
    objectstore.run_in(store, "update-ref", "-d", ref_for(from_id))
    return True


def drop(project: Project, loop_id: str) -> None:
    """Forget the green point kept for `loop_id`, if any."""
    if snapshots.read_snapshot(project, ref_for(loop_id)) is not None:
        objectstore.run_in(snapshots.store_path(project), "update-ref", "-d", ref_for(loop_id))


def last_green(project: Project, loop_id: str, start: str | None) -> GreenPoint:
    """The loop's last green point: its snapshot, else `start` (a commit, or the empty tree), else HEAD."""
    root = repository.repo_root(project.root)
    snapshot = snapshots.read_snapshot(project, ref_for(loop_id))
    if snapshot is not None:
        held = snapshots.stored_workspace(project, root, snapshot, f"the green point of loop {loop_id}")
        return GreenPoint(held, "verified", snapshot)
    old = snapshots.read_ref(root, ref_for(loop_id, OLD_GREEN))
    if old is not None:
        return GreenPoint(snapshots.workspace_of(root, old), "verified", old)
    workspace = snapshots.workspace_at(root, start or "HEAD")
    return GreenPoint(workspace, "loop start" if start else "HEAD", workspace.head)


def is_dirty(root: Path, point: GreenPoint) -> bool:
    """Whether the workspace's files (tracked and untracked, not ignored) differ from the green point's."""
    return putback.differs(root, point.workspace)
