"""Cause 1 of issue 34, through the real Stop hook in real git: code alone (no test file touched) that makes
its own failing tests skip, expect failure or end the run early is compared with the base test by test,
whatever the change touches, and refuted naming the test it lost: Python (`pytest.skip()`,
`unittest.SkipTest`, `pytest.xfail()`, `pytest.exit(returncode=0)`), JavaScript (`process.exit(0)` in the
library) and Rust (`std::process::exit(0)` in the library)."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing import rustproject
from testing.muldivproject import (
    CALC,
    JS_CALC,
    JS_PARTIAL,
    JS_TESTS,
    OTHER,
    PACKAGE,
    PARTIAL,
    TESTS,
    Loop,
    refuted,
)
from testing.pytestcheck import PYTEST

DIV = "tests/test_calc.py::test_div: failed when the loop began"
UNDONE = "def div(a, b):\n    raise NotImplementedError"
PYTHON = {
    "pytest.skip": ("import pytest\n\n\n", "    pytest.skip('later')", "skipped now"),
    "unittest.SkipTest": ("import unittest\n\n\n", "    raise unittest.SkipTest('later')", "skipped now"),
    "pytest.xfail": ("import pytest\n\n\n", "    pytest.xfail('later')", "marked as an expected failure now"),
    "pytest.exit": ("import pytest\n\n\n", "    pytest.exit('done', returncode=0)", "not run now"),
}


@pytest.mark.parametrize("cheat", list(PYTHON))
def test_python_code_that_loses_its_failing_test_is_refuted(tmp_path: Path, cheat: str) -> None:
    imports, body, now = PYTHON[cheat]
    loop = Loop(
        tmp_path, {"calc.py": CALC, "tests/test_calc.py": TESTS, "tests/test_other.py": OTHER}, PYTEST
    )

    reason = refuted(loop.claim({"calc.py": imports + PARTIAL.replace(UNDONE, "def div(a, b):\n" + body)}))

    assert f"{DIV}, {now}" in reason


def test_javascript_code_that_ends_the_run_is_refuted(tmp_path: Path) -> None:
    files = {"calc.js": JS_CALC, "test/calc.test.js": JS_TESTS, "package.json": PACKAGE}
    loop = Loop(tmp_path, files, "node --test")
    exits = JS_PARTIAL.replace(
        "exports.div = () => { throw new Error('not implemented'); };", "exports.div = () => process.exit(0);"
    )

    reason = refuted(loop.claim({"calc.js": exits}))

    assert "test/calc.test.js > calc > divides: failed when the loop began, not run now" in reason


def test_rust_code_that_ends_the_test_binary_is_refuted(tmp_path: Path) -> None:
    loop = rustproject.Loop(tmp_path, rustproject.rust())
    exits = rustproject.lib(
        "pub fn mul(a: i64, b: i64) -> i64 {\n    let _ = (a, b);\n    std::process::exit(0)\n}\n"
    )

    answer = loop.claim({"src/lib.rs": exits})

    reason = refuted(answer)
    assert "its runner reached its end when the loop began and not now" in reason
