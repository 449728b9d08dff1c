"""tiergate's command line as a user runs it in a test project, and what it recorded there."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from testing import warmstart
from testing.gitrepo import GIT_ENV
from testing.statefolder import state_dir

# Set when the tests themselves run inside Claude Code; they would point tiergate at another project.
_OUTSIDE = ("CLAUDE_PROJECT_DIR", "TIERGATE_STATE_DIR")
# A guard against a hang, not a measure: how long the demo takes is for a benchmark to say.
DEMO_HANG_GUARD_SECONDS = 120


def tiergate(
    cwd: Path,
    *args: str,
    stdin: str | None = None,
    environ: dict[str, str] | None = None,
    python_flags: tuple[str, ...] = (),
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """`python -m tiergate ARGS` in `cwd`: in exactly `environ` if given, else in this process's
    environment without what points at another project, with git isolated from the developer's
    configuration. Interpreter flags (`-X importtime`) are about its own start: such a run is cold."""
    env = environ if environ is not None else _isolated()
    if not python_flags and not warmstart.cold():
        return warmstart.run(list(args), env=env, cwd=cwd, stdin=stdin, timeout=timeout)
    return subprocess.run(
        [sys.executable, *python_flags, "-m", "tiergate", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=timeout,
    )


def _isolated() -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k not in _OUTSIDE}, **GIT_ENV}


def start_loop(project: Path, task: str, max_iterations: int = 5) -> None:
    """`tiergate ralph start TASK --max-iterations N` in `project`, which must succeed."""
    started = tiergate(project, "ralph", "start", task, "--max-iterations", str(max_iterations))
    assert started.returncode == 0, started.stderr


def demo(tmp: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m tiergate demo ARGS` with its temporary folders made under `tmp`, and colour left to it."""
    tmp.mkdir(exist_ok=True)
    environ = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    return subprocess.run(
        [sys.executable, "-m", "tiergate", "demo", *args],
        env={**environ, "TMPDIR": str(tmp), **env},
        capture_output=True,
        text=True,
        timeout=DEMO_HANG_GUARD_SECONDS,
        check=False,
    )


def loop_status(project: Path) -> list[dict[str, Any]]:
    """`tiergate status --json` in `project`, which must succeed: one object per loop."""
    result = tiergate(project, "status", "--json")
    assert result.returncode == 0, result.stderr
    loops: list[dict[str, Any]] = json.loads(result.stdout)
    return loops


def log_records(project: Path) -> list[dict[str, Any]]:
    """Every record of the project's decision log, in order."""
    lines = (state_dir(project) / "log.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def demo_steps(output: str) -> dict[int, str]:
    """The steps `tiergate demo` printed, by number, each with its indented lines."""
    found = re.split(r"^(\d+)\.\s+", output, flags=re.MULTILINE)
    return {int(number): text for number, text in zip(found[1::2], found[2::2], strict=True)}


def decisions(project: Path, session_id: str | None = None) -> list[tuple[str, str]]:
    """(event, decision) of every decision record in the project's log (of one session if given), in order."""
    return [
        (r["event"], r["decision"])
        for r in log_records(project)
        if "decision" in r and (session_id is None or r.get("session_id") == session_id)
    ]
