"""The alert a halted loop sends through the user's notification command (`[alerts] command`).

The command runs through the shell in the project's directory, the message on its stdin and in
TIERGATE_ALERT; after `timeout` seconds its process group and what carries its mark are killed
(`tiergate.reaper`), and so they are when the hook dies. `notify` never raises and never blocks past its
timeout: an alert that fails must not break the hook. See docs/configuration.md, section `[alerts]`.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import IO

from tiergate import reaper
from tiergate.frozen import frozen
from tiergate.text import clip_start

ENV_VAR = "TIERGATE_ALERT"
DEFAULT_TIMEOUT = 10.0
_ENV_LIMIT = 4096  # far below the kernel's limit on one environment string
_TAIL = 300


@frozen
class AlertResult:
    command: str
    ok: bool
    detail: str  # one line: "exit 0", "exit 3: <the tail of its output>", "timed out after 10s", ...


def notify(
    command: str | None,
    message: str,
    *,
    cwd: Path | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    extra_env: Mapping[str, str] | None = None,
) -> AlertResult | None:
    """Run the alert command with `message`; None when no command is configured."""
    if not command or not command.strip():
        return None
    mark = reaper.new_mark()
    env = reaper.marked_env({**os.environ, **(extra_env or {}), ENV_VAR: message[:_ENV_LIMIT]}, mark)
    watcher = reaper.Watcher(mark)
    argv, preexec = reaper.with_death_signal(["/bin/sh", "-c", command])
    try:
        with tempfile.TemporaryFile() as output:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.PIPE,
                stdout=output,
                stderr=output,
                start_new_session=True,  # its own process group, so that a timeout can end all of it
                preexec_fn=preexec,  # noqa: PLW1509 (one prctl call, no lock taken)
            )
            watcher.started(proc.pid)
            try:
                proc.communicate(message.encode(), timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                reaper.sweep(mark)
                return AlertResult(command, False, f"timed out after {timeout:g}s; its processes were killed")
            tail = _tail(output)
    except OSError as e:
        return AlertResult(command, False, f"could not run: {e}")
    finally:
        watcher.close()
    if proc.returncode == 0:
        return AlertResult(command, True, "exit 0")
    return AlertResult(command, False, f"exit {proc.returncode}" + (f": {tail}" if tail else ""))


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    reaper.kill_group(proc.pid)
    proc.kill()  # the shell itself, should its group not have been signalled (a no-op once it is gone)
    proc.wait()


def _tail(output: IO[bytes]) -> str:
    size = output.seek(0, os.SEEK_END)
    output.seek(max(0, size - 4 * _TAIL))
    text = output.read().decode(errors="replace")
    flat = " ".join(text.split())
    return clip_start(flat, _TAIL + 1)
