"""`tiergate backups [--json]` and `tiergate restore <backup>` as a user runs them, on real repositories."""

from __future__ import annotations

import json
import os
from pathlib import Path

from testing.backupsrepo import dirty, git_env, repo, roll_back, tiergate
from testing.gitrepo import git, write
from testing.statefolder import state_dir

__all__ = ["git_env", "repo"]  # fixtures


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
