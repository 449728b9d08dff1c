"""Workspace snapshots kept by git under `refs/tiergate/`: the backup saved before a rollback, and putting a
saved workspace back (a rollback to the last green point, a restore of a backup).

A snapshot is a commit whose tree is the working tree as it is: tracked files and the untracked files git
does not ignore. Its first parent is the commit HEAD pointed to (none in a repository with no commit yet)
and its last parent a commit of the index, so that what was staged comes back too. It is written through a
temporary copy of the index (GIT_INDEX_FILE, `git add -A`, `git write-tree`, `git commit-tree`): saving
never touches the index or the working tree the user sees. A ref keeps it through `git gc`.

Rules that keep a rollback from losing work:
- `rollback` does nothing when the files already are those of the target: the criterion is whether the
  workspace is dirty, not how often something failed. Otherwise it saves a backup first, always.
- HEAD only moves back along its own history (the commits it leaves stay reachable from the backup), and
  `restore` only moves it forward again; anything else is refused with the way to do it by hand.
- `restore` first saves the workspace as it is now, when it holds anything HEAD does not, so restoring is
  itself undoable with `tiergate restore`.
- Ignored files are never saved, never removed and never overwritten by the clean-up. A nested repository
  (an untracked directory with its own `.git`) or a submodule is its own repository: its work tree is left
  alone, neither saved nor removed.
  Empty directories are not saved (git has no notion of them).
- Files go through no filter driver either way (git.run blanks them: a driver is a program the
  repository's config names), but through git's own eol conversion, as with `git stash`. A conflicted
  index is saved as the files with their conflict markers (and HEAD's tree as the index): the unmerged
  state is not. Index flags (assume-unchanged, skip-worktree) do not keep an edit out of a backup.

Backups are named `<UTC time>-<short id>`, which sorts by age, and listed newest first.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tiergate import git
from tiergate.errors import UserError

BACKUPS = "refs/tiergate/backups/"
# Snapshots are tiergate's commits, whoever the user is (and whether or not git knows who that is).
_IDENTITY = {
    "GIT_AUTHOR_NAME": "tiergate",
    "GIT_AUTHOR_EMAIL": "tiergate@localhost",
    "GIT_COMMITTER_NAME": "tiergate",
    "GIT_COMMITTER_EMAIL": "tiergate@localhost",
}


@dataclass(frozen=True)
class Workspace:
    """A workspace as git objects: where HEAD points, the index's tree, the working tree's tree."""

    head: str | None  # None: no commit yet
    index: str
    files: str


@dataclass(frozen=True)
class Backup:
    name: str  # what `tiergate restore` takes
    commit: str
    head: str | None  # HEAD when it was saved
    created: float  # seconds since the epoch, as the commit says (whole seconds)
    reason: str  # the commit's subject

    @property
    def ref(self) -> str:
        return BACKUPS + self.name


@dataclass(frozen=True)
class Restored:
    backup: Backup
    saved: Backup | None  # the workspace as it was before the restore, when it held anything new
    changed: bool  # False when the workspace already was the backup


# -- reading and saving --------------------------------------------------------------------------------


def capture(root: Path) -> Workspace:
    """The workspace `root` is in as git objects, written without touching it."""
    return _capture(git.repo_root(root))


def _capture(root: Path) -> Workspace:
    head = git.head_sha(root)
    base_tree = tree_of(root, head)
    nested = [f":(exclude,literal){p}" for p in git.untracked_by_git_rules(root) if p.endswith("/")]
    with _temporary_index(root) as index:
        # Unmerged entries cannot be written as a tree: the index then counts as HEAD's.
        written = git.run(root, "write-tree", index=index, ok=(0, 128))
        staged = _text(written.stdout) if written.returncode == 0 else base_tree
        git.run(root, "add", "-A", "--", *nested, index=index)
        files = _text(git.run(root, "write-tree", index=index).stdout)
    return Workspace(head, staged, files)


def snapshot(root: Path, workspace: Workspace, subject: str, body: str = "", now: float | None = None) -> str:
    """A commit holding `workspace` (see the module's docstring); returns its id."""
    when = time.time() if now is None else now
    index = _commit(root, workspace.index, (), "tiergate: the index as it was", when)
    parents = (workspace.head, index) if workspace.head else (index,)
    return _commit(root, workspace.files, parents, f"{subject}\n\n{body}".rstrip() + "\n", when)


def workspace_of(root: Path, snapshot_commit: str) -> Workspace:
    """The workspace a snapshot commit holds."""
    tree, *parents = _text(
        git.run(root, "show", "-s", "--format=%T %P", snapshot_commit, "--").stdout
    ).split()
    head = parents[0] if len(parents) == 2 else None  # (HEAD, index)
    index = _text(git.run(root, "rev-parse", "--verify", f"{parents[-1]}^{{tree}}").stdout)
    return Workspace(head, index, tree)


def workspace_at(root: Path, rev: str | None) -> Workspace:
    """A commit as a workspace (HEAD there, index and files its tree); a tree or None: no commit yet."""
    resolved = git.resolve_rev(root, rev) if rev else git.empty_tree(root)
    kind = _text(git.run(root, "cat-file", "-t", resolved).stdout)
    head = resolved if kind == "commit" else None
    tree = tree_of(root, head) if head else resolved
    return Workspace(head, tree, tree)


def tree_of(root: Path, commit: str | None) -> str:
    if commit is None:
        return git.empty_tree(root)
    return _text(git.run(root, "rev-parse", "--verify", f"{commit}^{{tree}}").stdout)


def save(root: Path, workspace: Workspace, why: str, now: float | None = None) -> Backup:
    """Save `workspace` (as `capture` took it) as a backup ref; returns the backup."""
    when = time.time() if now is None else now
    head = workspace.head[:12] if workspace.head else "no commit yet"
    summary = _summary(changes(root, tree_of(root, workspace.head), workspace.files))
    body = (
        f"Saved by tiergate before {why}.\n"
        f"The working tree, tracked and untracked files (not ignored): {summary} against HEAD ({head}).\n"
        "First parent: HEAD; last parent: the index as it was.\n"
        "List: tiergate backups. Bring back: tiergate restore <name>."
    )
    commit = snapshot(root, workspace, f"tiergate backup before {why}", body, when)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(when)) + f".{int(when * 1000) % 1000:03d}Z"
    name = f"{stamp}-{commit[:8]}"
    # The empty old value: never overwrite a backup.
    git.run(root, "update-ref", "-m", f"tiergate backup before {why}", BACKUPS + name, commit, "")
    return Backup(name, commit, workspace.head, float(int(when)), f"tiergate backup before {why}")


