"""A repository with backups, for the tests of `tiergate backups` and `tiergate restore`: git's test
settings, the command run as a user runs it, the workspace's files, and a rollback that leaves a backup."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from testing import tiergatecli
from testing.gitrepo import GIT_ENV, repo_fixture, write
from tiergate.project import locate
from tiergate.workspace import backups, putback, snapshots


@pytest.fixture(autouse=True)
def git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.delenv("TIERGATE_STATE_DIR", raising=False)


def tiergate(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it, in this process's environment (`git_env`'s) or in `env`."""
    return tiergatecli.tiergate(cwd, *args, environ=dict(os.environ) if env is None else env)


def files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not {".git", ".tiergate"} & set(p.relative_to(root).parts)
    }


repo = repo_fixture({".gitignore": "*.log\n", "app.py": "v = 1\n", "lib/util.py": "u\n"})


def dirty(repo: Path) -> None:
    write(
        repo, {"app.py": "v = 2  # refuted\n", "new dir/feature file.py": "untracked\n", "run.log": "ign\n"}
    )
    (repo / "lib" / "util.py").unlink()
    (repo / "blob.bin").write_bytes(bytes(range(256)))


def roll_back(repo: Path, why: str = "rolling back to the loop's start") -> backups.Backup:
    backup = putback.rollback(locate(repo, os.environ), snapshots.workspace_at(repo, "HEAD"), why)
    assert backup is not None
    return backup
