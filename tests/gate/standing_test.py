"""How one check stands against the base (gate/standing.py): a new failure said on one line, against what
the baseline held or did not; a verdict's compile stage, the base's tests edited to pass, and the lost
tests that failed when the loop began. Pure."""

from __future__ import annotations

from tiergate.gate.checks import COMPILE_STAGE, CheckResult
from tiergate.gate.failures import Failure
from tiergate.gate.output import OutputSummary
from tiergate.gate.pertest.basetests import BaseTestFailure
from tiergate.gate.pertest.lost import LostTest
from tiergate.gate.standing import CheckVerdict, Reshaped

NOW = Failure("tests/t.py::test_x", "failed", "assert 1 == 2", "assert 1 == 2")


def test_a_new_failure_of_a_test_says_it_did_not_fail_at_the_baseline() -> None:
    assert Reshaped(NOW.test, NOW, None).text() == (
        "tests/t.py::test_x: assert 1 == 2 now; not failing at the baseline"
    )


def test_a_failure_line_of_an_output_without_tests_says_it_was_not_in_the_baselines_output() -> None:
    line = Failure("", "failed", "error: cannot find module 'app'", "error: cannot find module 'app'")

    assert (
        Reshaped("", line, None).text() == "error: cannot find module 'app' now; not in the baseline's output"
    )


def test_a_test_failing_another_way_says_how_it_failed_at_the_baseline() -> None:
    was = Failure(NOW.test, "error", "fixture 'db' not found", "fixture 'db' not found", "setup")

    assert Reshaped(NOW.test, NOW, was).text() == (
        "tests/t.py::test_x: assert 1 == 2 now; at the baseline: fixture 'db' not found (error at setup)"
    )


def test_what_the_output_wrote_stays_on_one_line() -> None:
    now = Failure("t.py::test_\nx", "failed", "assert a\n+ b", "assert a")

    text = Reshaped(now.test, now, None).text()

    assert "\n" not in text
    assert text == "t.py::test_\\nx: assert a\\n+ b now; not failing at the baseline"


def _verdict(
    stage: int, base_tests: tuple[BaseTestFailure, ...] = (), lost: tuple[LostTest, ...] = ()
) -> CheckVerdict:
    result = CheckResult("tests", "pytest -q", "tests", stage, "failed", 1, 0.5, "", 0, "exit 1")
    summary = OutputSummary((), (), ())
    return CheckVerdict(result, "new", summary, (), "a new failure", lost=lost, base_tests=base_tests)


def test_a_verdict_knows_its_compile_stage() -> None:
    assert _verdict(COMPILE_STAGE).compile_stage
    assert not _verdict(COMPILE_STAGE + 1).compile_stage


def test_only_the_base_tests_that_refute_the_claim_were_edited_to_pass() -> None:
    refutes = BaseTestFailure("t.py::test_a", "failed", "passed", "assert 0", refutes=True)
    stands = BaseTestFailure("t.py::test_b", "passed", "failed", "assert 1", refutes=False)

    assert _verdict(2, base_tests=(refutes, stands)).edited_to_pass == (refutes,)
    assert _verdict(2).edited_to_pass == ()


def test_the_lost_tests_failing_are_those_that_failed_when_the_loop_began() -> None:
    failed = LostTest("t.py::test_a", "failed", "skipped")
    errored = LostTest("t.py::test_b", "error", None)
    passed = LostTest("t.py::test_c", "passed", "deselected")

    assert _verdict(2, lost=(failed, passed, errored)).lost_failing == (failed, errored)