def list_backups(root: Path) -> list[Backup]:
    """Every backup, newest first."""
    fields = "%(refname)%00%(objectname)%00%(parent)%00%(creatordate:unix)%00%(subject)"
    out = git.run(root, "for-each-ref", "--sort=-refname", f"--format={fields}", BACKUPS).stdout
    found = []
    for line in os.fsdecode(out).splitlines():
        ref, commit, parents, created, subject = line.split("\0")
        ids = parents.split()
        head = ids[0] if len(ids) == 2 else None  # (HEAD, index)
        found.append(Backup(ref.removeprefix(BACKUPS), commit, head, float(created or 0), subject))
    return found


def find(root: Path, name: str) -> Backup:
    """The backup `name` names: its name, its ref, or a prefix of its name that only it has."""
    backups = list_backups(root)
    for backup in backups:
        if name in (backup.name, backup.ref):
            return backup
    matches = [b for b in backups if name and b.name.startswith(name)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = ", ".join(b.name for b in matches[:5])
        raise UserError(f"backup name {name!r} is ambiguous: {names}")
    raise UserError(f"no backup named {name!r} in {root} (tiergate backups lists them)")


def read_ref(root: Path, ref: str) -> str | None:
    """The commit `ref` points to, or None."""
    found = git.run(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", ok=(0, 1))
    return _text(found.stdout) or None if found.returncode == 0 else None


def write_ref(root: Path, ref: str, commit: str, why: str) -> None:
    git.run(root, "update-ref", "-m", why, ref, commit)


def delete_ref(root: Path, ref: str) -> bool:
    """Remove `ref`; False when there was none."""
    if read_ref(root, ref) is None:
        return False
    git.run(root, "update-ref", "-d", ref)
    return True


def changes(root: Path, old_tree: str, new_tree: str) -> dict[str, str]:
    """Path -> git's status letter (A, M, D, T) between two trees."""
    out = git.run(root, "diff-tree", "-r", "-z", "--no-renames", "--name-status", old_tree, new_tree).stdout
    fields = [os.fsdecode(f) for f in out.split(b"\0") if f]
    return dict(zip(fields[1::2], fields[0::2], strict=True))


# -- putting a workspace back ----------------------------------------------------------------------------


def rollback(root: Path, to: Workspace, why: str, now: float | None = None) -> Backup | None:
    """Make the workspace `to` (HEAD, index and files), after saving it as a backup.

    Returns the backup, or None when the files already are `to`'s: then nothing is done at all."""
    root = git.repo_root(root)
    _refuse_mid_operation(root, "roll back")
    current = _capture(root)
    if current.files == to.files:
        return None
    if to.head is not None and current.head is not None and not _is_ancestor(root, to.head, current.head):
        raise UserError(
            f"cannot roll back to {to.head[:12]}: it is not in the history of HEAD ({current.head[:12]}); "
            "the branch changed since, roll back by hand"
        )
    backup = save(root, current, why, now)
    _apply(root, to, f"tiergate: {why}")
    return backup


def _refuse_mid_operation(root: Path, doing: str) -> None:
    underway = git.operation_in_progress(root)
    if underway is not None:
        raise UserError(f"tiergate does not {doing} while {underway}")


def restore(root: Path, backup: Backup, now: float | None = None) -> Restored:
    """Put back the workspace `backup` saved: its files (tracked and untracked), its index and HEAD."""
    root = git.repo_root(root)
    _refuse_mid_operation(root, "restore a backup")
    target = workspace_of(root, backup.commit)
    current = _capture(root)
    if current == target:
        return Restored(backup, None, changed=False)
    if not _moves_forward(root, current.head, target.head):
        there = target.head[:12] if target.head else "no commit"
        raise UserError(
            f"HEAD ({(current.head or 'no commit')[:12]}) has moved off the history of backup {backup.name} "
            f"(HEAD {there}); to take its files anyway: git restore --source={backup.ref} --worktree -- ."
        )
    head_tree = tree_of(root, current.head)
    saved = None
    if current.files != head_tree or current.index != head_tree:
        saved = save(root, current, f"restoring {backup.name}", now)
    _apply(root, target, f"tiergate: restore {backup.name}")
    return Restored(backup, saved, changed=True)


def _moves_forward(root: Path, current: str | None, target: str | None) -> bool:
    if current is None or current == target:
        return True
    return target is not None and _is_ancestor(root, current, target)


def _apply(root: Path, to: Workspace, why: str) -> None:
    # Files first, through the index: read-tree removes what the index tracked and `to` lacks, and
    # overwrites what stands in the way (all of it saved by the caller); clean then removes the untracked
    # files `to` does not hold, ignored ones and nested repositories excepted.
    git.run(root, "read-tree", "-u", "--reset", "--no-recurse-submodules", to.files)
    git.run(root, "clean", "-f", "-d", "-q")
    head = git.head_sha(root)
    if to.head is not None and to.head != head:
        git.run(root, "update-ref", "-m", why, "HEAD", to.head)
    elif to.head is None and head is not None:
        git.run(root, "update-ref", "-m", why, "-d", "HEAD")
    if to.index != to.files:
        git.run(root, "read-tree", "--reset", to.index)
    # Stat information for the index, so that git status does not rehash every file; 1: some differ.
    git.run(root, "update-index", "-q", "--refresh", ok=(0, 1))


def _is_ancestor(root: Path, ancestor: str, descendant: str) -> bool:
    return git.run(root, "merge-base", "--is-ancestor", ancestor, descendant, ok=(0, 1)).returncode == 0


# -- git plumbing with a temporary index -----------------------------------------------------------------


@contextlib.contextmanager
def _temporary_index(root: Path) -> Iterator[Path]:
    """A copy of the index next to it (where a split index finds its shared part), removed afterwards."""
    real = Path(_text(git.run(root, "rev-parse", "--absolute-git-dir").stdout)) / "index"
    fd, name = tempfile.mkstemp(prefix="tiergate-index-", dir=real.parent)
    os.close(fd)
    copy = Path(name)
    try:
        if real.exists():
            # copy2 keeps the index's mtime, which git's racy-file check compares file mtimes with: a file
            # changed in the same second as the index was written, at the same size, is then rehashed
            # instead of being taken for unchanged.
            shutil.copy2(real, copy)
            # An edit the index flags as unchanged is work on disk all the same: it is saved.
            git.clear_flags(root, copy)
        else:
            copy.unlink()  # git starts an empty index where none exists; an empty file is not one
        yield copy
    finally:
        copy.unlink(missing_ok=True)


def _commit(root: Path, tree: str, parents: Sequence[str], message: str, when: float) -> str:
    date = f"{int(when)} +0000"
    env = {**_IDENTITY, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    args = ["commit-tree", "--no-gpg-sign", tree]
    for parent in parents:
        args += ["-p", parent]
    return _text(git.run(root, *args, stdin=message.encode(), env=env).stdout)


def _text(out: bytes) -> str:
    return os.fsdecode(out).strip()


def _summary(changed: Mapping[str, str]) -> str:
    if not changed:
        return "no change"
    counts = {"A": 0, "M": 0, "D": 0}
    for letter in changed.values():
        counts["M" if letter not in counts else letter] += 1
    words = (("A", "added"), ("M", "modified"), ("D", "deleted"))
    return ", ".join(f"{counts[k]} {word}" for k, word in words if counts[k])
