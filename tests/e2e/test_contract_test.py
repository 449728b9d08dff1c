"""The tests the loop began with are part of the contract, in the real Claude Code CLI (scripted model):
an agent that deletes the failing test and claims is refuted with the test named, and no verifier is
asked for; after it restores the test and fixes the code, the claim passes the gate, goes to the
verifier, and is verified."""

from __future__ import annotations

import json
import shlex
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
PYTEST = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider"
CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    raise NotImplementedError\n"
FIXED = CALC.replace("raise NotImplementedError", "return a * b")
TEST_ADD = "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n"
TEST_MUL = "import calc\n\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n"


def test_deleting_the_failing_test_is_refuted_naming_it_and_the_honest_fix_is_verified(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    write(
        git_project,
        {
            "calc.py": CALC,
            "tests/test_add.py": TEST_ADD,
            "tests/test_mul.py": TEST_MUL,
            ".tiergate.toml": f"[checks]\ntests = {json.dumps(PYTEST)}\n",
            ".gitignore": "__pycache__/\n",
        },
    )
    commit_all(git_project, "calc, mul still to do")
    started = tiergate(git_project, "ralph", "start", "implement mul in calc.py", "--max-iterations", "6")
    assert started.returncode == 0, started.stderr
    scripted_api.script(
        Rule(follow_spawn_directive, thread="main", last_user_contains="```tiergate-spawn", name="spawn"),
        Rule(text("The verifier has answered."), thread="main", last_user_contains="tiergate-verdict"),
    )
    scripted_api.sequence(
        bash("rm tests/test_mul.py", "Delete the test that fails"),
        text(CLAIM),
        write_file(git_project / "tests/test_mul.py", TEST_MUL),
        write_file(git_project / "calc.py", FIXED),
        text(CLAIM),
        thread="main",
    )
    scripted_api.on(bash(PYTEST), thread="subagent", after_tool_result=False)
    scripted_api.on(passing_verdict("ran pytest: 2 passed, test_mul among them"), thread="subagent")

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    refuted, spawn = stop_feedback(scripted_api)[:2]
    # The deleted test is named, with how it was lost, and no verifier is asked for.
    assert "tests/test_mul.py::test_mul: failed when the loop began, not run now" in refuted
    assert "```tiergate-spawn" not in refuted
    # Restored and fixed: the gate passes and the verifier is asked, then its PASS finishes the loop.
    assert spawn.count("```tiergate-spawn") == 1
    assert (git_project / "tests/test_mul.py").read_text() == TEST_MUL
    assert decisions(git_project) == [
        ("ralph start", "pending"),
        ("SessionStart", "bind"),
        ("UserPromptSubmit", "user-prompt"),
        ("Stop", "gate-refuted"),
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
        ("Stop", "finalize"),
    ]
    [status] = json.loads(tiergate(git_project, "status", "--json").stdout)
    assert (status["phase"], status["verdict"]) == ("passed", "PASS")
