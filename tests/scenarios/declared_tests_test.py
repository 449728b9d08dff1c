"""The gate runs what the project runs, through the real Stop hook in real git: a project with no
`[checks]` whose tox.ini declares `python -m unittest -v` (as more-itertools does), whose only test of
`double` is a doctest that unittest runs through `load_tests`. tiergate's own guess, `pytest -q`, never
runs that doctest; the declared command does, so a claim with a doctest-only bug is refuted. And the
command is the one declared when the loop began: narrowing it since shrinks nothing the gate runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from testing.doctestproject import BUG, PATH, mini_project
from testing.gitrepo import init_repo, write
from testing.hooksession import HookSession
from testing.muldivproject import CALC, CLAIM, DONE, JS_CALC, JS_PARTIAL, JS_TESTS, PACKAGE, PARTIAL, refuted

SESSION = "d0c7e575-2121-4444-8888-555555555555"
DOUBLE_CLAIM = "double and triple are done.\n\n<promise>DONE</promise>"
TOX = "[tox]\nenvlist = py311\n\n[testenv]\ncommands = {envpython} -m unittest -v {posargs}\n"


def test_a_doctest_only_bug_is_refuted_because_the_declared_unittest_runs(tmp_path: Path) -> None:
    session = HookSession(tmp_path, mini_project(tmp_path / "project", {"tox.ini": TOX}), SESSION)
    session.env["PATH"] = PATH
    answer = session.hook("UserPromptSubmit", prompt="/tiergate:ralph make double and triple right")
    assert "loop started" in answer["systemMessage"]

    write(session.project, {"mini.py": BUG})
    answer = session.hook("Stop", last_assistant_message=DOUBLE_CLAIM)

    assert answer["decision"] == "block", answer
    reason = str(answer["reason"])
    assert "tiergate-spawn" not in reason  # refuted by the checks, no verifier spent
    assert "python -m unittest -v" in reason
    assert "mini.double" in reason


# The test command as declared at the base -------------------------------------------------------------
#
# The calc loop again, with no `[checks]`: its tests check is what the project declares. An agent that gets
# `div` wrong and narrows the declared command to leave out the file of its failing test must not shrink
# what counts as the tests: the gate runs the command the base declares, at the base and on the claim, and
# names the change.

RUN = "python -m pytest -q -p no:cacheprovider"
ADD_MUL = (
    "from calc import add, mul\n\n\n"
    "def test_add():\n    assert add(1, 2) == 3\n\n\n"
    "def test_mul():\n    assert mul(2, 3) == 6\n"
)
DIV_TESTS = "from calc import div\n\n\ndef test_div():\n    assert div(6, 3) == 2\n"
JS_DONE = JS_PARTIAL.replace(
    "exports.div = () => { throw new Error('not implemented'); };", "exports.div = (a, b) => a / b;"
)
WRONG = PARTIAL.replace("def div(a, b):\n    raise NotImplementedError", "def div(a, b):\n    return a * b")
# Each declaring file, with the paths its test command runs.
DECLARING: dict[str, tuple[str, Callable[[str], str]]] = {
    "make": ("Makefile", lambda paths: f"PYTEST = {RUN}\n\n.PHONY: test\ntest:\n\t$(PYTEST) {paths}\n"),
    "tox": ("tox.ini", lambda paths: f"[tox]\nenvlist = py311\n\n[testenv]\ncommands = {RUN} {paths}\n"),
}


class DeclaredLoop(HookSession):
    """The calc loop on a project whose files declare its test command (`files`), begun as it is made."""

    def __init__(self, root: Path, files: dict[str, str]) -> None:
        project = init_repo(root / "project", {".gitignore": "__pycache__/\nnode_modules/\n", **files})
        super().__init__(root, project, SESSION)
        self.env["PATH"] = PATH
        self.env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        answer = self.hook("UserPromptSubmit", prompt="/tiergate:ralph implement mul and div in calc")
        assert "loop started" in answer["systemMessage"]

    def claim(self, files: dict[str, str]) -> dict[str, Any]:
        write(self.project, files)
        return self.hook("Stop", last_assistant_message=CLAIM)


def python_declared(root: Path, shape: str) -> tuple[DeclaredLoop, str, Callable[[str], str]]:
    name, declare = DECLARING[shape]
    files = {
        "pyproject.toml": '[project]\nname = "calc"\nversion = "1"\n',
        "calc.py": CALC,
        "tests/test_calc.py": ADD_MUL,
        "tests/test_div.py": DIV_TESTS,
    }
    return DeclaredLoop(root, {**files, name: declare("tests")}), name, declare


@pytest.mark.parametrize("shape", sorted(DECLARING))
def test_a_declared_command_narrowed_to_skip_the_failing_file_is_refuted_by_the_bases(
    tmp_path: Path, shape: str
) -> None:
    loop, name, declare = python_declared(tmp_path, shape)

    reason = refuted(loop.claim({"calc.py": WRONG, name: declare("tests/test_calc.py")}))

    assert "tests/test_div.py::test_div" in reason
    assert f"{RUN} tests" in reason  # the base's command ran, not the claim's


def test_a_declared_test_script_narrowed_is_named_and_makes_the_claim_thorough(tmp_path: Path) -> None:
    # npm reads the workspace's package.json whatever the gate runs: a test the narrowed script leaves out
    # is told by its outcome at the base (tests/scenarios/lost_tests_test.py). One it keeps in, by name,
    # runs the same tests today, but the change of the declaration is the agent's, and is named.
    files = {"calc.js": JS_CALC, "test/calc.test.js": JS_TESTS, "package.json": PACKAGE}
    loop = DeclaredLoop(tmp_path, files)
    narrowed = PACKAGE.replace('"node --test"', '"node --test test/calc.test.js"')

    answer = loop.claim({"calc.js": JS_DONE, "package.json": narrowed})

    assert "```tiergate-spawn" in answer["reason"]
    assert loop.loop().tier == "THOROUGH"
    said = loop.stop_reasons()
    assert "declared-checks: the declared command of check `tests` changed since the loop began" in said
    assert (
        'package.json\'s "test" script is `node --test` at the base, `node --test test/calc.test.js` now'
        in said
    )


@pytest.mark.parametrize(
    ("shape", "more"),
    [
        ("make", {}),
        ("tox", {"tests/test_div.py": DIV_TESTS + "\n\ndef test_div_by_one():\n    assert div(5, 1) == 5\n"}),
    ],
    ids=["make-correct", "tox-correct-with-a-new-test"],
)
def test_the_correct_implementation_keeps_its_tier_under_a_declared_command(
    tmp_path: Path, shape: str, more: dict[str, str]
) -> None:
    loop, _, _ = python_declared(tmp_path, shape)

    answer = loop.claim({"calc.py": DONE, **more})

    assert "```tiergate-spawn" in answer["reason"]
    assert loop.loop().tier in ("LIGHT", "STANDARD"), loop.stop_reasons()
    assert "declared-checks" not in loop.stop_reasons()
