"""`tiergate checks [--json]` as a user runs it: the gate on a real project, progress only on a terminal."""

from __future__ import annotations

import io
import json
import os
import pty
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from testing import tiergatecli
from testing.gitrepo import GIT_ENV, commit_all, git, init_repo, repo_fixture, write
from testing.pytestcheck import PYTEST, UNITTEST

PYTHON = shlex.quote(sys.executable)
SYNTAX = f'syntax = "{PYTHON} -m compileall -q app.py"\n'
# The tests whose report names pytest's test ids and assertions run pytest; the others, about the command
# and its report, run the same test under unittest: a nested pytest costs five times the CPU of unittest.
PYTEST_CONFIG = f'[checks]\n{SYNTAX}tests = "{PYTEST}"\n'
CONFIG = f'[checks]\n{SYNTAX}tests = "{UNITTEST}"\n'
APP = "def double(x):\n    return 2 * x\n"
TESTS = "from app import double\n\ndef test_double():\n    assert double(2) == 4\n"
UNITS = (
    "import unittest\n\nfrom app import double\n\n"
    "class Double(unittest.TestCase):\n    def test_double(self):\n        self.assertEqual(double(2), 4)\n"
)


def env() -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "TIERGATE_STATE_DIR")}
    return {**kept, **GIT_ENV}


