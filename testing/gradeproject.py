"""The project the mutants' scenarios claim on: `calc` with `add`, the claim adding `grade(score)` whose
boundary is line 6 (50 passes), in Python under pytest and in JavaScript under `node --test`; tests that run
the boundary (`RUNS_IT`) and that pin it (`PINS_IT`); and a loop driving the real hook entry on it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from testing.gitrepo import init_repo, write
from testing.hooksession import HookSession
from testing.pytestcheck import PYTEST

SESSION = "88888888-3535-3333-4444-555555555555"
CLAIM = "grade() added, with its test.\n\n<promise>DONE</promise>"
CALC = "def add(a, b):\n    return a + b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
GRADE = CALC + "\n\ndef grade(score):\n    if score >= 50:\n        return 'pass'\n    return 'fail'\n"
RUNS_IT = (
    "from calc import grade\n\n\ndef test_grade():\n"
    "    assert grade(80) == 'pass'\n    assert grade(10) == 'fail'\n"
)
PINS_IT = (
    RUNS_IT + "\n\ndef test_the_boundary():\n    assert grade(50) == 'pass'\n    assert grade(49) == 'fail'\n"
)

JS_CALC = "function add(a, b) {\n  return a + b;\n}\n\nmodule.exports = { add };\n"
JS_TESTS = (
    "const test = require('node:test');\nconst assert = require('node:assert');\n"
    "const { add } = require('../calc.js');\n\n"
    "test('add', () => {\n  assert.strictEqual(add(1, 2), 3);\n});\n"
)
JS_GRADE = (
    "function add(a, b) {\n  return a + b;\n}\n\nfunction grade(score) {\n  if (score >= 50) {\n"
    "    return 'pass';\n  }\n  return 'fail';\n}\n\nmodule.exports = { add, grade };\n"
)
JS_RUNS_IT = (
    "const test = require('node:test');\nconst assert = require('node:assert');\n"
    "const { grade } = require('../calc.js');\n\ntest('grade', () => {\n"
    "  assert.strictEqual(grade(80), 'pass');\n  assert.strictEqual(grade(10), 'fail');\n});\n"
)
JS_PINS_IT = JS_RUNS_IT + (
    "\ntest('the boundary', () => {\n  assert.strictEqual(grade(50), 'pass');\n"
    "  assert.strictEqual(grade(49), 'fail');\n});\n"
)


class GradeLoop(HookSession):
    """A ralph loop on the Python project, its check pytest; `config` added to its `.tiergate.toml`,
    `extra` files to its base."""

    def __init__(self, root: Path, config: str = "", extra: dict[str, str] | None = None) -> None:
        files = {
            "calc.py": CALC,
            "tests/test_calc.py": TESTS,
            ".tiergate.toml": f"[checks]\ntests = {json.dumps(PYTEST)}\n{config}",
            ".gitignore": "__pycache__/\n",
            **(extra or {}),
        }
        super().__init__(root, init_repo(root / "project", files), SESSION)

    def claim(self, files: dict[str, str]) -> dict[str, Any]:
        answer = self.hook("UserPromptSubmit", prompt="/tiergate:ralph add grade to calc")
        assert "loop started" in answer["systemMessage"]
        write(self.project, files)
        return self.hook("Stop", last_assistant_message=CLAIM)

    def reasons(self) -> str:
        """The last Stop's reasons, " | " between them ("" before any)."""
        stops = [r for r in self.decisions() if r.get("event") == "Stop"]
        return " | ".join(stops[-1].get("reasons", [])) if stops else ""

    def explain(self) -> str:
        return self.run("tier", "--explain").stdout

    def packet(self) -> str:
        verification = self.loop().verification
        assert verification is not None
        started = self.hook("SubagentStart", agent_id="v1", agent_type=verification.agent)
        return str(started["hookSpecificOutput"]["additionalContext"])


class NodeGradeLoop(GradeLoop):
    """The same loop on the JavaScript project, its check `node --test`."""

    def __init__(self, root: Path) -> None:
        files = {
            "calc.js": JS_CALC,
            "test/calc.test.js": JS_TESTS,
            ".tiergate.toml": '[checks]\ntests = "node --test"\n',
        }
        HookSession.__init__(self, root, init_repo(root / "project", files), SESSION)
