"""A warm start (`testing.warmstart`) gives what a cold `python -m tiergate` gives: output, exit code, and a
process with the run's own environment, folder and input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testing import warmstart


def both(
    args: list[str], cwd: Path, stdin: str = "", **env: str
) -> tuple[subprocess.CompletedProcess[str], ...]:
    full = {**os.environ, **env}
    cold = subprocess.run(
        [sys.executable, "-m", "tiergate", *args],
        input=stdin,
        env=full,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    warm = warmstart.run(args, env=full, cwd=cwd, stdin=stdin, timeout=60)
    return cold, warm


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["--version"], ""),
        (["no-such-command"], ""),  # argparse: exit 2 and its usage on stderr
        (["hook", "Stop"], "{not json"),
        (["hook", "Nope"], "{}"),
        (["status", "--json"], ""),
    ],
)
def test_a_warm_run_answers_as_a_cold_one(tmp_path: Path, args: list[str], stdin: str) -> None:
    cold, warm = both(args, tmp_path, stdin, CLAUDE_PROJECT_DIR=str(tmp_path))
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)


def test_each_warm_run_has_its_own_environment_and_folder(tmp_path: Path) -> None:
    """Runs in turn, each in a folder and a state home of its own: each answers as a cold run there, with
    nothing left from the run before (`doctor --json` names the project folder and the state folder)."""
    for name in ("first", "second", "third"):
        folder = tmp_path / name
        folder.mkdir()
        cold, warm = both(["doctor", "--json"], folder, XDG_STATE_HOME=str(tmp_path / f"state-{name}"))
        assert str(folder) in warm.stdout
        assert str(tmp_path / f"state-{name}") in warm.stdout
        assert (warm.returncode, warm.stdout) == (cold.returncode, cold.stdout)
