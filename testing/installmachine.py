"""A fresh machine for install.sh: a throw-away HOME, a copy of this checkout as a clone holds it, and
the pinned Claude Code CLI on PATH as `claude` (or no Claude Code at all)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from testing.claude.cli import claude_bin
from testing.gitrepo import git

CHECKOUT = Path(__file__).resolve().parents[1]
# The interpreter behind the test venv: install.sh must build its venv from a plain Python, as a user's.
BASE_PYTHON = Path(sys.base_prefix) / "bin" / "python3"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
# A fresh HOME has an empty pip cache; the developer's keeps the repeated venv installs fast.
PIP_CACHE = os.environ.get("PIP_CACHE_DIR") or str(Path.home() / ".cache" / "pip")


@dataclass(frozen=True)
class Machine:
    home: Path
    path: str
    checkout: Path

    @property
    def tiergate_home(self) -> Path:
        return self.home / ".local" / "share" / "tiergate"

    @property
    def settings(self) -> Path:
        return self.home / ".claude" / "settings.json"

    def env(self, **extra: str) -> dict[str, str]:
        clean = {
            k: v for k, v in os.environ.items() if not k.startswith(("TIERGATE_", "CLAUDE", "ANTHROPIC"))
        }
        return {
            **clean,
            "HOME": str(self.home),
            "PATH": self.path,
            "PYTHON": str(BASE_PYTHON),
            "PIP_CACHE_DIR": PIP_CACHE,
            **extra,
        }

    def install(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.checkout / "install.sh"), *args],
            cwd=self.home,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    def claude(self, *args: str) -> Any:
        result = subprocess.run(
            [str(claude_bin()), *args], env=self.env(), capture_output=True, text=True, timeout=60, check=True
        )
        return json.loads(result.stdout)


def export_checkout(destination: Path) -> Path:
    """What a clone of this repository holds (tracked and new files, nothing ignored: no .venv, no .cache)."""
    listed = git(CHECKOUT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, listed.split("\0")):
        source = CHECKOUT / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    return destination


def new_machine(root: Path, *, with_claude: bool, settings: dict[str, Any] | None = None) -> Machine:
    home = root / "home"
    home.mkdir(parents=True)
    path = SYSTEM_PATH
    if with_claude:
        tools = root / "tools"
        tools.mkdir()
        (tools / "claude").symlink_to(claude_bin())
        path = f"{tools}:{path}"
    if settings is not None:
        (home / ".claude").mkdir()
        (home / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    # A space in the checkout's path: every path install.sh writes must be quoted.
    return Machine(home, path, export_checkout(root / "tiergate checkout"))
