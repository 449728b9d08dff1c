from __future__ import annotations

import os
from pathlib import Path

import pytest
from testing.gitrepo import commit_all, git, init_repo, write

from tiergate.errors import UserError
from tiergate.git import changes, formats, objects, repository, search, untracked

EMPTY_TREE_SHA1 = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
EMPTY_TREE_SHA256 = "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
ODD_NAMES = [
    "with space.txt",
    "ünïcødé-文件.txt",
    "new\nline.txt",
    "-leading-dash.txt",
    'quo"te.txt',
    "tab\there.txt",
]


def test_repo_root_from_a_subdirectory_and_from_a_file(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"a/b/c.txt": "x\n"})
    assert repository.repo_root(repo / "a" / "b") == repo
    assert repository.repo_root(repo / "a" / "b" / "c.txt") == repo


def test_outside_a_repository_is_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(UserError) as e:
        repository.repo_root(tmp_path)
    assert str(e.value) == f"not a git repository: {tmp_path} (run tiergate inside a git work tree)"


def test_inside_the_git_directory_is_not_a_work_tree(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"a.txt": "x\n"})
    with pytest.raises(UserError, match="not a git repository"):
        repository.repo_root(repo / ".git")


def test_a_missing_directory_is_named(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such directory"):
        repository.repo_root(tmp_path / "nope" / "deeper")


def test_a_hook_environment_pointing_elsewhere_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours = init_repo(tmp_path / "ours", {"a.txt": "x\n"})
    other = init_repo(tmp_path / "other", {"b.txt": "y\n"})
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    assert repository.repo_root(ours) == ours
    assert (
        repository.head_sha(ours) == git(ours, "--git-dir", str(ours / ".git"), "rev-parse", "HEAD").strip()
    )


def test_head_sha_is_none_before_the_first_commit(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    assert repository.head_sha(repo) is None
    write(repo, {"a.txt": "x\n"})
    sha = commit_all(repo, "first")
    assert repository.head_sha(repo) == sha
    assert len(sha) == 40


def test_resolve_rev_gives_full_ids(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"a.txt": "1\n"})
    first = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "tag", "-a", "-m", "annotated", "v1")
    git(repo, "branch", "old")
    write(repo, {"a.txt": "2\n"})
    second = commit_all(repo, "second")
    assert objects.resolve_rev(repo, "HEAD") == second
    assert objects.resolve_rev(repo, "main") == second
    assert objects.resolve_rev(repo, "old") == first
    assert objects.resolve_rev(repo, "v1") == first  # an annotated tag peels to its commit
    assert objects.resolve_rev(repo, first[:8]) == first
    assert objects.resolve_rev(repo, "HEAD~1") == first
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    assert objects.resolve_rev(repo, tree) == tree


@pytest.mark.parametrize("rev", ["nope", "--output=/tmp/x", "", "HEAD~5"])
def test_unknown_revisions_are_one_clear_line(tmp_path: Path, rev: str) -> None:
    repo = init_repo(tmp_path / "r", {"a.txt": "1\n"})
    with pytest.raises(UserError) as e:
        objects.resolve_rev(repo, rev)
    assert str(e.value) == f"unknown revision {rev!r} in {repo}"


