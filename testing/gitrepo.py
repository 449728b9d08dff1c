"""Real, throw-away git repositories for tests."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Isolate tests from the developer's git configuration (hooks, signing, templates, default branch).
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_SYSTEM": os.devnull,
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
}

# File names git quotes or a shell splits: every path a git helper returns must survive them.
ODD_NAMES = [
    "with space.txt",
    "ünïcødé-文件.txt",
    "new\nline.txt",
    "-leading-dash.txt",
    'quo"te.txt',
    "tab\there.txt",
]


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` and return its stdout; raise on failure."""
    # No `git maintenance run --auto` after each commit: a process more per commit, a thousand a run.
    result = subprocess.run(
        ["git", "-c", "maintenance.auto=false", *args],
        cwd=repo,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


def head(repo: Path) -> str:
    """The commit `repo`'s HEAD names."""
    return git(repo, "rev-parse", "HEAD").strip()


def init_repo(path: Path, files: dict[str, str] | None = None) -> Path:
    """A repository at `path` on branch main, with `files` committed as its first commit (if any)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    if files:
        write(path, files)
        _commit_all(path, "initial")
    return path


def repo_fixture(files: dict[str, str], then: Callable[[Path], object] | None = None) -> Any:
    """The `repo` fixture of a test module (`repo = repo_fixture({...})`): a repository at the test's
    tmp_path/repo with `files` as its first commit, and `then(root)` done to it if given."""
    import pytest  # here, not above: the benchmarks import this module without pytest

    @pytest.fixture(name="repo")
    def repo(tmp_path: Path) -> Path:
        root = init_repo(tmp_path / "repo", files)
        if then is not None:
            then(root)
        return root

    return repo


def write(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def commit_all(repo: Path, message: str) -> str:
    """Everything in the work tree committed; the new commit's id."""
    _commit_all(repo, message)
    return git(repo, "rev-parse", "HEAD").strip()


def _commit_all(repo: Path, message: str) -> None:
    # Without asking for the id: a repository's first commit is made some 800 times a run.
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", message)
