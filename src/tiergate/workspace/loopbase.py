"""The loop's base: the workspace a loop began on, kept as a commit when it was not its base commit.

A loop started on a dirty tree measures from it (`change_base`), never counting the user's uncommitted
work as its own. A parentless commit of tiergate's, sealed in the loop's state, kept in the repository
and the store (`refs/start/<loop>`), copied back when pruned. See docs/ARCHITECTURE.md, "The loop's base".
"""
# Measured from it: the tier, the checks, the verifier's evidence and the gate's baseline.

from __future__ import annotations

import time

from tiergate import TYPE_CHECKING
from tiergate.errors import UserError
from tiergate.git import changes, indexcopy, objects, repository, runner

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from tiergate.project import Project

START = "refs/start/"  # in the store
PENDING = "pending"  # the name of a loop started from a shell, before a session takes it


def take(
    project: Project,
    name: str,
    base: str | None,
    now: float | None = None,
    differing: tuple[Sequence[str], Sequence[str]] | None = None,
) -> str | None:
    """The workspace as it is now, as the start commit of the loop `name`, when its files differ from
    `base` (a commit; None: no commit yet); None when they do not (a clean start measures from `base`).
    `differing`: the changed and untracked paths from `base`, when the caller has just asked git."""
    from tiergate.git import objectstore
    from tiergate.workspace import snapshots  # not at every Stop's `change_base`: only here

    root = repository.repo_root(project.root)
    since = base or objects.empty_tree(root)
    tree = changes.workspace_tree(root, since, differing)
    if tree is None or tree == snapshots.tree_of(root, base):
        return None  # (the same tree: only a file's timestamps differed)
    message = (
        f"tiergate: the workspace loop {name} began on\n\nThe files as they were when the loop started "
        f"on {base or 'no commit'}, uncommitted and untracked ones included: the loop's change is "
        "measured from them.\n"
    )
    commit = snapshots.tiergate_commit(root, tree, message, time.time() if now is None else now)
    store = snapshots.store_of(project, root, commit)
    # Parentless: the commit, its tree and all that holds, in one pack.
    objectstore.copy_objects(repository.git_dir(root), store, [commit])
    objectstore.run_in(store, "update-ref", "-m", "loop start", START + name, commit)
    return commit


def judging(began: float) -> None:
    """This process measures the change of the loop that began at `began` (`LoopState.started_at`): a
    file the index records as written since is read again from disk, whatever blob id the index holds for
    it (`indexcopy.read_again_since`: the agent's `git add` made that id). Before any measurement."""
    indexcopy.read_again_since(began)


def change_base(project: Project, start: str | None, base: str | None) -> str | None:
    """What a loop's change is measured from: its start commit `start`, its objects in the repository
    (copied again from the store when something removed them), else its base commit `base`."""
    if start is None:
        return base
    measure_from_start(start)
    if not start_present(project, start):
        restore(project, repository.repo_root(project.root), start)
    return start


def measure_from_start(start: str) -> None:
    """This process measures from the start commit `start` as from a workspace (its paths the index
    lacks compared with the disk: `indexcopy.measure_from_workspace`)."""
    indexcopy.measure_from_workspace(start)


def start_present(project: Project, start: str) -> bool:
    """Whether the start commit `start` and its objects are in the repository: a change can be measured
    from it as it is, without copying anything back (`change_base` would)."""
    root = repository.repo_root(project.root)
    return runner.run(root, "cat-file", "-e", f"{start}^{{commit}}", ok=(0, 1, 128)).returncode == 0


def fingerprint_base(project: Project, start: str | None, base: str | None) -> str | None:
    """`change_base` for a fingerprint, which must always be taken: when the start cannot be copied
    back, the base commit. A fingerprint from another base differs from those taken before, so the
    workspace reads as changed, never as untouched."""
    try:
        return change_base(project, start, base)
    except UserError:
        return base


def restore(project: Project, root: Path, commit: str) -> None:
    """Copy the start commit `commit` and its files back from the store into the repository at `root`."""
    from tiergate.git import objectstore
    from tiergate.workspace import snapshots

    store = snapshots.store_path(project)
    try:
        tree = runner.text(objectstore.run_in(store, "rev-parse", "--verify", f"{commit}^{{tree}}"))
        objectstore.copy_objects(store, repository.git_dir(root), [tree])
        objectstore.copy_ids(store, repository.git_dir(root), [commit])
    except UserError as exc:
        raise UserError(
            f"the workspace the loop began on ({commit[:12]}) is gone from the repository and from "
            f"{store}: {exc}"
        ) from None
