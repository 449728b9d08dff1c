"""What scripts/test.sh is still installing while the tests run: the pinned Claude Code CLI, OMC and
Chromium are installed beside the suite, not before it, since only the tests that use one need it.

The script names a folder in TIERGATE_INSTALLS and writes `<name>.status` there (the install's exit code)
when an install ends, its output in `<name>.log`. A test that needs one waits for its status; where the
variable is not set (--quick, or pytest run directly), nothing is pending and nothing waits.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

VARIABLE = "TIERGATE_INSTALLS"
# An install from an empty cache on a slow registry; past this something hangs, and the test says so.
PATIENCE_SECONDS = 900.0
_POLL_SECONDS = 0.2


class InstallError(RuntimeError):
    """An install the test needs failed or never ended: the test fails with its output."""


def awaited(name: str, *, patience: float = PATIENCE_SECONDS) -> None:
    """Return once the install `name` ("claude", "omc", "chromium") has ended well, if one is pending."""
    folder = os.environ.get(VARIABLE)
    if not folder:
        return
    status = Path(folder) / f"{name}.status"
    deadline = time.monotonic() + patience
    while not status.exists():
        if time.monotonic() > deadline:
            raise InstallError(
                f"the {name} install did not end within {patience:.0f} s{_output(folder, name)}"
            )
        time.sleep(_POLL_SECONDS)
    code = status.read_text().strip()
    if code != "0":
        raise InstallError(f"the {name} install failed (exit {code}){_output(folder, name)}")


def _output(folder: str, name: str) -> str:
    try:
        lines = (Path(folder) / f"{name}.log").read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return ":\n" + "\n".join(lines[-40:])
