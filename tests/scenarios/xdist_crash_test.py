"""A test that crashes its pytest-xdist worker, through the real Stop hook in real git with real pytest: the
project's check is `pytest -p xdist -n 2`, and one of its tests leaves its worker with `os._exit(3)` (as a
segfault in a C extension would). xdist sees the crash, reports that test failed and starts a replacement
worker; the crashed worker's stream to the gate has no end mark. The controller tells the gate which workers
went down and how, so that the crash is judged as any failure: excused where the test crashed its worker at
the base too (else the claim could never pass, a trap), refuted where the change brought it."""

from __future__ import annotations

from pathlib import Path

from testing.muldivproject import CALC, DIV, DONE, OTHER, TESTS, Loop, refuted
from testing.pytestcheck import PYTEST

XDIST = PYTEST + " -p xdist -n 2"
CRASH = "tests/test_crash.py::test_crash"
CRASHING = "import os\n\n\ndef test_crash():\n    os._exit(3)\n"
PASSING = "def test_crash():\n    pass\n"


def _files(crash: str) -> dict[str, str]:
    return {
        "calc.py": CALC,
        "tests/test_calc.py": TESTS,
        "tests/test_other.py": OTHER,
        "tests/test_crash.py": crash,
    }


def test_a_test_that_crashed_its_worker_at_the_base_too_does_not_refute_the_claim(tmp_path: Path) -> None:
    loop = Loop(tmp_path, _files(CRASHING), XDIST)

    answer = loop.claim({"calc.py": DONE})

    # Sent on to the verifier, the crash named as a failing test the base had too; never refuted.
    assert "```tiergate-spawn" in answer["reason"], answer["reason"]
    reasons = loop.stop_reasons()
    assert "disagrees" not in reasons, reasons
    assert f"failing tests: {CRASH}" in reasons, reasons


def test_a_crash_the_change_brought_refutes_the_claim(tmp_path: Path) -> None:
    loop = Loop(tmp_path, _files(PASSING), XDIST)

    answer = loop.claim({"calc.py": DONE, "tests/test_crash.py": CRASHING})

    reason = refuted(answer)
    assert CRASH in reason and "disagrees" not in reason, reason
    assert DIV not in reason, reason
