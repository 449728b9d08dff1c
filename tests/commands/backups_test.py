"""`tiergate backups [--json]` and `tiergate restore <backup>` as a user runs them, on real repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from testing.gitrepo import GIT_ENV, commit_all, git, repo_fixture, write
from testing.statefolder import state_dir

from tiergate.project import locate
from tiergate.workspace import backups, ondisk, putback, snapshots


@pytest.fixture(autouse=True)
def git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.delenv("TIERGATE_STATE_DIR", raising=False)


def tiergate(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tiergate", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, env=env)


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


def test_no_backups_yet(repo: Path) -> None:
    result = tiergate(repo, "backups")
    assert result.returncode == 0
    assert result.stdout == f"tiergate: no backups in {repo}\n"
    assert json.loads(tiergate(repo, "backups", "--json").stdout) == []


def test_backups_lists_each_with_its_name_head_changes_and_reason(repo: Path) -> None:
    dirty(repo)
    backup = roll_back(repo)
    head = git(repo, "rev-parse", "HEAD").strip()

    listed = tiergate(repo, "backups")
    as_json = json.loads(tiergate(repo, "backups", "--json").stdout)

    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        f"{backup.name}  HEAD {head[:12]}  2 added, 1 modified, 1 deleted  "
        "before rolling back to the loop's start",
        "restore one with: tiergate restore <name>",
    ]
    assert as_json == [
        {
            "name": backup.name,
            "ref": f"refs/backups/{backup.name}",
            "store": str(state_dir(repo) / "backups.git"),
            "commit": backup.commit,
            "created": as_json[0]["created"],
            "head": head,
            "reason": "tiergate backup before rolling back to the loop's start",
            "files": 4,
            "changes": {"added": 2, "modified": 1, "deleted": 1},
        }
    ]
    assert as_json[0]["created"].replace("-", "").replace(":", "")[:15] == backup.name[:15]


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


def test_outside_a_git_repository_is_one_line(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    for args in (("backups",), ("restore", "x")):
        result = tiergate(plain, *args, env=env)
        assert result.returncode == 2
        assert result.stderr.startswith("tiergate: not a git repository: ")
        assert result.stderr.count("\n") == 1


def test_the_commands_are_in_the_help() -> None:
    result = tiergate(Path.cwd(), "--help")
    assert "backups" in result.stdout and "restore" in result.stdout


def old_layout_backup(repo: Path) -> str:
    """A backup as tiergate used to save it: a commit under refs/tiergate/backups/ in the repository."""
    head = git(repo, "rev-parse", "HEAD").strip()
    index = git(repo, "commit-tree", "-m", "tiergate: the index as it was", f"{head}^{{tree}}").strip()
    git(repo, "add", "-A")
    files = git(repo, "write-tree").strip()
    git(repo, "reset", "-q")
    commit = git(
        repo, "commit-tree", "-p", head, "-p", index, "-m", "tiergate backup before x", files
    ).strip()
    name = f"20240101T000000.000Z-{commit[:8]}"
    git(repo, "update-ref", f"refs/tiergate/backups/{name}", commit)
    return name


def test_old_layout_backups_are_listed_with_a_warning_and_moved_by_migrate(repo: Path) -> None:
    write(repo, {"app.py": "v = 9\n"})
    name = old_layout_backup(repo)

    listed = tiergate(repo, "backups")

    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[0].endswith("before x  (in refs)")
    assert "a push (git push --mirror) can publish" in listed.stdout
    assert "tiergate backups --migrate" in listed.stdout
    migrated = tiergate(repo, "backups", "--migrate")
    assert migrated.returncode == 0, migrated.stderr
    assert migrated.stdout.startswith(f"tiergate: moved backup {name} out of the repository's refs, as ")
    assert "(in refs)" not in migrated.stdout
    assert git(repo, "for-each-ref", "refs/tiergate/") == ""
    [row] = json.loads(tiergate(repo, "backups", "--json").stdout)
    assert row["ref"].startswith("refs/backups/") and row["changes"] == {
        "added": 0,
        "modified": 1,
        "deleted": 0,
    }


def test_an_unreadable_backup_is_named_on_stderr(repo: Path) -> None:
    dirty(repo)
    roll_back(repo)
    broken = state_dir(repo) / "backups.git" / "refs" / "backups" / "20990101T000000.000Z-0badc0de"
    broken.write_text("0" * 39 + "1\n")
    result = tiergate(repo, "backups")
    assert result.returncode == 1
    assert "20990101T000000.000Z-0badc0de" in result.stderr
    assert "unreadable backup" in result.stderr
    assert len(result.stdout.splitlines()) == 2  # the readable one is still listed
