"""tiergate's command line as a user runs it in a test project, and what it recorded there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from testing import warmstart
from testing.gitrepo import GIT_ENV
from testing.statefolder import state_dir

# Set when the tests themselves run inside Claude Code; they would point tiergate at another project.
_OUTSIDE = ("CLAUDE_PROJECT_DIR", "TIERGATE_STATE_DIR")


def tiergate(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m tiergate ARGS` in `cwd`, with git isolated from the developer's configuration."""
    env = {k: v for k, v in os.environ.items() if k not in _OUTSIDE}
    if not warmstart.cold():
        return warmstart.run(list(args), env={**env, **GIT_ENV}, cwd=cwd, stdin=stdin, timeout=60)
    return subprocess.run(
        [sys.executable, "-m", "tiergate", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        env={**env, **GIT_ENV},
        timeout=60,
    )


def decisions(project: Path) -> list[tuple[str, str]]:
    """(event, decision) of every decision record in the project's log, in order."""
    lines = (state_dir(project) / "log.jsonl").read_text().splitlines()
    return [(r["event"], r["decision"]) for r in map(json.loads, lines) if "decision" in r]
