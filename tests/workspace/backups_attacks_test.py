"""The red team's rollbacks (issue 10), on real git: a rollback loses nothing, changes nothing else, and
its backup is not published by a push of the repository."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from testing.gitrepo import commit_all, git, init_repo, write
from testing.savedworkspace import at_head, tree

from tiergate.errors import UserError
from tiergate.project import Project
from tiergate.workspace import backups, ondisk, putback, snapshots
from tiergate.workspace.snapshots import Workspace

SECRET = '{"aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}\n'


@pytest.fixture(autouse=True)
def isolated_git(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", os.devnull)


def project(root: Path) -> Project:
    return Project(root, root.parent / "state")


def roll_back(root: Path, to: Workspace | None = None) -> backups.Backup:
    backup = putback.rollback(project(root), to or at_head(root), "a test")
    assert backup is not None
    return backup


def restore(root: Path, backup: backups.Backup) -> None:
    putback.restore(project(root), backup)


def test_an_untracked_secret_in_a_backup_is_not_published_by_a_mirror_push(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"app.py": "v = 1\n"})
    write(repo, {"app.py": "v = 2\n", "credentials.json": SECRET})
    before = tree(repo)
    backup = roll_back(repo)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "push", "-q", "--mirror", str(remote))

    pushed = git(remote, "for-each-ref", "--format=%(refname)")
    assert "tiergate" not in pushed
    objects = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=remote, capture_output=True, check=True
    ).stdout
    assert b"wJalrXUtnFEMI" not in objects
    assert "tiergate" not in git(repo, "for-each-ref", "--format=%(refname)", "refs/tiergate/backups/")
    restore(repo, backup)
    assert tree(repo) == before


def test_the_store_holds_the_backup_whole_without_the_repositorys_history(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"app.py": "v = 1\n"})
    write(repo, {"app.py": "v = 2\n", "new.txt": "new\n"})
    git(repo, "add", "new.txt")
    backup = roll_back(repo)
    store = snapshots.store_path(project(repo))
    git(store, f"--git-dir={store}", "fsck", "--strict", "--no-dangling", "--connectivity-only")
    assert git(store, f"--git-dir={store}", "rev-list", "--all").split() == [backup.commit]
    assert git(store, f"--git-dir={store}", "show", f"{backup.commit}:index/new.txt") == "new\n"


@pytest.mark.parametrize("layout", ["file", "directory where a file comes back", "file where a directory"])
def test_ignored_files_where_the_target_puts_something_are_saved_first(tmp_path: Path, layout: str) -> None:
    repo = init_repo(tmp_path / "repo", {"keep.txt": "k\n", "data": "tracked\n", "pkg/mod.py": "m\n"})
    (repo / ".git" / "info" / "exclude").write_text("data\ndata/\npkg\n*.o\n")
    if layout == "file":
        git(repo, "rm", "-q", "data")
        write(repo, {"data": "the agent's ignored file\n"})
    elif layout == "directory where a file comes back":
        git(repo, "rm", "-q", "data")
        write(repo, {"data/out.o": "ignored object\n", "data/deep/more.o": "more\n"})
    else:
        git(repo, "rm", "-q", "-r", "pkg")
        write(repo, {"pkg": "an ignored file where pkg/ comes back\n"})
    write(repo, {"elsewhere.o": "ignored, not in the way\n"})
    commit_all(repo, "the agent's commit")
    before = tree(repo)

    backup = roll_back(repo, snapshots.workspace_at(repo, "HEAD~1"))

    assert (repo / "data").read_text() == "tracked\n"
    assert (repo / "pkg" / "mod.py").read_text() == "m\n"
    assert (repo / "elsewhere.o").read_text() == "ignored, not in the way\n"
    restore(repo, backup)
    assert tree(repo) == before


def test_a_tracked_file_the_agent_untracked_and_ignored_is_saved(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {".gitignore": "*.log\n", "settings.cfg": "debug = false\n"})
    git(repo, "rm", "-q", "--cached", "settings.cfg")
    write(repo, {".gitignore": "*.log\nsettings.cfg\n", "settings.cfg": "debug = true  # the agent's edit\n"})
    before = tree(repo)

    backup = roll_back(repo)

    assert (repo / "settings.cfg").read_text() == "debug = false\n"
    assert git(repo, "ls-files", "settings.cfg").strip() == "settings.cfg"
    restore(repo, backup)
    assert tree(repo) == before


@pytest.mark.parametrize("setting", ["eol=crlf", "autocrlf=input"])
def test_files_nobody_touched_keep_their_bytes(tmp_path: Path, setting: str) -> None:
    repo = init_repo(tmp_path / "repo")
    if setting == "eol=crlf":
        write(repo, {".gitattributes": "*.txt text eol=crlf\n", "a.txt": "one\ntwo\n", "b.txt": "b\n"})
        commit_all(repo, "crlf on checkout")
        for name in ("a.txt", "b.txt"):
            (repo / name).unlink()
        git(repo, "checkout", "--", ".")
        assert (repo / "a.txt").read_bytes() == b"one\r\ntwo\r\n"
    else:
        git(repo, "config", "core.autocrlf", "input")
        (repo / "a.txt").write_bytes(b"one\r\ntwo\r\n")
        (repo / "b.txt").write_bytes(b"b\r\n")
        commit_all(repo, "CRLF on disk, LF in the blobs")
    untouched = (repo / "a.txt").stat()
    (repo / "b.txt").write_bytes(b"the agent's edit\r\n")
    write(repo, {"new.txt": "new\n"})
    before = tree(repo)

    backup = roll_back(repo)

    assert (repo / "a.txt").read_bytes() == b"one\r\ntwo\r\n"
    assert (repo / "a.txt").stat().st_mtime_ns == untouched.st_mtime_ns  # not even rewritten
    assert (repo / "b.txt").read_bytes() == (
        b"b\r\n" if setting == "eol=crlf" else b"b\n"
    )  # as checkout writes it
    restore(repo, backup)
    assert tree(repo) == before


def test_filters_ident_and_encoding_do_not_touch_a_backup(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"x.c": "int x;\n"})
    write(repo, {".gitattributes": "*.c ident\n*.u16 working-tree-encoding=UTF-16\n"})
    commit_all(repo, "attributes")
    (repo / "x.c").write_bytes(b"/* $Id$ */\r\nint y;\r\n")
    (repo / "t.u16").write_bytes("hi\n".encode("utf-16"))
    before = tree(repo)
    restore(repo, roll_back(repo))
    assert tree(repo) == before


def test_empty_directories_come_back_with_a_restore(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"src/app.py": "v = 1\n", ".gitignore": "cache/\n"})
    (repo / "src" / "empty").mkdir()
    (repo / "fresh" / "a" / "b").mkdir(parents=True)
    write(repo, {"fresh/file.txt": "untracked\n", "src/app.py": "v = 2\n", "cache/x": "ignored\n"})
    (repo / "cache" / "sub").mkdir()
    before = tree(repo)

    backup = roll_back(repo)

    assert (repo / "src" / "empty").is_dir()  # a rollback leaves empty directories alone
    assert not (repo / "fresh" / "file.txt").exists()
    restore(repo, backup)
    assert tree(repo) == before


def test_a_skip_worktree_edit_is_saved_and_rolled_back(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"config.toml": "tests = 'pytest'\n", "app.py": "v = 1\n"})
    write(repo, {"config.toml": "tests = 'true'\n"})
    git(repo, "update-index", "--skip-worktree", "config.toml")
    before = tree(repo)

    backup = roll_back(repo)

    assert (repo / "config.toml").read_text() == "tests = 'pytest'\n"
    restore(repo, backup)
    assert tree(repo) == before


def test_a_sparse_checkout_stays_sparse(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a/x.txt": "x\n", "b/y.txt": "y\n", "top.txt": "t\n"})
    git(repo, "sparse-checkout", "set", "--cone", "a")
    assert not (repo / "b").exists()
    write(repo, {"a/x.txt": "changed\n", "a/new.txt": "new\n"})
    before = tree(repo)

    backup = roll_back(repo)

    assert (repo / "a" / "x.txt").read_text() == "x\n"
    assert not (repo / "b").exists()  # not materialized
    assert "S b/y.txt" in git(repo, "ls-files", "-t").splitlines()
    assert git(repo, "status", "--porcelain") == ""
    restore(repo, backup)
    assert tree(repo) == before


def test_modes_and_symlinks_come_back_exactly(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"run.sh": "#!/bin/sh\n", "target.txt": "t\n"})
    (repo / "run.sh").chmod(0o755)
    (repo / "link").symlink_to("target.txt")
    commit_all(repo, "mode and link")
    (repo / "run.sh").chmod(0o644)
    (repo / "link").unlink()
    (repo / "link").symlink_to("elsewhere/../target.txt")
    (repo / "new link").symlink_to("/nonexistent")
    before = tree(repo)
    backup = roll_back(repo)
    assert os.access(repo / "run.sh", os.X_OK)
    assert (repo / "link").readlink() == Path("target.txt")
    restore(repo, backup)
    assert tree(repo) == before


def test_old_layout_backups_are_listed_restorable_and_migrated(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"app.py": "v = 1\n"})
    write(repo, {"app.py": "v = 2\n", "untracked.txt": "u\n"})
    before = tree(repo)
    tree_id = _old_style_backup(repo)

    [old] = backups.list_backups(project(repo), repo)
    assert old.legacy and old.ref == f"refs/tiergate/backups/{old.name}"
    git(repo, "reset", "-q", "--hard")
    (repo / "untracked.txt").unlink()
    restore(repo, old)
    assert tree(repo) == before

    [(moved, new)] = backups.migrate(project(repo), repo)
    assert moved == old and isinstance(new, backups.Backup) and not new.legacy
    assert git(repo, "for-each-ref", "refs/tiergate/") == ""
    store = snapshots.store_path(project(repo))
    assert git(store, f"--git-dir={store}", "rev-parse", f"{new.commit}:files").strip() == tree_id


def _old_style_backup(repo: Path) -> str:
    """A backup as tiergate used to make it: a commit under refs/tiergate/backups/, HEAD its parent."""
    env = {**os.environ, "GIT_INDEX_FILE": str(repo / ".git" / "tmp-index")}
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    tree_id = subprocess.run(
        ["git", "write-tree"], cwd=repo, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()
    (repo / ".git" / "tmp-index").unlink()
    head = git(repo, "rev-parse", "HEAD").strip()
    index = git(repo, "commit-tree", "-m", "tiergate: the index as it was", f"{head}^{{tree}}").strip()
    commit = git(repo, "commit-tree", "-p", head, "-p", index, "-m", "tiergate backup before a test", tree_id)
    git(repo, "update-ref", "refs/tiergate/backups/20240101T000000.000Z-" + commit[:8], commit.strip())
    return tree_id


def test_an_unreadable_backup_is_reported_not_dropped(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"app.py": "v = 1\n"})
    write(repo, {"app.py": "v = 2\n"})
    good = roll_back(repo)
    store = snapshots.store_path(project(repo))
    (store / "refs" / "backups" / "20990101T000000.000Z-deadbeef").write_text("f" * 40 + "\n")
    found = backups.inventory(project(repo), repo)
    assert [b.name for b in found.backups] == [good.name]
    assert any("20990101T000000.000Z-deadbeef" in p for p in found.problems), found.problems


def test_a_file_changed_between_the_scan_and_the_save_stops_it_before_anything_is_touched(
    tmp_path: Path,
) -> None:
    repo = init_repo(tmp_path / "repo", {"app.py": "v = 1\n"})
    write(repo, {"app.py": "v = 2\n"})
    scanned = ondisk.scan(repo)
    write(repo, {"app.py": "v = 3, written meanwhile\n"})
    with pytest.raises(UserError, match=r"app\.py changed while tiergate saved the workspace"):
        backups.save(project(repo), repo, scanned, "a test")
    assert backups.list_backups(project(repo), repo) == []
    assert (repo / "app.py").read_text() == "v = 3, written meanwhile\n"


def test_another_tools_state_is_neither_dirt_nor_rolled_back(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"app.py": "v = 1\n"})
    omc = {".omc/state/sessions/s1/subagent-tracking-state.json": "{}\n", ".omc/project-memory.json": "{}\n"}
    write(repo, omc)
    # OMC's files alone: nothing to roll back, so no backup either.
    assert not putback.differs(repo, at_head(repo))
    assert putback.rollback(project(repo), at_head(repo), "the test") is None
    # With the loop's own work beside them, the work goes and OMC's state stays (and is in the backup).
    write(repo, {"app.py": "v = 2\n", "scratch.py": "x\n"})
    assert putback.differs(repo, at_head(repo))
    backup = roll_back(repo)
    assert (repo / "app.py").read_text() == "v = 1\n" and not (repo / "scratch.py").exists()
    assert {p: (repo / p).read_text() for p in omc} == omc
    restore(repo, backup)
    assert (repo / "scratch.py").read_text() == "x\n"


def test_another_tools_state_in_the_way_of_a_target_file_is_saved_and_replaced(tmp_path: Path) -> None:
    # A tool's folder where the target has a file must go, or the target cannot be made: saved first.
    repo = init_repo(tmp_path / "repo", {"app.py": "v = 1\n", ".claude/ralph-loop.local.md": "tracked\n"})
    (repo / ".claude" / "ralph-loop.local.md").unlink()
    (repo / ".claude" / "ralph-loop.local.md").mkdir()
    write(repo, {".claude/ralph-loop.local.md/x.json": "{}\n", "app.py": "v = 2\n"})
    backup = roll_back(repo)
    assert (repo / ".claude" / "ralph-loop.local.md").read_text() == "tracked\n"
    restore(repo, backup)
    assert (repo / ".claude" / "ralph-loop.local.md" / "x.json").read_text() == "{}\n"
