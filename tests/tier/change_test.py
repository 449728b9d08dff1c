from __future__ import annotations

from pathlib import Path

import pytest
from testing.gitrepo import commit_all, git, init_repo, repo_fixture, write

from tiergate.errors import UserError
from tiergate.git import changes
from tiergate.tier.change import ChangeMeasurement, FileChange, measure_change

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def numbered(n: int, prefix: str = "line") -> str:
    return "".join(f"{prefix} {i}\n" for i in range(n))


def only(change: ChangeMeasurement) -> FileChange:
    assert len(change.files) == 1, change.files
    return change.files[0]


repo = repo_fixture({"a.txt": numbered(10), "src/b.py": numbered(5, "b")})


def test_a_clean_work_tree_has_no_change(repo: Path) -> None:
    change = measure_change(repo)
    assert change == ChangeMeasurement(
        root=repo, base=git(repo, "rev-parse", "HEAD").strip(), base_label="HEAD", files=()
    )
    assert (change.files_changed, change.lines_changed, change.paths) == (0, 0, ())


def test_unstaged_modification(repo: Path) -> None:
    write(repo, {"a.txt": numbered(10).replace("line 3\n", "line three\n") + "extra\n"})
    assert only(measure_change(repo)) == FileChange("a.txt", "modified", additions=2, deletions=1)


def test_staged_modification_and_further_unstaged_edits_count_once(repo: Path) -> None:
    write(repo, {"a.txt": numbered(12)})
    git(repo, "add", "a.txt")
    assert only(measure_change(repo)) == FileChange("a.txt", "modified", 2, 0)
    write(repo, {"a.txt": numbered(13)})  # the working tree, not the index, is what is measured
    assert only(measure_change(repo)) == FileChange("a.txt", "modified", 3, 0)


def test_staged_new_file_is_added(repo: Path) -> None:
    write(repo, {"new.txt": "1\n2\n"})
    git(repo, "add", "new.txt")
    assert only(measure_change(repo)) == FileChange("new.txt", "added", 2, 0)


@pytest.mark.parametrize("how", ["rm", "git rm"])
def test_deleted_file_counts_its_lines(repo: Path, how: str) -> None:
    if how == "rm":
        (repo / "a.txt").unlink()
    else:
        git(repo, "rm", "-q", "a.txt")
    assert only(measure_change(repo)) == FileChange("a.txt", "deleted", 0, 10)


def test_pure_rename_adds_no_lines(repo: Path) -> None:
    git(repo, "mv", "a.txt", "renamed.txt")
    change = measure_change(repo)
    assert only(change) == FileChange("renamed.txt", "renamed", 0, 0, old_path="a.txt")
    assert change.lines_changed == 0


def test_rename_with_edits_counts_the_edits(repo: Path) -> None:
    git(repo, "mv", "a.txt", "renamed.txt")
    write(repo, {"renamed.txt": numbered(10).replace("line 0\n", "line zero\n")})
    assert only(measure_change(repo)) == FileChange("renamed.txt", "renamed", 1, 1, old_path="a.txt")


def test_a_plain_mv_of_unchanged_content_is_a_rename(repo: Path) -> None:
    (repo / "a.txt").rename(repo / "moved.txt")
    assert only(measure_change(repo)) == FileChange("moved.txt", "renamed", 0, 0, old_path="a.txt")


def test_a_plain_mv_with_edits_is_a_deletion_and_an_untracked_file(repo: Path) -> None:
    (repo / "a.txt").rename(repo / "moved.txt")
    write(repo, {"moved.txt": numbered(11)})
    assert measure_change(repo).files == (
        FileChange("a.txt", "deleted", 0, 10),
        FileChange("moved.txt", "untracked", 11, 0),
    )


def test_empty_files_are_not_paired_as_moves(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"empty.txt": ""})
    (repo / "empty.txt").rename(repo / "other.txt")
    assert [f.status for f in measure_change(repo).files] == ["deleted", "untracked"]


