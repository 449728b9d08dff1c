"""The workspace fingerprint, on real git repositories: any edit shows, generated output does not."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.gitrepo import commit_all, git, init_repo, repo_fixture, write

from tiergate.tier.change import measure_change
from tiergate.workspace.fingerprint import fingerprint, manifest, measured_head, of_change
from tiergate.workspace.manifest import Changes, changes

repo = repo_fixture({"src/app.py": "print('a')\n", "README.md": "hello\n"})


def fp(repo: Path, base: str | None = None) -> str:
    value = fingerprint(repo, base)
    assert value is not None
    return value


def test_it_is_stable_while_nothing_changes(repo: Path) -> None:
    assert fp(repo) == fp(repo)
    assert fp(repo / "src") == fp(repo)  # from anywhere in the work tree


@pytest.mark.parametrize(
    "edit",
    [
        lambda r: (r / "src/app.py").write_text("print('b')\n"),  # same size, new content
        lambda r: (r / "README.md").unlink(),
        lambda r: (r / "notes.txt").write_text("new\n"),
        lambda r: git(r, "mv", "README.md", "READ.md"),
        lambda r: (r / "src/app.py").chmod(0o755),
    ],
)
def test_any_edit_of_the_workspace_shows(repo: Path, edit: object) -> None:
    before = fp(repo)
    edit(repo)  # type: ignore[operator]
    assert fp(repo) != before


def test_an_edit_to_an_already_changed_file_shows(repo: Path) -> None:
    (repo / "src/app.py").write_text("print('b')\n")
    (repo / "new.txt").write_text("one\n")
    before = fp(repo)
    (repo / "src/app.py").write_text("print('c')\n")
    assert fp(repo) != before
    middle = fp(repo)
    (repo / "new.txt").write_text("two\n")
    assert fp(repo) != middle


def test_a_commit_shows_even_when_the_tree_ends_up_equal(repo: Path) -> None:
    (repo / "src/app.py").write_text("print('b')\n")
    before = fp(repo)
    commit_all(repo, "b")
    assert fp(repo) != before


def test_a_measured_change_gives_the_same_fingerprint_as_git(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD").strip()
    write(repo, {"lib/util.py": "u = 1\n", "docs/guide.md": "guide\n"})
    commit_all(repo, "more")
    (repo / "src/app.py").write_text("print('b')\n")
    (repo / "docs/guide.md").unlink()
    git(repo, "mv", "lib/util.py", "lib/helpers.py")
    (repo / "README.md").rename(repo / "READ.md")  # a plain move: deleted + untracked, paired by measure
    write(repo, {"new/module.py": "n = 1\n", "src/__pycache__/app.pyc": "x"})
    change = measure_change(repo, base)
    assert of_change(change) == fp(repo, base)
    assert of_change(change) != fp(repo)  # another base, another set of paths


def test_ignored_and_generated_output_does_not_count(repo: Path) -> None:
    write(repo, {".gitignore": "build/\n"})
    commit_all(repo, "ignore build")
    before = fp(repo)
    write(
        repo,
        {
            "build/out.bin": "x",
            "src/__pycache__/app.cpython-311.pyc": "x",
            ".pytest_cache/v/cache/lastfailed": "{}",
            ".coverage": "x",
            "node_modules/left-pad/package.json": "{}",
            # An older tiergate's state folder, which ignored itself: no change of the agent's.
            ".tiergate/.gitignore": "*\n",
            ".tiergate/log.jsonl": "{}",
            "pkg.egg-info/PKG-INFO": "x",
        },
    )
    assert fp(repo) == before
    # Code is never generated output: installed code runs as the project's own does.
    write(repo, {"node_modules/left-pad/index.js": "x"})
    assert fp(repo) != before


def test_a_change_just_measured_from_head_tells_head_without_git(repo: Path) -> None:
    (repo / "src/app.py").write_text("print('b')\n")
    write(repo, {"new/module.py": "n = 1\n"})
    from_head = measure_change(repo, "HEAD")
    assert of_change(from_head, just_measured=True) == of_change(from_head) == fp(repo)
    base = git(repo, "rev-parse", "HEAD").strip()
    from_commit = measure_change(repo, base)  # HEAD asked of git: a base commit need not be HEAD
    assert of_change(from_commit, just_measured=True) == fp(repo, base)


def test_a_change_just_measured_before_the_first_commit_has_no_head(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "empty")
    (repo / "a.txt").write_text("a\n")
    change = measure_change(repo, "HEAD")
    assert measured_head(change) is None
    assert of_change(change, just_measured=True) == of_change(change) == fp(repo)


def test_a_tiergate_folder_of_the_agents_own_is_part_of_the_workspace(repo: Path) -> None:
    # tiergate's state is not in the workspace: a `.tiergate/` there is a folder like any other.
    before = fp(repo)
    write(repo, {".tiergate/loops/s1.json": '{"phase": "passed"}'})
    assert fp(repo) != before


def test_a_repository_without_commits_has_a_fingerprint(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "empty")
    before = fp(repo)
    (repo / "a.txt").write_text("a\n")
    assert fp(repo) != before


def test_outside_git_there_is_none(tmp_path: Path) -> None:
    assert fingerprint(tmp_path, None) is None


def test_what_running_tests_leaves_behind_is_not_in_it_and_code_put_there_is(repo: Path) -> None:
    before = fp(repo)
    write(
        repo,
        {
            "src/__pycache__/app.cpython-311.pyc": "bytecode",
            ".pytest_cache/.gitignore": "*\n",
            ".pytest_cache/v/cache/lastfailed": "{}",
            ".hypothesis/examples/ab/cd": "x",
            ".coverage": "data",
        },
    )
    assert fp(repo) == before
    write(repo, {".pytest_cache/plugin.py": "print('hidden')\n"})
    assert fp(repo) != before


def test_the_manifest_of_a_workspace_gives_its_fingerprint_and_each_files_change(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD").strip()
    write(repo, {"docs/guide.md": "guide\n", "notes.txt": "mine\n"})
    commit_all(repo, "docs")
    (repo / "src/app.py").write_text("print('b')\n")
    write(repo, {"draft.md": "draft\n", "src/__pycache__/app.pyc": "x"})
    start = manifest(repo, base)
    assert start is not None and start.digest == fp(repo, base)
    assert start.head == git(repo, "rev-parse", "HEAD").strip()
    assert set(start.files) == {"docs/guide.md", "notes.txt", "src/app.py", "draft.md"}  # no generated output
    assert start.at_base == {"src/app.py"}  # the others are new since the base

    write(repo, {"tests/test_new.py": "def test(): pass\n", "README.md": "changed\n"})
    (repo / "src/app.py").write_text("print('c')\n")
    (repo / "docs/guide.md").unlink()
    (repo / "draft.md").unlink()
    stop = manifest(repo, base)
    assert stop is not None and stop.digest != start.digest
    assert changes(start, stop) == Changes(
        added=("tests/test_new.py",),
        modified=("README.md", "src/app.py"),
        deleted=("docs/guide.md", "draft.md"),
    )


# Other tools' state (tiergate.foreign) ----------------------------------------------------------------


def tool_writes(repo: Path, round_: int) -> None:
    """What oh-my-claudecode and ralph-loop write on their own, round after round."""
    write(
        repo,
        {
            ".omc/state/subagent-tracking.json": f'{{"round": {round_}}}\n',
            f".omc/state/agent-replay-{round_}.jsonl": "{}\n",
            ".claude/ralph-loop.local.md": f"---\niteration: {round_}\n---\n",
            ".claude/settings.local.json": f'{{"n": {round_}}}\n',
        },
    )


def test_other_tools_state_changes_no_fingerprint_and_no_manifest(repo: Path) -> None:
    write(repo, {"src/app.py": "print('b')\n"})
    before = manifest(repo, None)
    tool_writes(repo, 1)
    tool_writes(repo, 2)
    after = manifest(repo, None)
    assert before is not None and after is not None
    assert after.digest == before.digest
    assert set(after.files) == {"src/app.py"}
    assert changes(before, after).empty


def test_code_written_under_a_tools_folder_changes_the_fingerprint(repo: Path) -> None:
    before = fp(repo)
    write(repo, {".omc/hidden.py": "import os\n"})
    taken = manifest(repo, None)
    assert taken is not None and taken.digest != before and ".omc/hidden.py" in taken.files


def test_claude_codes_project_settings_still_change_the_fingerprint(repo: Path) -> None:
    before = fp(repo)
    write(repo, {".claude/settings.json": '{"hooks": {}}\n'})
    assert fp(repo) != before


def test_the_users_ignore_patterns_leave_the_fingerprint_alone(repo: Path) -> None:
    from tiergate.foreign import Exclusions

    ignore = Exclusions(("build/",), ".tiergate.toml")
    before = fingerprint(repo, None, ignore)
    write(repo, {"build/out.js": "x\n"})
    assert fingerprint(repo, None, ignore) == before
    assert fingerprint(repo, None) != fingerprint(repo, None, ignore)


def test_a_measured_change_and_git_agree_with_other_tools_state_around(repo: Path) -> None:
    from tiergate.foreign import Exclusions

    ignore = Exclusions(("build/",), ".tiergate.toml")
    tool_writes(repo, 1)
    git(repo, "mv", "README.md", ".omc/readme.md")  # a rename into a tool's folder, still counted
    write(repo, {"build/x": "1\n", ".omc/tool.py": "x = 1\n", "src/app.py": "print('c')\n"})
    change = measure_change(repo, exclusions=ignore)
    assert of_change(change) == fingerprint(repo, None, ignore)
    assert change.paths == (".omc/readme.md", ".omc/tool.py", "src/app.py")
