"""Backups and rollbacks on real git repositories: nothing is ever lost, ignored files are never touched."""

from __future__ import annotations

import os
import stat
import subprocess
import time
from pathlib import Path

import pytest
from testing.gitrepo import commit_all, git, init_repo, repo_fixture, write

from tiergate.errors import UserError
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


repo = repo_fixture(
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


def test_saving_touches_neither_the_index_nor_the_working_tree(repo: Path) -> None:
    make_dirty(repo)
    index = (repo / ".git" / "index").read_bytes()
    before, before_status = files(repo), status(repo)

    backup = save(repo)

    assert (repo / ".git" / "index").read_bytes() == index
    assert files(repo) == before
    assert status(repo) == before_status
    assert not list((repo / ".git").glob("tiergate-index-*"))
    assert backup_refs(repo) == [backup.ref]


def test_a_change_right_after_a_commit_at_the_same_size_is_saved(repo: Path) -> None:
    # A file changed in the second its index entry was written, at the same size, has the stat data git
    # recorded; only git's racy-file check (the file's mtime against the index's) makes git rehash it.
    # Saving a second later must keep that check working.
    index = repo / ".git" / "index"
    for n in range(10):
        write(repo, {"a.txt": f"version {n}\n"})
        commit_all(repo, f"v{n}")
        write(repo, {"a.txt": f"VERSION {n}\n"})
        if int((repo / "a.txt").stat().st_mtime) == int(index.stat().st_mtime):
            break
    time.sleep(1.1)
    assert in_store(repo, "show", f"{save(repo).commit}:files/a.txt") == f"VERSION {n}\n"


def test_a_backup_holds_tracked_and_untracked_files_but_not_ignored_ones(repo: Path) -> None:
    make_dirty(repo)
    backup = save(repo)
    saved = set(
        in_store(repo, "ls-tree", "-r", "-z", "--name-only", f"{backup.commit}:files").split("\0")
    ) - {""}

    expected = {p for p in files(repo) if not p.endswith(".log") and not p.startswith("build/")}
    assert saved == expected
    assert "gone.txt" not in saved
    assert (
        in_store(repo, "show", f"{backup.commit}:files/staged.txt") == "staged version, then edited again\n"
    )
    assert in_store(repo, "show", f"{backup.commit}:index/staged.txt") == "staged version\n"
    assert in_store(repo, "show", "-s", "--format=%P", backup.commit).strip() == ""  # no history
    assert f"Tiergate-Head: {head(repo)}" in in_store(repo, "show", "-s", "--format=%B", backup.commit)


def test_the_backup_message_says_what_and_why(repo: Path) -> None:
    make_dirty(repo)
    backup = save(repo, "rolling back to the last green point")
    message = in_store(repo, "log", "-1", "--format=%B", backup.commit)
    assert message.startswith("tiergate backup before rolling back to the last green point\n")
    assert "as it was on disk: 5 added, 4 modified, 1 deleted against HEAD" in message
    assert backup.reason == "tiergate backup before rolling back to the last green point"
    author = in_store(repo, "log", "-1", "--format=%an <%ae>", backup.commit).strip()
    assert author == "tiergate <tiergate@localhost>"


def test_rollback_then_restore_gives_back_every_byte(repo: Path) -> None:
    make_dirty(repo)
    green = at_head(repo)
    committed = files(repo)
    before, before_status, before_staged = files(repo), status(repo), staged(repo)
    mode = stat.S_IMODE((repo / "run.sh").stat().st_mode)

    backup = rollback(repo, green, "a test rollback")

    assert backup is not None
    after = files(repo)
    ignored = {p: b for p, b in before.items() if p.endswith(".log") or p.startswith("build/")}
    assert ignored and all(after[p] == b for p, b in ignored.items())
    git(repo, "fsck", "--no-progress", "--strict")
    assert status(repo).splitlines() == [f"!! {p}" for p in sorted(ignored)]
    assert (repo / "gone.txt").read_text() == "to be deleted\n"
    assert (repo / "image.bin").read_bytes() == BINARY
    assert not (repo / "new file.txt").exists()
    assert not (repo / "fresh" / "dir" / "tree").exists()
    assert head(repo) == green.head

    restored = restore(repo, find(repo, backup.name))

    assert restored.changed and restored.saved is None  # the rolled-back state was all in HEAD
    assert files(repo) == before
    assert status(repo) == before_status
    assert staged(repo) == before_staged
    assert stat.S_IMODE((repo / "run.sh").stat().st_mode) == mode
    assert committed["link"] == files(repo)["link"] == b"-> a.txt"


def test_a_rollback_of_a_clean_workspace_does_nothing(repo: Path) -> None:
    index = (repo / ".git" / "index").read_bytes()
    assert rollback(repo, at_head(repo), "nothing to do") is None
    assert backup_refs(repo) == []
    assert (repo / ".git" / "index").read_bytes() == index


def test_dirtiness_is_measured_against_the_target_not_against_head(repo: Path) -> None:
    write(repo, {"a.txt": "verified but not committed\n", "extra.txt": "untracked, verified\n"})
    verified = snapshot(repo)
    before = files(repo)
    assert rollback(repo, verified, "same files as the target") is None
    assert files(repo) == before
    assert backup_refs(repo) == [SNAPSHOT]


def test_a_rollback_to_a_dirty_target_puts_its_uncommitted_files_back(repo: Path) -> None:
    write(repo, {"a.txt": "verified\n", "extra.txt": "verified, untracked\n"})
    verified_files, verified = files(repo), snapshot(repo)
    make_dirty(repo)
    backup = rollback(repo, verified, "back to the verified state")
    assert backup is not None
    assert {p: b for p, b in files(repo).items() if not p.endswith(".log") and "build" not in p} == (
        verified_files
    )
    assert "?? extra.txt" in status(repo).splitlines()  # untracked again, as it was


def test_a_rollback_moves_head_back_over_commits_made_since_and_keeps_them(repo: Path) -> None:
    green = at_head(repo)
    write(repo, {"a.txt": "committed by the loop\n"})
    commit_c = commit_all(repo, "loop's commit")
    write(repo, {"later.txt": "after the commit\n"})

    backup = rollback(repo, green, "a test")

    assert backup is not None and backup.head == commit_c
    assert head(repo) == green.head
    assert git(repo, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert (repo / "a.txt").read_text() == "alpha\n"
    assert not (repo / "later.txt").exists()
    restore(repo, backup)
    assert head(repo) == commit_c
    assert (repo / "later.txt").read_text() == "after the commit\n"
    assert (repo / "a.txt").read_text() == "committed by the loop\n"


def test_a_rollback_across_histories_is_refused_and_changes_nothing(repo: Path) -> None:
    git(repo, "switch", "-q", "-c", "other")
    write(repo, {"a.txt": "on another branch\n"})
    elsewhere = snapshots.workspace_at(repo, commit_all(repo, "other"))
    git(repo, "switch", "-q", "main")
    make_dirty(repo)
    before = files(repo)
    with pytest.raises(UserError, match="not in the history of HEAD"):
        rollback(repo, elsewhere, "a test")
    assert files(repo) == before
    assert backup_refs(repo) == []


def test_restore_saves_what_the_workspace_holds_now_first(repo: Path) -> None:
    make_dirty(repo)
    first = rollback(repo, at_head(repo), "a test")
    assert first is not None
    write(repo, {"meanwhile.txt": "written after the rollback\n", "a.txt": "changed after\n"})
    meanwhile = files(repo)

    restored = restore(repo, first)

    assert restored.saved is not None
    assert not (repo / "meanwhile.txt").exists()
    restore(repo, restored.saved)
    assert files(repo) == meanwhile


def test_restoring_twice_changes_nothing_the_second_time(repo: Path) -> None:
    make_dirty(repo)
    backup = rollback(repo, at_head(repo), "a test")
    assert backup is not None
    restore(repo, backup)
    again = restore(repo, backup)
    assert not again.changed and again.saved is None
    assert len(backup_refs(repo)) == 1


def test_restore_refuses_when_head_left_the_backups_history(repo: Path) -> None:
    make_dirty(repo)
    backup = rollback(repo, at_head(repo), "a test")
    assert backup is not None
    git(repo, "switch", "-q", "--orphan", "elsewhere")
    write(repo, {"x.txt": "x\n"})
    commit_all(repo, "unrelated")
    before = files(repo)
    with pytest.raises(UserError, match="has moved off the history of backup"):
        restore(repo, backup)
    assert files(repo) == before


def test_a_backup_survives_git_gc(repo: Path) -> None:
    make_dirty(repo)
    before = files(repo)
    backup = rollback(repo, at_head(repo), "a test")
    assert backup is not None
    git(repo, "reflog", "expire", "--expire=now", "--all")
    git(repo, "gc", "-q", "--prune=now")
    assert not list((repo / ".git" / "objects").glob("??/*"))  # everything was packed or pruned
    restore(repo, find(repo, backup.ref))
    assert files(repo) == before


def test_an_empty_repository(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "empty")
    write(root, {".gitignore": IGNORE, "staged.txt": "staged\n", "dir/untracked.txt": "u\n", "x.log": "i\n"})
    git(root, "add", "staged.txt")
    before, before_status = files(root), status(root)

    backup = rollback(root, snapshots.workspace_at(root, None), "a test")

    assert backup is not None and backup.head is None
    assert files(root) == {"x.log": b"i\n"}
    assert git(root, "ls-files") == ""
    restore(root, backup)
    assert files(root) == before
    assert status(root) == before_status


def test_a_rollback_to_before_the_first_commit(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "empty")
    start = snapshots.workspace_at(root, git(root, "hash-object", "-t", "tree", "--stdin").strip())
    assert start.head is None
    write(root, {"made.txt": "by the loop\n"})
    made = commit_all(root, "the loop's first commit")
    write(root, {"made.txt": "and changed\n"})

    backup = rollback(root, start, "a test")

    assert backup is not None and backup.head == made
    assert files(root) == {}
    assert subprocess.run(["git", "rev-parse", "--verify", "-q", "HEAD"], cwd=root, check=False).returncode
    restore(root, backup)
    assert head(root) == made
    assert (root / "made.txt").read_text() == "and changed\n"


def test_a_nested_repository_is_left_alone(repo: Path) -> None:
    nested = init_repo(repo / "vendor" / "lib", {"inner.txt": "inner\n"})
    write(nested, {"inner.txt": "inner, modified\n"})
    write(repo, {"a.txt": "modified\n"})
    backup = rollback(repo, at_head(repo), "a test")
    assert backup is not None
    assert (nested / "inner.txt").read_text() == "inner, modified\n"
    assert "vendor" not in in_store(repo, "ls-tree", "-r", "--name-only", backup.commit)


def test_backups_are_listed_newest_first_and_found_by_prefix(repo: Path) -> None:
    write(repo, {"a.txt": "one\n"})
    old = save(repo, "the first", now=1_700_000_000.25)
    write(repo, {"a.txt": "two\n"})
    new = save(repo, "the second", now=1_700_000_060.5)

    listed = backups.list_backups(project(repo), repo)

    assert [b.name for b in listed] == [new.name, old.name]
    assert old.name.startswith("20231114T221320.250Z-")
    assert listed[1].reason == "tiergate backup before the first" and listed[1].head == head(repo)
    assert listed[1].created == 1_700_000_000
    assert find(repo, "20231114T2214") == new
    assert find(repo, old.ref) == listed[1]
    with pytest.raises(UserError, match="ambiguous"):
        find(repo, "2023")
    with pytest.raises(UserError, match="no backup named 'nope'"):
        find(repo, "nope")


def test_changes_lists_paths_with_their_status(repo: Path) -> None:
    make_dirty(repo)
    workspace = snapshot(repo)
    found = snapshots.changes(repo, snapshots.tree_of(repo, workspace.head), workspace.files)
    assert found["gone.txt"] == "D"
    assert found["new file.txt"] == "A"
    assert found["image.bin"] == "M"
    assert "debug.log" not in found


def test_a_submodules_work_tree_is_left_alone(repo: Path, tmp_path: Path) -> None:
    upstream = init_repo(tmp_path / "upstream", {"inner.txt": "inner\n"})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), "sub")
    commit_all(repo, "a submodule")
    write(repo / "sub", {"inner.txt": "changed inside the submodule\n", "scratch.txt": "its own untracked\n"})
    write(repo, {"a.txt": "outer change\n"})

    backup = rollback(repo, at_head(repo), "a test")

    assert backup is not None
    assert (repo / "a.txt").read_text() == "alpha\n"
    assert (repo / "sub" / "inner.txt").read_text() == "changed inside the submodule\n"
    assert (repo / "sub" / "scratch.txt").read_text() == "its own untracked\n"
    restore(repo, backup)
    assert (repo / "a.txt").read_text() == "outer change\n"
