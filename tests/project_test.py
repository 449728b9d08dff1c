from __future__ import annotations

import errno
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testing.fulldisk import run_on_full_tmpfs, run_with_file_limit
from testing.gitrepo import git, init_repo

from tiergate.project import (
    Project,
    ensure_state_dir,
    git_top_level,
    is_valid_session_id,
    locate,
    state_dir_from_env,
    write_atomic,
)

SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")


def test_claude_project_dir_wins_over_the_git_top_level(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    (repo / "sub").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    project = locate(repo / "sub", {"CLAUDE_PROJECT_DIR": str(elsewhere)})

    assert project == Project(elsewhere, elsewhere / ".tiergate")


def test_git_top_level_is_what_git_says_from_a_subdirectory(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"src/pkg/mod.py": "x = 1\n"})
    cwd = repo / "src" / "pkg"

    project = locate(cwd, {})

    assert project.root == Path(git(cwd, "rev-parse", "--show-toplevel").strip())
    assert project.state_dir == project.root / ".tiergate"


def test_a_worktree_is_its_own_project(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    cwd = tmp_path / "wt"
    (cwd / "deep").mkdir()

    project = locate(cwd / "deep", {})

    assert (cwd / ".git").is_file()
    assert project.root == Path(git(cwd / "deep", "rev-parse", "--show-toplevel").strip()) == cwd


def test_outside_any_repository_the_root_is_cwd(tmp_path: Path) -> None:
    plain = tmp_path / "plain" / "dir"
    plain.mkdir(parents=True)
    if git_top_level(str(tmp_path)) is not None:
        pytest.fail(
            f"the temporary directory {tmp_path} is inside a git repository; the test needs one that is not"
        )

    assert locate(plain, {}) == Project(plain, plain / ".tiergate")


def test_tiergate_state_dir_absolute_and_relative(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    absolute = tmp_path / "state"

    assert (
        locate(root, {"CLAUDE_PROJECT_DIR": str(root), "TIERGATE_STATE_DIR": str(absolute)}).state_dir
        == absolute
    )
    # Relative to the project root, whatever the working directory.
    relative = locate(root / "sub", {"CLAUDE_PROJECT_DIR": str(root), "TIERGATE_STATE_DIR": "var/tg"})
    assert relative.state_dir == root / "var" / "tg"


@pytest.mark.parametrize(
    "env_keys",
    [
        {},
        {"CLAUDE_PROJECT_DIR": "{root}"},
        {"TIERGATE_STATE_DIR": "{state}"},
        {"TIERGATE_STATE_DIR": "rel/state"},
        {"CLAUDE_PROJECT_DIR": "{root}", "TIERGATE_STATE_DIR": "rel/state"},
        {"CLAUDE_PROJECT_DIR": "{root}", "TIERGATE_STATE_DIR": "{state}"},
        {"CLAUDE_PROJECT_DIR": "", "TIERGATE_STATE_DIR": ""},
    ],
)
def test_the_fast_path_state_dir_agrees_with_locate(tmp_path: Path, env_keys: dict[str, str]) -> None:
    repo = init_repo(tmp_path / "repo")
    (repo / "sub").mkdir()
    env = {key: value.format(root=repo, state=tmp_path / "state") for key, value in env_keys.items()}

    early = state_dir_from_env(env)

    if early is not None:
        assert Path(early) == locate(repo / "sub", env).state_dir
    # Only the hook's cwd can decide when neither variable gives an absolute answer.
    assert (early is None) == (
        not env.get("CLAUDE_PROJECT_DIR") and not Path(env.get("TIERGATE_STATE_DIR", "")).is_absolute()
    )


def test_ensure_state_dir_makes_a_folder_git_ignores(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    project = locate(repo, {})

    state_dir = ensure_state_dir(project)
    (state_dir / "loops").mkdir()
    (state_dir / "loops" / "s1.json").write_text("{}")
    (state_dir / "log.jsonl").write_text("{}\n")

    assert state_dir == repo / ".tiergate"
    assert (state_dir / ".gitignore").read_text() == "*\n"
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_ensure_state_dir_is_idempotent_and_keeps_an_existing_gitignore(tmp_path: Path) -> None:
    project = Project(tmp_path, tmp_path / "a" / "b" / ".tiergate")
    ensure_state_dir(project)
    (project.state_dir / ".gitignore").write_text("*\n!keep\n")

    ensure_state_dir(project)

    assert (project.state_dir / ".gitignore").read_text() == "*\n!keep\n"


def test_project_is_immutable_and_a_value() -> None:
    project = Project(Path("/r"), Path("/r/.tiergate"))

    with pytest.raises(AttributeError):
        project.root = Path("/elsewhere")
    assert project == Project(Path("/r"), Path("/r/.tiergate"))
    assert project != Project(Path("/r"), Path("/s"))
    assert len({project, Project(Path("/r"), Path("/r/.tiergate"))}) == 1
    assert "state_dir=" in repr(project)


@pytest.mark.parametrize(
    "session_id",
    ["a", "0", "3f2b8c1e-9d7a-4c1b-8e2f-5a6b7c8d9e0f", "A_b-C", "x" * 128],
)
def test_valid_session_ids(session_id: str) -> None:
    assert is_valid_session_id(session_id)


@pytest.mark.parametrize(
    "session_id",
    [
        "",
        "../../x",
        "..",
        ".",
        "a/b",
        "a\\b",
        "/abs",
        "-a",
        "_a",
        "x" * 129,
        "a b",
        "a\n",
        "a\0",
        "é",
        "a.b",
        None,
        5,
    ],
)
def test_invalid_session_ids(session_id: object) -> None:
    assert not is_valid_session_id(session_id)


@given(st.text(max_size=140) | st.text(alphabet="aZ09_-./\\", max_size=140))
def test_session_id_rule_is_exactly_the_contract_regex(value: str) -> None:
    assert is_valid_session_id(value) == (SESSION_ID.fullmatch(value) is not None)


WRITE_ATOMIC = """
import sys
from pathlib import Path
from tiergate.project import write_atomic
try:
    write_atomic(Path(sys.argv[1]), b"new" * int(sys.argv[2]))
except OSError as exc:
    print(exc.errno)
"""


def test_write_atomic_past_a_file_size_limit_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "state" / "loop.json"
    target.parent.mkdir()
    target.write_bytes(b"old")

    result = run_with_file_limit(WRITE_ATOMIC, 4096, str(target), "10000")

    assert result.stdout.strip() == str(errno.EFBIG), result
    assert target.read_bytes() == b"old"
    assert [p.name for p in target.parent.iterdir()] == ["loop.json"]


def test_write_atomic_on_a_full_disk_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    mount = tmp_path / "disk"
    program = (
        WRITE_ATOMIC.replace(
            "try:", "target = Path(sys.argv[1]); target.write_bytes(b'old'); print(target.read_bytes())\ntry:"
        )
        + "print(target.read_bytes(), sorted(p.name for p in target.parent.iterdir()))\n"
    )

    result = run_on_full_tmpfs(program, mount, "64k", str(mount / "loop.json"), "100000")

    assert result.stdout.split("\n")[1:] == [str(errno.ENOSPC), "b'old' ['loop.json']", ""], result


def test_write_atomic_that_cannot_rename_removes_its_temporary(tmp_path: Path) -> None:
    target = tmp_path / "loop.json"
    target.mkdir()
    (target / "inside").write_text("x")  # a folder in the way: the rename is refused

    with pytest.raises(OSError):
        write_atomic(target, b"new")

    assert [p.name for p in tmp_path.iterdir()] == ["loop.json"]