def test_untracked_text_files(repo: Path) -> None:
    (repo / "trailing.txt").write_bytes(b"a\nb\nc\n")
    (repo / "no-trailing.txt").write_bytes(b"a\nb\nc")
    (repo / "crlf.txt").write_bytes(b"a\r\nb\r\n")
    (repo / "empty.txt").write_bytes(b"")
    (repo / "deep" / "er").mkdir(parents=True)
    (repo / "deep" / "er" / "one.txt").write_bytes(b"\n")
    change = measure_change(repo)
    assert change.files == (
        FileChange("crlf.txt", "untracked", 2, 0),
        FileChange("deep/er/one.txt", "untracked", 1, 0),
        FileChange("empty.txt", "untracked", 0, 0),
        FileChange("no-trailing.txt", "untracked", 3, 0),
        FileChange("trailing.txt", "untracked", 3, 0),
    )
    assert (change.files_changed, change.lines_changed) == (5, 9)


def test_files_the_committed_gitignore_ignores_do_not_count_and_no_other_rule_hides_one(repo: Path) -> None:
    write(repo, {".gitignore": "*.log\nout/\n"})
    commit_all(repo, "ignore")
    write(repo, {"debug.log": "x\n", "out/a.txt": "x\n", "kept.txt": "x\n"})
    # Rules the base does not hold (the repository's own exclude file) hide nothing.
    (repo / ".git" / "info" / "exclude").write_text("kept.txt\n")
    assert measure_change(repo).files == (FileChange("kept.txt", "untracked", 1, 0),)


def test_binary_files_count_as_files_without_lines(repo: Path) -> None:
    (repo / "img.bin").write_bytes(b"\x89PNG\0\0\x01")
    commit_all(repo, "binary")
    (repo / "img.bin").write_bytes(b"\x89PNG\0\0\x02\n\n\n")
    (repo / "new.bin").write_bytes(b"\n\n\0\n")
    (repo / "late-nul.txt").write_bytes(b"x\n" * 4000 + b"\0")  # the NUL lies beyond git's 8000-byte probe
    assert measure_change(repo).files == (
        FileChange("img.bin", "modified", 0, 0, binary=True),
        FileChange("late-nul.txt", "untracked", 4001, 0),
        FileChange("new.bin", "untracked", 0, 0, binary=True),
    )


def test_a_source_file_is_text_whatever_it_holds_and_whatever_the_attributes_say(repo: Path) -> None:
    # node runs a script with a NUL in a comment, which git's own probe would call binary.
    write(repo, {"src/b.py": numbered(5, "c"), ".gitattributes": "*.py binary\n*.png binary\n"})
    (repo / "calc.js").write_bytes(b"let x = 1; /* \0 */\nlet y = 2;\n")
    (repo / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\n")
    assert measure_change(repo).files == (
        FileChange(".gitattributes", "untracked", 2, 0),
        FileChange("calc.js", "untracked", 2, 0),
        FileChange("logo.png", "untracked", 0, 0, binary=True),
        FileChange("src/b.py", "modified", 5, 5),
    )


def test_untracked_symlinks_are_not_followed(repo: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text(numbered(1000))
    (repo / "to-big").symlink_to(big)
    (repo / "dangling").symlink_to(tmp_path / "nowhere")
    (repo / "to-dir").symlink_to(repo / "src")
    # A symlink's content is its target, one line without a newline, as git stores it.
    assert measure_change(repo).files == (
        FileChange("dangling", "untracked", 1, 0),
        FileChange("to-big", "untracked", 1, 0),
        FileChange("to-dir", "untracked", 1, 0),
    )


def test_tracked_symlink_retargeted_and_file_turned_into_symlink(repo: Path) -> None:
    (repo / "link").symlink_to("a.txt")
    commit_all(repo, "link")
    (repo / "link").unlink()
    (repo / "link").symlink_to("src/b.py")
    (repo / "a.txt").unlink()
    (repo / "a.txt").symlink_to("src/b.py")
    assert measure_change(repo).files == (
        FileChange("a.txt", "typechange", 1, 10),
        FileChange("link", "modified", 1, 1),
    )


def test_a_nested_repository_is_one_entry(repo: Path) -> None:
    init_repo(repo / "vendor" / "lib", {"big.txt": numbered(500)})
    assert only(measure_change(repo)) == FileChange("vendor/lib/", "untracked", 0, 0)


def test_a_submodule_pointer_change_is_a_file_without_lines(tmp_path: Path, repo: Path) -> None:
    upstream = init_repo(tmp_path / "upstream", {"u.txt": "1\n"})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), "sub")
    commit_all(repo, "submodule")
    write(repo / "sub", {"u.txt": numbered(50)})
    commit_all(repo / "sub", "moved on")
    assert only(measure_change(repo)) == FileChange("sub", "modified", 0, 0)


