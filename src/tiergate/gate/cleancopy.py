"""The claim's copy: where the gate runs a claim's checks, the way a benchmark's harness evaluates a patch.

A scratch worktree holding the loop's base commit with the change put in, written byte for byte from a
tree of the workspace (`tiergate.git.rawtree`): what the change and the base put there and nothing else.
No bytecode, cache, build metadata or tool state the agent left in ignored folders; no attribute, filter or
encoding of the repository's rewrites a file on the way; a symlink into an ignored folder or out of the
repository is resolved into the copy (and named). Python reads and writes bytecode only in a folder of
the copy's own. The folders of installed packages (a virtualenv, node_modules) are linked in as they are: the
environment is judged apart, against the loop's start. See docs/judging.md, "The claim's copy".
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path

from tiergate import foreign
from tiergate.frozen import frozen
from tiergate.gate import bytecode
from tiergate.gate.baseline import worktree
from tiergate.gate.environment.places import is_environment
from tiergate.gate.request import Seed
from tiergate.git import changes, rawtree, repository, runner, untracked
from tiergate.tier.change import work_paths


@frozen
class Copy:
    """A copy to run checks in: `cwd` the project's folder in it; `env` what every check run there adds to
    its environment; `resolved` the symlinks resolved into it (`tiergate.git.rawtree.RawTree.resolved`)."""

    cwd: Path
    env: dict[str, str]
    resolved: tuple[str, ...] = ()


def change_paths(top: Path, commit: str, exclusions: foreign.Exclusions = foreign.DEFAULT) -> list[str]:
    """The repository-relative paths the change from `commit` holds: tracked ones that differ (a deletion
    too), and the untracked work that is no other tool's state."""
    found = untracked.untracked_files(top, commit)
    return [*changes.changed_paths(top, commit), *sorted(work_paths(top, found, exclusions))]


@contextlib.contextmanager
def claim_copy(
    root: Path,
    commit: str,
    exclusions: foreign.Exclusions = foreign.DEFAULT,
    *,
    seed: Seed | None = None,
) -> Iterator[Copy]:
    """The copy of the workspace holding the project folder `root`, from the base `commit`; removed on
    exit. `seed`: the bytecode its checks start with (`tiergate.gate.bytecode`; None: none)."""
    top = repository.repo_root(root)
    raw = rawtree.workspace_tree(top, commit, change_paths(top, commit, exclusions))
    with written(root, raw.tree, prefix="claim", seed=seed) as copy:
        yield Copy(copy.cwd, copy.env, raw.resolved)


@contextlib.contextmanager
def written(
    root: Path,
    tree: str,
    *,
    prefix: str = "copy",
    seed: Seed | None = None,
    pycache: str | None = None,
) -> Iterator[Copy]:
    """A scratch worktree of the repository holding `root`, written from `tree` byte for byte, its index
    that tree (git in it sees nothing changed); the environments of the workspace linked in. Its checks'
    bytecode folder: `pycache` (another copy's, of the same claim), else one of its own from `seed`."""
    top = repository.repo_root(root)
    inside = root.resolve().relative_to(top.resolve())
    with worktree(top, repository.head_sha(top) or tree, checkout=False, prefix=prefix) as scratch:
        rawtree.write_tree(top, tree, scratch)
        runner.run(scratch, "read-tree", tree)
        cwd = scratch / inside
        cwd.mkdir(parents=True, exist_ok=True)
        links = link_environments(((top, scratch), (root, cwd)))
        # Python's bytecode goes to a folder of the claim's own (`tiergate.gate.bytecode`): none planted
        # beside a source is read, and the checks' processes share what they compile (an empty variable
        # lets them write it there, whatever the user's says).
        if pycache is None:
            pycache = str(scratch.parent / "pycache")
            bytecode.seeded(pycache, seed)
        env = {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": pycache}
        try:
            yield Copy(cwd, env)
        finally:
            # Unlinked first, so that removing the worktree can never reach into what they point at.
            for link in links:
                link.unlink(missing_ok=True)


def links_out(root: Path, commit: str, paths: Sequence[str]) -> tuple[str, ...]:
    """The symlinks among the change's `paths` that reach out of the tree the claim's copy is written
    from (`tiergate.git.rawtree.leaves_tree`), each with its target: the copy resolves them, so what
    they reach was in no change. Their names only: a reason for the verifier to read them."""
    top = repository.repo_root(root)
    links = {}
    for path in paths:
        with contextlib.suppress(OSError):
            if (top / path).is_symlink():
                links[path] = str((top / path).readlink())
    if not links:
        return ()
    files = rawtree.tree_files(top, commit) | set(paths)
    return tuple(f"{p} -> {t}" for p, t in links.items() if rawtree.leaves_tree(p, t, files - {p}))


def link_environments(pairs: Sequence[tuple[Path, Path]]) -> list[Path]:
    """Links in each copy folder to the environment folders of its workspace folder; the links made."""
    links = []
    for folder, copy in pairs:
        for entry in _environments(folder):
            link = copy / entry.name
            if not link.exists() and not link.is_symlink():
                link.symlink_to(entry, target_is_directory=True)
                links.append(link)
    return links


def _environments(folder: Path) -> list[Path]:
    try:
        entries = list(folder.iterdir())
    except OSError:
        return []
    return [entry for entry in entries if entry.is_dir() and is_environment(entry.name, str(entry))]
