"""The plugin route from scratch, in the real CLI: a fresh HOME with no tiergate anywhere, a git clone of
the repository added as a marketplace and the plugin installed with `claude plugin install`. The plugin
prepares its own Python environment (hooks/prepare.py) and says so; the next session's hooks answer as
tiergate, `tiergate` runs through the Bash tool from the plugin's bin/, and a false claim is refuted. A
preparation that cannot reach the package index says so in one line and blocks nothing."""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from testing.claude.cli import ClaudeRun, claude_bin, run_claude
from testing.claude.scripted_api import ScriptedApi, bash, text, write_file
from testing.gitrepo import git, init_repo
from testing.installmachine import Machine, new_machine

pytestmark = [pytest.mark.e2e, pytest.mark.install]

PLUGIN_ID = "tiergate@tiergate-local"
# How long a preparation may take: a virtualenv and pip resolving tiergate's dependencies from the index.
PREPARE_TIMEOUT = 240.0


@dataclass(frozen=True)
class PluginMachine:
    machine: Machine
    clone: Path

    @property
    def data(self) -> Path:
        return self.machine.home / ".claude" / "plugins" / "data" / "tiergate-tiergate-local"

    def session(self, api: ScriptedApi, prompt: str, project: Path, **env: str) -> ClaudeRun:
        return run_claude(
            prompt,
            plugin_dir=None,
            cwd=project,
            home=self.machine.home,
            api_url=api.url,
            env={"PATH": self.machine.path, **env},
            output_format="stream-json",
            timeout=120,
        )

    def await_preparation(self) -> float:
        """Waits for the detached build to end; the seconds it took from the first session's end."""
        started = time.monotonic()
        while time.monotonic() - started < PREPARE_TIMEOUT:
            if any(self.data.glob("env-*/ready")) or (self.data / "failed.json").exists():
                return time.monotonic() - started
            time.sleep(0.5)
        log = self.data / "prepare.log"
        raise AssertionError(f"no preparation ended in {PREPARE_TIMEOUT}s:\n{log.read_text()}")


def install_from_a_clone(root: Path) -> PluginMachine:
    machine = new_machine(root, with_claude=True)
    # The copied checkout (the working tree, as committed or not) made a repository, and cloned.
    git(machine.checkout, "init", "-q")
    git(machine.checkout, "add", "-A")
    git(machine.checkout, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "tiergate")
    clone = root / "tiergate clone"
    subprocess.run(["git", "clone", "-q", str(machine.checkout), str(clone)], check=True)
    for command in (["marketplace", "add", str(clone)], ["install", PLUGIN_ID]):
        subprocess.run(
            [str(claude_bin()), "plugin", *command],
            env=machine.env(),
            capture_output=True,
            timeout=60,
            check=True,
        )
    return PluginMachine(machine, clone)


def tiergate_notices(run: ClaudeRun) -> list[str]:
    return [n for n in run.notices if "tiergate" in n]


FAILING_TEST = """\
import unittest

from calc import add


class AddTest(unittest.TestCase):
    def test_add_sums_its_arguments(self):
        self.assertEqual(add(2, 3), 5)
"""


def test_the_plugin_prepares_itself_and_then_refutes_a_false_claim(tmp_path: Path) -> None:
    plugin = install_from_a_clone(tmp_path)
    project = init_repo(
        tmp_path / "project",
        {
            "calc.py": "def add(a, b):\n    return a + b\n",
            "test_calc.py": FAILING_TEST,
            ".tiergate.toml": '[checks]\ntests = "python3 -m unittest"\n',
        },
    )

    with ScriptedApi(log_path=tmp_path / "first.jsonl") as api:
        api.on(text("Hello."), thread="main")
        first = plugin.session(api, "hello", project)
    assert first.returncode == 0, first.describe()
    [preparing] = tiergate_notices(first)
    assert "UserPromptSubmit says: tiergate: preparing its Python environment in " in preparing, preparing
    assert "inactive until it is ready" in preparing
    waited = plugin.await_preparation()
    ready = json.loads(next(plugin.data.glob("env-*/ready")).read_text())
    assert ready["version"] == "0.1.0"
    assert ready["plugin_root"] == str(plugin.clone)
    print(f"preparation: {ready['seconds']} s by {ready['installer']} ({waited:.1f} s after the session)")

    claim = "add() is fixed.\n<promise>DONE</promise>"
    with ScriptedApi(log_path=tmp_path / "second.jsonl") as api:
        # The agent breaks add() and claims it is done.
        broken = write_file(project / "calc.py", "def add(a, b):\n    return a - b\n")
        api.sequence(bash("tiergate status --json"), broken, text(claim), thread="main")
        api.on(text("I stop here."), thread="main")
        second = plugin.session(api, "/tiergate:ralph make add() faster --max-iterations 2", project)
        main_calls = api.messages_calls("main")
    assert second.returncode == 0, second.describe()
    notices = tiergate_notices(second)
    assert sum("tiergate: ready, its Python environment is prepared" in n for n in notices) == 1, notices
    # The hooks answer as tiergate: the ralph command started a loop (the hook's own context says so).
    assert "tiergate loop active" in main_calls[0].conversation_text()
    # `tiergate` through the Bash tool: the plugin's bin/ is on its PATH.
    status_result = main_calls[1].last_user_text()
    [loop] = json.loads(status_result[status_result.index("[") :])
    assert loop["session_id"] == second.session_id
    # The false claim is refuted by the gate, naming the failing test.
    feedback = [c.last_user_text() for c in main_calls if "Stop hook feedback:" in c.last_user_text()]
    assert feedback, second.describe()
    assert "test_add_sums_its_arguments" in feedback[0]
    assert "no verifier was spawned" in feedback[0]
    # A third session is told nothing more: ready was said once.
    with ScriptedApi(log_path=tmp_path / "third.jsonl") as api:
        api.on(text("Hello."), thread="main")
        third = plugin.session(api, "hello", project)
    assert not any("ready" in n or "preparing" in n for n in tiergate_notices(third)), third.notices


def test_a_preparation_without_the_package_index_is_one_line_and_blocks_nothing(tmp_path: Path) -> None:
    plugin = install_from_a_clone(tmp_path)
    project = init_repo(tmp_path / "project", {"README.md": "A project.\n"})
    # No index to reach (a closed local port), no cache to fall back on, no retries to wait for.
    offline = {
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
        "PIP_CACHE_DIR": str(tmp_path / "empty pip cache"),
        "PIP_RETRIES": "0",
        "PIP_TIMEOUT": "2",
    }
    with ScriptedApi(log_path=tmp_path / "first.jsonl") as api:
        api.on(text("Hello."), thread="main")
        first = plugin.session(api, "hello", project, **offline)
        assert first.returncode == 0, first.describe()
        plugin.await_preparation()
        second = plugin.session(api, "hello again", project, **offline)
    assert second.returncode == 0, second.describe()
    assert second.result["result"] == "Hello."
    [failed] = tiergate_notices(second)
    assert "\n" not in failed.partition("says: ")[2].strip()
    assert "preparing its Python environment failed: the package index could not be reached" in failed
    assert "check the network (or PIP_INDEX_URL), then start a new session" in failed
    assert all(run.status == 0 for run in second.hook_runs()), second.debug_log
