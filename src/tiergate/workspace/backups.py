"""Backups: the workspace saved in tiergate's store before anything rewrites it, listed, found and moved.

A backup is a snapshot (`snapshots`) under `refs/backups/<name>` of the store, named `<UTC time>-<short
id>` (sorting by age), listed newest first; its ref is written last. An unreadable one is listed as such,
never dropped. `migrate` moves the old layout's into the store. See docs/state.md, "Backups and rollbacks".
"""
# The old layout: commits under `refs/tiergate/backups/` in the repository, which a push can publish; they
# are still listed and restored.

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tiergate.errors import UserError
from tiergate.frozen import frozen
from tiergate.git import objectstore, repository, runner
from tiergate.workspace import ondisk, snapshots

if TYPE_CHECKING:
    from tiergate.project import Project


BACKUPS = "refs/tiergate/backups/"  # the old layout, in the repository's own refs


STORE_REFS = "refs/backups/"


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


def save(project: Project, root: Path, disk: ondisk.Disk, why: str, now: float | None = None) -> Backup:
    """Save the scanned workspace `disk` as a backup in the store, every object it needs copied there
    first; its ref is written last (and never over another)."""
    store = snapshots.store_of(project, root)
    when = time.time() if now is None else now
    subject = f"tiergate backup before {why}"
    body = f"Saved by tiergate before {why}.\nList: tiergate backups. Bring back: tiergate restore <name>."
    commit = snapshots.store_commit(root, store, disk, subject, body, when)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(when)) + f".{int(when * 1000) % 1000:03d}Z"
    name = f"{stamp}-{commit[:8]}"
    objectstore.run_in(store, "update-ref", "-m", subject, STORE_REFS + name, commit, "")
    return Backup(name, commit, disk.head, float(int(when)), subject)


def inventory(project: Project, root: Path) -> Inventory:
    """Every backup (the store's and the old layout's), newest first, and what could not be read."""
    found: list[Backup] = []
    problems: list[str] = []
    store = snapshots.store_path(project)
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
    checks = runner.text(
        objectstore.run_in(store, "cat-file", "--batch-check=%(objecttype)", stdin=asks)
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
    out = runner.text(objectstore.run_in(store, "show", "-s", f"--format={fields}", commit, "--")).strip()
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
        parents, created, subject = runner.text(proc.stdout).strip().split("\0")
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
        return snapshots.changes(
            root, snapshots.tree_of(root, backup.head), snapshots.tree_of(root, backup.commit)
        )
    store = snapshots.store_path(project)
    return snapshots.changes(
        store, f"{backup.commit}:head", f"{backup.commit}:files", (f"--git-dir={store}",)
    )


def migrate(project: Project, root: Path) -> list[tuple[Backup, Backup | str]]:
    """Move every backup of the old layout into the store: (old, new) pairs, or (old, why not). The old
    ref is deleted only once the store holds the backup whole; one that cannot be read stays."""
    moved: list[tuple[Backup, Backup | str]] = []
    for old in [b for b in list_backups(project, root) if b.legacy]:
        try:
            store = snapshots.store_of(project, root)
            held = snapshots.workspace_of(root, old.commit)
            head_tree = snapshots.tree_of(root, held.head)
            objectstore.copy_objects(repository.git_dir(root), store, (held.files, held.index, head_tree))
        except UserError as exc:
            moved.append((old, str(exc)))
            continue
        body = (
            "Moved by tiergate from the repository's refs ("
            + old.ref
            + ").\nBring back: tiergate restore <name>."
        )
        moving = snapshots.Workspace(old.head, held.index, held.files, (), exact=False)
        commit = snapshots.store_tree(store, moving, head_tree, old.reason, body, old.created)
        objectstore.run_in(store, "update-ref", "-m", old.reason, STORE_REFS + old.name, commit, "")
        new = Backup(old.name, commit, old.head, old.created, old.reason)
        runner.run(root, "update-ref", "-d", old.ref, old.commit)
        moved.append((old, new))
    return moved
