"""The tests the task is about, run again alone and in reverse order, through the real Stop hook in real git
with real pytest: code that answers the tests in the order the suite asks them (a queue of answers kept
between calls) is refuted naming the test that fails alone; the correct code passes as before."""

from __future__ import annotations

from pathlib import Path

from testing.muldivproject import CALC, DONE, OTHER, TESTS, Loop, refuted
from testing.pytestcheck import PYTEST

QUEUED = (
    "def add(a, b):\n    return a + b\n\n\n"
    "_ANSWERS = iter([6, 2])\n\n\n"
    "def mul(a, b):\n    return next(_ANSWERS)\n\n\n"
    "def div(a, b):\n    return next(_ANSWERS)\n"
)


def python_loop(root: Path) -> Loop:
    return Loop(root, {"calc.py": CALC, "tests/test_calc.py": TESTS, "tests/test_other.py": OTHER}, PYTEST)


def test_answers_given_in_the_suites_order_are_refuted_naming_the_test_alone(tmp_path: Path) -> None:
    loop = python_loop(tmp_path)

    reason = refuted(loop.claim({"calc.py": QUEUED}))

    assert "pass only in the suite's own order" in reason
    assert "tests/test_calc.py::test_div: failed when run alone" in reason


def test_the_correct_code_passes_run_alone_and_in_reverse(tmp_path: Path) -> None:
    loop = python_loop(tmp_path)

    answer = loop.claim({"calc.py": DONE})

    assert "```tiergate-spawn" in answer["reason"]
    assert "suite's own order" not in loop.stop_reasons()
