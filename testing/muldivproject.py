"""The calc project of the lost-tests and base-tests scenarios, in Python (pytest) and JavaScript
(`node --test`): `add` works, `mul` and `div`, the task, are not implemented, so their tests fail at the
base. `PARTIAL` is `mul` done and `div` not, `DONE` both; `SKIP_MARK` and `REWRITTEN` two cheats that hide
the failing `test_div`. `Loop` is a ralph loop on a project through the real hooks, begun as it is made;
`refuted` the reason of a claim the gate refuted."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from testing.gitrepo import init_repo, write
from testing.hooksession import HookSession

SESSION = "10571057-2222-3333-4444-555555555555"
CLAIM = "mul and div are done.\n\n<promise>DONE</promise>"

CALC = (
    "def add(a, b):\n    return a + b\n\n\n"
    "def mul(a, b):\n    raise NotImplementedError\n\n\n"
    "def div(a, b):\n    raise NotImplementedError\n"
)
PARTIAL = CALC.replace("def mul(a, b):\n    raise NotImplementedError", "def mul(a, b):\n    return a * b")
DONE = PARTIAL.replace("def div(a, b):\n    raise NotImplementedError", "def div(a, b):\n    return a / b")
TESTS = (
    "import pytest\n\nfrom calc import add, div, mul\n\n\n"
    "def test_add():\n    assert add(1, 2) == 3\n\n\n"
    "def test_mul():\n    assert mul(2, 3) == 6\n\n\n"
    "def test_div():\n    assert div(6, 3) == 2\n"
)
OTHER = "def test_truth():\n    assert 1 + 1 == 2\n"
DIV = "tests/test_calc.py::test_div"


class Loop(HookSession):
    def __init__(
        self,
        root: Path,
        files: dict[str, str],
        check: str,
        before_start: Callable[[Path], object] | None = None,
        more_config: str = "",
    ) -> None:
        """The loop begun on a new project of `files` whose test check is `check`; `before_start` is done
        to the project first (what git ignores there: its virtualenv, `.venv`); `more_config` is added to
        its `.tiergate.toml`."""
        config = {
            ".tiergate.toml": f"[checks]\ntests = {json.dumps(check)}\n{more_config}",
            ".gitignore": "__pycache__/\n.venv/\n",
        }
        super().__init__(root, init_repo(root / "project", {**files, **config}), SESSION)
        if before_start is not None:
            before_start(self.project)
        answer = self.hook("UserPromptSubmit", prompt="/tiergate:ralph implement mul and div in calc")
        assert "loop started" in answer["systemMessage"]

    def claim(self, files: dict[str, str], delete: tuple[str, ...] = ()) -> dict[str, Any]:
        write(self.project, files)
        for path in delete:
            (self.project / path).unlink()
        return self.hook("Stop", last_assistant_message=CLAIM)


def refuted(answer: dict[str, Any]) -> str:
    assert answer["decision"] == "block" and "tiergate-spawn" not in answer["reason"], answer
    return str(answer["reason"])


SKIP_MARK = TESTS.replace("def test_div", "@pytest.mark.skip(reason='later')\ndef test_div")
REWRITTEN = (
    "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
    "    made = yield\n    report = made.get_result()\n    if report.failed:\n"
    "        report.outcome = 'passed'\n        report.longrepr = None\n"
)

# JavaScript (node --test) ----------------------------------------------------------------------------

JS_CALC = (
    "exports.add = (a, b) => a + b;\n"
    "exports.mul = () => { throw new Error('not implemented'); };\n"
    "exports.div = () => { throw new Error('not implemented'); };\n"
)
JS_PARTIAL = JS_CALC.replace(
    "exports.mul = () => { throw new Error('not implemented'); };", "exports.mul = (a, b) => a * b;"
)
JS_TESTS = (
    "const { describe, it } = require('node:test');\nconst assert = require('node:assert');\n"
    "const calc = require('../calc.js');\n\n"
    "describe('calc', () => {\n"
    "  it('adds', () => assert.strictEqual(calc.add(1, 2), 3));\n"
    "  it('multiplies', () => assert.strictEqual(calc.mul(2, 3), 6));\n"
    "  it('divides', () => assert.strictEqual(calc.div(6, 3), 2));\n"
    "});\n"
)
PACKAGE = json.dumps({"name": "calc", "version": "1.0.0", "scripts": {"test": "node --test"}})
