"""Workspace backups, and putting a saved workspace back (a rollback to the last green point, a restore).

Where backups live: in a bare git repository of tiergate's own, `<state dir>/backups.git` (the backup
store), never in the repository's refs, so that no push of the repository (`git push --mirror`
included) carries an untracked `credentials.json` along. The store is self-contained: a backup commit
holds every object it needs and none of the repository's history. Its tree is
  files/  the working tree, byte for byte as it was on disk (tracked and untracked files, and the ignored
          files that stood where the rollback's target puts something, see below),
  index/  what was staged (HEAD's files when the index had conflicts: the unmerged stages are not kept),
  head/   HEAD's files, for saying what the backup changed,
  empty-directories  the working tree's empty directories, one path each, NUL-terminated;
and HEAD at save time is a trailer of its message (`Tiergate-Head:`), not a parent, so that the store
never depends on the user's history staying. A ref `refs/backups/<name>` of the store keeps it, written
last. How files become objects and objects files again is `ondisk`'s: new files go into the store with
`git --git-dir=<store> hash-object -w --no-filters` (their absolute paths; the workspace's config and
attributes are never read), objects the repository already has (unchanged files, what was staged, HEAD's
tree) with `pack-objects | index-pack`, which checks each object as it arrives, and back the same way.

Rules that keep a rollback from losing work or changing anything else:
- `rollback` does nothing when the files already are those of the target: the criterion is whether the
  workspace is dirty, not how often something failed. Otherwise it saves a backup first, always: the
  backup's ref is written after all its objects, and only then is a file touched.
- HEAD only moves back along its own history, and `restore` only moves it forward again (to a commit the
  repository still has); anything else is refused with what to do instead.
- `restore` first saves the workspace as it is now, when it holds anything HEAD does not, so restoring is
  itself undoable with `tiergate restore`. It copies the objects it needs into the repository first.
- Bytes are exact: saved with no eol conversion, filter, ident or working-tree-encoding, whatever
  .gitattributes or the config say, and written back by tiergate itself from `cat-file --batch`, with the
  executable bit, and symlinks as symlinks, each through a temporary file renamed over the old one (a
  kill leaves the old file or the new one). Only files that differ from the target are written: a file
  nobody touched is not rewritten at all. Removals that would stand in a target file's way come first;
  the others after the target's files, so that an untracked file the target's .gitignore ignores stays.
  A commit's tree (the loop's start) holds git's normalized content rather than bytes on disk: a file
  counts as unchanged against it when git's own conversion of it gives the commit's blob, and the files
  written for it go through git's checkout conversion (eol, ident, encoding; never a filter driver), as
  `git checkout` would write them.
- Ignored files are never saved, removed or overwritten, except those in the way: an ignored file (or
  directory of them) at a path the target needs (a file there, a file where the target has a directory,
  a directory where it has a file) is saved in the backup before it is replaced. A file the agent
  untracked and ignored, which the target tracks, is one of them.
- Empty directories are recorded and come back with `restore`. A rollback makes the target's files and
  leaves empty directories alone, but for those in the way of a target file (saved with the backup): an
  empty directory is no work to undo, and may be something a tool expects.
- A skip-worktree (or assume-unchanged) file's on-disk content is what is saved, and it is rewritten
  like any other file. In a sparse checkout, a skip-worktree file absent from disk stays absent: it is
  saved as the index has it, not materialized, and keeps its flag. The flags are not restored otherwise.
- A nested repository (an untracked directory with its own `.git`) or a submodule is its own
  repository: its work tree is left alone, neither saved nor removed.

Backups from the old layout (commits under `refs/tiergate/backups/` in the repository, which a push can
publish) are still listed and restored; `tiergate backups --migrate` moves them into the store. A backup
that cannot be read is listed as such, never dropped silently.

Green points (`greenpoint`) are snapshots in the same store (`keep_snapshot`, `stored_workspace`), under
`refs/green/`; one of the old layout (a commit in the repository, `workspace_of`) is compared as a
commit's tree is.

Backups are named `<UTC time>-<short id>`, which sorts by age, and listed newest first.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tiergate.errors import UserError
from tiergate.frozen import frozen
from tiergate.git import objects, repository, runner
from tiergate.workspace import ondisk

if TYPE_CHECKING:
    from tiergate.project import Project

BACKUPS = "refs/tiergate/backups/"  # the old layout, in the repository's own refs
STORE_REFS = "refs/backups/"
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


@frozen
class Backup:
    name: str  # what `tiergate restore` takes
    commit: str
    head: str | None  # HEAD when it was saved
    created: float  # seconds since the epoch, as the commit says (whole seconds)
    reason: str  # the commit's subject
    legacy: bool = False  # in the repository's refs (the old layout), not in the store

    @property
    def ref(self) -> str:
        return (BACKUPS if self.legacy else STORE_REFS) + self.name


@frozen
class Inventory:
    backups: list[Backup]
    problems: list[str]  # backups (or a store) that could not be read, one line each


@frozen
class Restored:
    backup: Backup
    saved: Backup | None  # the workspace as it was before the restore, when it held anything new
    changed: bool  # False when the workspace already was the backup


def store_path(project: Project) -> Path:
    return project.state_dir / STORE_NAME


def store_of(project: Project, root: Path) -> Path:
    """The backup store of the repository at `root`, created (bare, in its object format) when there is
    none yet."""
    from tiergate.project import ensure_state_dir

    store = store_path(project)
    if (store / "HEAD").is_file():
        return store
    ensure_state_dir(project)
    fmt = ondisk.text(runner.run(root, "rev-parse", "--show-object-format").stdout) or "sha1"
    runner.run(project.state_dir, "init", "-q", "--bare", "--template=", f"--object-format={fmt}", str(store))
    return store


def tiergate_commit(cwd: Path, tree: str, message: str, when: float) -> str:
    """A parentless commit of `tree` in the repository at `cwd`, by tiergate (whoever the user is)."""
    return _commit(cwd, tree, (), message, when)


def workspace_of(root: Path, snapshot_commit: str) -> Workspace:
    """The workspace a snapshot commit in the repository holds."""
    out = ondisk.text(runner.run(root, "show", "-s", "--format=%T %P%n%B", snapshot_commit, "--").stdout)
    first, _, message = out.partition("\n")
    tree, *parents = first.split()
    head = parents[0] if len(parents) == 2 else None  # (HEAD, index)
    index = ondisk.text(runner.run(root, "rev-parse", "--verify", f"{parents[-1]}^{{tree}}").stdout)
    return Workspace(head, index, tree, exact="\nTiergate-Bytes: exact" in f"\n{message}")


def workspace_at(root: Path, rev: str | None) -> Workspace:
    """A commit as a workspace (HEAD there, index and files its tree); a tree or None: no commit yet."""
    resolved = objects.resolve_rev(root, rev) if rev else objects.empty_tree(root)
    kind = ondisk.text(runner.run(root, "cat-file", "-t", resolved).stdout)
    head = resolved if kind == "commit" else None
    tree = tree_of(root, head) if head else resolved
    return Workspace(head, tree, tree, exact=False)


def tree_of(root: Path, commit: str | None) -> str:
    """The tree of `commit` (the empty tree for None); kept for the process when `commit` is an id."""
    if commit is None:
        return objects.empty_tree(root)
    key = (str(root), commit)
    if key not in _trees:
        tree = ondisk.text(runner.run(root, "rev-parse", "--verify", f"{commit}^{{tree}}").stdout)
        if not objects.is_object_id(commit):
            return tree
        _trees[key] = tree
    return _trees[key]


_trees: dict[tuple[str, str], str] = {}


def read_ref(root: Path, ref: str, prefix: tuple[str, ...] = ()) -> str | None:
    """The commit `ref` points to, or None."""
    found = runner.run(root, *prefix, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", ok=(0, 1))
    return ondisk.text(found.stdout) or None if found.returncode == 0 else None


def delete_ref(root: Path, ref: str) -> bool:
    """Remove `ref`; False when there was none."""
    if read_ref(root, ref) is None:
        return False
    runner.run(root, "update-ref", "-d", ref)
    return True


def changes(root: Path, old_tree: str, new_tree: str) -> dict[str, str]:
    """Path -> git's status letter (A, M, D, T) between two trees of the repository at `root`."""
    return _changes(root, (), old_tree, new_tree)


