"""Mutants of the changed lines in the real Claude Code CLI: a scripted implementer adds a function whose
boundary its test runs but never pins, and claims it done as "a quick fix". The tests cover every changed
line, yet the Stop hook sends the claim to the STANDARD verifier, not LIGHT's, and the verifier's packet
names the surviving mutant as the question to answer."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from testing.claude.cli import RunClaude, run_tiergate
from testing.claude.gated_loop import commit_checked_project
from testing.claude.scripted_api import ScriptedApi, stop_feedback
from testing.claude.tiergate_model import packet_of, script_implementer, script_verifier, spawn_directive
from testing.tiergatecli import start_loop

pytestmark = pytest.mark.e2e

PYTEST = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider"
CALC = "def add(a, b):\n    return a + b\n"
GRADE = CALC + "\n\ndef grade(score):\n    if score >= 50:\n        return 'pass'\n    return 'fail'\n"
RUNS_IT = (
    "from calc import grade\n\n\ndef test_grade():\n"
    "    assert grade(80) == 'pass'\n    assert grade(10) == 'fail'\n"
)


def test_a_covered_boundary_no_test_pins_goes_to_the_standard_verifier_with_its_mutant(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    files = {
        "calc.py": CALC,
        "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    }
    commit_checked_project(git_project, {**files, ".gitignore": "__pycache__/\n"}, PYTEST, "calc")
    start_loop(git_project, "a quick fix: add grade(score) to calc, pass from 50")
    script_implementer(scripted_api, git_project, {"calc.py": GRADE, "tests/test_grade.py": RUNS_IT})
    script_verifier(scripted_api)

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    spawn = next(f for f in stop_feedback(scripted_api) if "```tiergate-spawn" in f)
    directive = spawn_directive(spawn)
    assert directive is not None and directive["subagent_type"] == "tiergate:architect-medium"
    assert "surviving-mutants" in spawn and "`>=` -> `>`" in spawn
    packet = packet_of(scripted_api.messages_calls("subagent")[0])
    assert "- line 6 of calc.py: `>=` -> `>` leaves every test passing" in packet
