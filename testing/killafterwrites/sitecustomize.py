"""Loaded at the start of a Python process whose PYTHONPATH begins with this folder (`testing.killwrites`):
SIGKILL the process after `TIERGATE_TEST_KILL_AFTER_WRITES` of the files `tiergate.workspace.ondisk`
writes and removes (a rollback's or a restore's), so a test can end it between any two of them."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import Any

_LIMIT = os.environ.get("TIERGATE_TEST_KILL_AFTER_WRITES", "")

if _LIMIT.isdigit():
    from tiergate.workspace import ondisk

    _left = [int(_LIMIT)]

    def _counted(original: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            result = original(*args, **kwargs)
            _left[0] -= 1
            if _left[0] == 0:
                os.kill(os.getpid(), signal.SIGKILL)
            return result

        return run

    ondisk._write = _counted(ondisk._write)
    ondisk._remove = _counted(ondisk._remove)
