"""Where a repository is: the top of its work tree, its git directory, HEAD, an operation half done.

The answers are kept for the process: a hook asks them of the same folder a dozen times, and no git
command tiergate runs moves a work tree.
"""

from __future__ import annotations

from pathlib import Path

from tiergate.errors import UserError
from tiergate.git import isolation, runner


def repo_root(path: Path) -> Path:
    """The top of the work tree holding `path` (a directory or a file in one). Kept for the process, as
    `git_dir` is."""
    start = path if path.is_dir() else path.parent
    if not start.is_dir():
        raise UserError(f"no such directory: {path}")
    kept = _tops.get(str(start))
    if kept is not None:
        return kept
    try:
        # The git dir in the same call: asked next by most callers (`git_dir`), kept for them.
        out = runner.run(start, "rev-parse", "--show-toplevel", "--absolute-git-dir").stdout
    except UserError as e:
        if str(e).startswith("not a git repository"):
            raise UserError(f"not a git repository: {path} (run tiergate inside a git work tree)") from e
        raise
    root, _, folder = runner.text(out).partition("\n")
    if not root:  # inside a .git directory, git answers with nothing
        raise UserError(f"not a git repository: {path} (run tiergate inside a git work tree)")
    return _keep_top(start, _holding(Path(root), start), folder)


_tops: dict[str, Path] = {}  # by the folder asked about, for the process: see repo_root


def _keep_top(start: Path, root: Path, folder: str) -> Path:
    _tops[str(start)] = root
    if folder:
        isolation.GIT_DIRS.setdefault(str(root), Path(folder))
    return root


def git_dir(root: Path) -> Path:
    """The git directory (absolute) of the repository at `root` (its top, or a git directory itself);
    kept for the process, as `repo_root` is."""
    key = str(root)
    if key not in isolation.GIT_DIRS:
        isolation.GIT_DIRS[key] = Path(
            runner.text(runner.run(root, "rev-parse", "--absolute-git-dir").stdout)
        )
    return isolation.GIT_DIRS[key]


def _holding(top: Path, start: Path) -> Path:
    """`top`, which must hold `start`: a `core.worktree` pointing elsewhere (at a clean copy, say) would
    have git measure another folder than the one asked about."""
    if not start.resolve().is_relative_to(Path(top).resolve()):
        raise UserError(f"git's work tree for {start} is {top}, which does not hold it (see core.worktree)")
    return top


# What a half-done operation leaves in the git directory, and how a person ends it. Rolling the workspace
# back (or restoring a backup) in the middle of one would drop its conflict stages and leave its state
# behind, so that a later commit concludes it without what was staged.
_OPERATIONS = (
    ("MERGE_HEAD", "a merge", "git merge --abort"),
    ("rebase-merge", "a rebase", "git rebase --abort"),
    ("rebase-apply", "a rebase or git am", "git rebase --abort, or git am --abort"),
    ("CHERRY_PICK_HEAD", "a cherry-pick", "git cherry-pick --abort"),
    ("REVERT_HEAD", "a revert", "git revert --abort"),
    ("BISECT_LOG", "a bisect", "git bisect reset"),
)


def operation_in_progress(root: Path) -> str | None:
    """The git operation half done in `root`'s work tree (merge, rebase, cherry-pick, revert, bisect),
    in words with how to end it, or None."""
    folder = git_dir(root)
    for marker, what, ending in _OPERATIONS:
        if (folder / marker).exists():
            return f"{what} is in progress ({marker} in the git directory); finish it or end it ({ending})"
    return None


def head_sha(root: Path) -> str | None:
    """The commit HEAD points to; None in a repository with no commits yet."""
    proc = runner.run(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", ok=(0, 1))
    if proc.returncode != 0:
        return None
    return runner.text(proc.stdout) or None


def top_and_head(path: Path) -> tuple[Path, str | None]:
    """`repo_root(path)` and `head_sha` of that repository, asked of git in one call."""
    start = path if path.is_dir() else path.parent
    if not start.is_dir():
        raise UserError(f"no such directory: {path}")
    proc = runner.run(
        start,
        "rev-parse",
        "--show-toplevel",
        "--absolute-git-dir",
        "--verify",
        "--quiet",
        "HEAD^{commit}",
        ok=(0, 1, 128),
    )
    lines = runner.text(proc.stdout).splitlines()
    if proc.returncode == 128 or len(lines) < 2 or not lines[0]:
        # Outside a work tree (or inside a .git directory, where git answers nothing).
        raise UserError(f"not a git repository: {path} (run tiergate inside a git work tree)")
    head = lines[2] if proc.returncode == 0 and len(lines) > 2 else None
    return _keep_top(start, _holding(Path(lines[0]), start), lines[1]), head