def tiergate(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return tiergatecli.tiergate(cwd, "checks", *args, environ=env())


def short_head(repo: Path) -> str:
    """HEAD as the report names what it compared with."""
    return git(repo, "rev-parse", "HEAD").strip()[:12]


repo = repo_fixture({".tiergate.toml": CONFIG, "app.py": APP, "test_app.py": UNITS})


def test_passing_checks_exit_0_and_print_the_report(repo: Path) -> None:
    run = tiergate(repo)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("tiergate's checks pass (2 checks).")
    assert run.stderr == ""  # not a terminal: no progress


def test_a_new_failure_exits_1_with_the_failing_test_and_its_assertion(tmp_path: Path) -> None:
    repo = init_repo(
        tmp_path / "repo", {".tiergate.toml": PYTEST_CONFIG, "app.py": APP, "test_app.py": TESTS}
    )
    write(repo, {"app.py": "def double(x):\n    return x + x + 1\n"})
    run = tiergate(repo, "--json")
    assert run.returncode == 1
    data = json.loads(run.stdout)
    assert data["refuted"] is True
    syntax, tests = data["checks"]
    assert (syntax["name"], syntax["standing"]) == ("syntax", "passed")
    assert (tests["standing"], tests["new_tests"]) == ("new", ["test_app.py::test_double"])
    assert any("assert 5 == 4" in line for line in tests["output_lines"])
    text = tiergate(repo)
    assert text.returncode == 1
    assert "(These results were produced earlier for this very workspace and reused.)" in text.stdout
    assert "new failing tests: test_app.py::test_double" in text.stdout


def test_a_new_failure_without_a_loop_says_it_was_compared_with_head_not_a_claim(repo: Path) -> None:
    write(repo, {"app.py": "def double(x):\n    return x + x + 1\n"})
    run = tiergate(repo)
    head = short_head(repo)
    first = run.stdout.splitlines()[0]
    assert first == f"tiergate's checks: 1 of 2 fails: new failures in 1 check, compared with HEAD ({head})."
    assert "claim again" not in run.stdout
    assert "loop began" not in run.stdout
    assert run.stdout.splitlines()[-1] == (
        "A completion claim on this workspace would be refuted: fix the new failures first."
    )


def test_when_every_check_fails_as_at_head_it_says_so_plainly(repo: Path) -> None:
    write(repo, {".tiergate.toml": '[checks]\nlint = "false"\ntests = "exit 3"\n'})
    commit_all(repo, "checks that fail at HEAD already")
    run = tiergate(repo)
    assert run.returncode == 0
    head = short_head(repo)
    assert run.stdout.splitlines()[0] == (
        f"Every check fails (2 of 2), as at HEAD ({head}): nothing new, so a claim would not be refuted, "
        "but no check passes."
    )
    assert all(line.startswith("Pre-existing: ") for line in run.stdout.splitlines()[1:]), run.stdout
    assert "claim:" not in run.stdout and "this claim" not in run.stdout


def test_a_repository_without_commits_has_nothing_to_compare_with_and_says_so(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "fresh")  # no files: no commit
    write(repo, {".tiergate.toml": '[checks]\nlint = "false"\n'})
    run = tiergate(repo)
    assert run.returncode == 1
    assert run.stdout.splitlines()[0] == (
        "Every check fails (1 of 1): new failures in all of them, compared with nothing "
        "(the repository has no commits yet)."
    )


def test_a_given_base_is_named_in_the_report(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD").strip()
    write(repo, {"app.py": "def double(x):\n    return x\n"})
    commit_all(repo, "broken, committed")
    run = tiergate(repo, "--base", "HEAD~1")
    assert run.returncode == 1
    assert run.stdout.splitlines()[0].endswith(f"compared with HEAD~1 ({base[:12]}).")


def test_the_base_decides_what_is_pre_existing(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD").strip()
    write(repo, {"app.py": "def double(x):\n    return x\n"})
    commit_all(repo, "broken, committed")
    write(repo, {"README.md": "docs\n"})
    against_head = tiergate(repo, "--json")  # the broken commit is the base: nothing new
    assert against_head.returncode == 0
    assert json.loads(against_head.stdout)["checks"][1]["standing"] == "pre-existing"
    against_base = tiergate(repo, "--json", "--base", base)
    assert against_base.returncode == 1
    assert json.loads(against_base.stdout)["checks"][1]["standing"] == "new"


def test_a_check_whose_program_is_missing_could_not_run_and_exits_1_even_when_missing_at_the_base(
    repo: Path,
) -> None:
    write(repo, {".tiergate.toml": CONFIG + 'lint = "no-such-program-xyz ."\n'})
    commit_all(repo, "a lint check whose program is not installed, at the base too")
    text = tiergate(repo)
    assert text.returncode == 1
    head = short_head(repo)
    assert text.stdout.splitlines()[0] == (
        "tiergate's checks: 1 of 3 fails: 1 check could not run, so no evidence, "
        f"compared with HEAD ({head})."
    )
    assert (
        "COULD NOT RUN: lint `no-such-program-xyz .`: could not run: `no-such-program-xyz` is not on PATH"
        in (text.stdout)
    )
    assert "pass" not in text.stdout.splitlines()[0]
    assert "Pre-existing" not in text.stdout
    data = json.loads(tiergate(repo, "--json").stdout)
    lint = data["checks"][2]
    assert (data["refuted"], lint["status"], lint["standing"]) == (True, "not_found", "new")


def test_a_check_the_shell_cannot_find_further_in_could_not_run(repo: Path) -> None:
    write(repo, {".tiergate.toml": CONFIG + 'lint = "true && no-such-program-xyz ."\n'})
    run = tiergate(repo, "--json")
    assert run.returncode == 1
    lint = json.loads(run.stdout)["checks"][2]
    assert (lint["status"], lint["exit_code"], lint["standing"]) == ("not_found", 127, "new")
    assert lint["reason"].startswith("could not run: /bin/sh: ")
    assert lint["reason"].endswith("no-such-program-xyz: not found (exit 127 from the shell)")


@pytest.mark.parametrize("command", ["", "  "])
def test_an_empty_check_command_is_one_line_and_runs_nothing(
    repo: Path, tmp_path: Path, command: str
) -> None:
    marker = tmp_path / "ran"
    write(repo, {".tiergate.toml": f'[checks]\nother = "touch {marker}"\ntests = "{command}"\n'})
    run = tiergate(repo)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.startswith("tiergate: .tiergate.toml: [checks] tests: the command is empty")
    assert len(run.stderr.strip().splitlines()) == 1
    assert not marker.exists()


def test_an_unknown_base_is_one_line(repo: Path) -> None:
    run = tiergate(repo, "--base", "no-such-rev")
    assert run.returncode == 2
    assert run.stderr.strip() == f"tiergate: unknown revision 'no-such-rev' in {repo}"


def test_a_bad_timeout_is_refused_by_the_parser(repo: Path) -> None:
    run = tiergate(repo, "--timeout", "0")
    assert run.returncode == 2
    assert "must be more than 0 seconds" in run.stderr


def test_the_timeout_applies_to_every_check(repo: Path) -> None:
    write(repo, {".tiergate.toml": '[checks]\ntests = "if [ -f slow ]; then sleep 30; fi"\n'})
    commit_all(repo, "a check that hangs once the workspace has a file named slow")
    write(repo, {"slow": "\n"})
    run = tiergate(repo, "--json", "--timeout", "0.5")
    assert run.returncode == 1
    (check,) = json.loads(run.stdout)["checks"]
    # Only the timeout asked for says this (the configured one, the default, lets the sleep end and pass).
    assert (check["status"], check["standing"]) == ("timed_out", "new")
    assert check["reason"] == "timed out after 0.5 s; its process group was ended"


def test_the_configured_timeout_is_the_default(repo: Path) -> None:
    config = '[checks]\ntests = "if [ -f slow ]; then sleep 30; fi"\n\n[gate]\ntimeout_seconds = 0.5\n'
    write(repo, {".tiergate.toml": config, "slow": "\n"})
    run = tiergate(repo, "--json")
    assert run.returncode == 1
    assert (
        json.loads(run.stdout)["checks"][0]["reason"] == "timed out after 0.5 s; its process group was ended"
    )


def test_on_a_terminal_progress_goes_to_stderr(repo: Path) -> None:
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "tiergate", "checks", "--rerun"],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=follower,
            text=True,
            check=False,
            env=env(),
        )
        os.close(follower)
        follower = -1
        progress = _read_all(leader)
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    assert proc.returncode == 0
    lines = progress.replace("\r\n", "\n").splitlines()
    assert lines[0].startswith("tiergate: syntax started: ")
    assert lines[1].startswith("tiergate: syntax passed in ")
    assert lines[2].startswith("tiergate: tests started: ")
    assert lines[3].startswith("tiergate: tests passed in ")
    assert "tiergate" not in proc.stdout.split("\n", 1)[1]  # the report alone on stdout


def _read_all(fd: int) -> str:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the other end is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode()


def test_progress_says_a_check_could_not_run_and_why(tmp_path: Path) -> None:
    from tiergate.commands.checks import TerminalProgress
    from tiergate.gate.checks import make_check
    from tiergate.gate.processes import Running, run_checks

    stream = io.StringIO()
    checks = [make_check("lint", "no-such-program-xyz .", "test"), make_check("tests", "true", "test")]
    run_checks(checks, tmp_path, Running(progress=TerminalProgress(stream)))
    lines = sorted(stream.getvalue().splitlines())
    assert "tiergate: lint: could not run: `no-such-program-xyz` is not on PATH" in lines
    assert any(line.startswith("tiergate: tests passed in ") for line in lines)


# `double` changed, and its test edited to agree: the claim's tests pass, the base's fail on the new code.
CHANGED_BEHAVIOUR = {
    "app.py": "def double(x):\n    return 2 * x + 1\n",
    "test_app.py": TESTS.replace("== 4", "== 5"),
}


@pytest.mark.parametrize(("setting", "refuted"), [("thorough", False), ("refute", True)])
def test_base_tests_setting_decides_as_at_a_claim(tmp_path: Path, setting: str, refuted: bool) -> None:
    # `[gate] base_tests`: a test that passed at the base and fails with the base's tests refutes only
    # with "refute"; the Stop hook passes the setting to the gate, and so does the command.
    config = PYTEST_CONFIG + f'\n[gate]\nbase_tests = "{setting}"\n'
    project = init_repo(tmp_path / "project", {".tiergate.toml": config, "app.py": APP, "test_app.py": TESTS})
    write(project, CHANGED_BEHAVIOUR)

    run = tiergate(project, "--json")

    assert run.returncode == (1 if refuted else 0), run.stdout + run.stderr
    data = json.loads(run.stdout)
    assert data["refuted"] is refuted
    tests = data["checks"][1]
    assert (tests["name"], tests["with_base_tests"]) == ("tests", "failed")
    (finding,) = tests["base_tests"]
    assert finding.startswith(
        "test_app.py::test_double passed when the loop began and fails with the tests as they were then "
        "(assert 5 == 4)"
    )