ODD_NAMES = [
    "with space.py",
    "ünïcødé 文件.txt",
    "new\nline.txt",
    "-dash.txt",
    'qu"ote.txt',
    "back\\slash",
    "a b/c.txt",
]


def test_odd_names_tracked_and_untracked(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", dict.fromkeys(ODD_NAMES, "1\n"))
    write(repo, dict.fromkeys(ODD_NAMES, "1\n2\n"))
    write(repo, {f"dir/{name}": "1\n2\n3\n" for name in ODD_NAMES})
    (repo / ODD_NAMES[0]).rename(repo / "moved with space.py")
    git(repo, "add", "-A", "--", "moved with space.py", ODD_NAMES[0])
    change = measure_change(repo)
    expected = [FileChange(name, "modified", 1, 0) for name in ODD_NAMES[1:]]
    expected += [FileChange(f"dir/{name}", "untracked", 3, 0) for name in ODD_NAMES]
    expected.append(FileChange("moved with space.py", "renamed", 1, 0, old_path=ODD_NAMES[0]))
    assert sorted(change.files, key=lambda f: f.path) == sorted(expected, key=lambda f: f.path)


def test_a_repository_without_commits(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    write(repo, {"staged.txt": "1\n2\n", "loose.txt": "1\n"})
    git(repo, "add", "staged.txt")
    change = measure_change(repo)
    assert (change.base, change.base_label) == (EMPTY_TREE, "HEAD")
    assert change.files == (
        FileChange("loose.txt", "untracked", 1, 0),
        FileChange("staged.txt", "added", 2, 0),
    )


def test_base_as_sha_branch_and_tag(repo: Path) -> None:
    start = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "branch", "loop-start")
    git(repo, "tag", "v0")
    write(repo, {"a.txt": numbered(15)})
    commit_all(repo, "committed during the loop")
    write(repo, {"src/b.py": numbered(6, "b")})
    for base in (start, start[:10], "loop-start", "v0", "HEAD~1"):
        change = measure_change(repo, base)
        assert (change.base, change.base_label) == (start, base)
        assert change.files == (
            FileChange("a.txt", "modified", 5, 0),
            FileChange("src/b.py", "modified", 1, 0),
        )
    assert measure_change(repo).paths == ("src/b.py",)


def test_a_bad_base_is_one_clear_line(repo: Path) -> None:
    with pytest.raises(UserError, match=r"^unknown revision 'no-such-branch' in "):
        measure_change(repo, "no-such-branch")


def test_outside_a_repository(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"^not a git repository: "):
        measure_change(tmp_path)


def test_measured_from_a_subdirectory_paths_are_repo_relative(repo: Path) -> None:
    write(repo, {"src/new.py": "x\n", "top.txt": "y\n"})
    write(repo, {"a.txt": numbered(11)})
    change = measure_change(repo / "src")
    assert change.root == repo
    assert change.paths == ("a.txt", "src/new.py", "top.txt")


def test_totals_add_every_kind_of_change(repo: Path) -> None:
    write(repo, {"a.txt": numbered(12), "new.txt": "1\n2\n3\n"})
    (repo / "src" / "b.py").unlink()
    change = measure_change(repo)
    assert change.files_changed == 3
    assert change.lines_changed == 2 + 3 + 5


# Other tools' state (tiergate.foreign) ----------------------------------------------------------------

OMC_STATE = {
    ".omc/state/subagent-tracking.json": '{"agents": []}\n' * 40,
    ".omc/state/sessions/s1/state.json": "{}\n",
    ".claude/ralph-loop.local.md": "---\nactive: true\n---\nprompt\n",
    ".claude/settings.local.json": '{"permissions": {"allow": ["Bash(ls)"]}}\n',
}


def test_other_tools_state_is_set_aside_with_its_reasons(repo: Path) -> None:
    write(repo, {"a.txt": numbered(11), **OMC_STATE})
    change = measure_change(repo)
    assert change.paths == ("a.txt",)
    assert (change.files_changed, change.lines_changed) == (1, 1)
    assert [v.path for v in change.excluded] == sorted(OMC_STATE)
    reasons = {v.path: v.reason for v in change.excluded}
    assert reasons[".omc/state/subagent-tracking.json"] == "oh-my-claudecode's state (.omc/)"
    assert reasons[".claude/ralph-loop.local.md"].startswith("a Claude Code plugin's per-project state")


def test_a_tracked_tool_file_edited_or_deleted_is_set_aside_too(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"a.txt": "1\n", ".omc/notepad.md": "note\n", ".omc/plans/p.md": "x\n"})
    write(repo, {".omc/notepad.md": "note\nmore\n"})
    (repo / ".omc/plans/p.md").unlink()
    change = measure_change(repo)
    assert change.files == ()
    assert [v.path for v in change.excluded] == [".omc/notepad.md", ".omc/plans/p.md"]


