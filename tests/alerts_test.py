"""The halt alert's command, run for real: the message on stdin and in the environment, a timeout that
kills the command's whole process group, and never an exception or a byte on the hook's stdout."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from testing.procwatch import gone_within, running, wait_for_text

from tiergate import alerts

MESSAGE = "tiergate halted the loop: skip-limit: 3 items given up (F02, F04, F05; limit 3).\nSecond line."


def timeout_held_until_written(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """The alert's timeout starts only once its command has written `path`: a short timeout cannot end the
    command before it has set up what the test is about, however slowly a loaded machine runs it."""

    class Held(subprocess.Popen[bytes]):
        def communicate(self, input: bytes | None = None, timeout: float | None = None) -> tuple[Any, Any]:
            if isinstance(self.args, list) and "/bin/sh" in self.args:  # the alert's, not a probe's
                wait_for_text(path)
            return super().communicate(input, timeout)

    monkeypatch.setattr(subprocess, "Popen", Held)


def test_the_message_arrives_on_stdin_and_in_the_environment(tmp_path: Path) -> None:
    command = 'cat > stdin.txt; printf %s "$TIERGATE_ALERT" > env.txt; printf %s "$EXTRA" > extra.txt'
    result = alerts.notify(command, MESSAGE, cwd=tmp_path, extra_env={"EXTRA": "session s1"})
    assert result == alerts.AlertResult(command, True, "exit 0")
    assert (tmp_path / "stdin.txt").read_text() == MESSAGE
    assert (tmp_path / "env.txt").read_text() == MESSAGE
    assert (tmp_path / "extra.txt").read_text() == "session s1"


def test_a_long_message_is_whole_on_stdin_and_clipped_in_the_environment(tmp_path: Path) -> None:
    long = "x" * 200_000
    result = alerts.notify('cat > stdin.txt; printf %s "$TIERGATE_ALERT" > env.txt', long, cwd=tmp_path)
    assert result is not None and result.ok
    assert (tmp_path / "stdin.txt").read_text() == long
    assert (tmp_path / "env.txt").read_text() == long[:4096]


def test_no_command_configured_runs_nothing() -> None:
    assert alerts.notify(None, MESSAGE) is None
    assert alerts.notify("  ", MESSAGE) is None


def test_a_failing_command_is_reported_with_its_exit_and_the_tail_of_its_output(tmp_path: Path) -> None:
    command = "echo 'webhook said 503' >&2; exit 3"
    result = alerts.notify(command, MESSAGE, cwd=tmp_path)
    assert result == alerts.AlertResult(command, False, "exit 3: webhook said 503")
    missing = alerts.notify("no-such-notifier-xyz --send", MESSAGE, cwd=tmp_path)
    assert missing is not None and not missing.ok
    assert missing.detail.startswith("exit 127: ") and "not found" in missing.detail


def test_the_tail_of_a_long_output_is_kept() -> None:
    result = alerts.notify("seq 1 100000; exit 1", MESSAGE)
    assert result is not None
    assert result.detail.startswith("exit 1: …") and result.detail.endswith("99999 100000")
    assert len(result.detail) < 320


def test_a_command_that_hangs_is_killed_with_its_children_after_the_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    timeout_held_until_written(monkeypatch, tmp_path / "child.pid")
    result = alerts.notify("sleep 600 & echo $! > child.pid; sleep 600", MESSAGE, cwd=tmp_path, timeout=0.5)
    assert result is not None and not result.ok
    # Only the timeout says this: the command would have run ten minutes.
    assert result.detail == "timed out after 0.5s; its processes were killed"
    assert gone_within([int((tmp_path / "child.pid").read_text())]) == []


def test_a_child_left_in_the_background_is_not_waited_for(tmp_path: Path) -> None:
    # It holds the output file and stdin open, and would run ten minutes: neither is waited on (the
    # alert's timeout would have said so).
    result = alerts.notify("sleep 600 & echo $! > child.pid", MESSAGE, cwd=tmp_path, timeout=20)
    child = int((tmp_path / "child.pid").read_text())
    try:
        assert result is not None and result.ok
        assert running(child)  # nor killed: a notifier may mean to stay
    finally:
        os.kill(child, 9)


def test_a_command_that_cannot_start_is_reported_not_raised(tmp_path: Path) -> None:
    result = alerts.notify("true", MESSAGE, cwd=tmp_path / "gone")
    assert result is not None and not result.ok
    assert result.detail.startswith("could not run: ")


def test_nothing_reaches_the_hooks_stdout(capfd: pytest.CaptureFixture[str]) -> None:
    result = alerts.notify("echo to stdout; echo to stderr >&2", MESSAGE)
    assert result is not None and result.ok
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""


def test_a_command_that_hangs_is_killed_with_what_left_its_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    timeout_held_until_written(monkeypatch, tmp_path / "daemon.pid")
    daemon = "setsid sh -c 'echo $$ > daemon.pid; exec sleep 600' > /dev/null 2>&1 < /dev/null &"
    command = f"{daemon} until test -s daemon.pid; do sleep 0.05; done; sleep 600"

    result = alerts.notify(command, MESSAGE, cwd=tmp_path, timeout=1.0)

    assert result is not None and result.detail == "timed out after 1s; its processes were killed"
    assert gone_within([int((tmp_path / "daemon.pid").read_text())]) == []


NOTIFY = """
import sys
from pathlib import Path
from tiergate import alerts
alerts.notify(sys.argv[1], "halted", cwd=Path(sys.argv[2]), timeout=600)
"""


def test_the_command_dies_with_a_hook_killed_by_sigkill(tmp_path: Path) -> None:
    command = "echo $$ > shell.pid; sleep 600 & echo $! > child.pid; wait"
    hook = subprocess.Popen([sys.executable, "-c", NOTIFY, command, str(tmp_path)])
    deadline = time.monotonic() + 20
    while not all(
        (tmp_path / name).exists() and (tmp_path / name).read_text() for name in ("shell.pid", "child.pid")
    ):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    pids = [int((tmp_path / name).read_text()) for name in ("shell.pid", "child.pid")]

    hook.kill()
    hook.wait()

    assert gone_within(pids) == []
