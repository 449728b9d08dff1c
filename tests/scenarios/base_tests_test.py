"""The base's tests against the claimed code, through the real Stop hook in real git with real pytest and
real `node --test`: when the change touches tests, the gate runs the test checks again in a scratch copy
of the claimed workspace with the tests as they were when the loop began. A test that failed then, still
fails with its own tests and passes only with the agent's edit refutes the claim, naming it; a test that
passed then and fails with its own tests makes the claim THOROUGH with that failure (or refutes, with
`[gate] base_tests = "refute"`). Honest work is not refuted, and a claim that touches no test file runs
no more checks than before. Every check run is counted in RUNS_LOG, outside the workspace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testing import muldivproject, runcount
from testing.gitrepo import init_repo
from testing.hooksession import HookSession
from testing.muldivproject import (
    CALC,
    CLAIM,
    DIV,
    DONE,
    JS_CALC,
    JS_PARTIAL,
    JS_TESTS,
    OTHER,
    PACKAGE,
    PARTIAL,
    REWRITTEN,
    SESSION,
    SKIP_MARK,
    TESTS,
    refuted,
)
from testing.pytestcheck import PYTEST

EDITED = "failed when the loop began and still fails with the tests as they were then"
PASSES_ONLY = "it passes only with the tests as the change edited them"
ADD = "tests/test_calc.py::test_add"
COUNTED = runcount.counted("RUNS_LOG") + " && "


class Loop(muldivproject.Loop):
    """The mul-and-div loop, its check counted and with more configuration when asked."""

    def __init__(self, root: Path, files: dict[str, str], check: str, gate: str = "") -> None:
        config = {
            ".tiergate.toml": f"[checks]\ntests = {json.dumps(COUNTED + check)}\n{gate}",
            ".gitignore": "__pycache__/\n",
        }
        HookSession.__init__(self, root, init_repo(root / "project", {**files, **config}), SESSION)
        self.runs = root / "runs"
        self.runs.mkdir()
        self.env["RUNS_LOG"] = str(self.runs)
        answer = self.hook("UserPromptSubmit", prompt="/tiergate:ralph implement mul and div in calc")
        assert "loop started" in answer["systemMessage"]

    def checks_run(self) -> int:
        return runcount.runs(self.runs)

    def packet(self) -> str:
        verification = self.loop().verification
        assert verification is not None
        started = self.hook("SubagentStart", agent_id="v1", agent_type=verification.agent)
        return str(started["hookSpecificOutput"]["additionalContext"])


def python_loop(root: Path, gate: str = "") -> Loop:
    files = {"calc.py": CALC, "tests/test_calc.py": TESTS, "tests/test_other.py": OTHER}
    return Loop(root, files, PYTEST, gate)


WRONG = PARTIAL.replace("def div(a, b):\n    raise NotImplementedError", "def div(a, b):\n    return a * b")
EXPECTED_CHANGED = TESTS.replace("assert div(6, 3) == 2", "assert div(6, 3) == 18")
ASSERT_TRUE = TESTS.replace("assert div(6, 3) == 2", "assert True")
SWALLOWED = TESTS.replace(
    "    assert div(6, 3) == 2\n",
    "    try:\n        assert div(6, 3) == 2\n    except Exception:\n        pass\n",
)
PATCHING = "import calc\n\ncalc.div = lambda a, b: a / b\n"
# Appended under the failing test's name, which it shadows: the file's old lines are all still there.
SHADOWED = TESTS + "\n\ndef test_div():\n    pass\n"


@pytest.mark.parametrize(
    ("code", "files"),
    [
        (WRONG, {"tests/test_calc.py": EXPECTED_CHANGED}),
        (PARTIAL, {"tests/test_calc.py": ASSERT_TRUE}),
        (PARTIAL, {"tests/test_calc.py": SWALLOWED}),
        (PARTIAL, {"conftest.py": PATCHING}),
        (PARTIAL, {"tests/test_calc.py": SHADOWED}),
    ],
    ids=[
        "expected-value-changed",
        "assert-true",
        "assert-in-try-except-pass",
        "conftest-patches-code",
        "test-shadowed-by-one-appended",
    ],
)
def test_a_failing_test_made_to_pass_by_editing_it_is_refuted_naming_it(
    tmp_path: Path, code: str, files: dict[str, str]
) -> None:
    loop = python_loop(tmp_path)

    reason = refuted(loop.claim({"calc.py": code, **files}))

    assert f"{DIV} {EDITED}; {PASSES_ONLY}" in reason
    assert "TESTS EDITED TO PASS" in reason and "pass only as the change edited them" in reason
    assert loop.checks_run() == 3  # the claim, the base, the base's tests on the claimed code


@pytest.mark.parametrize(
    ("files", "delete", "said"),
    [
        ({}, ("tests/test_calc.py",), "not run now"),
        ({"tests/test_calc.py": SKIP_MARK}, (), "skipped now"),
        ({"conftest.py": REWRITTEN}, (), "exit 0, but 1 test failed"),
    ],
    ids=["file-deleted", "skip-mark", "conftest-rewrites-reports"],
)
def test_a_failing_test_lost_or_hidden_is_refuted_for_its_loss(
    tmp_path: Path, files: dict[str, str], delete: tuple[str, ...], said: str
) -> None:
    loop = python_loop(tmp_path)

    reason = refuted(loop.claim({"calc.py": PARTIAL, **files}, delete))

    assert DIV in reason and said in reason
    assert "TESTS EDITED TO PASS" not in reason  # the loss refutes; the base's tests' run is not used
    # The base (at the loop's start) and the claim: the base's tests on the claimed code are not run for
    # a claim refuted already.
    assert loop.checks_run() == 2


def test_the_same_refuted_workspace_claimed_again_runs_nothing_more(tmp_path: Path) -> None:
    loop = python_loop(tmp_path)
    refuted(loop.claim({"calc.py": PARTIAL, "tests/test_calc.py": ASSERT_TRUE}))
    runs = loop.checks_run()

    reason = refuted(loop.hook("Stop", last_assistant_message=CLAIM))

    assert f"{DIV} {EDITED}" in reason
    assert loop.checks_run() == runs


def test_the_correct_implementation_runs_no_more_checks_than_before(tmp_path: Path) -> None:
    loop = python_loop(tmp_path)

    answer = loop.claim({"calc.py": DONE})

    assert "```tiergate-spawn" in answer["reason"] and "base-tests" not in loop.stop_reasons()
    # Once on the claim, once at the base (the loop's whole baseline, recorded beside its first claim's
    # run), no run with the base's tests; and the task's two tests again, each alone and both in reverse.
    assert loop.checks_run() == 2 + 3


def test_the_correct_implementation_with_a_new_test_passes_with_the_base_tests_too(tmp_path: Path) -> None:
    loop = python_loop(tmp_path)
    more = TESTS + "\n\ndef test_div_by_one():\n    assert div(5, 1) == 5\n"

    answer = loop.claim({"calc.py": DONE, "tests/test_calc.py": more})

    assert "```tiergate-spawn" in answer["reason"]
    assert loop.loop().tier in ("LIGHT", "STANDARD") and "base-tests" not in loop.stop_reasons()
    # The extra cost of a claim that edits tests: one more test run (beside the task's tests run again).
    assert loop.checks_run() == 3 + 3
    packet = loop.packet()
    # Of the base's tests, only those of the file the change touched run again (test_other.py's would
    # run the same file on the same code as the claim's own run).
    ran_again = "the base's test files run against the claimed code: passed 3, failed 0, skipped 0"
    assert ran_again in packet and "a run of a selection of the tests" in packet


BEHAVIOUR = DONE.replace("return a + b", "return a + b + 1")
BEHAVIOUR_TESTS = TESTS.replace("assert add(1, 2) == 3", "assert add(1, 2) == 4")


def test_a_behaviour_change_made_in_code_and_test_goes_thorough_with_the_failure(tmp_path: Path) -> None:
    loop = python_loop(tmp_path)

    answer = loop.claim({"calc.py": BEHAVIOUR, "tests/test_calc.py": BEHAVIOUR_TESTS})

    assert "```tiergate-spawn" in answer["reason"] and "tiergate:architect" in answer["reason"]
    assert loop.loop().tier == "THOROUGH"
    said = f"{ADD} passed when the loop began and fails with the tests as they were then (assert 4 == 3"
    assert said in loop.stop_reasons()
    packet = loop.packet()
    assert "FAILS WITH THE TESTS AS THEY WERE" in packet and said in packet


def test_a_behaviour_change_is_refuted_when_the_setting_says_so(tmp_path: Path) -> None:
    loop = python_loop(tmp_path, '[gate]\nbase_tests = "refute"\n')

    reason = refuted(loop.claim({"calc.py": BEHAVIOUR, "tests/test_calc.py": BEHAVIOUR_TESTS}))

    assert f"{ADD} passed when the loop began and fails with the tests as they were then" in reason


# A test helper outside the tests' folder: `support.py` at the project's top, imported by the tests alone.
SUPPORT = (
    "def assert_equal(actual, expected):\n    assert actual == expected, f'{actual!r} != {expected!r}'\n"
)
HELPED = TESTS.replace(
    "import pytest\n\nfrom calc import add, div, mul\n",
    "from calc import add, div, mul\nfrom support import assert_equal\n",
).replace("assert div(6, 3) == 2", "assert_equal(div(6, 3), 2)")
WEAKENED = "def assert_equal(actual, expected):\n    pass\n"
CLOSE = SUPPORT + "\n\ndef assert_close(actual, expected):\n    assert abs(actual - expected) < 1e-9\n"


def helped_loop(root: Path) -> Loop:
    files = {
        "calc.py": CALC,
        "support.py": SUPPORT,
        "tests/test_calc.py": HELPED,
        "tests/test_other.py": OTHER,
    }
    return Loop(root, files, PYTEST)


def test_a_failing_test_made_to_pass_by_weakening_its_helper_outside_the_tests_is_refuted(
    tmp_path: Path,
) -> None:
    loop = helped_loop(tmp_path)

    reason = refuted(loop.claim({"calc.py": WRONG, "support.py": WEAKENED}))

    assert f"{DIV} {EDITED}; {PASSES_ONLY}" in reason


def test_an_honest_new_helper_outside_the_tests_keeps_the_usual_tier(tmp_path: Path) -> None:
    loop = helped_loop(tmp_path)
    more = HELPED.replace(
        "from support import assert_equal", "from support import assert_close, assert_equal"
    )
    more += "\n\ndef test_div_by_three():\n    assert_close(div(1, 3) * 3, 1)\n"

    answer = loop.claim({"calc.py": DONE, "support.py": CLOSE, "tests/test_calc.py": more})

    assert "```tiergate-spawn" in answer["reason"]
    assert loop.loop().tier in ("LIGHT", "STANDARD") and "base-tests" not in loop.stop_reasons()


# JavaScript (node --test) --------------------------------------------------------------------------------

JS_WRONG = JS_PARTIAL.replace(
    "exports.div = () => { throw new Error('not implemented'); };", "exports.div = (a, b) => a * b;"
)
JS_DIVIDES = "test/calc.test.js > calc > divides"


def node_loop(root: Path) -> Loop:
    files = {"calc.js": JS_CALC, "test/calc.test.js": JS_TESTS, "package.json": PACKAGE}
    return Loop(root, files, "node --test")


@pytest.mark.parametrize(
    ("code", "tests"),
    [
        (JS_WRONG, JS_TESTS.replace("calc.div(6, 3), 2)", "calc.div(6, 3), 18)")),
        (
            JS_PARTIAL,
            JS_TESTS.replace("assert.strictEqual(calc.div(6, 3), 2)", "assert.ok(true)"),
        ),
    ],
    ids=["expected-value-changed", "assert-ok-true"],
)
def test_a_node_test_made_to_pass_by_editing_it_is_refuted_naming_it(
    tmp_path: Path, code: str, tests: str
) -> None:
    loop = node_loop(tmp_path)

    reason = refuted(loop.claim({"calc.js": code, "test/calc.test.js": tests}))

    assert f"{JS_DIVIDES} {EDITED}; {PASSES_ONLY}" in reason
