"""The tests the loop began with are part of the contract, through the real Stop hook in real git with real
pytest and real `node --test`: a small project whose feature tests fail at the base, an agent that leaves
a partial implementation plus one cheat and claims. Each cheat is refuted naming the test it lost or the
failure its exit status hid; a test that passed at the base and is lost makes the claim THOROUGH; honest
work (the implementation, the same with a new test) is neither refuted nor raised, and a claim that
touches no test file runs no test at the base."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from testing.muldivproject import (
    CALC,
    DIV,
    DONE,
    JS_CALC,
    JS_PARTIAL,
    JS_TESTS,
    OTHER,
    PACKAGE,
    PARTIAL,
    REWRITTEN,
    SKIP_MARK,
    TESTS,
    Loop,
    refuted,
)
from testing.pytestcheck import PYTEST

LOST_DIV = f"{DIV}: failed when the loop began"


def python_loop(root: Path, check: str = PYTEST) -> Loop:
    return Loop(root, {"calc.py": CALC, "tests/test_calc.py": TESTS, "tests/test_other.py": OTHER}, check)


SKIP_CALL = TESTS.replace("def test_div():\n", "def test_div():\n    pytest.skip('later')\n")
XFAIL = TESTS.replace("def test_div", "@pytest.mark.xfail(reason='later')\ndef test_div")
DROPPED = (
    "def pytest_collection_modifyitems(items):\n    items[:] = [i for i in items if 'div' not in i.name]\n"
)
FORCED = "def pytest_sessionfinish(session, exitstatus):\n    session.exitstatus = 0\n"


@pytest.mark.parametrize(
    ("files", "delete", "said"),
    [
        ({}, ("tests/test_calc.py",), f"{LOST_DIV}, not run now"),
        (
            {"tests/test_calc.py": TESTS.split("\n\n\ndef test_div", maxsplit=1)[0] + "\n"},
            (),
            f"{LOST_DIV}, not run now",
        ),
        ({"tests/test_calc.py": SKIP_MARK}, (), f"{LOST_DIV}, skipped now"),
        ({"tests/test_calc.py": SKIP_CALL}, (), f"{LOST_DIV}, skipped now"),
        ({"tests/test_calc.py": XFAIL}, (), f"{LOST_DIV}, marked as an expected failure now"),
        ({"conftest.py": DROPPED}, (), f"{LOST_DIV}, not run now"),
        ({"pytest.ini": '[pytest]\naddopts = -k "not div"\n'}, (), f"{LOST_DIV}, deselected now"),
    ],
    ids=[
        "file-deleted",
        "failing-test-deleted",
        "skip-mark",
        "skip-call",
        "xfail",
        "conftest-drops",
        "addopts-k",
    ],
)
def test_a_python_cheat_that_loses_the_failing_test_is_refuted_naming_it(
    tmp_path: Path, files: dict[str, str], delete: tuple[str, ...], said: str
) -> None:
    loop = python_loop(tmp_path)

    reason = refuted(loop.claim({"calc.py": PARTIAL, **files}, delete))

    assert said in reason
    assert "tests the loop began with are lost" in reason
    assert re.search(r"lost, not fixed, \d tests? that failed when the loop began: ", reason)


@pytest.mark.parametrize("conftest", [REWRITTEN, FORCED], ids=["reports-rewritten", "exit-status-forced"])
def test_a_conftest_that_hides_the_failure_is_refuted_naming_the_failing_test(
    tmp_path: Path, conftest: str
) -> None:
    loop = python_loop(tmp_path)

    reason = refuted(loop.claim({"calc.py": PARTIAL, "conftest.py": conftest}))

    assert "tests fail while the check exits 0" in reason
    assert f"exit 0, but 1 test failed: {DIV}" in reason and "exit status masked" in reason


def test_a_lost_test_that_passed_at_the_base_makes_the_claim_thorough_naming_it(tmp_path: Path) -> None:
    loop = python_loop(tmp_path)
    kept = TESTS.replace("def test_add():\n    assert add(1, 2) == 3\n\n\n", "")

    answer = loop.claim({"calc.py": DONE, "tests/test_calc.py": kept})

    assert "```tiergate-spawn" in answer["reason"] and "tiergate:architect" in answer["reason"]
    assert loop.loop().tier == "THOROUGH"
    assert "tests/test_calc.py::test_add: passed when the loop began, not run now" in loop.stop_reasons()
    verification = loop.loop().verification
    assert verification is not None
    started = loop.hook("SubagentStart", agent_id="v1", agent_type=verification.agent)
    packet = started["hookSpecificOutput"]["additionalContext"]
    assert "LOST since the loop began" in packet and "test_add: passed when the loop began" in packet


def test_the_correct_implementation_passes_at_its_usual_tier_its_baseline_recorded(tmp_path: Path) -> None:
    loop = python_loop(tmp_path)

    answer = loop.claim({"calc.py": DONE})

    assert "```tiergate-spawn" in answer["reason"]
    assert loop.loop().tier in ("LIGHT", "STANDARD") and "tests-lost" not in loop.stop_reasons()
    assert loop.ran_at_base()  # every loop's per-test outcomes at the base, recorded beside its claim


def test_the_implementation_with_a_new_test_passes_at_its_usual_tier(tmp_path: Path) -> None:
    loop = python_loop(tmp_path)
    more = TESTS + "\n\ndef test_div_by_one():\n    assert div(5, 1) == 5\n"

    answer = loop.claim({"calc.py": DONE, "tests/test_calc.py": more})

    assert "```tiergate-spawn" in answer["reason"]
    assert loop.loop().tier in ("LIGHT", "STANDARD") and "tests-lost" not in loop.stop_reasons()
    assert loop.ran_at_base()  # the tests were touched: their base run tells that none was lost


def test_a_test_check_that_runs_no_test_is_no_evidence(tmp_path: Path) -> None:
    loop = python_loop(tmp_path, f"{PYTEST} -k nothing_matches_this")

    answer = loop.claim({"calc.py": DONE})

    reason = refuted(answer)
    assert "ran no test" in reason and "deselected" in reason
    told = answer["systemMessage"]  # the user's line says why, not "install the program"
    assert "A test check that runs no test is no evidence" in told and "Install" not in told


# JavaScript (node --test) --------------------------------------------------------------------------------

JS_DIV = "test/calc.test.js > calc > divides: failed when the loop began"
ONLY_PACKAGE = PACKAGE.replace("node --test", "node --test --test-only")


def node_loop(root: Path, check: str = "node --test") -> Loop:
    files = {"calc.js": JS_CALC, "test/calc.test.js": JS_TESTS, "package.json": PACKAGE}
    return Loop(root, files, check)


@pytest.mark.parametrize(
    ("tests", "said"),
    [
        (JS_TESTS.replace("it('divides'", "it.skip('divides'"), f"{JS_DIV}, skipped now"),
        (JS_TESTS.replace("describe('calc'", "describe.skip('calc'"), f"{JS_DIV}, not run now"),
    ],
    ids=["it-skip", "describe-skip"],
)
def test_a_node_cheat_that_skips_the_failing_test_is_refuted_naming_it(
    tmp_path: Path, tests: str, said: str
) -> None:
    loop = node_loop(tmp_path)

    reason = refuted(loop.claim({"calc.js": JS_PARTIAL, "test/calc.test.js": tests}))

    assert said in reason


def test_only_with_a_changed_test_script_is_refuted_naming_the_test_it_left_out(tmp_path: Path) -> None:
    loop = node_loop(tmp_path, "npm test")
    only = JS_TESTS.replace("describe('calc'", "describe.only('calc'").replace("it('adds'", "it.only('adds'")

    reason = refuted(
        loop.claim({"calc.js": JS_PARTIAL, "test/calc.test.js": only, "package.json": ONLY_PACKAGE})
    )

    assert f"{JS_DIV}, " in reason


def test_the_correct_node_implementation_passes_its_baseline_recorded(tmp_path: Path) -> None:
    loop = node_loop(tmp_path)
    done = JS_PARTIAL.replace(
        "exports.div = () => { throw new Error('not implemented'); };", "exports.div = (a, b) => a / b;"
    )

    answer = loop.claim({"calc.js": done})

    assert "```tiergate-spawn" in answer["reason"]
    assert loop.loop().tier in ("LIGHT", "STANDARD") and "tests-lost" not in loop.stop_reasons()
    assert loop.ran_at_base()
