"""A suite longer than what the Stop hook may wait for, in the real Claude Code CLI: tiergate's plugin with
its Stop entry's timeout at 70 s (a copy of the plugin whose hooks.json says so: the limit tiergate reads),
a suite of about 18 s. The claim's Stop blocks at once saying the checks run in the background, neither
refuted nor passed; the agent runs `tiergate wait` and claims again; that Stop reads the finished checks
and asks for the verifier, whose PASS ends the loop. No Stop is held for the suite."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from testing.claude.cli import TIERGATE_PLUGIN, RunClaude, run_tiergate
from testing.claude.scripted_api import Rule, ScriptedApi, bash, text, write_file
from testing.claude.tiergate_model import follow_tiergate, verify_by_running
from testing.gitrepo import commit_all, write
from testing.pytestcheck import PYTEST
from testing.scaleproject import RUNNING, module_tests
from testing.tiergatecli import decisions, loop_status, start_loop

pytestmark = pytest.mark.e2e

CLAIM = "Every module works.\n<promise>DONE</promise>"
WAIT = f"{sys.executable} -m tiergate wait"
HONEST = "def value_2(x):\n    total = x\n    total += 2\n    return total\n"
STOP_LIMIT = 70


def plugin_with_stop_limit(root: Path, seconds: int) -> Path:
    """tiergate's plugin, every file as it is but hooks.json, whose Stop entry's timeout is `seconds`."""
    plugin = root / "tiergate-plugin"
    plugin.mkdir()
    for entry in TIERGATE_PLUGIN.iterdir():
        if entry.name not in ("hooks", ".git"):
            (plugin / entry.name).symlink_to(entry)
    (plugin / "hooks").mkdir()
    for entry in (TIERGATE_PLUGIN / "hooks").iterdir():
        if entry.name != "hooks.json":
            (plugin / "hooks" / entry.name).symlink_to(entry)
    registered = json.loads((TIERGATE_PLUGIN / "hooks" / "hooks.json").read_text())
    for group in registered["hooks"]["Stop"]:
        for hook in group["hooks"]:
            hook["timeout"] = seconds
    (plugin / "hooks" / "hooks.json").write_text(json.dumps(registered, indent=2))
    return plugin


def test_a_suite_longer_than_the_stop_is_verified_across_stops_in_the_real_cli(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path, tmp_path: Path
) -> None:
    files = {"calc/__init__.py": "", "tests/__init__.py": ""}
    for n in range(3):
        files[f"calc/mod_{n}.py"] = f"def value_{n}(x):\n    return x + {n}\n"
        files[f"tests/test_mod_{n}.py"] = module_tests(n, seconds=3.0)
    write(git_project, {**files, ".tiergate.toml": f"[checks]\ntests = {json.dumps(PYTEST)}\n"})
    commit_all(git_project, "three modules, their slow tests")
    start_loop(git_project, "make value_2 clearer", max_iterations=6)
    api = scripted_api
    follow_tiergate(api)
    api.script(
        Rule(bash(WAIT), thread="main", last_user_contains=RUNNING, name="wait"),
        Rule(text(CLAIM), thread="main", last_user_contains="the checks are over", name="claim again"),
    )
    api.sequence(write_file(git_project / "calc" / "mod_2.py", HONEST), text(CLAIM), thread="main")
    verify_by_running(api, "cat calc/mod_2.py", "ran `cat calc/mod_2.py`: value_2 adds 2")

    plugin = plugin_with_stop_limit(tmp_path, STOP_LIMIT)
    # The suite twice (the loop's baseline, ended by the claim that comes at once, then the claim's) and
    # a verifier: more than the CLI's usual minute.
    run = run_tiergate(
        run_claude,
        "start working",
        plugin_dir=plugin,
        timeout=240,
        env={"TIERGATE_BASELINE_AT_START": "1"},  # as a user's loops do
    )

    assert run.returncode == 0, run.describe()
    stops = [d for e, d in decisions(git_project) if e == "Stop"]
    assert stops[:2] == ["checks-running", "spawn"], stops
    assert "gate-refuted" not in stops
    [status] = loop_status(git_project)
    assert (status["phase"], status["verdict"]) == ("passed", "PASS")
    held = [r.ms for r in run.hook_runs("Stop") if r.ms is not None]
    assert held and max(held) < 30_000, held  # the 18 s suite never held one Stop
    waited = [r for r in api.requests if "the checks are over" in r.last_user_text()]
    assert waited, "the agent's `tiergate wait` returned when the checks were done"
