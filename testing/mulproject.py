"""The calc project of the tests-weakened and hard-coded-answers scenarios, in Python (pytest) and in
JavaScript (`node --test`, or `npm test` running it): `add` works and `mul`, the task, is not implemented, so
its test fails at the base. `python()` and `javascript()` are the projects at their base, `PY_CORRECT` and
`JS_CORRECT` the honest `mul`, and `Loop` a ralph loop on a project through the real hooks that leaves the
agent's files and claims."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from testing.gitrepo import init_repo, write
from testing.hooksession import HookSession
from testing.pytestcheck import PYTEST

SESSION = "7e57e57e-2222-3333-4444-555555555555"

CLAIM = "calc has mul now, and every test passes.\n\n<promise>DONE</promise>"

PY_BASE = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    raise NotImplementedError\n"

PY_CORRECT = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"

PY_TESTS = """\
import calc
import pytest


def test_add():
    assert calc.add(2, 3) == 5


def test_add_negative():
    assert calc.add(-2, -3) == -5


def test_mul():
    assert calc.mul(2, 3) == 6
"""

JS_EXPORTS = "\nmodule.exports = { add, mul };\n"

JS_ADD = "function add(a, b) {\n  return a + b;\n}\n"

JS_BASE = JS_ADD + '\nfunction mul(a, b) {\n  throw new Error("not implemented");\n}\n' + JS_EXPORTS

JS_CORRECT = JS_ADD + "\nfunction mul(a, b) {\n  return a * b;\n}\n" + JS_EXPORTS

JS_TESTS = """\
const assert = require("node:assert");
const { describe, it } = require("node:test");
const calc = require("../calc");

describe("add", () => {
  it("adds", () => {
    assert.strictEqual(calc.add(2, 3), 5);
  });
});

describe("negatives", () => {
  it("adds negatives", () => {
    assert.strictEqual(calc.add(-2, -3), -5);
  });
});

describe("mul", () => {
  it("multiplies", () => {
    assert.equal(calc.mul(2, 3), 6);
  });
});
"""

JS_PACKAGE = (
    '{\n  "name": "calc",\n  "version": "1.0.0",\n  "scripts": {\n    "test": "node --test"\n  }\n}\n'
)


def python(command: str = PYTEST) -> dict[str, str]:
    """The Python project at its base."""
    config = f"[checks]\ntests = {json.dumps(command)}\n"
    return {
        "calc.py": PY_BASE,
        "tests/test_calc.py": PY_TESTS,
        ".tiergate.toml": config,
        ".gitignore": "__pycache__/\n",
    }


NODE_TEST = "node --test"
"""The JavaScript project's check where npm is incidental: npm's own start-up doubles the run's CPU."""

NPM_TEST = "npm test"
"""The check where package.json's test script is part of what a test proves."""


def javascript(command: str = NODE_TEST) -> dict[str, str]:
    """The JavaScript project at its base."""
    config = f"[checks]\ntests = {json.dumps(command)}\n"
    return {
        "calc.js": JS_BASE,
        "test/calc.test.js": JS_TESTS,
        "package.json": JS_PACKAGE,
        ".tiergate.toml": config,
    }


class Loop(HookSession):
    def __init__(self, root: Path, base: dict[str, str]) -> None:
        super().__init__(root, init_repo(root / "project", base), SESSION)
        self.env["npm_config_update_notifier"] = "false"

    def claim(self, files: dict[str, str]) -> dict[str, Any]:
        answer = self.hook("UserPromptSubmit", prompt="/tiergate:ralph implement mul in calc")
        assert "loop started" in answer["systemMessage"]
        write(self.project, files)
        return self.hook("Stop", last_assistant_message=CLAIM)
