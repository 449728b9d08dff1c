"""A claim's tier judged on the coverage its own gate measured, through the real Stop hook in real git
repositories running real pytest: a small change the tests fully run is LIGHT on that evidence, an
uncovered line keeps it STANDARD and is named, a test command that cannot take the measurement runs
as written and the claim says why, and a coverage file the agent leaves is not trusted over the gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from testing.gitrepo import init_repo, write
from testing.hooksession import HookSession
from testing.pytestcheck import PYTEST

SESSION = "88888888-2222-3333-4444-555555555555"
CLAIM = "calc grew mul, with its test.\n\n<promise>DONE</promise>"
CALC = "def add(a, b):\n    return a + b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
CALC_MUL = CALC + "\n\ndef mul(a, b):\n    return a * b\n"
TESTS_MUL = TESTS + "\n\ndef test_mul():\n    from calc import mul\n\n    assert mul(2, 3) == 6\n"
CALC_DIV = CALC_MUL + "\n\ndef div(a, b):\n    return a / b\n"


class Loop(HookSession):
    def __init__(self, root: Path, command: str = PYTEST) -> None:
        files = {
            "calc.py": CALC,
            "tests/test_calc.py": TESTS,
            ".tiergate.toml": f"[checks]\ntests = {json.dumps(command)}\n",
            ".gitignore": "__pycache__/\n",
        }
        super().__init__(root, init_repo(root / "project", files), SESSION)

    def claim(self, files: dict[str, str]) -> dict[str, Any]:
        answer = self.hook("UserPromptSubmit", prompt="/tiergate:ralph add mul to calc")
        assert "loop started" in answer["systemMessage"]
        write(self.project, files)
        return self.hook("Stop", last_assistant_message=CLAIM)

    def reasons(self) -> str:
        return " ".join([r for r in self.decisions() if r.get("event") == "Stop"][-1]["reasons"])


def test_a_small_change_its_tests_fully_run_is_light_on_the_gates_measurement(tmp_path: Path) -> None:
    loop = Loop(tmp_path)

    # Its test in a file of its own: the tests the loop began with are left as they were.
    answer = loop.claim({"calc.py": CALC_MUL, "tests/test_mul.py": TESTS_MUL})

    assert "```tiergate-spawn" in answer["reason"]
    assert loop.loop().tier == "LIGHT"
    reasons = loop.reasons()
    assert "small-and-tested" in reasons
    assert "check `tests` (tiergate line probes), measured at the gate, covers 2/2" in reasons
    # `tiergate tier` on the same workspace judges from the same kept measurement.
    shown = loop.run("tier", "--explain").stdout
    assert shown.startswith("Tier: LIGHT") and "How it could reach LIGHT:\n  it is LIGHT" in shown


def test_an_uncovered_line_keeps_it_standard_and_is_named(tmp_path: Path) -> None:
    loop = Loop(tmp_path)

    loop.claim({"calc.py": CALC_DIV, "tests/test_calc.py": TESTS_MUL})

    assert loop.loop().tier == "STANDARD", loop.reasons()
    reasons = loop.reasons()
    assert "test coverage partial, LIGHT needs full" in reasons and "not run: calc.py:10" in reasons
    route = loop.run("tier", "--explain").stdout.split("How it could reach LIGHT:\n")[1]
    assert route.startswith("  ok      files: 2, LIGHT needs < 5\n  ok      lines: ")
    assert "  blocks  coverage: partial, LIGHT needs full\n" in route and "not run: calc.py:10" in route
    assert "at a claim's gate: check `tests` (pytest runs it" in route


def test_a_command_that_cannot_take_it_still_runs_and_the_claim_says_why(tmp_path: Path) -> None:
    loop = Loop(tmp_path, f"{PYTEST} || exit 3")

    answer = loop.claim({"calc.py": CALC_MUL.replace("a * b", "a + b"), "tests/test_calc.py": TESTS_MUL})

    # The check ran as written (its failing test refutes the claim, with its own exit) and measured nothing.
    assert answer["decision"] == "block" and "tiergate-spawn" not in answer["reason"]
    assert "exit 3" in answer["reason"] and "test_mul" in answer["reason"]
    claim = [r for r in loop.decisions() if r.get("event") == "Stop"][-1]
    assert "a shell list, pipeline or redirection" in json.dumps(claim)


def test_an_unmeasurable_command_passing_leaves_the_tier_standard_with_the_reason(tmp_path: Path) -> None:
    loop = Loop(tmp_path, f"{PYTEST} | tail -n 3")

    loop.claim({"calc.py": CALC_MUL, "tests/test_calc.py": TESTS_MUL})

    assert loop.loop().tier == "STANDARD"
    assert "not measured at the gate: check `tests`" in loop.reasons()
    route = loop.run("tier", "--explain").stdout.split("How it could reach LIGHT:\n")[1]
    assert "at a claim's gate: no test check can measure it: check `tests`" in route
    assert "a shell list, pipeline or redirection" in route
    assert "coverage: not measured at the gate (no test check can measure it" in loop.run("doctor").stdout


def test_a_coverage_file_the_agent_leaves_is_not_trusted_over_the_gate(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    forged = {"files": {"calc.py": {"executed_lines": list(range(1, 11)), "missing_lines": []}}}

    loop.claim({"calc.py": CALC_DIV, "tests/test_calc.py": TESTS_MUL, "coverage.json": json.dumps(forged)})

    assert loop.loop().tier == "STANDARD"
    reasons = loop.reasons()
    assert "not run: calc.py:10" in reasons and "coverage.json (coverage.py JSON" not in reasons


# A function the tests never call, its result written over three lines.
CALC_SPREAD = CALC + "\n\ndef scaled(a, b):\n    return (\n        a\n        * b\n    )\n"


def test_a_changed_line_inside_a_statement_that_never_ran_is_not_covered(tmp_path: Path) -> None:
    """The probes (and coverage.py) know a statement by its first line; a change to a later line of it
    is placed with its statement, as Python's line table places it, and never judged fully covered."""
    files = {
        "calc.py": CALC_SPREAD,
        "tests/test_calc.py": TESTS,
        ".tiergate.toml": f"[checks]\ntests = {json.dumps(PYTEST)}\n",
        ".gitignore": "__pycache__/\n",
    }
    loop = HookSession(tmp_path, init_repo(tmp_path / "project", files), SESSION)
    answer = loop.hook("UserPromptSubmit", prompt="/tiergate:ralph scale by b")
    assert "loop started" in answer["systemMessage"]
    write(loop.project, {"calc.py": CALC_SPREAD.replace("        * b\n", "        * b * 2\n")})

    loop.hook("Stop", last_assistant_message=CLAIM)

    reasons = " ".join([r for r in loop.decisions() if r.get("event") == "Stop"][-1]["reasons"])
    assert "covers 0/1 changed executable lines; not run: calc.py:8" in reasons
    assert "no changed executable line" not in reasons
    assert loop.loop().tier != "LIGHT"
