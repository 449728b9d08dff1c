from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testing.fulldisk import run_on_full_tmpfs, run_with_file_limit
from testing.gitrepo import git, init_repo
from testing.statefolder import state_dir, state_env

from tiergate import seal
from tiergate.project import (
    ROOT_FILE,
    Project,
    default_state_dir,
    ensure_state_dir,
    git_top_level,
    is_valid_session_id,
    legacy_state_dir,
    locate,
    state_dir_from_env,
    state_dirs_in_tree,
    write_atomic,
)

SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")


def test_claude_project_dir_wins_over_the_git_top_level(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    (repo / "sub").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    project = locate(repo / "sub", {"CLAUDE_PROJECT_DIR": str(elsewhere), **state_env()})

    assert project == Project(elsewhere, state_dir(elsewhere))


def test_git_top_level_is_what_git_says_from_a_subdirectory(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"src/pkg/mod.py": "x = 1\n"})
    cwd = repo / "src" / "pkg"

    project = locate(cwd, state_env())

    assert project.root == Path(git(cwd, "rev-parse", "--show-toplevel").strip())
    assert project.state_dir == state_dir(project.root)


def test_a_worktree_is_its_own_project(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    cwd = tmp_path / "wt"
    (cwd / "deep").mkdir()

    project = locate(cwd / "deep", state_env())

    assert (cwd / ".git").is_file()
    assert project.root == Path(git(cwd / "deep", "rev-parse", "--show-toplevel").strip()) == cwd
    assert project.state_dir != locate(repo, state_env()).state_dir


def test_outside_any_repository_the_root_is_cwd(tmp_path: Path) -> None:
    plain = tmp_path / "plain" / "dir"
    plain.mkdir(parents=True)
    if git_top_level(str(tmp_path)) is not None:
        pytest.fail(
            f"the temporary directory {tmp_path} is inside a git repository; the test needs one that is not"
        )

    assert locate(plain, state_env()) == Project(plain, state_dir(plain))


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


def test_a_state_folder_inside_the_workspace_is_one_git_ignores(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    project = locate(repo, {"TIERGATE_STATE_DIR": "var/state", **state_env()})

    folder = ensure_state_dir(project)
    (folder / "loops").mkdir()
    (folder / "loops" / "s1.json").write_text("{}")
    (folder / "log.jsonl").write_text("{}\n")

    assert folder == repo / "var" / "state"
    assert (folder / ".gitignore").read_text() == "*\n"
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


# The default state folder: outside the workspace, one per project ----------------------------------------


def test_the_default_state_folder_is_outside_the_project_and_the_users_alone(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "my repo (2)", {"a.txt": "a\n"})
    project = locate(repo, state_env())

    folder = ensure_state_dir(project)

    home = Path(seal.state_home(os.environ))
    assert folder.parent == home / "projects"
    assert not folder.is_relative_to(repo)
    assert re.fullmatch(r"my_repo__2_-[0-9a-f]{16}", folder.name), folder.name
    for made in (folder, folder.parent):
        assert stat.S_IMODE(made.stat().st_mode) == 0o700, made
    assert (folder / ROOT_FILE).read_text() == f"{os.path.realpath(repo)}\n"
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_the_same_repository_through_a_symlink_has_the_same_state_folder(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    (tmp_path / "link").symlink_to(repo)

    through_link = locate(tmp_path / "link", state_env())

    assert through_link.root == tmp_path / "link"
    assert through_link.state_dir == locate(repo, state_env()).state_dir
    assert state_dir_from_env({"CLAUDE_PROJECT_DIR": str(tmp_path / "link"), **state_env()}) == str(
        through_link.state_dir
    )


def test_two_repositories_of_the_same_name_have_two_state_folders(tmp_path: Path) -> None:
    one = init_repo(tmp_path / "a" / "app", {"a.txt": "a\n"})
    two = init_repo(tmp_path / "b" / "app", {"a.txt": "a\n"})

    assert locate(one, state_env()).state_dir != locate(two, state_env()).state_dir
    assert locate(one, state_env()).state_dir.name.startswith("app-")


def test_a_long_or_strange_root_name_is_cut_and_kept_to_plain_characters(tmp_path: Path) -> None:
    root = tmp_path / ("é" + "x" * 60 + "\n")
    root.mkdir()
    name = Path(default_state_dir(str(root), state_env())).name
    assert re.fullmatch(r"_x{39}-[0-9a-f]{16}", name), name
    assert Path(default_state_dir("/", state_env())).name.startswith("root-")


def test_the_state_home_falls_back_to_the_users_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    folder = Path(default_state_dir(str(tmp_path / "repo"), {"HOME": str(tmp_path)}))
    assert folder.parent == tmp_path / ".local" / "state" / "tiergate" / "projects"


# What measuring the workspace leaves out ------------------------------------------------------------------


def test_a_state_folder_inside_the_work_tree_is_left_out_and_nothing_else(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    assert state_dirs_in_tree(str(repo), state_env()) == (None, None)
    assert state_dirs_in_tree(str(repo), {"TIERGATE_STATE_DIR": "var/st", **state_env()}) == ("var/st", None)
    outside = {"TIERGATE_STATE_DIR": str(tmp_path / "elsewhere"), **state_env()}
    assert state_dirs_in_tree(str(repo), outside) == (None, None)
    (repo / ".tiergate").mkdir()
    (repo / ".tiergate" / "notes.txt").write_text("the agent's own folder\n")
    assert state_dirs_in_tree(str(repo), state_env()) == (None, None)
    # An older tiergate's folder ignored itself with `*`: it stays out of every measurement.
    (repo / ".tiergate" / ".gitignore").write_text("*\n")
    assert state_dirs_in_tree(str(repo), state_env()) == (None, ".tiergate")


def test_a_legacy_state_folder_is_found_but_not_the_one_in_use(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    assert legacy_state_dir(locate(repo, state_env())) is None
    (repo / ".tiergate").mkdir()
    assert legacy_state_dir(locate(repo, state_env())) == repo / ".tiergate"
    assert legacy_state_dir(locate(repo, {"TIERGATE_STATE_DIR": ".tiergate", **state_env()})) is None


def test_ensure_state_dir_is_idempotent_and_keeps_an_existing_gitignore(tmp_path: Path) -> None:
    project = Project(tmp_path, tmp_path / "a" / "b" / "state")
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