def _changes(cwd: Path, prefix: tuple[str, ...], old_tree: str, new_tree: str) -> dict[str, str]:
    out = runner.run(
        cwd, *prefix, "diff-tree", "-r", "-z", "--no-renames", "--name-status", old_tree, new_tree
    )
    fields = [os.fsdecode(f) for f in out.stdout.split(b"\0") if f]
    return dict(zip(fields[1::2], fields[0::2], strict=True))


# -- saving a backup -------------------------------------------------------------------------------------


def save(project: Project, root: Path, disk: ondisk.Disk, why: str, now: float | None = None) -> Backup:
    """Save the scanned workspace `disk` as a backup in the store, every object it needs copied there
    first; its ref is written last (and never over another)."""
    store = store_of(project, root)
    when = time.time() if now is None else now
    subject = f"tiergate backup before {why}"
    body = f"Saved by tiergate before {why}.\nList: tiergate backups. Bring back: tiergate restore <name>."
    commit = _store_commit(root, store, disk, subject, body, when)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(when)) + f".{int(when * 1000) % 1000:03d}Z"
    name = f"{stamp}-{commit[:8]}"
    ondisk.run_in(store, "update-ref", "-m", subject, STORE_REFS + name, commit, "")
    return Backup(name, commit, disk.head, float(int(when)), subject)


