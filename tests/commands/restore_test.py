"""`tiergate restore <backup>` as a user runs it, on real repositories: every byte back, the current
work saved first, and a one-line refusal when it cannot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from testing.backupsrepo import dirty, files, git_env, repo, roll_back, tiergate
from testing.gitrepo import commit_all, git, write

from tiergate.project import locate
from tiergate.workspace import backups, ondisk

__all__ = ["git_env", "repo"]  # fixtures


def test_restore_by_a_prefix_of_the_name_gives_back_every_byte(repo: Path) -> None:
    dirty(repo)
    before = files(repo)
    head = git(repo, "rev-parse", "HEAD").strip()
    backup = roll_back(repo)
    assert files(repo) != before

    result = tiergate(repo, "restore", backup.name[:17])

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"tiergate: restored backup {backup.name} (HEAD at {head[:12]}): "
        "tiergate backup before rolling back to the loop's start"
    ]
    assert files(repo) == before
    again = tiergate(repo, "restore", backup.ref)
    assert again.stdout == f"tiergate: the workspace already is backup {backup.name}; nothing to do\n"


def test_restore_saves_the_current_work_first_and_can_be_undone(repo: Path) -> None:
    dirty(repo)
    backup = roll_back(repo)
    write(repo, {"app.py": "v = 3  # written after the rollback\n"})
    current = files(repo)

    result = tiergate(repo, "restore", backup.name)

    saved_line, restored_line = result.stdout.splitlines()
    assert saved_line.startswith("tiergate: saved the workspace as it was first, as backup ")
    saved = saved_line.rsplit(" ", 1)[1]
    assert restored_line.startswith(f"tiergate: restored backup {backup.name}")
    assert [b.name for b in backups.list_backups(locate(repo, os.environ), repo)] == [saved, backup.name]
    assert tiergate(repo, "restore", saved).returncode == 0
    assert files(repo) == current


def test_restore_works_from_a_subdirectory(repo: Path) -> None:
    dirty(repo)
    before = files(repo)
    backup = roll_back(repo)
    assert (repo / "lib").is_dir()  # the rollback brought lib/util.py back
    result = tiergate(repo / "lib", "restore", backup.name)
    assert result.returncode == 0, result.stderr
    assert files(repo) == before


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nope", "tiergate: no backup named 'nope' in {repo} (tiergate backups lists them)"),
        ("20", "tiergate: backup name '20' is ambiguous: {names}"),
    ],
)
def test_an_unknown_or_ambiguous_name_is_one_line(repo: Path, name: str, message: str) -> None:
    write(repo, {"app.py": "one\n"})
    first = backups.save(locate(repo, os.environ), repo, ondisk.scan(repo), "a test", now=1_700_000_000)
    write(repo, {"app.py": "two\n"})
    second = backups.save(locate(repo, os.environ), repo, ondisk.scan(repo), "a test", now=1_700_000_001)
    result = tiergate(repo, "restore", name)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == message.format(repo=repo, names=f"{second.name}, {first.name}") + "\n"


def test_restore_refuses_when_head_moved_elsewhere_and_says_what_to_do(repo: Path) -> None:
    dirty(repo)
    backup = roll_back(repo)
    git(repo, "switch", "-q", "--orphan", "other")
    write(repo, {"other.txt": "x\n"})
    commit_all(repo, "elsewhere")
    before = files(repo)
    result = tiergate(repo, "restore", backup.name)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "has moved off the history of backup" in result.stderr
    assert backup.head is not None
    assert f"switch back to it first (git switch --detach {backup.head[:12]}), then restore" in result.stderr
    assert files(repo) == before
