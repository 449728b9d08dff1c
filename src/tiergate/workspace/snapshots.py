"""A workspace as git objects, and tiergate's store that keeps them: the backups and green points.

The store is a bare repository of tiergate's own in the state folder (`<state dir>/backups.git`), never
the repository's refs, so that no push publishes an untracked file; it is self-contained. A workspace is
kept there as one parentless commit of its files byte for byte, what was staged, HEAD's files and its
empty directories. See docs/state.md, section "How a workspace is kept".
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tiergate.errors import UserError
from tiergate.frozen import frozen
from tiergate.git import objects, objectstore, repository, runner
from tiergate.workspace import ondisk

if TYPE_CHECKING:
    from tiergate.project import Project


STORE_NAME = "backups.git"


_FORMAT = "2"


# Snapshots are tiergate's commits, whoever the user is (and whether or not git knows who that is).
_IDENTITY = {
    "GIT_AUTHOR_NAME": "tiergate",
    "GIT_AUTHOR_EMAIL": "tiergate@localhost",
    "GIT_COMMITTER_NAME": "tiergate",
    "GIT_COMMITTER_EMAIL": "tiergate@localhost",
}


@frozen
class Workspace:
    """A workspace as git objects: where HEAD points, the index's tree, the working tree's tree."""

    head: str | None  # None: no commit yet
    index: str
    files: str
    empty_dirs: tuple[str, ...] = ()
    exact: bool = True  # files holds the bytes on disk; False: git's normalized content (a commit's tree)


def store_path(project: Project) -> Path:
    return project.state_dir / STORE_NAME


def store_of(project: Project, root: Path, known: str | None = None) -> Path:
    """The backup store of the repository at `root`, created (bare, in its object format: that of the
    object id `known` when given, else git's answer) when there is none yet."""
    from tiergate.project import ensure_state_dir

    store = store_path(project)
    if (store / "HEAD").is_file():
        return store
    ensure_state_dir(project)
    if known is not None and objects.is_object_id(known):
        fmt = "sha256" if len(known) == 64 else "sha1"
    else:
        fmt = runner.text(runner.run(root, "rev-parse", "--show-object-format").stdout) or "sha1"
    runner.run(project.state_dir, "init", "-q", "--bare", "--template=", f"--object-format={fmt}", str(store))
    return store


def tiergate_commit(cwd: Path, tree: str, message: str, when: float) -> str:
    """A parentless commit of `tree` in the repository at `cwd`, by tiergate (whoever the user is)."""
    return _commit(cwd, tree, (), message, when)


def keep_snapshot(project: Project, ref: str, subject: str, body: str, now: float | None = None) -> str:
    """The workspace as it is now, kept in the store under `ref` (replacing what it held): a green
    point. Returns the snapshot's commit."""
    root = repository.repo_root(project.root)
    store = store_of(project, root)
    commit = store_commit(root, store, ondisk.scan(root), subject, body, time.time() if now is None else now)
    objectstore.run_in(store, "update-ref", "-m", subject, ref, commit)
    return commit


def read_snapshot(project: Project, ref: str) -> str | None:
    """The commit the store's `ref` points to, or None (no store, no such ref)."""
    store = store_path(project)
    return read_ref(store, ref, (f"--git-dir={store}",)) if (store / "HEAD").is_file() else None


def stored_workspace(project: Project, root: Path, commit: str, what: str) -> Workspace:
    """The workspace the store's `commit` holds (a backup, a green point), its objects copied into the
    repository at `root`."""
    store = store_path(project)
    try:
        listing = runner.text(objectstore.run_in(store, "ls-tree", "-z", commit)).split("\0")
        ids = {entry.split("\t")[1]: entry.split("\t")[0].split(" ")[2] for entry in listing if entry}
        message = runner.text(objectstore.run_in(store, "show", "-s", "--format=%B", commit, "--")).strip()
        objectstore.copy_objects(store, repository.git_dir(root), (ids["files"], ids["index"]))
        dirs = objectstore.run_in(store, "cat-file", "blob", ids["empty-directories"])
    except (KeyError, UserError) as exc:
        raise UserError(f"{what} cannot be read from {store}: {exc}") from exc
    head = next(
        (line.split(": ", 1)[1] for line in message.splitlines() if line.startswith("Tiergate-Head: ")), ""
    )
    return Workspace(
        None if head in ("", "none") else head,
        ids["index"],
        ids["files"],
        tuple(os.fsdecode(d) for d in dirs.split(b"\0") if d),
        exact="\nTiergate-Bytes: exact" in f"\n{message}",
    )


def store_commit(root: Path, store: Path, disk: ondisk.Disk, subject: str, body: str, when: float) -> str:
    """The scanned workspace `disk` of the repository at `root` as the store's commit, every object it
    needs copied there first."""
    head_tree = tree_of(root, disk.head)
    # HEAD's tree travels in the same pack as the workspace's blobs.
    ondisk.keep(root, disk, store, objectstore.objects_of(repository.git_dir(root), [head_tree]))
    files = objectstore.write_tree(store, disk.files)
    index = objectstore.write_tree(store, disk.index) if disk.index is not None else head_tree
    held = Workspace(disk.head, index, files, disk.empty_dirs, exact=True)
    return store_tree(store, held, head_tree, subject, body, when)


def store_tree(store: Path, held: Workspace, head_tree: str, subject: str, body: str, when: float) -> str:
    """The store's commit of the workspace `held`, whose objects it holds, on HEAD's tree `head_tree`
    (its tree and trailers: docs/state.md)."""
    files, index, head, exact = held.files, held.index, held.head, held.exact
    listed = b"".join(os.fsencode(d) + b"\0" for d in held.empty_dirs)
    dirs = runner.text(objectstore.run_in(store, "hash-object", "-w", "--stdin", stdin=listed))
    listing = "".join(
        f"{mode} {kind} {oid}\t{name}\x00"
        for mode, kind, oid, name in (
            ("040000", "tree", files, "files"),
            ("040000", "tree", index, "index"),
            ("040000", "tree", head_tree, "head"),
            ("100644", "blob", dirs, "empty-directories"),
        )
    )
    tree = runner.text(objectstore.run_in(store, "mktree", "-z", stdin=listing.encode()))
    summary = _summary(changes(store, head_tree, files, (f"--git-dir={store}",)))
    shown = head[:12] if head else "no commit yet"
    message = (
        f"{subject}\n\n{body}\nThe working tree as it was on disk: {summary} against HEAD ({shown}).\n"
        "files/: the working tree; index/: what was staged; head/: HEAD's files; empty-directories.\n\n"
        f"Tiergate-Backup: {_FORMAT}\nTiergate-Head: {head or 'none'}\n"
        f"Tiergate-Bytes: {'exact' if exact else 'normalized'}\n"
    )
    return _commit(store, tree, (), message, when, prefix=(f"--git-dir={store}",))


def workspace_of(root: Path, snapshot_commit: str) -> Workspace:
    """The workspace a snapshot commit in the repository holds."""
    out = runner.text(
        runner.run(root, "show", "-s", "--format=%T %P%n%B", snapshot_commit, "--").stdout
    ).strip()
    first, _, message = out.partition("\n")
    tree, *parents = first.split()
    head = parents[0] if len(parents) == 2 else None  # (HEAD, index)
    index = runner.text(runner.run(root, "rev-parse", "--verify", f"{parents[-1]}^{{tree}}").stdout)
    return Workspace(head, index, tree, exact="\nTiergate-Bytes: exact" in f"\n{message}")


def workspace_at(root: Path, rev: str | None) -> Workspace:
    """A commit as a workspace (HEAD there, index and files its tree); a tree or None: no commit yet."""
    resolved = objects.resolve_rev(root, rev) if rev else objects.empty_tree(root)
    kind = runner.text(runner.run(root, "cat-file", "-t", resolved).stdout)
    head = resolved if kind == "commit" else None
    tree = tree_of(root, head) if head else resolved
    return Workspace(head, tree, tree, exact=False)


def tree_of(root: Path, commit: str | None) -> str:
    """The tree of `commit` (the empty tree for None); kept for the process when `commit` is an id."""
    if commit is None:
        return objects.empty_tree(root)
    key = (str(root), commit)
    if key not in _trees:
        tree = runner.text(runner.run(root, "rev-parse", "--verify", f"{commit}^{{tree}}").stdout)
        if not objects.is_object_id(commit):
            return tree
        _trees[key] = tree
    return _trees[key]


_trees: dict[tuple[str, str], str] = {}


def read_ref(root: Path, ref: str, prefix: tuple[str, ...] = ()) -> str | None:
    """The commit `ref` points to, or None."""
    found = runner.run(root, *prefix, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", ok=(0, 1))
    return runner.text(found.stdout) or None if found.returncode == 0 else None


def delete_ref(root: Path, ref: str) -> bool:
    """Remove `ref`; False when there was none."""
    if read_ref(root, ref) is None:
        return False
    runner.run(root, "update-ref", "-d", ref)
    return True


def changes(cwd: Path, old_tree: str, new_tree: str, prefix: tuple[str, ...] = ()) -> dict[str, str]:
    """Path -> git's status letter (A, M, D, T) between two trees of the repository at `cwd` (the store
    with `prefix` `--git-dir=<store>`)."""
    out = runner.run(
        cwd, *prefix, "diff-tree", "-r", "-z", "--no-renames", "--name-status", old_tree, new_tree
    )
    fields = [os.fsdecode(f) for f in out.stdout.split(b"\0") if f]
    return dict(zip(fields[1::2], fields[0::2], strict=True))


def _commit(
    cwd: Path, tree: str, parents: Sequence[str], message: str, when: float, prefix: tuple[str, ...] = ()
) -> str:
    date = f"{int(when)} +0000"
    env = {**_IDENTITY, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    args = [*prefix, "commit-tree", "--no-gpg-sign", tree]
    for parent in parents:
        args += ["-p", parent]
    return runner.text(runner.run(cwd, *args, stdin=message.encode(), env=env).stdout)


def _summary(changed: Mapping[str, str]) -> str:
    if not changed:
        return "no change"
    counts = {"A": 0, "M": 0, "D": 0}
    for letter in changed.values():
        counts["M" if letter not in counts else letter] += 1
    words = (("A", "added"), ("M", "modified"), ("D", "deleted"))
    return ", ".join(f"{counts[k]} {word}" for k, word in words if counts[k])
