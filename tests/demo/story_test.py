"""The demo's story told in-process (`tiergate.demo.story`): an answer off the script fails it naming the
step, a fix that does not fix is refuted by the tests its verifier runs, and colour is plain ANSI."""

from __future__ import annotations

import io
import re
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from testing.tiergatecli import demo_steps
from testing.warmdemo import fork_hooks_warm

from tiergate.demo import example, story


@pytest.fixture
def temp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    # These tests are about the story the demo tells, not how its hook processes start.
    fork_hooks_warm(monkeypatch)
    return root


def test_a_hook_answering_off_script_fails_the_demo_naming_the_step(temp_root: Path) -> None:
    # With a cap of 2 iterations the claim the gate refutes halts the loop instead (the budget is spent).
    out = io.StringIO()

    code = story.run(out, script=replace(story.SCRIPT, max_iterations=2))

    assert code == 1
    told = out.getvalue()
    last = " ".join(told[told.index("tiergate demo: FAILED") :].split())
    assert "tiergate demo: FAILED at step 3: expected a block with the failing check and no spawn" in last
    assert "tiergate halted the loop: budget: the iteration cap is reached (2/2)" in last
    assert list(temp_root.iterdir()) == []


def test_a_fix_that_does_not_fix_is_refuted_by_the_tests_the_verifier_runs(temp_root: Path) -> None:
    out = io.StringIO()

    # Not the first wrong fix again, whose workspace its verifier already refuted (that is refuted at
    # once): the same mistake, written another way.
    another_wrong_fix = example.WRONG_FIX + "\n# the even case, second try\n"
    code = story.run(out, script=replace(story.SCRIPT, fix=another_wrong_fix))

    assert code == 1
    told = out.getvalue()
    assert "Ran 5 tests: FAILED (failures=1)" in demo_steps(told)[10]
    assert "FAILED at step 10: the fix was meant to pass the example's tests" in " ".join(
        told.splitlines()[-2:]
    )
    assert list(temp_root.iterdir()) == []


def test_printed_colour_is_plain_ansi_styling(temp_root: Path) -> None:
    out = io.StringIO()

    assert story.run(out, color=True, next_step="Next: what this machine allows.") == 0

    lines = out.getvalue().splitlines()
    assert lines[-1] == "Next: what this machine allows."
    assert lines[0].startswith("\033[1mtiergate demo:")
    assert any(
        line.startswith("    \033[36mtiergate (Stop, exit 0):\033[0m blocks the stop") for line in lines
    )
    assert re.sub(r"\033\[\d+m", "", out.getvalue()).count("\033") == 0
