"""A repository as real ones are, in the real Claude Code CLI (scripted model; issue 21): no ignore rule for
what its tests leave behind. `tiergate ralph start` on a workspace holding a test run's caches is a clean
start; the agent runs the tests (pytest's self-ignoring cache, bytecode) and makes a one-line fix; its
claim is measured as that one file, and the verifier passes it."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from testing.claude.cli import RunClaude, run_tiergate
from testing.claude.scripted_api import Rule, ScriptedApi, bash, stop_feedback, text, write_file
from testing.claude.tiergate_model import follow_spawn_directive, passing_verdict
from testing.gitrepo import commit_all, write
from testing.tiergatecli import decisions, tiergate

pytestmark = pytest.mark.e2e

CLAIM = "mul works and every test passes.\n<promise>DONE</promise>"
# As a project declares it: with pytest's cache, which writes a .gitignore of its own.
PYTEST = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {shlex.quote(sys.executable)} -m pytest -q"
CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n"
FIXED = CALC[: CALC.rindex("a + b")] + "a * b\n"
TESTS = "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n\n\ndef test_mul():\n"
TESTS += "    assert calc.mul(2, 3) == 6\n"


def test_a_one_line_fix_is_one_file_whatever_the_test_runs_left_behind(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    config = f"[checks]\ntests = {json.dumps(PYTEST)}\n"
    write(git_project, {"calc.py": CALC, "tests/test_calc.py": TESTS, ".tiergate.toml": config})
    commit_all(git_project, "calc, mul wrong")
    subprocess.run(["sh", "-c", PYTEST], cwd=git_project, capture_output=True, check=False)
    assert (git_project / ".pytest_cache" / ".gitignore").exists()
    started = tiergate(git_project, "ralph", "start", "fix mul in calc.py", "--max-iterations", "4")
    assert started.returncode == 0, started.stderr
    assert "took the workspace" not in started.stdout  # a test run's cache is not the user's work
    scripted_api.script(
        Rule(follow_spawn_directive, thread="main", last_user_contains="```tiergate-spawn", name="spawn"),
        Rule(text("The verifier has answered."), thread="main", last_user_contains="tiergate-verdict"),
    )
    scripted_api.sequence(
        bash(PYTEST, "Run the tests"),
        write_file(git_project / "calc.py", FIXED),
        bash(PYTEST, "Run them again"),
        text(CLAIM),
        thread="main",
    )
    scripted_api.on(bash(PYTEST), thread="subagent", after_tool_result=False)
    scripted_api.on(passing_verdict("ran pytest: 2 passed"), thread="subagent")

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    [spawn] = stop_feedback(scripted_api)[:1]
    assert spawn.count("```tiergate-spawn") == 1
    assert "1 file, 2 lines changed since the loop began" in spawn
    assert ("SubagentStop", "verdict") in decisions(git_project)
    explained = tiergate(git_project, "tier", "--explain").stdout
    assert "pytest's cache (.pytest_cache/)" in explained
