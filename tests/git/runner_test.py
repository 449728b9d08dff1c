"""The one git runner, in real repositories: `run`, `start` and `stream` give git's output, and a failure
becomes one UserError line naming the culprit."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from testing.gitrepo import git, init_repo

from tiergate.errors import UserError
from tiergate.git import runner


@pytest.fixture(name="repo")
def _repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "repo", {"a.txt": "alpha\n", "b.txt": "beta\n"})


def test_run_gives_git_s_output(repo: Path) -> None:
    out = runner.run(repo, "rev-parse", "HEAD").stdout
    assert runner.text(out) == git(repo, "rev-parse", "HEAD").strip()


def test_run_feeds_stdin_to_git(repo: Path) -> None:
    out = runner.run(repo, "hash-object", "--stdin", stdin=b"alpha\n").stdout
    assert runner.text(out) == git(repo, "rev-parse", "HEAD:a.txt").strip()


def test_a_return_code_the_caller_expects_is_no_failure(repo: Path) -> None:
    (repo / "a.txt").write_text("changed\n")
    assert runner.run(repo, "diff", "--quiet", ok=(0, 1)).returncode == 1
    with pytest.raises(UserError):
        runner.run(repo, "diff", "--quiet")


def test_a_failure_is_named_by_git_s_fatal_line(repo: Path) -> None:
    with pytest.raises(UserError) as caught:
        runner.run(repo, "rev-parse", "--verify", "no-such-branch")
    assert str(caught.value) == f"git rev-parse failed in {repo}: fatal: Needed a single revision"


def test_a_folder_outside_any_repository_is_said_so(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(UserError) as caught:
        runner.run(plain, "status", env={"GIT_CEILING_DIRECTORIES": str(tmp_path)})
    assert str(caught.value) == f"not a git repository: {plain} (run tiergate inside a git work tree)"


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    with pytest.raises(UserError) as by_run:
        runner.run(gone, "status")
    with pytest.raises(UserError) as by_start:
        runner.start(gone, "status")
    assert str(by_run.value) == str(by_start.value) == f"no such directory: {gone}"


def test_start_gives_its_output_when_read(repo: Path) -> None:
    started = runner.start(repo, "ls-files", "-z")
    assert started.result() == b"a.txt\0b.txt\0"


def test_start_reports_a_failure_when_read(repo: Path) -> None:
    started = runner.start(repo, "cat-file", "-p", "HEAD:no-such-file")
    with pytest.raises(UserError) as caught:
        started.result()
    assert str(caught.value).startswith(f"git cat-file failed in {repo}: fatal: ")


def test_a_cancelled_start_releases_its_resources(repo: Path) -> None:
    released: list[bool] = []
    held = contextlib.ExitStack()
    held.callback(released.append, True)
    started = runner.start(repo, "log", resources=held)
    started.cancel()
    assert released == [True]


def test_stream_gives_all_of_git_s_output(repo: Path) -> None:
    with runner.stream(repo, "show", "HEAD:a.txt") as chunks:
        assert b"".join(chunks) == b"alpha\n"


def test_stream_feeds_stdin_to_git(repo: Path) -> None:
    with runner.stream(repo, "cat-file", "--batch", stdin=b"HEAD:b.txt\n") as chunks:
        out = b"".join(chunks)
    assert out.endswith(b"\nbeta\n\n")


def test_stream_raises_git_s_failure_once_read_to_the_end(repo: Path) -> None:
    read: list[bytes] = []
    with pytest.raises(UserError) as caught, runner.stream(repo, "show", "HEAD:no-such-file") as chunks:
        read.extend(chunks)
    assert read == []
    assert str(caught.value).startswith(f"git show failed in {repo}: fatal: ")


def test_stream_left_early_is_no_failure(repo: Path) -> None:
    for n in range(300):
        (repo / f"f{n}.txt").write_text("x\n" * 200)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "many")
    with runner.stream(repo, "log", "-p") as chunks:
        first = next(chunks)
    assert first.startswith(b"commit ")


def test_text_drops_the_newline_only() -> None:
    assert runner.text(b" main \n") == " main "
