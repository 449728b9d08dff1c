"""What the tests of saving a workspace and putting it back share: a repository with every kind of file
(`kinds_repo`, the `repo` fixture), every kind of change at once (`make_dirty`), the work tree as bytes to
compare (`files`; `tree`, with directories and modes), and short forms of the calls under test on a
project whose state folder is beside the repository."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from testing.gitrepo import commit_all, git, repo_fixture, write
from tiergate.project import Project
from tiergate.workspace import backups, ondisk, putback, snapshots
from tiergate.workspace.snapshots import Workspace

BINARY = bytes(range(256)) * 8 + b"\0\r\n\xff"


IGNORE = "*.log\nbuild/\n"


SNAPSHOT = "refs/green/test"


@pytest.fixture(autouse=True)
def no_git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """tiergate's own git calls run with no user configuration and no identity: it must not need one."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", os.devnull)
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(name, raising=False)


def files(root: Path) -> dict[str, bytes]:
    """Every file under `root` but .git, ignored ones included, with its bytes (a symlink: its target)."""
    found: dict[str, bytes] = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if rel == ".git" or rel.startswith(".git/"):
            continue
        if path.is_symlink():
            found[rel] = b"-> " + os.fsencode(path.readlink())
        elif path.is_file():
            found[rel] = path.read_bytes()
    return found


def tree(root: Path) -> dict[str, bytes]:
    """Every file and directory under `root` but .git and .tiergate: bytes, link target, or a directory
    marker."""
    found: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] in (".git", ".tiergate"):  # git's, and tiergate's state when it is here
            continue
        if path.is_symlink():
            found[rel] = b"-> " + os.fsencode(path.readlink())
        elif path.is_dir():
            found[rel] = b"<dir>"
        else:
            mode = b"x " if os.access(path, os.X_OK) else b""
            found[rel] = mode + path.read_bytes()
    return found


def status(root: Path) -> str:
    return git(root, "status", "--porcelain=v1", "--untracked-files=all", "--ignored")


def staged(root: Path) -> str:
    return git(root, "diff", "--cached", "--binary", "--no-renames")


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def project(root: Path) -> Project:
    """The project at `root`, its state folder outside the work tree."""
    return Project(root, root.parent / f"{root.name}-state")


def store(root: Path) -> Path:
    return snapshots.store_path(project(root))


def in_store(root: Path, *args: str) -> str:
    return git(store(root), f"--git-dir={store(root)}", *args)


def backup_refs(root: Path) -> list[str]:
    if not store(root).exists():
        return []
    return in_store(root, "for-each-ref", "--format=%(refname)", "refs/").split()


def save(root: Path, why: str = "a test", now: float | None = None) -> backups.Backup:
    return backups.save(project(root), root, ondisk.scan(root), why, now)


def snapshot(root: Path) -> Workspace:
    """The workspace as it is now, kept in the store as a green point is, and read back from there."""
    commit = snapshots.keep_snapshot(project(root), SNAPSHOT, "a snapshot", "For a test.")
    return snapshots.stored_workspace(project(root), root, commit, "the snapshot")


def rollback(root: Path, to: Workspace, why: str = "a test") -> backups.Backup | None:
    return putback.rollback(project(root), to, why)


def restore(root: Path, backup: backups.Backup) -> putback.Restored:
    return putback.restore(project(root), backup)


def find(root: Path, name: str) -> backups.Backup:
    return backups.find(project(root), root, name)


def commit_other_kinds(root: Path) -> None:
    """A binary file, an executable and a symbolic link, committed."""
    (root / "image.bin").write_bytes(BINARY)
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o755)
    (root / "link").symlink_to("a.txt")
    commit_all(root, "more")


kinds_repo = repo_fixture(
    {
        ".gitignore": IGNORE,
        "a.txt": "alpha\n",
        "staged.txt": "staged, committed\n",
        "gone.txt": "to be deleted\n",
        "src/pkg/deep/module.py": "x = 1\n",
        "with space/file name.txt": "spaced\n",
    },
    then=commit_other_kinds,
)


def make_dirty(root: Path) -> None:
    """Every kind of change at once, and ignored files besides."""
    write(root, {"a.txt": "alpha, modified\n", "src/pkg/deep/module.py": "x = 2\n"})
    write(root, {"staged.txt": "staged version\n"})
    git(root, "add", "staged.txt")
    write(root, {"staged.txt": "staged version, then edited again\n"})  # partly staged
    (root / "gone.txt").unlink()
    (root / "image.bin").write_bytes(BINARY[::-1])
    write(
        root,
        {
            "new file.txt": "untracked\n",
            "fresh/dir/tree/leaf.txt": "untracked, nested\n",
            "with space/another one.md": "untracked, spaced\n",
            "added.txt": "new and staged\n",
        },
    )
    git(root, "add", "added.txt")
    (root / "fresh" / "blob.bin").write_bytes(b"\0\1\2" * 100)
    write(root, {"debug.log": "ignored\n", "build/out.o": "ignored dir\n", "fresh/dir/trace.log": "ign\n"})


def at_head(root: Path) -> Workspace:
    return snapshots.workspace_at(root, "HEAD")
