"""The tests the loop began with are part of the contract, in the real Claude Code CLI (scripted model):
an agent that deletes the failing test and claims is refuted with the test named, and no verifier is
asked for; after it restores the test and fixes the code, the claim passes the gate, goes to the
verifier, and is verified."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.claude.cli import RunClaude, run_tiergate
from testing.claude.gated_loop import (
    commit_checked_project,
    refuted_then_verified,
    script_refuted_then_verified,
)
from testing.claude.scripted_api import ScriptedApi, bash, write_file
from testing.pytestcheck import PYTEST
from testing.tiergatecli import start_loop

pytestmark = pytest.mark.e2e

CLAIM = "mul works and every test passes.\n<promise>DONE</promise>"
CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    raise NotImplementedError\n"
FIXED = CALC.replace("raise NotImplementedError", "return a * b")
TEST_ADD = "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n"
TEST_MUL = "import calc\n\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n"


def test_deleting_the_failing_test_is_refuted_naming_it_and_the_honest_fix_is_verified(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    files = {
        "calc.py": CALC,
        "tests/test_add.py": TEST_ADD,
        "tests/test_mul.py": TEST_MUL,
        ".gitignore": "__pycache__/\n",
    }
    commit_checked_project(git_project, files, PYTEST, "calc, mul still to do")
    start_loop(git_project, "implement mul in calc.py", max_iterations=6)
    script_refuted_then_verified(
        scripted_api,
        first_try=[bash("rm tests/test_mul.py", "Delete the test that fails")],
        fix=[
            write_file(git_project / "tests/test_mul.py", TEST_MUL),
            write_file(git_project / "calc.py", FIXED),
        ],
        claim=CLAIM,
        check=PYTEST,
        evidence="ran pytest: 2 passed, test_mul among them",
    )

    run = run_tiergate(run_claude, "start working")

    assert run.returncode == 0, run.describe()
    # Refuted without a verifier, then restored and fixed: the gate passes and the verifier is asked, then
    # its PASS finishes the loop.
    refuted, _ = refuted_then_verified(scripted_api, git_project)
    # The deleted test is named, with how it was lost.
    assert "tests/test_mul.py::test_mul: failed when the loop began, not run now" in refuted
    assert (git_project / "tests/test_mul.py").read_text() == TEST_MUL