def test_head_of_an_empty_repository_is_the_empty_tree(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    assert objects.resolve_rev(repo, "HEAD") == EMPTY_TREE_SHA1
    assert objects.resolve_rev(repo, EMPTY_TREE_SHA1) == EMPTY_TREE_SHA1
    with pytest.raises(UserError, match="unknown revision 'main'"):
        objects.resolve_rev(repo, "main")


def test_sha256_repositories(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "--object-format=sha256", "-b", "main")
    assert objects.empty_tree(repo) == EMPTY_TREE_SHA256
    write(repo, {"a.txt": "hello\n"})
    assert formats.blob_id(b"hello\n", 64) == git(repo, "hash-object", "a.txt").strip()


@pytest.mark.parametrize("content", [b"", b"hello\n", b"\0binary\xff", b"x" * 100_000])
def test_blob_id_is_gits(tmp_path: Path, content: bytes) -> None:
    repo = init_repo(tmp_path / "r")
    (repo / "f").write_bytes(content)
    assert formats.blob_id(content) == git(repo, "hash-object", "f").strip()


def test_unquote_path_reverses_gits_quoting(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    write(repo, dict.fromkeys([*ODD_NAMES, "back\\slash.txt"], "x\n"))
    git(repo, "add", "-A")
    # With quotepath on, git escapes every non-ASCII byte as octal too.
    listed = git(repo, "-c", "core.quotepath=on", "ls-files").splitlines()
    assert sorted(formats.unquote_path(name) for name in listed) == sorted([*ODD_NAMES, "back\\slash.txt"])


def test_the_change_and_untracked_files_survive_odd_names(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", dict.fromkeys(ODD_NAMES, "x\n"))
    write(repo, dict.fromkeys(ODD_NAMES, "x\ny\n"))
    write(repo, {f"new {name}": "z\n" for name in ODD_NAMES})
    entries = changes.ChangeDiff(repo, "HEAD", with_patch=False).result()[0]
    assert sorted(e.path for e in entries) == sorted(ODD_NAMES)
    assert {(e.status, e.additions, e.deletions) for e in entries} == {("M", 1, 0)}
    assert sorted(untracked.untracked_files(repo, "HEAD")) == sorted(f"new {name}" for name in ODD_NAMES)


def test_the_change_reports_renames_with_their_old_path(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"old name.txt": "".join(f"line {i}\n" for i in range(20))})
    git(repo, "mv", "old name.txt", "new name.txt")
    [entry] = changes.ChangeDiff(repo, "HEAD", with_patch=False).result()[0]
    assert (entry.status, entry.path, entry.old_path, entry.additions, entry.deletions) == (
        "R",
        "new name.txt",
        "old name.txt",
        0,
        0,
    )


def test_untracked_files_skip_ignored_ones_and_show_a_nested_repository_once(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {".gitignore": "*.log\nbuild/\n"})
    write(repo, {"a.log": "x\n", "build/out.txt": "x\n", "src/new.py": "x\n"})
    init_repo(repo / "nested", {"inner.txt": "x\n"})
    assert sorted(untracked.untracked_files(repo, "HEAD")) == ["nested/", "src/new.py"]


def test_untracked_files_leave_out_a_state_folder_in_the_work_tree_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = init_repo(tmp_path / "r", {"a.txt": "a\n"})
    write(repo, {"st[1]/log.jsonl": "{}\n", "sub/st[1]/x.py": "x\n", ".tiergate/loops/s1.json": "{}\n"})
    monkeypatch.setenv("TIERGATE_STATE_DIR", "st[1]")
    # That folder only (its name taken literally, at the top); an agent's `.tiergate/` is a new folder.
    assert sorted(untracked.untracked_files(repo, "HEAD")) == [".tiergate/loops/s1.json", "sub/st[1]/x.py"]
    write(repo, {".tiergate/.gitignore": "*\n"})  # an older tiergate's state folder ignored itself
    assert sorted(untracked.untracked_files(repo, "HEAD")) == ["sub/st[1]/x.py"]


def test_code_hidden_in_an_older_tiergates_state_folder_is_still_part_of_the_change(tmp_path: Path) -> None:
    # A `*` .gitignore is easy to write: an agent can make a folder look like an older tiergate's. Its
    # state files are left out, a program put there is not.
    repo = init_repo(tmp_path / "r", {"a.txt": "a\n"})
    write(
        repo,
        {".tiergate/.gitignore": "*\n", ".tiergate/log.jsonl": "{}\n", ".tiergate/loops/s1.json": "{}\n"},
    )
    write(repo, {".tiergate/payload.py": "import os\n", ".tiergate/run": "#!/bin/sh\n", "src/new.txt": "n\n"})
    (repo / ".tiergate" / "run").chmod(0o755)
    assert sorted(untracked.untracked_files(repo, "HEAD")) == [
        ".tiergate/payload.py",
        ".tiergate/run",
        "src/new.txt",
    ]


def test_diff_patch_limited_to_paths(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"a.txt": "1\n", "-b.txt": "1\n", "c d.txt": "1\n"})
    write(repo, {"a.txt": "2\n", "-b.txt": "2\n", "c d.txt": "2\n"})
    patch = changes.diff_patch(repo, "HEAD", ["-b.txt", "c d.txt"]).decode()
    assert "+++ b/-b.txt" in patch
    assert "+++ b/c d.txt" in patch
    assert "a.txt" not in patch
    assert "@@ -1 +1 @@" in patch  # no context lines by default


def test_grep_files_finds_whole_words_in_tracked_and_untracked_files(tmp_path: Path) -> None:
    repo = init_repo(
        tmp_path / "r",
        {".gitignore": "ignored/\n", "tests/t1.py": "import parser\n", "tests/t2.py": "import parsers\n"},
    )
    write(repo, {"tests/t3.py": "from x import parser\n", "ignored/t4.py": "import parser\n"})
    write(repo, {"src/app.py": "import parser\n"})
    assert sorted(search.grep_files(repo, ["parser"], ["tests"])) == ["tests/t1.py", "tests/t3.py"]
    assert search.grep_files(repo, ["nothing_like_it"], ["tests"]) == []
    assert search.grep_files(repo, [], ["tests"]) == []


def test_the_patch_runs_counts_are_the_ones_numstat_gives(tmp_path: Path) -> None:
    # `ChangeDiff` with its patch reads the line counts from the patch's hunks instead of asking git for
    # --numstat (a second diff of every file); every kind of entry must count as numstat counts it.
    files = {
        "sql.txt": "-- a comment\n--- three\nkeep\n",
        "noeol.txt": "last line",
        "bin.dat": "\0\1\2",
        "gone.txt": "one\ntwo\n",
        "old name.txt": "same\n" * 10,
        "mode.sh": "echo\n",
        "link": "target\n",
        **dict.fromkeys(ODD_NAMES, "x\n"),
    }
    repo = init_repo(tmp_path / "r", files)
    write(
        repo,
        {
            "sql.txt": "--- three\n+++ four\n@@ -1 +1 @@\nkeep\n",
            "noeol.txt": "last line\n",
            "bin.dat": "\0\3",
            "new.txt": "",
            **dict.fromkeys(ODD_NAMES, "y\n"),
        },
    )
    (repo / "gone.txt").unlink()
    git(repo, "mv", "old name.txt", "new name.txt")
    (repo / "mode.sh").chmod(0o755)
    git(repo, "add", "-N", "new.txt")
    base = git(repo, "rev-parse", "HEAD").strip()

    def diffed(numstat: bool) -> tuple[list[formats.DiffEntry], bytes]:
        return changes._entries_and_patch(
            changes._disk_diff(repo, *changes._diff_options(True, numstat), base=base)
        )

    fast, patch = diffed(numstat=False)
    counted = formats.with_patch_counts(fast, patch)

    with_numstat, same_patch = diffed(numstat=True)
    assert counted is not None and counted == with_numstat and patch == same_patch
    assert changes.ChangeDiff(repo, base, with_patch=True).result() == (with_numstat, patch)
    by_path = {e.path: (e.additions, e.deletions) for e in counted}
    assert by_path["bin.dat"] == (None, None) and by_path["noeol.txt"] == (1, 1)
    assert by_path["new name.txt"] == (0, 0) and by_path["mode.sh"] == (0, 0) and by_path["new.txt"] == (0, 0)
    # A type change shows as two patches of one record: no line-up, so the counts come from numstat.
    (repo / "link").unlink()
    (repo / "link").symlink_to("target")
    fast, patch = diffed(numstat=False)
    assert formats.with_patch_counts(fast, patch) is None
    assert changes.ChangeDiff(repo, base, with_patch=True).result() == diffed(numstat=True)


def test_measuring_the_working_tree_never_writes_the_users_index(tmp_path: Path) -> None:
    """`git diff` rewrites the index it reads when it finds stale stat data on files whose content did
    not change, taking its lock, whatever GIT_OPTIONAL_LOCKS says. A measurement must leave the user's
    index as it was: no lock in the way of the user's own git, no file replaced under tiergate's caches."""
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n", "b.txt": "b\n"})
    write(repo, {"b.txt": "changed\n"})
    index = repo / ".git" / "index"
    os.utime(repo / "a.txt", ns=(index.stat().st_mtime_ns + 10**9,) * 2)  # stale stat data, same content
    before = index.stat()

    entries, patch = changes.ChangeDiff(repo, "HEAD", with_patch=True).result()
    assert [e.path for e in entries] == ["b.txt"] and patch is not None and b"+changed" in patch
    assert changes.changed_paths(repo, "HEAD") == ["b.txt"]
    assert changes.diff_patch(repo, "HEAD").count(b"diff --git") == 1

    after = index.stat()
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (
        before.st_ino,
        before.st_mtime_ns,
        before.st_size,
    )
    assert sorted(p.name for p in index.parent.iterdir() if p.name.startswith(("index", "tiergate-"))) == [
        "index"
    ]
