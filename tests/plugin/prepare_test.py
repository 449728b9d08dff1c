"""The plugin's self-setup (hooks/prepare.py), run as the hook launcher runs it: one build at a time."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
PREPARE = CHECKOUT / "hooks" / "prepare.py"


def prepare(data: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLAUDE_PLUGIN_ROOT": str(CHECKOUT), "CLAUDE_PLUGIN_DATA": str(data)}
    return subprocess.run(
        [sys.executable, "-I", str(PREPARE), *args],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_build_while_another_holds_the_lock_leaves_at_once_and_touches_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with (data / "prepare.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another session's build, running
        second = prepare(data, "--build")
        assert second.returncode == 0, second.stderr
        assert sorted(p.name for p in data.iterdir()) == ["prepare.lock"]  # no environment, no state

        # A session starting meanwhile is told it is being prepared, and starts no build of its own.
        told = prepare(data, "UserPromptSubmit", stdin=json.dumps({"session_id": "s1"}))
        assert told.returncode == 0, told.stderr
        [message] = [json.loads(line)["systemMessage"] for line in told.stdout.splitlines()]
        assert message.startswith("tiergate: preparing its Python environment in ")
        assert not (data / "prepare.log").exists()
