"""The demo told in the test's process with its hooks forked warm (`testing.warmstart`), not started cold.

`tiergate.demo.session` starts `python -m tiergate hook <Event>` cold for each of its dozen and more hook
events, and the imports are most of each one's CPU. A test of what the story tells, not of how a hook
process starts, forks them from the worker's warm server instead: the same entry point (`tiergate.main`),
arguments, stdin, environment and folder. TIERGATE_TEST_COLD=1 leaves them cold.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from testing import warmstart
from tiergate.demo import session
from tiergate.main import main


def fork_hooks_warm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Until the test ends, the demo's hook events are forked warm (unless every run is to be cold)."""
    if not warmstart.cold():
        monkeypatch.setattr(session.Session, "_process", _forked_warm)


def _forked_warm(self: session.Session, args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    """`Session._process`, forked warm; a hook that hangs raises TimeoutExpired as the cold one does."""
    timeout = session.HOOK_TIMEOUT_SECONDS
    return warmstart.run(args, env=self.env, cwd=self.project, stdin=stdin, timeout=timeout)


def demo_in_process(
    tmp: Path, *args: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> subprocess.CompletedProcess[str]:
    """`tiergate demo ARGS` as `testing.tiergatecli.demo` runs it, but by its entry point in this process
    and with its hooks forked warm: for a test of what the demo leaves behind, not of its processes."""
    tmp.mkdir(exist_ok=True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    # Without --keep the demo points XDG_STATE_HOME at its own folder for good: restored when the test ends.
    monkeypatch.setenv("XDG_STATE_HOME", os.environ["XDG_STATE_HOME"])
    fork_hooks_warm(monkeypatch)
    capsys.readouterr()
    code = main(["demo", *args])
    printed = capsys.readouterr()
    return subprocess.CompletedProcess(["tiergate", "demo", *args], code, printed.out, printed.err)
