"""The claim's copy: where the gate runs a claim's checks, the way a benchmark's harness evaluates a patch.

A scratch worktree of the base commit with the change put in, written byte for byte from a tree of the
workspace (`tiergate.git.rawtree`): nothing the agent left in ignored folders, no attribute or filter
applied, a symlink out of it resolved in (and named); bytecode in a folder of its own; installed packages
(a virtualenv, node_modules) linked in, judged apart. See docs/judging.md, "The claim's copy".
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from tiergate import foreign
from tiergate.frozen import frozen
from tiergate.gate import bytecode, imported, ownfiles, sandbox, untouched
from tiergate.gate.baseline import link_environments, worktree
from tiergate.gate.request import RunStart, Seed
from tiergate.gate.runnerbounds import EMPTY, pytest_bounds
from tiergate.git import changes, rawtree, repository, runner, untracked
from tiergate.text import listed
from tiergate.tier.change import work_paths
from tiergate.tier.testnames import names_test_infrastructure


@frozen
class Copy:
    """A copy to run checks in: `cwd` the project's folder in it; `env` what every check run there adds to
    its environment; `resolved` the symlinks resolved into it (`tiergate.git.rawtree.RawTree.resolved`)."""

    cwd: Path
    env: dict[str, str]
    resolved: tuple[str, ...] = ()
    top: Path | None = None  # its worktree's top
    written: untouched.Snapshot | None = None  # its files as tiergate left them, links included
    watch: imported.Watch | None = None  # what its checks read their code from


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
    own_network: bool = False,
) -> Iterator[Copy]:
    """The copy of the workspace holding the project folder `root`, from the base `commit`; removed on
    exit. `seed`: the bytecode its checks start with (`tiergate.gate.bytecode`; None: none).
    `own_network`: its checks get a network of their own (`tiergate.gate.sandbox`)."""
    top = repository.repo_root(root)
    raw = rawtree.workspace_tree(top, commit, change_paths(top, commit, exclusions))
    with written(root, raw.tree, prefix="claim", seed=seed, own_network=own_network) as copy:
        yield replace(copy, resolved=raw.resolved)


@contextlib.contextmanager
def written(
    root: Path,
    tree: str,
    *,
    prefix: str = "copy",
    seed: Seed | None = None,
    pycache: str | None = None,
    own_network: bool = False,
) -> Iterator[Copy]:
    """A scratch worktree of the repository holding `root`, written from `tree` byte for byte, its index
    that tree (git in it sees nothing changed); the environments of the workspace linked in. Its checks'
    bytecode folder: `pycache` (another copy's, of the same claim), else one of its own from `seed`
    (the environment's record, which also names the editable installs its watch stands in for)."""
    top = repository.repo_root(root)
    inside = root.resolve().relative_to(top.resolve())
    with worktree(top, repository.head_sha(top) or tree, checkout=False, prefix=prefix) as scratch:
        stamps = rawtree.write_tree(top, tree, scratch)
        runner.run(scratch, "read-tree", tree)
        cwd = scratch / inside
        cwd.mkdir(parents=True, exist_ok=True)
        links = link_environments(((top, scratch), (root, cwd)))
        # Python's bytecode goes to a folder of the claim's own (`tiergate.gate.bytecode`): none planted
        # beside a source is read. The checks write none there: what a process left running could plant
        # in it is then told apart (`tiergate.gate.imported`), a `.pyc` none of them wrote.
        if pycache is None:
            pycache = str(scratch.parent / "pycache")
            bytecode.seeded(pycache, seed)
        isolated = own_network and sandbox.unavailable() is None
        watch = imported.Watch(scratch.parent, _bounds(scratch, top, seed), seed, isolated=isolated)
        env = {
            **watch.env(),
            **sandbox.isolation(
                top,
                scratch.parent,
                links,
                RunStart(seed, own_network),
                readonly=watch.unwritable(),
                secret=watch.secret,
            ).variable(),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPYCACHEPREFIX": pycache,
            **pytest_bounds(cwd, scratch, scratch.parent),
            # What names the workspace in the hooks' environment names the copy: code that looks for the
            # project's folder there finds this one, not the workspace with what git ignores in it.
            "CLAUDE_PROJECT_DIR": str(cwd),
            "PWD": str(cwd),
        }
        watch.keep(scratch.parent / EMPTY)
        real = os.path.realpath(scratch)
        watch.know({f"{real}/{path}": stamp for path, stamp in stamps.items()})
        gitlink = untouched.stamp_of(scratch / ".git")  # the worktree's link to the repository, git's
        watch.know({f"{real}/.git": gitlink} if gitlink else {})
        try:
            with watch:
                yield Copy(cwd, env, top=scratch, written=untouched.Snapshot(stamps), watch=watch)
        finally:
            # Unlinked first, so that removing the worktree can never reach into what they point at.
            for link in links:
                link.unlink(missing_ok=True)


def _bounds(scratch: Path, top: Path, seed: Seed | None) -> imported.Bounds:
    """What the checks in the copy at `scratch` (of the work tree at `top`) read without a word: the copy,
    tiergate's site folder and empty pytest configuration beside it, the environment as `seed` names it."""
    real = os.path.realpath
    holder = scratch.parent
    return imported.Bounds(
        real(scratch),
        real(top),
        own=(real(holder / "site"), real(holder / EMPTY)),
        environment=tuple(real(f) for f in (*seed.folders, *seed.stdlib)) if seed else (),
        before=seed.before if seed else None,
    )


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


def rewrite(copy: Copy, path: Path, content: bytes) -> None:
    """`content` written to `path`, a file of the copy, by the gate itself (a JavaScript mutant, and the
    file put back: `tiergate.gate.mutation.nodestep`), and noted as the copy's own: neither the copy's
    check of what changed while checks ran nor the watch takes it for a process's."""
    if copy.top is None or copy.written is None:
        raise ValueError("not a claim's copy")
    relative = path.resolve().relative_to(copy.top.resolve()).as_posix()
    path.write_bytes(content)
    ownfiles.note(path)
    stamp = untouched.stamp_of(path)
    if stamp is not None:
        copy.written.files[relative] = stamp


def check_untouched(copy: Copy) -> None:
    """Nothing of `copy` that could shape its checks changed since tiergate wrote it (`tiergate.gate.
    untouched`: a file of its tree rewritten, even put back; an importable file planted): else
    CopyWrittenError. A process the agent left running can find the copy and rewrite the code under test
    while the checks run; what they showed then is not the change's."""
    if copy.top is None or copy.written is None:
        return
    moved = written_since(copy.written, untouched.take(copy.top))
    if copy.watch is not None:
        moved = (*moved, *copy.watch.moved())
    if moved:
        raise CopyWrittenError(moved)


def written_since(before: untouched.Snapshot, after: untouched.Snapshot) -> tuple[str, ...]:
    """What changed between two snapshots of a copy that could change what its checks run (sorted): a file
    of code or test infrastructure tiergate wrote whose stamp moved (rewritten, even put back, or gone),
    and a new file Python would import in place of one of them (`calc/__init__.py` or `calc.*.so` beside
    `calc.py`). What the checks write themselves (caches, reports, snapshots, a build of their own, even
    where the change holds such a file) is let be. Pure."""
    moved = [p for p, stamp in before.files.items() if after.files.get(p) != stamp and _runs(p)]
    modules = {_module(p) for p in before.files if p.endswith(".py")}
    planted = [p for p in after.files if p not in before.files and _shadows(p, modules)]
    return tuple(sorted({*moved, *planted}))


def _runs(path: str) -> bool:
    """Whether a file of the tree can change what runs: code, or a runner's configuration."""
    return foreign.is_code(path) or names_test_infrastructure(path.rpartition("/")[2])


def _module(path: str) -> str:
    """The module a source file is, as a path without its suffix (`pkg/calc` for `pkg/calc.py`)."""
    return path.removesuffix(".py")


def _shadows(path: str, modules: set[str]) -> bool:
    """Whether the new file `path` would be imported in place of one of `modules`."""
    folder, _, name = path.rpartition("/")
    if name == "__init__.py":
        return folder in modules
    stem = name.split(".", 1)[0]
    return name.endswith((".so", ".pyd", ".pyc")) and f"{folder}/{stem}".lstrip("/") in modules


class CopyWrittenError(Exception):
    """The claim's copy changed while its checks ran: what they showed is no evidence for the change."""

    def __init__(self, paths: Sequence[str]) -> None:
        shown = listed(paths, 5)
        super().__init__(
            f"the claim's copy was written while its checks ran ({shown}): what they showed is not the "
            "change's, so the claim is not checked"
        )
        self.paths = tuple(paths)
