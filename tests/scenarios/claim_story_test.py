"""What a claim's tier and its verifier's packet say about the tests, through the real hook entry point in
real git with real pytest (issue 20): checks still failing as at the base lead the packet and keep the
claim off LIGHT (a claim that changed nothing says so first); coverage measured by tests the change
edited does not make it LIGHT, while tests it only added do; the packet tells the tests' story per test
check and marks every changed path A, M, D or R; and the refutation texts count and compare truthfully."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from testing.gitrepo import git, init_repo, write
from testing.hooksession import HookSession
from testing.pytestcheck import PYTEST, UNITTEST

SESSION = "20202020-2222-3333-4444-555555555555"
CLAIM = "Done.\n\n<promise>DONE</promise>"
CALC = "def add(a, b):\n    return a + b\n"
CALC_MUL = CALC + "\n\ndef mul(a, b):\n    return a * b\n"
CALC_DIV = CALC + "\n\ndef div(a, b):\n    raise NotImplementedError\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
MUL_TEST = "def test_mul():\n    from calc import mul\n\n    assert mul(2, 3) == 6\n"
DIV_TEST = "\n\ndef test_div():\n    from calc import div\n\n    assert div(6, 3) == 2\n"
DIV = "tests/test_calc.py::test_div"
UNITTEST_TESTS = (
    "import unittest\n\nfrom calc import add\n\n\n"
    "class AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n"
)


class Loop(HookSession):
    def __init__(self, root: Path, files: dict[str, str], check: str = PYTEST) -> None:
        config = {
            ".tiergate.toml": f"[checks]\ntests = {json.dumps(check)}\n",
            ".gitignore": "__pycache__/\n",
        }
        super().__init__(root, init_repo(root / "project", {**files, **config}), SESSION)
        answer = self.hook("UserPromptSubmit", prompt="/tiergate:ralph finish calc")
        assert "loop started" in answer["systemMessage"]

    def claim(self, files: dict[str, str] | None = None) -> dict[str, Any]:
        write(self.project, files or {})
        return self.hook("Stop", last_assistant_message=CLAIM)

    def reasons(self) -> list[str]:
        return list([r for r in self.decisions() if r.get("event") == "Stop"][-1]["reasons"])

    def packet(self) -> str:
        verification = self.loop().verification
        assert verification is not None
        started = self.hook("SubagentStart", agent_id="v1", agent_type=verification.agent)
        return str(started["hookSpecificOutput"]["additionalContext"])


def spawned(answer: dict[str, Any]) -> None:
    assert answer["decision"] == "block" and "```tiergate-spawn" in answer["reason"], answer


def test_a_claim_whose_checks_fail_as_at_the_base_leads_its_packet_with_them_and_is_not_light(
    tmp_path: Path,
) -> None:
    loop = Loop(tmp_path, {"calc.py": CALC_DIV, "tests/test_calc.py": TESTS + DIV_TEST})

    # A small change its added test fully covers, LIGHT by size and coverage, while test_div still
    # fails as it did.
    spawned(
        loop.claim(
            {"calc.py": CALC_DIV + "\n\ndef mul(a, b):\n    return a * b\n", "tests/test_mul.py": MUL_TEST}
        )
    )

    assert loop.loop().tier == "STANDARD"
    [reason] = [r for r in loop.reasons() if r.startswith("pre-existing-failures:")]
    assert f"check tests (failing tests: {DIV})" in reason and "-> at least STANDARD" in reason
    assert any(r.startswith("small-and-tested otherwise") for r in loop.reasons())
    packet = loop.packet()
    lead = packet.index("STILL FAILING AS WHEN THE LOOP BEGAN")
    assert lead < packet.index("TASK (") < packet.index("CHANGE since the loop began")
    assert f"failing tests: {DIV}" in packet[lead : packet.index("TASK (")]
    assert "NOTHING CHANGED" not in packet


def test_a_claim_that_changed_nothing_while_checks_fail_says_so_first(tmp_path: Path) -> None:
    loop = Loop(tmp_path, {"calc.py": CALC_DIV, "tests/test_calc.py": TESTS + DIV_TEST})

    spawned(loop.claim())

    assert loop.loop().tier != "LIGHT"
    packet = loop.packet()
    first = packet.split("\n\n")[1]
    assert first.startswith("NOTHING CHANGED since the loop began")
    assert "STILL FAILING AS WHEN THE LOOP BEGAN" in first and DIV in first


def test_coverage_from_an_edited_test_file_is_not_light_and_from_an_added_one_is(tmp_path: Path) -> None:
    edited = Loop(tmp_path / "edited", {"calc.py": CALC, "tests/test_calc.py": TESTS})
    rewritten = TESTS.replace("assert add(1, 2) == 3", "assert add(1, 2) >= 3")
    spawned(edited.claim({"calc.py": CALC_MUL, "tests/test_calc.py": rewritten + "\n\n" + MUL_TEST}))
    assert edited.loop().tier == "STANDARD"
    [reason] = [r for r in edited.reasons() if r.startswith("edited-tests:")]
    assert "coverage measured by tests this change edited (tests/test_calc.py)" in reason

    for where, tests in (
        ("added", {"tests/test_mul.py": MUL_TEST}),
        ("appended", {"tests/test_calc.py": TESTS + "\n\n" + MUL_TEST}),
    ):
        added = Loop(tmp_path / where, {"calc.py": CALC, "tests/test_calc.py": TESTS})
        spawned(added.claim({"calc.py": CALC_MUL, **tests}))
        assert added.loop().tier == "LIGHT", where
        assert not any(r.startswith(("edited-tests:", "pre-existing-failures:")) for r in added.reasons())


def test_the_packet_tells_the_tests_story_and_marks_each_changed_path(tmp_path: Path) -> None:
    files = {"calc.py": CALC, "tests/test_calc.py": TESTS, "old.txt": "old\n", "notes.txt": "notes\n"}
    loop = Loop(tmp_path, files)
    (loop.project / "old.txt").unlink()
    git(loop.project, "mv", "notes.txt", "kept.txt")
    spawned(
        loop.claim(
            {
                "calc.py": CALC_MUL,
                "tests/test_calc.py": TESTS + "\n\n" + MUL_TEST,
                "tests/test_more.py": "def test_more():\n    assert True\n",
            }
        )
    )

    packet = loop.packet()
    change = packet[packet.index("CHANGE since the loop began") : packet.index("TIER:")]
    assert "each path marked A added, M modified, D deleted, R renamed" in change
    for line in ("- M calc.py", "- D old.txt", "- R kept.txt", "- A tests/test_more.py"):
        assert line in change.splitlines(), change
    tests = packet[packet.index("TESTS, per test check") : packet.index("TEST CHANGES")]
    assert "- tests:" in tests
    # The change touched tests, so they ran at the base too: one test then, three now.
    assert (
        "  at the base: passed 1, failed 0, skipped 0, xfailed 0, not run 0 (from its pytest report)" in tests
    )
    assert (
        "  at the claim: passed 3, failed 0, skipped 0, xfailed 0, not run 0 (from its pytest report)"
        in tests
    )
    assert "- M tests/test_calc.py" in tests and "- A tests/test_more.py" in tests
    # And what was done to them, line by line, for every tier's verifier to read.
    changes = packet[packet.index("TEST CHANGES") : packet.index("EVIDENCE YOU MUST PRODUCE")]
    assert "tests/test_more.py" in changes and "assert True" in changes
    assert "assert mul(2, 3) == 6" in changes


def test_a_first_refutation_counts_itself_as_attempt_1(tmp_path: Path) -> None:
    # About the loop's count, not the runner: unittest, at a fifth of pytest's CPU.
    loop = Loop(
        tmp_path, {"calc.py": CALC, "tests/__init__.py": "", "tests/test_calc.py": UNITTEST_TESTS}, UNITTEST
    )

    answer = loop.claim({"calc.py": CALC.replace("a + b", "a - b")})

    assert "tiergate-spawn" not in answer["reason"]
    assert "Attempt 1 of 3 at finish calc was refuted: " in answer["reason"]
    assert "(2 attempts left before the approach must change)" in answer["reason"]
    assert "Attempt 2 of 3" not in answer["reason"]


def test_a_new_failure_in_a_check_that_failed_at_the_base_is_not_said_to_be_new_to_the_check(
    tmp_path: Path,
) -> None:
    loop = Loop(tmp_path, {"calc.py": CALC_DIV, "tests/test_calc.py": TESTS + DIV_TEST})

    answer = loop.claim({"calc.py": CALC_DIV.replace("a + b", "a - b")})

    [headline] = [line for line in answer["reason"].splitlines() if line.startswith("tiergate's checks")]
    assert "not failing when the loop began" not in answer["reason"]
    assert headline == (
        "tiergate's checks refute the claim: new failures in 1 check of 1, with failing tests that did not "
        "fail when the loop began (the check failed then too)."
    )
    assert "new failing tests: tests/test_calc.py::test_add" in answer["reason"]