def test_code_and_programs_under_a_tools_folder_are_counted(repo: Path) -> None:
    write(
        repo,
        {".omc/impl.py": numbered(30), ".omc/state/run": "#!/bin/sh\necho hi\n", ".omc/state/x.json": "{}\n"},
    )
    (repo / ".omc/state/run").chmod(0o755)
    change = measure_change(repo)
    assert change.paths == (".omc/impl.py", ".omc/state/run")
    assert change.lines_changed == 32
    assert [v.path for v in change.foreign_paths if not v.excluded] == [".omc/impl.py", ".omc/state/run"]
    assert [v.path for v in change.excluded] == [".omc/state/x.json"]


def test_a_users_file_moved_into_a_tools_folder_is_still_the_users_change(repo: Path) -> None:
    (repo / ".omc").mkdir()
    git(repo, "mv", "src/b.py", ".omc/b.json")
    change = measure_change(repo)
    assert only(change) == FileChange(".omc/b.json", "renamed", 0, 0, old_path="src/b.py")
    assert change.excluded == ()  # its new name is not reported as set aside: it is counted


def test_a_users_file_moved_into_a_tools_folder_with_mv_stays_a_deletion(repo: Path) -> None:
    (repo / ".omc").mkdir()
    (repo / "src/b.py").rename(repo / ".omc/b.json")
    change = measure_change(repo)
    assert only(change) == FileChange("src/b.py", "deleted", 0, 5)


def test_the_users_ignore_patterns_are_set_aside(repo: Path) -> None:
    from tiergate.foreign import Exclusions

    write(repo, {"a.txt": numbered(11), "build/out.js": numbered(500), "run.log": "x\n"})
    change = measure_change(repo, exclusions=Exclusions(("build/", "*.log"), ".tiergate.toml"))
    assert change.paths == ("a.txt",)
    assert {v.path: v.reason for v in change.excluded} == {
        "build/out.js": "[workspace] ignore in .tiergate.toml (build/)",
        "run.log": "[workspace] ignore in .tiergate.toml (*.log)",
    }
    assert measure_change(repo).files_changed == 3  # without them, counted


def test_the_change_and_its_patch_come_from_one_git_run_that_agrees_with_two(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"a b.py": "x = 1\n" * 30, "gone.py": "y\n", "keep.py": "z = 1\n"})
    git(root, "mv", "a b.py", "c d.py")
    write(root, {"keep.py": "z = 2\n", "c d.py": "x = 1\n" * 29 + "eval(s)\n"})
    (root / "gone.py").unlink()

    measured = measure_change(root, with_patch=True)

    assert measured.files == measure_change(root).files
    assert measured.patch == changes.diff_patch(root, measured.base)
    assert b"diff --git a/a b.py b/c d.py" in (measured.patch or b"")
