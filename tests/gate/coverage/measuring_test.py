"""Coverage measured by the gate itself, on real git repositories running real pytest and real Node:
the change's lines the tests ran, the ones they did not (named), a command that cannot take the
measurement running as written with the reason, the gate's measurement trusted over a coverage file
the agent leaves in the workspace, and the measurement kept with the evidence."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from testing.gitrepo import init_repo, repo_fixture, write
from testing.measuredgate import measured_gate
from testing.statefolder import state_dir

from tiergate.gate.ruling import GateResult
from tiergate.tier.change import measure_change
from tiergate.tier.coverage.judgement import CoverageJudgement, judge_coverage

PYTEST = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider"
CALC = "def add(a, b):\n    return a + b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
# Lines 5-6 are new, and the new test runs them.
CALC_MUL = CALC + "\n\ndef mul(a, b):\n    return a * b\n"
TESTS_MUL = TESTS + "\n\ndef test_mul():\n    from calc import mul\n\n    assert mul(2, 3) == 6\n"
# Lines 9-12 are new too: the `def` runs as the module is imported, no test runs the body (10-12).
CALC_DIV = (
    CALC_MUL + "\n\ndef div(a, b):\n    if b == 0:\n        raise ZeroDivisionError\n    return a / b\n"
)
# The same tests under unittest, for the tests about the probes rather than about pytest: a nested pytest
# costs five times the CPU of unittest, and the gate measures both the same way (PYTHONPATH).
UNITTEST = f"{shlex.quote(sys.executable)} -m unittest discover -q -s tests"
UNITS = (
    "import unittest\n\nfrom calc import add\n\n\n"
    "class Calc(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n"
)
UNITS_MUL = UNITS + (
    "\n    def test_mul(self):\n        from calc import mul\n\n        self.assertEqual(mul(2, 3), 6)\n"
)
IGNORE = "__pycache__/\n"
PLAN = "TIERGATE_COVERAGE_PLAN"


repo = repo_fixture({"calc.py": CALC, "tests/test_calc.py": TESTS, ".gitignore": IGNORE})


def gate(repo: Path, command: str = PYTEST) -> tuple[GateResult, CoverageJudgement]:
    """The gate with one test check, measuring the change; and the coverage judgement on it."""
    result = measured_gate(repo, command)
    return result, judge_coverage(measure_change(repo), result.coverage)


def test_a_change_its_tests_run_is_fully_covered_as_measured_at_the_gate(repo: Path) -> None:
    write(repo, {"calc.py": CALC_MUL, "tests/test_calc.py": TESTS_MUL})

    result, judged = gate(repo)

    assert not result.refuted
    assert result.coverage is not None
    [measured] = result.coverage.measured
    # tiergate's line probes measure, on every Python (coverage.py costs more than the 25% budget).
    assert measured.source == "check `tests` (tiergate line probes)"
    assert {5, 6} <= measured.files["calc.py"].hit
    assert judged.level == "full"
    assert "measured at the gate, covers 2/2 changed executable lines" in judged.evidence


def test_a_line_no_test_runs_is_named(repo: Path) -> None:
    write(repo, {"calc.py": CALC_DIV, "tests/test_calc.py": UNITS_MUL})

    _, judged = gate(repo, UNITTEST)

    assert judged.level == "partial"
    assert "covers 3/6 changed executable lines" in judged.evidence
    assert "not run: calc.py:10-12" in judged.evidence


def test_a_pragma_the_agent_adds_does_not_hide_a_changed_line(repo: Path) -> None:
    hidden = CALC_MUL + "\n\ndef div(a, b):  # pragma: no cover\n    return a / b\n"
    write(repo, {"calc.py": hidden, "tests/test_calc.py": UNITS_MUL})

    _, judged = gate(repo, UNITTEST)

    assert judged.level == "partial" and "not run: calc.py:10" in judged.evidence


def test_a_command_that_cannot_take_it_runs_as_written_and_says_why(repo: Path) -> None:
    write(
        repo,
        {
            "calc.py": CALC_MUL,
            "tests/test_calc.py": UNITS_MUL.replace(
                "def test_add(self):",
                # One write: unittest reports on stderr, which reaches the output beside what `cat`
                # passes on, and could come between two.
                "def test_add(self):\n        import os\n\n"
                f"        print('plan: ' + str(os.environ.get({PLAN!r})))",
            ),
        },
    )

    result, judged = gate(repo, f"{UNITTEST} | cat")

    assert not result.refuted and "plan: None" in result.verdicts[0].result.output
    assert result.coverage is not None and not result.coverage.measured
    [off] = result.coverage.off
    assert "a shell list, pipeline or redirection" in off
    assert judged.level == "partial" and "not measured at the gate:" in judged.evidence


SHAPES = '''"""Shapes of Python the probes must leave working."""

from __future__ import annotations

import functools


class Box:
    """A box."""

    size: int = 1

    @functools.lru_cache
    def grow(self, by: int) -> int:
        try:
            return self.size + by
        except TypeError:
            return -1
        finally:
            pass


def kind(value: object) -> str:
    match value:
        case int():
            return "int"
        case _:
            return "other"
'''
SHAPES_TEST = (
    "import unittest\n\nfrom shapes import Box, kind\n\n\n"
    "class Shapes(unittest.TestCase):\n"
    "    def test_shapes(self):\n"
    "        assert Box.__doc__ == 'A box.' and Box().grow(2) == 3 and kind(1) == 'int'\n"
    "        assert __import__('shapes').__doc__.startswith('Shapes')\n"
)


def test_probes_keep_docstrings_future_imports_and_every_statement_kind_working(repo: Path) -> None:
    write(repo, {"shapes.py": SHAPES, "tests/test_shapes.py": SHAPES_TEST})

    result, judged = gate(repo, UNITTEST)

    assert not result.refuted, result.verdicts[0].result.output
    assert result.coverage is not None
    lines = result.coverage.measured[0].files["shapes.py"]
    # Statements only: not the docstrings, the __future__ import, a decorator's line, `except:`, `case`.
    assert lines.executable == {5, 8, 11, 14, 15, 16, 18, 20, 23, 24, 26, 28}
    assert lines.executable - lines.hit == {18, 28}
    # The judgement places a changed `except` or `case` line with its clause, and a decorator with its
    # `def`, as Python's line table does: the clauses that did not run are missed, header lines included.
    assert "covers 11/15 changed executable lines; not run: shapes.py:17-18,27-28" in judged.evidence


def test_the_probed_modules_leave_no_trace_in_the_workspace(repo: Path) -> None:
    write(repo, {"calc.py": CALC_MUL, "tests/test_calc.py": UNITS_MUL})
    gate(repo, UNITTEST)

    # Nothing probed was cached: the module imports as itself, outside the gate.
    plain = subprocess.run(
        [sys.executable, "-c", "import calc; print(calc.mul(2, 3), '__tiergate_lines__' in vars(calc))"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    assert plain.stdout.split() == ["6", "False"]
    assert not [p for p in repo.rglob("*") if "tiergate" in p.name]


def test_a_coverage_file_the_agent_leaves_is_not_trusted_over_the_gate(repo: Path) -> None:
    write(repo, {"calc.py": CALC_DIV, "tests/test_calc.py": UNITS_MUL})
    forged = {"files": {"calc.py": {"executed_lines": list(range(1, 13)), "missing_lines": []}}}
    write(repo, {"coverage.json": json.dumps(forged)})
    assert judge_coverage(measure_change(repo)).level == "full"  # what the file alone would say

    _, judged = gate(repo, UNITTEST)

    assert judged.level == "partial" and "not run: calc.py:10-12" in judged.evidence
    assert "coverage.json" not in judged.evidence


def test_a_reused_result_brings_its_coverage(repo: Path) -> None:
    write(repo, {"calc.py": CALC_MUL, "tests/test_calc.py": UNITS_MUL})
    first, _ = gate(repo, UNITTEST)

    again, judged = gate(repo, UNITTEST)

    assert again.reused and again.coverage == first.coverage
    assert judged.level == "full"
    assert not list((state_dir(repo) / "coverage").iterdir())  # the run's folder is gone


NODE = shutil.which("node")
JS = "function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n"
JS_MUL = (
    "function add(a, b) {\n  return a + b;\n}\n\n"
    "function mul(a, b) {\n  // the product\n  return a * b;\n}\n\n"
    "function div(a, b) {\n  if (b === 0) {\n    throw new Error('zero');\n  }\n  return a / b;\n}\n"
    "module.exports = { add, mul, div };\n"
)
JS_TEST = (
    "const test = require('node:test');\nconst assert = require('node:assert');\n"
    "const { add, mul, div } = require('../calc.js');\n"
    "test('add', () => assert.strictEqual(add(1, 2), 3));\n"
    "test('mul', () => assert.strictEqual(mul(2, 3), 6));\n"
    "test('div', () => assert.strictEqual(div(6, 3), 2));\n"
)


def test_node_tests_measure_the_changed_lines_with_v8(tmp_path: Path) -> None:
    assert NODE is not None, "node is on this machine (v20)"
    # Only add's test at the base: a base test that fails there and passes only as edited would refute.
    only_add = JS_TEST.replace("mul, div", "").split("test('mul'")[0]
    repo = init_repo(tmp_path / "js", {"calc.js": JS, "test/calc.test.js": only_add})
    write(repo, {"calc.js": JS_MUL, "test/calc.test.js": JS_TEST})

    result, judged = gate(repo, "node --test test/")

    assert not result.refuted, result.verdicts[0].result.output
    assert judged.level == "partial"
    # The function bodies ran; the zero branch did not: its line is named.
    assert "not run: calc.js:12" in judged.evidence
    assert "check `tests` (Node V8 coverage), measured at the gate" in judged.evidence


def test_a_processs_coverage_files_are_one_run_whatever_each_holds(tmp_path: Path) -> None:
    from tiergate.gate.coverage.measuring import _node_reports
    from tiergate.tier.coverage.lines import NodeRun

    root = init_repo(tmp_path / "js", {"calc.js": JS_MUL, "test/calc.test.js": JS_TEST})
    out = tmp_path / "v8"
    out.mkdir()
    whole = {"startOffset": 0, "endOffset": len(JS_MUL), "count": 1}

    def script(path: str) -> dict[str, object]:
        return {"url": (root / path).as_uri(), "functions": [{"ranges": [whole]}]}

    # A process's coverage taken twice: the second file (written at its end) no longer holds the test
    # file's script, gone with the test's functions, but holds calc.js's that ran since.
    (out / "coverage-4242-1-0.json").write_text(json.dumps({"result": [script("test/calc.test.js")]}))
    (out / "coverage-4242-2-1.json").write_text(json.dumps({"result": [script("calc.js")]}))
    (out / "coverage-4343-1-0.json").write_text(json.dumps({"result": [script("calc.js")]}))
    runs: list[NodeRun] = []

    found = _node_reports(out, root, {str(root / "calc.js"): "calc.js"}, runs)

    assert not isinstance(found, str) and found[1]["calc.js"].hit
    # Process 4242 ran the test file and calc.js; 4343 (a child the tests started) no test file.
    assert sorted(run.tests for run in runs) == [(), ("test/calc.test.js",)]
    assert all(run.lines["calc.js"].hit for run in runs)