def keep_snapshot(project: Project, ref: str, subject: str, body: str, now: float | None = None) -> str:
    """The workspace as it is now, kept in the store under `ref` (replacing what it held): a green
    point. Returns the snapshot's commit."""
    root = repository.repo_root(project.root)
    store = store_of(project, root)
    commit = _store_commit(root, store, ondisk.scan(root), subject, body, time.time() if now is None else now)
    ondisk.run_in(store, "update-ref", "-m", subject, ref, commit)
    return commit


def read_snapshot(project: Project, ref: str) -> str | None:
    """The commit the store's `ref` points to, or None (no store, no such ref)."""
    store = store_path(project)
    return read_ref(store, ref, (f"--git-dir={store}",)) if (store / "HEAD").is_file() else None


def _store_commit(root: Path, store: Path, disk: ondisk.Disk, subject: str, body: str, when: float) -> str:
    head_tree = tree_of(root, disk.head)
    ondisk.keep(root, disk, store)
    ondisk.copy_objects(ondisk.git_dir(root), store, [head_tree])
    files = ondisk.tree(store, disk.files)
    index = ondisk.tree(store, disk.index) if disk.index is not None else head_tree
    return _store_tree(store, files, index, head_tree, disk.empty_dirs, disk.head, subject, body, when, True)


def _store_tree(
    store: Path,
    files: str,
    index: str,
    head_tree: str,
    empty_dirs: Sequence[str],
    head: str | None,
    subject: str,
    body: str,
    when: float,
    exact: bool,
) -> str:
    """The store's commit of a workspace (see the module's docstring for its tree and trailers)."""
    listed = b"".join(os.fsencode(d) + b"\0" for d in empty_dirs)
    dirs = ondisk.text(ondisk.run_in(store, "hash-object", "-w", "--stdin", stdin=listed))
    listing = "".join(
        f"{mode} {kind} {oid}\t{name}\x00"
        for mode, kind, oid, name in (
            ("040000", "tree", files, "files"),
            ("040000", "tree", index, "index"),
            ("040000", "tree", head_tree, "head"),
            ("100644", "blob", dirs, "empty-directories"),
        )
    )
    tree = ondisk.text(ondisk.run_in(store, "mktree", "-z", stdin=listing.encode()))
    summary = _summary(_changes(store, (f"--git-dir={store}",), head_tree, files))
    shown = head[:12] if head else "no commit yet"
    message = (
        f"{subject}\n\n{body}\nThe working tree as it was on disk: {summary} against HEAD ({shown}).\n"
        "files/: the working tree; index/: what was staged; head/: HEAD's files; empty-directories.\n\n"
        f"Tiergate-Backup: {_FORMAT}\nTiergate-Head: {head or 'none'}\n"
        f"Tiergate-Bytes: {'exact' if exact else 'normalized'}\n"
    )
    return _commit(store, tree, (), message, when, prefix=(f"--git-dir={store}",))


# -- listing ---------------------------------------------------------------------------------------------


def inventory(project: Project, root: Path) -> Inventory:
    """Every backup (the store's and the old layout's), newest first, and what could not be read."""
    found: list[Backup] = []
    problems: list[str] = []
    store = store_path(project)
    if store.exists():
        try:
            found += _store_backups(store, problems)
        except UserError as exc:
            problems.append(f"the backup store {store} cannot be read: {exc}")
    try:
        found += _legacy_backups(root, problems)
    except UserError as exc:
        problems.append(f"the backups under {BACKUPS} cannot be read: {exc}")
    found.sort(key=lambda b: b.name, reverse=True)
    return Inventory(found, problems)


def list_backups(project: Project, root: Path) -> list[Backup]:
    return inventory(project, root).backups


