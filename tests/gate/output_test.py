"""Trimming a failing check's output to what helps, per test runner.

pytest, unittest, node --test and Python's compiler run for real here in temporary folders. The cargo
samples in tests/fixtures/checkoutput were captured from a real cargo 1.95 run (paths replaced); the
go and jest samples are written in those runners' output formats (neither runner is a test dependency).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tiergate.gate.failures import MAX_LINE_CHARS, Failure, normalise
from tiergate.gate.output import OutputSummary, clean_lines, summarize

FIXTURES = Path(__file__).parents[1] / "fixtures" / "checkoutput"


def run(cwd: Path, *command: str) -> str:
    # pytest without the plugins of the dev environment (hypothesis, asyncio, ...): they print nothing these
    # samples are about, and were most of each run's start (as testing/pytestcheck.py says for the gate).
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode != 0, "the sample was meant to fail"
    return proc.stdout + proc.stderr


@pytest.fixture
def pytest_output(tmp_path: Path) -> str:
    (tmp_path / "test_sample.py").write_text(
        textwrap.dedent(
            """
            def test_passes():
                assert 1 == 1

            def test_wrong_field():
                item = {"tag": "a", "tags": ["b"]}
                assert item["tag"] == "b", "filtered on the wrong field"

            def test_raises():
                raise ValueError("boom")

            class TestRoutes:
                def test_create(self):
                    assert [1, 2] == [1, 3]
            """
        )
    )
    return run(tmp_path, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_sample.py")


def test_pytest_failing_node_ids_and_assertion_lines(pytest_output: str) -> None:
    summary = summarize(pytest_output)
    assert summary.runners == ("pytest",)
    assert summary.failed_tests == (
        "test_sample.py::test_wrong_field",
        "test_sample.py::test_raises",
        "test_sample.py::TestRoutes::test_create",
    )
    shown = "\n".join(summary.lines)
    for expected in (
        "E       AssertionError: filtered on the wrong field",
        "E       ValueError: boom",
        "E       assert [1, 2] == [1, 3]",
        "test_sample.py:7: AssertionError",
        "FAILED test_sample.py::test_wrong_field - AssertionError: filtered",  # pytest cuts it to 80 columns
        "3 failed, 1 passed",
    ):
        assert expected in shown
    assert "test_passes" not in shown
    assert "def test_wrong_field" not in shown  # source lines are noise next to the E lines


def test_colour_codes_do_not_hide_the_names(tmp_path: Path) -> None:
    (tmp_path / "test_c.py").write_text("def test_red():\n    assert 0\n")
    output = run(tmp_path, sys.executable, "-m", "pytest", "-q", "--color=yes", "-p", "no:cacheprovider")
    assert "\x1b[" in output
    summary = summarize(output)
    assert summary.failed_tests == ("test_c.py::test_red",)
    assert not any("\x1b" in line for line in summary.lines)


def test_unittest_failures_and_errors_with_their_exception_line(tmp_path: Path) -> None:
    (tmp_path / "test_ut.py").write_text(
        textwrap.dedent(
            """
            import unittest

            class Validator(unittest.TestCase):
                def test_accepts_good(self):
                    self.assertTrue(True)

                def test_rejects_bad(self):
                    self.assertEqual("accepted", "rejected")

                def test_crashes(self):
                    {}["missing"]
            """
        )
    )
    summary = summarize(run(tmp_path, sys.executable, "-m", "unittest", "test_ut"))
    assert summary.runners == ("unittest",)
    assert set(summary.failed_tests) == {
        "test_ut.Validator.test_rejects_bad",
        "test_ut.Validator.test_crashes",
    }
    shown = "\n".join(summary.lines)
    assert "AssertionError: 'accepted' != 'rejected'" in shown
    assert "KeyError: 'missing'" in shown
    assert "FAILED (failures=1, errors=1)" in shown
    assert "line 9, in test_rejects_bad" in shown
    assert "test_accepts_good" not in shown


def test_unittest_names_in_the_older_format() -> None:
    output = "FAIL: test_x (pkg.mod.Case)\n----\nTraceback (most recent call last):\nAssertionError: no\n"
    assert summarize(output).failed_tests == ("pkg.mod.Case.test_x",)


@pytest.fixture
def node_project(tmp_path: Path) -> Path:
    (tmp_path / "items.test.mjs").write_text(
        textwrap.dedent(
            """
            import test from 'node:test';
            import assert from 'node:assert/strict';
            test('lists everything', () => { assert.equal(3, 3); });
            test('filters by tag', () => { assert.deepEqual([1, 2], [1, 3]); });
            test('search', async (t) => {
              await t.test('finds by title', () => { assert.ok(false, 'nothing found'); });
            });
            """
        )
    )
    return tmp_path


def test_node_test_in_tap_form(node_project: Path) -> None:
    summary = summarize(run(node_project, "node", "--test", "--test-reporter=tap"))
    assert "tap" in summary.runners
    assert summary.failed_tests == ("filters by tag", "finds by title", "search")
    shown = "\n".join(summary.lines)
    assert "error: 'nothing found'" in shown
    assert "Expected values to be strictly deep-equal:" in shown
    assert "items.test.mjs:5:1" in shown
    assert "lists everything" not in shown


def test_node_test_in_spec_form(node_project: Path) -> None:
    summary = summarize(run(node_project, "node", "--test", "--test-reporter=spec"))
    assert summary.runners == ("node",)
    assert summary.failed_tests == ("filters by tag", "finds by title", "search")
    assert any("AssertionError [ERR_ASSERTION]: nothing found" in line for line in summary.lines)


def test_cargo_failing_tests_and_their_panics() -> None:
    summary = summarize((FIXTURES / "cargo_test.txt").read_text())
    assert summary.runners == ("cargo",)
    assert summary.failed_tests == ("tests::panics_plain", "tests::adds_wrong")
    shown = [line.strip() for line in summary.lines]
    for expected in ("the widget broke", "assertion `left == right` failed", "left: 4", "right: 5"):
        assert expected in shown
    assert shown[-1].startswith("test result: FAILED. 1 passed; 2 failed")
    assert not any("rust_begin_unwind" in line for line in shown)  # the backtrace is noise


def test_go_failing_tests_subtests_and_messages() -> None:
    summary = summarize((FIXTURES / "go_test.txt").read_text())
    assert summary.runners == ("go",)
    assert summary.failed_tests == ("TestFilterByTag", "TestRoutes", "TestRoutes/create")
    shown = "\n".join(summary.lines)
    assert 'filter_test.go:21: FilterByTag(items, "") returned 0 items, want 3' in shown
    assert "FAIL\texample.com/service\t0.012s" in shown
    assert "example.com/service/util" not in shown


def test_jest_failing_tests_with_expected_and_received() -> None:
    summary = summarize((FIXTURES / "jest.txt").read_text())
    assert summary.runners == ("jest",)
    assert summary.failed_tests == (
        "filter \u203a returns everything without a tag",  # jest puts its own arrow between the names
        "src/db.test.js (test suite failed to run)",
    )
    shown = "\n".join(summary.lines)
    for expected in ("Expected length: 3", "Received length: 0", "Tests:       1 failed, 1 passed, 2 total"):
        assert expected in shown


def test_a_compiler_error_keeps_its_error_lines() -> None:
    summary = summarize((FIXTURES / "cargo_build.txt").read_text())
    assert summary.runners == ()
    assert summary.failed_tests == ()
    shown = [line.strip() for line in summary.lines]
    assert "error[E0425]: cannot find value `c` in this scope" in shown
    assert "--> src/lib.rs:1:41" in shown


def test_a_python_syntax_error(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def f(:\n    pass\n")
    summary = summarize(run(tmp_path, sys.executable, "-m", "compileall", "-q", "broken.py"))
    assert summary.failed_tests == ()
    assert "SyntaxError: invalid syntax" in [line.strip() for line in summary.lines]
    assert any('File "broken.py", line 1' in line for line in summary.lines)


def test_unknown_output_keeps_its_error_lines_and_its_last_lines() -> None:
    lines = [f"step {i}" for i in range(100)]
    lines[10] = "fatal: cannot reach the database"
    summary = summarize("\n".join(lines))
    assert summary.runners == ()
    assert summary.lines[0] == "fatal: cannot reach the database"
    assert summary.lines[1:] == tuple(f"step {i}" for i in range(85, 100))


def test_what_is_shown_is_bounded_keeping_the_first_failures_and_the_totals() -> None:
    output = "\n".join(f"FAILED tests/test_big.py::test_{i} - assert {i} == -1" for i in range(500))
    output += "\n500 failed in 3.00s\n"
    summary = summarize(output, max_lines=40)
    assert len(summary.failed_tests) == 500  # every name still counts for the baseline comparison
    assert len(summary.lines) == 40
    assert summary.lines[0].startswith("FAILED tests/test_big.py::test_0 ")
    assert summary.lines[-1] == "500 failed in 3.00s"
    assert any(line.startswith("[... ") and line.endswith(" more lines]") for line in summary.lines)


def test_long_lines_are_clipped() -> None:
    summary = summarize("E   " + "x" * 5000 + "\n_____ test_long _____\n")
    assert summary.lines
    assert max(len(line) for line in summary.lines) == MAX_LINE_CHARS


def test_clean_lines_keeps_what_a_carriage_return_redrew_last() -> None:
    assert clean_lines("progress 10%\rprogress 100%\n\x1b[31mred\x1b[0m\r\n\nend") == [
        "progress 100%",
        "red",
        "",
        "end",
    ]


def failure(test: str, kind: str, line: str, where: str = "") -> Failure:
    return Failure(test, kind, line, normalise(line), where)


def failure_of(summary: OutputSummary, test: str) -> Failure | None:
    """How `test` failed, as the ruling looks it up (by name among the summary's failures)."""
    return {f.test: f for f in summary.failures if f.test}.get(test)


def test_pytest_failures_and_errors_with_their_messages(tmp_path: Path) -> None:
    (tmp_path / "test_p.py").write_text(
        textwrap.dedent(
            """
            import pytest

            @pytest.fixture
            def broken():
                raise NotImplementedError("reset is not implemented yet")

            def test_setup(broken):
                pass

            def test_address():
                assert [] == [object()]
            """
        )
    )
    command = (sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider")
    summary = summarize(run(tmp_path, *command))
    setup = failure_of(summary, "test_p.py::test_setup")
    address = failure_of(summary, "test_p.py::test_address")
    assert setup is not None and address is not None
    assert (setup.kind, setup.where, setup.exception) == ("error", "setup", "NotImplementedError")
    assert setup.describe() == "NotImplementedError: reset is not implemented yet (error at setup)"
    assert (address.kind, address.exception) == ("failed", "AssertionError")
    assert address.line.startswith("assert [] == [<object obje...")  # pytest cuts the repr in the middle
    # Another run of the same suite, in another folder: another address, the same failures.
    other = tmp_path / "again"
    other.mkdir()
    (other / "test_p.py").write_text((tmp_path / "test_p.py").read_text())
    again = summarize(run(other, *command))
    assert [f.test for f in again.failures] == [f.test for f in summary.failures]
    assert all(a.same_as(b) for a, b in zip(again.failures, summary.failures, strict=True))


def test_unittest_failures_keep_their_kind_and_exception_line() -> None:
    output = (
        "FAIL: test_x (pkg.Case.test_x)\n----\nTraceback (most recent call last):\n"
        '  File "t.py", line 3, in test_x\nAssertionError: 1 != 2\n'
        "ERROR: test_y (pkg.Case.test_y)\n----\nTraceback (most recent call last):\nKeyError: 'missing'\n"
    )
    x, y = summarize(output).failures
    assert (x.test, x.kind, x.line) == ("pkg.Case.test_x", "failed", "AssertionError: 1 != 2")
    assert (y.test, y.kind, y.exception) == ("pkg.Case.test_y", "error", "KeyError")


def test_other_runners_failure_messages() -> None:
    go = summarize((FIXTURES / "go_test.txt").read_text())
    assert failure_of(go, "TestFilterByTag") == failure(
        "TestFilterByTag", "failed", 'filter_test.go:21: FilterByTag(items, "") returned 0 items, want 3'
    )
    create = failure_of(go, "TestRoutes/create")
    assert create is not None and "the item was not stored" in create.line
    cargo = summarize((FIXTURES / "cargo_test.txt").read_text())
    wrong = failure_of(cargo, "tests::adds_wrong")
    assert (
        wrong is not None
        and wrong.line == "src/lib.rs:9:23: assertion `left == right` failed left: 4 right: 5"
    )
    jest = summarize((FIXTURES / "jest.txt").read_text()).failures
    assert jest[0].line.startswith("expect(received).toHaveLength(expected); Expected length: 3")
    assert (jest[1].kind, jest[1].line) == ("error", "Cannot find module './db' from 'src/db.test.js'")
    tap = summarize("not ok 1 - filters\n  ---\n  error: 'nothing found'\n  ...\nok 2 - lists\n").failures
    assert [(f.test, f.line) for f in tap] == [("filters", "'nothing found'")]
    node = summarize("\u2716 finds (1.2ms)\n  AssertionError [ERR_ASSERTION]: nothing found\n").failures
    assert [(f.test, f.line) for f in node] == [("finds", "AssertionError [ERR_ASSERTION]: nothing found")]


def test_output_naming_no_tests_has_its_error_lines_as_failures() -> None:
    summary = summarize("src/a.py:3:1: error: bad thing\nsrc/a.py:9:1: error: bad thing\nok\n")
    assert [(f.test, f.key) for f in summary.failures] == [("", "src/a.py:<n>: error: bad thing")]


def test_go_verbose_messages_come_before_their_fail_line() -> None:
    output = (
        "=== RUN   TestA\n    a_test.go:9: got 0, want 3\n--- FAIL: TestA (0.00s)\n"
        "=== RUN   TestB\n--- PASS: TestB (0.00s)\nFAIL\n"
    )
    assert failure_of(summarize(output), "TestA") == failure("TestA", "failed", "a_test.go:9: got 0, want 3")
