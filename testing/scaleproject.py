"""A Python project of several modules, one test file each, for the gate at scale: which tests a change
affects, how long a suite takes, a suite longer than a Stop. `ScaleLoop` drives a ralph loop on it through
the real hook entry point; `plugin_root` makes a plugin folder whose hooks.json gives the Stop hook another
time limit (what `tiergate.hook.limits` reads)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from testing.gitrepo import init_repo, write
from testing.hooksession import HookSession
from testing.pytestcheck import PYTEST

SESSION = "33333333-2222-3333-4444-555555555555"
CLAIM = "Done: every module works.\n\n<promise>DONE</promise>"
RUNNING = "tiergate is running your checks"


def module(n: int) -> str:
    return f"def value_{n}(x):\n    return x + {n}\n"


def module_tests(n: int, seconds: float = 0.0, marker: str = "") -> str:
    """The tests of module `n`: two, each sleeping `seconds`; with `marker`, each appends where it ran
    (its working folder) to that file."""
    mark = f"    with open({marker!r}, 'a') as f:\n        f.write(os.getcwd() + '\\n')\n" if marker else ""
    body = f"    time.sleep({seconds})\n{mark}"
    return (
        f"import os\nimport time\n\nfrom calc.mod_{n} import value_{n}\n\n\n"
        f"def test_value_{n}_adds():\n{body}    assert value_{n}(1) == {n + 1}\n\n\n"
        f"def test_value_{n}_of_zero():\n{body}    assert value_{n}(0) == {n}\n"
    )


def scale_project(root: Path, modules: int, seconds: float = 0.0, markers: Path | None = None) -> Path:
    """A git repository at `root / "project"`: `calc/mod_<n>.py` and `tests/test_mod_<n>.py` for each
    of `modules`, each test sleeping `seconds` (with `markers`, test file n marks where it ran in
    `markers / "<n>"`), and pytest as its one check, loading no plugin from the environment
    (testing/pytestcheck.py)."""
    files = {
        "calc/__init__.py": "",
        "tests/__init__.py": "",
        ".tiergate.toml": f'[checks]\ntests = "{PYTEST}"\n',
        ".gitignore": "__pycache__/\n",
    }
    for n in range(modules):
        files[f"calc/mod_{n}.py"] = module(n)
        marker = str(markers / str(n)) if markers is not None else ""
        files[f"tests/test_mod_{n}.py"] = module_tests(n, seconds, marker)
    return init_repo(root / "project", files)


def plugin_root(root: Path, stop_timeout: int) -> Path:
    """A plugin folder whose hooks/hooks.json registers tiergate's Stop hook with `stop_timeout`."""
    folder = root / "plugin"
    (folder / "hooks").mkdir(parents=True, exist_ok=True)
    registered = {
        "hooks": {
            "Stop": [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": "${CLAUDE_PLUGIN_ROOT}/hooks/tiergate-hook",
                            "args": ["Stop"],
                            "timeout": stop_timeout,
                        }
                    ]
                }
            ]
        }
    }
    (folder / "hooks" / "hooks.json").write_text(json.dumps(registered))
    return folder


class ScaleLoop(HookSession):
    """A ralph loop on a `scale_project`."""

    def __init__(self, root: Path, project: Path) -> None:
        super().__init__(root, project, SESSION)
        self.env["TIERGATE_BASELINE_AT_START"] = "1"  # as a user's loops do

    def start(self) -> None:
        answer = self.hook("UserPromptSubmit", prompt="/tiergate:ralph make every module work")
        assert "loop started" in answer["systemMessage"]

    def claim(self, files: dict[str, str] | None = None) -> tuple[dict[str, Any], float]:
        """The Stop's answer to a claim (after writing `files`), and how long the hook took."""
        if files:
            write(self.project, files)
        began = time.monotonic()
        answer = self.hook("Stop", last_assistant_message=CLAIM)
        return answer, time.monotonic() - began

    def wait(self) -> subprocess.CompletedProcess[str]:
        return self.run("wait")

    def cancel(self) -> None:
        self.run("cancel")