def _refs(cwd: Path, prefix: tuple[str, ...], refs: str, problems: list[str]) -> list[tuple[str, str]]:
    proc = runner.run(cwd, *prefix, "for-each-ref", "--format=%(refname) %(objectname)", refs)
    for line in proc.stderr.decode(errors="replace").splitlines():
        if "broken ref" in line or "ignoring" in line:
            problems.append(f"unreadable backup: {line.strip().removeprefix('warning: ')}")
    pairs = [line.rpartition(" ") for line in os.fsdecode(proc.stdout).splitlines()]
    return [(ref, oid) for ref, _, oid in pairs]


def _store_backups(store: Path, problems: list[str]) -> list[Backup]:
    refs = _refs(store, (f"--git-dir={store}",), STORE_REFS, problems)
    if not refs:
        return []
    asks = "".join(f"{oid}\n{oid}:files\n{oid}:index\n{oid}:head\n" for _, oid in refs).encode()
    checks = ondisk.text(
        ondisk.run_in(store, "cat-file", "--batch-check=%(objecttype)", stdin=asks)
    ).splitlines()
    found = []
    for n, (ref, oid) in enumerate(refs):
        name = ref.removeprefix(STORE_REFS)
        if checks[4 * n : 4 * n + 4] != ["commit", "tree", "tree", "tree"]:
            problems.append(f"unreadable backup: {name} ({oid[:12]}): its objects are missing in {store}")
            continue
        found.append(_read_store_commit(store, name, oid))
    return found


def _read_store_commit(store: Path, name: str, commit: str) -> Backup:
    fields = "%ct%x00%s%x00%(trailers:key=Tiergate-Head,valueonly,separator=)"
    out = ondisk.text(ondisk.run_in(store, "show", "-s", f"--format={fields}", commit, "--"))
    created, subject, head = [*out.split("\0"), "", ""][:3]
    head = head.strip()
    return Backup(name, commit, None if head in ("", "none") else head, float(created or 0), subject)


def _legacy_backups(root: Path, problems: list[str]) -> list[Backup]:
    found = []
    for ref, commit in _refs(root, (), BACKUPS, problems):
        name = ref.removeprefix(BACKUPS)
        proc = runner.run(root, "show", "-s", "--format=%P%x00%ct%x00%s", commit, "--", ok=(0, 128))
        if proc.returncode != 0:
            problems.append(f"unreadable backup: {name} ({commit[:12]}), in the repository's refs")
            continue
        parents, created, subject = ondisk.text(proc.stdout).split("\0")
        ids = parents.split()
        head = ids[0] if len(ids) == 2 else None  # (HEAD, index)
        found.append(Backup(name, commit, head, float(created or 0), subject, legacy=True))
    return found


def find(project: Project, root: Path, name: str) -> Backup:
    """The backup `name` names: its name, its ref, or a prefix of its name that only it has."""
    backups = list_backups(project, root)
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


def describe_changes(project: Project, root: Path, backup: Backup) -> dict[str, str]:
    """How the backup's files differ from HEAD's when it was saved (path -> A, M, D, T)."""
    if backup.legacy:
        return changes(root, tree_of(root, backup.head), tree_of(root, backup.commit))
    store = store_path(project)
    return _changes(store, (f"--git-dir={store}",), f"{backup.commit}:head", f"{backup.commit}:files")


def migrate(project: Project, root: Path) -> list[tuple[Backup, Backup | str]]:
    """Move every backup of the old layout into the store: (old, new) pairs, or (old, why not). The old
    ref is deleted only once the store holds the backup whole; one that cannot be read stays."""
    moved: list[tuple[Backup, Backup | str]] = []
    for old in [b for b in list_backups(project, root) if b.legacy]:
        try:
            store = store_of(project, root)
            held = workspace_of(root, old.commit)
            head_tree = tree_of(root, held.head)
            ondisk.copy_objects(ondisk.git_dir(root), store, (held.files, held.index, head_tree))
        except UserError as exc:
            moved.append((old, str(exc)))
            continue
        body = (
            "Moved by tiergate from the repository's refs ("
            + old.ref
            + ").\nBring back: tiergate restore <name>."
        )
        commit = _store_tree(
            store, held.files, held.index, head_tree, (), old.head, old.reason, body, old.created, False
        )
        ondisk.run_in(store, "update-ref", "-m", old.reason, STORE_REFS + old.name, commit, "")
        new = Backup(old.name, commit, old.head, old.created, old.reason)
        runner.run(root, "update-ref", "-d", old.ref, old.commit)
        moved.append((old, new))
    return moved


# -- putting a workspace back ----------------------------------------------------------------------------


