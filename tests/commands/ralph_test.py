"""`tiergate ralph start` as a user runs it, in a real git repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testing.gitrepo import git, init_repo, repo_fixture
from testing.statefolder import state_dir
from testing.tiergatecli import tiergate

from tiergate import seal

repo = repo_fixture({"README.md": "hi\n"})


def pending(repo: Path) -> dict[str, object]:
    sealed = (state_dir(repo) / "pending.json").read_bytes()
    data: dict[str, object] = json.loads(seal.open_file("pending.json", sealed))
    return data


def test_a_pending_loop_starts_at_head_with_its_options(repo: Path) -> None:
    (repo / "sub").mkdir()
    result = tiergate(
        repo / "sub", "ralph", "start", "Add CSV export", "--max-iterations", "9", "--promise", "OK"
    )
    assert result.returncode == 0, result.stderr
    assert "next Claude Code session" in result.stdout and "<promise>OK</promise>" in result.stdout
    loop = pending(repo)
    head = git(repo, "rev-parse", "HEAD").strip()
    assert (loop["task"], loop["max_iterations"], loop["promise"], loop["base"]) == (
        "Add CSV export",
        9,
        "OK",
        head,
    )
    assert (state_dir(repo) / ".gitignore").read_text() == "*\n"
    assert git(repo, "status", "--porcelain") == ""  # the state folder ignores itself


def test_the_project_configuration_gives_the_defaults(repo: Path) -> None:
    (repo / ".tiergate.toml").write_text("[loop]\nmax_iterations = 7\nmax_minutes = 30\n")
    assert tiergate(repo, "ralph", "start", "Fix it").returncode == 0
    loop = pending(repo)
    assert (loop["max_iterations"], loop["budget"], loop["promise"]) == (7, 1800.0, "DONE")


def test_a_second_start_replaces_the_pending_loop_and_says_so(repo: Path) -> None:
    tiergate(repo, "ralph", "start", "first")
    result = tiergate(repo, "ralph", "start", "second")
    assert "replaced the loop that was pending ('first')" in result.stdout
    assert pending(repo)["task"] == "second"


def test_a_pending_loop_keeps_the_configuration_and_a_second_start_reads_it_again(repo: Path) -> None:
    (repo / ".tiergate.toml").write_text('[checks]\ntests = "make test"\n')
    tiergate(repo, "ralph", "start", "first")
    assert (pending(repo)["config_source"], pending(repo)["config"]["checks"]) == (  # type: ignore[index]
        ".tiergate.toml",
        {"tests": "make test"},
    )
    (repo / ".tiergate.toml").write_text('[checks]\ntests = "pytest -q"\n')
    tiergate(repo, "ralph", "start", "second")
    assert pending(repo)["config"]["checks"] == {"tests": "pytest -q"}  # type: ignore[index]


def test_a_broken_configuration_starts_no_loop(repo: Path) -> None:
    (repo / ".tiergate.toml").write_text("[tiers]\nno_such_key = 1\n")
    result = tiergate(repo, "ralph", "start", "fix")
    assert (
        result.returncode == 2
        and result.stderr == "tiergate: .tiergate.toml: tiers.no_such_key: unknown key\n"
    )
    assert not (state_dir(repo) / "pending.json").exists()


def test_an_empty_repository_starts_at_the_empty_tree(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "empty")
    assert tiergate(repo, "ralph", "start", "Write the first file").returncode == 0
    assert pending(repo)["base"] == git(repo, "hash-object", "-t", "tree", "/dev/null").strip()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["  "], "the task is empty"),
        (["fix", "--max-iterations", "0"], "between 1 and 1000"),
        (["fix", "--max-iterations", "many"], "whole number"),
        (["fix", "--promise", "<x>"], "without < or >"),
    ],
)
def test_bad_arguments_are_one_line(repo: Path, args: list[str], says: str) -> None:
    result = tiergate(repo, "ralph", "start", *args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("tiergate: ") and says in result.stderr and result.stderr.count("\n") == 1
    assert not (state_dir(repo) / "pending.json").exists()


def test_outside_git_it_refuses(tmp_path: Path) -> None:
    result = tiergate(tmp_path, "ralph", "start", "fix")
    assert result.returncode == 2 and "not a git repository" in result.stderr


def test_completion_promise_is_the_promise_option(repo: Path) -> None:
    # ralph-loop's users type --completion-promise: it must set the promise, not join the task
    result = tiergate(repo, "ralph", "start", "Fix it", "--completion-promise", "SHIPPED")
    assert result.returncode == 0, result.stderr
    loop = pending(repo)
    assert (loop["task"], loop["promise"]) == ("Fix it", "SHIPPED")
