"""Where tiergate keeps a test project's state: the answer tiergate itself gives, for the test's environment.

tests/conftest.py points XDG_STATE_HOME at a temporary folder per test, and the hooks, the commands and the
Claude Code CLI the tests start inherit it, so this is the folder they wrote.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from tiergate.project import locate

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path


def state_dir(project: Path, env: Mapping[str, str] | None = None) -> Path:
    """The state folder of the project rooted at `project` (under `env`, by default the test's)."""
    return locate(project, os.environ if env is None else env).state_dir


def state_env() -> dict[str, str]:
    """The test's state home (and whether loops begin their baseline at their start), for an environment a
    test builds from scratch for a hook or a command."""
    return {k: v for k, v in os.environ.items() if k in ("XDG_STATE_HOME", "TIERGATE_BASELINE_AT_START")}