def rollback(project: Project, to: Workspace, why: str, now: float | None = None) -> Backup | None:
    """Make the workspace `to` (HEAD, index and files, its objects in the repository), after saving it
    as a backup. Returns the backup, or None when the files already are `to`'s: then nothing is done."""
    root = repository.repo_root(project.root)
    _refuse_mid_operation(root, "roll back")
    target = ondisk.entries(ondisk.git_dir(root), to.files)
    current = ondisk.scan(root, target)
    plan = ondisk.plan(root, current, target, to.exact)
    if not any(plan):
        return None
    if to.head is not None and current.head is not None and not _is_ancestor(root, to.head, current.head):
        raise UserError(
            f"cannot roll back to {to.head[:12]}: it is not in the history of HEAD ({current.head[:12]}); "
            "the branch changed since, roll back by hand"
        )
    backup = save(project, root, current, why, now)
    _apply(root, current, to, plan, f"tiergate: {why}")
    return backup


def differs(root: Path, to: Workspace) -> bool:
    """Whether a rollback to `to` would change any file."""
    top = repository.repo_root(root)
    target = ondisk.entries(ondisk.git_dir(top), to.files)
    return any(ondisk.plan(top, ondisk.scan(top, target), target, to.exact))


def _refuse_mid_operation(root: Path, doing: str) -> None:
    underway = repository.operation_in_progress(root)
    if underway is not None:
        raise UserError(f"tiergate does not {doing} while {underway}")


def restore(project: Project, backup: Backup, now: float | None = None) -> Restored:
    """Put back the workspace `backup` saved: its files (tracked and untracked, byte for byte), its
    empty directories, its index and HEAD."""
    root = repository.repo_root(project.root)
    _refuse_mid_operation(root, "restore a backup")
    target = _target_of(project, root, backup)
    if target.head is not None and not _has_commit(root, target.head):
        raise UserError(
            f"backup {backup.name} was saved on HEAD {target.head[:12]}, which the repository no longer has; "
            f"its files are in {store_path(project)} ({backup.commit[:12]}:files)"
        )
    entries = ondisk.entries(ondisk.git_dir(root), target.files)
    current = ondisk.scan(root, entries)
    plan = ondisk.plan(root, current, entries, target.exact)
    missing_dirs = [d for d in target.empty_dirs if not (root / d).is_dir()]
    index_same = current.index is not None and current.index == ondisk.entries(
        ondisk.git_dir(root), target.index
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
    head_entries = ondisk.entries(ondisk.git_dir(root), tree_of(root, current.head))
    if current.index != head_entries or any(ondisk.plan(root, current, head_entries, exact=False)):
        saved = save(project, root, current, f"restoring {backup.name}", now)
    _apply(root, current, target, plan, f"tiergate: restore {backup.name}")
    return Restored(backup, saved, changed=True)


def _target_of(project: Project, root: Path, backup: Backup) -> Workspace:
    """The workspace `backup` holds, its objects copied into the repository."""
    if backup.legacy:
        return workspace_of(root, backup.commit)
    return stored_workspace(project, root, backup.commit, f"backup {backup.name}")


def stored_workspace(project: Project, root: Path, commit: str, what: str) -> Workspace:
    """The workspace the store's `commit` holds (a backup, a green point), its objects copied into the
    repository at `root`."""
    store = store_path(project)
    try:
        listing = ondisk.text(ondisk.run_in(store, "ls-tree", "-z", commit)).split("\0")
        ids = {entry.split("\t")[1]: entry.split("\t")[0].split(" ")[2] for entry in listing if entry}
        message = ondisk.text(ondisk.run_in(store, "show", "-s", "--format=%B", commit, "--"))
        ondisk.copy_objects(store, ondisk.git_dir(root), (ids["files"], ids["index"]))
        dirs = ondisk.run_in(store, "cat-file", "blob", ids["empty-directories"])
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
    target = ondisk.entries(ondisk.git_dir(root), to.files)
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


def _commit(
    cwd: Path, tree: str, parents: Sequence[str], message: str, when: float, prefix: tuple[str, ...] = ()
) -> str:
    date = f"{int(when)} +0000"
    env = {**_IDENTITY, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    args = [*prefix, "commit-tree", "--no-gpg-sign", tree]
    for parent in parents:
        args += ["-p", parent]
    return ondisk.text(runner.run(cwd, *args, stdin=message.encode(), env=env).stdout)


def _summary(changed: Mapping[str, str]) -> str:
    if not changed:
        return "no change"
    counts = {"A": 0, "M": 0, "D": 0}
    for letter in changed.values():
        counts["M" if letter not in counts else letter] += 1
    words = (("A", "added"), ("M", "modified"), ("D", "deleted"))
    return ", ".join(f"{counts[k]} {word}" for k, word in words if counts[k])
