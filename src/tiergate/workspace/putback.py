"""Putting a saved workspace back: a rollback to the last green point, a restore of a backup.

Neither loses work nor changes anything else: the workspace is saved as a backup before a file is
touched, HEAD only moves back along its own history (and forward again on a restore), bytes are exact,
ignored files are left alone unless they stand in the way, and nothing happens mid-merge or mid-rebase.
The rules, and why: docs/state.md, section "How a workspace is kept".
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from tiergate.errors import UserError
from tiergate.frozen import frozen
from tiergate.git import objectstore, repository, runner
from tiergate.workspace import backups, ondisk, snapshots
from tiergate.workspace.snapshots import Workspace

if TYPE_CHECKING:
    from tiergate.project import Project


@frozen
class Restored:
    backup: backups.Backup
    saved: backups.Backup | None  # the workspace as it was before the restore, when it held anything new
    changed: bool  # False when the workspace already was the backup


def rollback(project: Project, to: Workspace, why: str, now: float | None = None) -> backups.Backup | None:
    """Make the workspace `to` (HEAD, index and files, its objects in the repository), after saving it
    as a backup. Returns the backup, or None when the files already are `to`'s: then nothing is done."""
    root = repository.repo_root(project.root)
    _refuse_mid_operation(root, "roll back")
    target = objectstore.entries(repository.git_dir(root), to.files)
    current = ondisk.scan(root, target)
    plan = ondisk.plan(root, current, target, to.exact)
    if not any(plan):
        return None
    if to.head is not None and current.head is not None and not _is_ancestor(root, to.head, current.head):
        raise UserError(
            f"cannot roll back to {to.head[:12]}: it is not in the history of HEAD ({current.head[:12]}); "
            "the branch changed since, roll back by hand"
        )
    backup = backups.save(project, root, current, why, now)
    _apply(root, current, to, plan, f"tiergate: {why}")
    return backup


def differs(root: Path, to: Workspace) -> bool:
    """Whether a rollback to `to` would change any file."""
    top = repository.repo_root(root)
    target = objectstore.entries(repository.git_dir(top), to.files)
    return any(ondisk.plan(top, ondisk.scan(top, target), target, to.exact))


def _refuse_mid_operation(root: Path, doing: str) -> None:
    underway = repository.operation_in_progress(root)
    if underway is not None:
        raise UserError(f"tiergate does not {doing} while {underway}")


def restore(project: Project, backup: backups.Backup, now: float | None = None) -> Restored:
    """Put back the workspace `backup` saved: its files (tracked and untracked, byte for byte), its
    empty directories, its index and HEAD."""
    root = repository.repo_root(project.root)
    _refuse_mid_operation(root, "restore a backup")
    target = _target_of(project, root, backup)
    if target.head is not None and not _has_commit(root, target.head):
        raise UserError(
            f"backup {backup.name} was saved on HEAD {target.head[:12]}, which the repository no longer has; "
            f"its files are in {snapshots.store_path(project)} ({backup.commit[:12]}:files)"
        )
    entries = objectstore.entries(repository.git_dir(root), target.files)
    current = ondisk.scan(root, entries)
    plan = ondisk.plan(root, current, entries, target.exact)
    missing_dirs = [d for d in target.empty_dirs if not (root / d).is_dir()]
    index_same = current.index is not None and current.index == objectstore.entries(
        repository.git_dir(root), target.index
    )
    if not any(plan) and not missing_dirs and current.head == target.head and index_same:
        return Restored(backup, None, changed=False)
    if not _moves_forward(root, current.head, target.head):
        there = target.head[:12] if target.head else "no commit"
        raise UserError(
            f"HEAD ({(current.head or 'no commit')[:12]}) has moved off the history of backup {backup.name} "
            f"(HEAD {there}); switch back to it first (git switch --detach {there}), then restore"
        )
    saved = None
    # Saved first when the workspace holds anything HEAD does not (files, or what is staged).
    head_entries = objectstore.entries(repository.git_dir(root), snapshots.tree_of(root, current.head))
    if current.index != head_entries or any(ondisk.plan(root, current, head_entries, exact=False)):
        saved = backups.save(project, root, current, f"restoring {backup.name}", now)
    _apply(root, current, target, plan, f"tiergate: restore {backup.name}")
    return Restored(backup, saved, changed=True)


def _target_of(project: Project, root: Path, backup: backups.Backup) -> Workspace:
    """The workspace `backup` holds, its objects copied into the repository."""
    if backup.legacy:
        return snapshots.workspace_of(root, backup.commit)
    return snapshots.stored_workspace(project, root, backup.commit, f"backup {backup.name}")


def _has_commit(root: Path, commit: str) -> bool:
    proc = runner.run(root, "cat-file", "-e", f"{commit}^{{commit}}", ok=(0, 1, 128))
    return proc.returncode == 0


def _moves_forward(root: Path, current: str | None, target: str | None) -> bool:
    if current is None or current == target:
        return True
    return target is not None and _is_ancestor(root, current, target)


def _apply(
    root: Path, current: ondisk.Disk, to: Workspace, plan: tuple[list[str], list[str]], why: str
) -> None:
    """Make the files, then HEAD, then the index of `to` (its objects in the repository)."""
    target = objectstore.entries(repository.git_dir(root), to.files)
    ondisk.materialize(root, target, plan, to.exact, to.empty_dirs, current)
    head = repository.head_sha(root)
    if to.head is not None and to.head != head:
        runner.run(root, "update-ref", "-m", why, "HEAD", to.head)
    elif to.head is None and head is not None:
        runner.run(root, "update-ref", "-m", why, "-d", "HEAD")
    runner.run(root, "read-tree", "--reset", "--no-recurse-submodules", to.index)
    # In a sparse checkout the files left absent stay outside it.
    kept = sorted(p for p in current.sparse if p in target and not ondisk.on_disk(root, p))
    if kept:
        runner.run(
            root,
            "update-index",
            "--skip-worktree",
            "-z",
            "--stdin",
            stdin=b"".join(os.fsencode(p) + b"\0" for p in kept),
        )
    # Stat information for the index, so that git status does not rehash every file; 1: some differ.
    runner.run(root, "update-index", "-q", "--refresh", ok=(0, 1))


def _is_ancestor(root: Path, ancestor: str, descendant: str) -> bool:
    return runner.run(root, "merge-base", "--is-ancestor", ancestor, descendant, ok=(0, 1)).returncode == 0
