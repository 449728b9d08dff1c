"""Tests read from a runner's plain output: its totals, and the tests it names, per runner."""

from __future__ import annotations

from tiergate.gate.pertest.fromoutput import from_output

PYTEST_Q = """\
..F.s                                                                    [100%]
=================================== FAILURES ===================================
___________________________________ test_div ___________________________________
E       NotImplementedError
=========================== short test summary info ============================
FAILED tests/test_calc.py::test_div - NotImplementedError
1 failed, 3 passed, 1 skipped, 2 deselected in 0.05s
"""
PYTEST_V = """\
tests/test_calc.py::test_add PASSED                                      [ 50%]
tests/test_calc.py::test_div XFAIL (later)                               [100%]
========================= 1 passed, 1 xfailed in 0.01s =========================
"""
UNITTEST_V = """\
test_a (t_test.T.test_a) ... ok
test_b (t_test.T.test_b) ... FAIL
test_c (t_test.T.test_c) ... skipped 'x'

----------------------------------------------------------------------
Ran 3 tests in 0.000s

FAILED (failures=1, skipped=1)
"""
NODE_SPEC = """\
\u2714 adds (0.5ms)
\u2716 divides (0.7ms)
\ufe63 later (0.1ms) # SKIP
\u2139 tests 3
\u2139 suites 0
\u2139 pass 1
\u2139 fail 1
\u2139 cancelled 0
\u2139 skipped 1
\u2139 todo 0
"""
CARGO = """\
test a::one ... ok
test a::two ... FAILED
test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
running 0 tests
test result: ok. 0 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.00s
"""


def test_pytest_quiet_output_gives_its_totals_and_names_its_failures_but_is_not_complete() -> None:
    found = from_output(PYTEST_Q)

    assert found is not None and found.naming == "pytest" and not found.complete
    assert found.describe_counts() == "3 passed, 1 failed, 1 skipped, 2 deselected"
    assert found.named(frozenset({"failed"})) == ("tests/test_calc.py::test_div",)
    assert dict(found.counts) == {"failed": 1, "passed": 3, "skipped": 1, "deselected": 2}


def test_pytest_verbose_output_names_every_test() -> None:
    found = from_output(PYTEST_V)

    assert found is not None and found.complete
    assert found.by_test == {
        "tests/test_calc.py::test_add": "passed",
        "tests/test_calc.py::test_div": "xfailed",
    }
    assert found.ran == 1


def test_pytest_that_ran_nothing_counts_no_test() -> None:
    found = from_output("\n3 deselected in 0.01s\n")
    assert found is not None and found.ran == 0 and found.total("deselected") == 3
    nothing = from_output("no tests ran in 0.01s\n")
    assert nothing is not None and nothing.ran == 0


def test_unittest_verbose_output_names_each_test_and_its_totals_agree() -> None:
    found = from_output(UNITTEST_V)

    assert found is not None and found.naming == "unittest" and found.complete
    assert found.by_test == {
        "t_test.T.test_a": "passed",
        "t_test.T.test_b": "failed",
        "t_test.T.test_c": "skipped",
    }


def test_node_spec_output_gives_totals_and_top_level_names() -> None:
    found = from_output(NODE_SPEC)

    assert found is not None and found.naming == "node output" and found.complete
    assert found.by_test == {"adds": "passed", "divides": "failed", "later": "skipped"}


def test_cargo_sums_every_binary_and_counts_ignored_as_skipped() -> None:
    found = from_output(CARGO)

    assert (
        found is not None
        and found.total("skipped") == 2
        and found.failing == 1
        and found.total("passed") == 1
    )


def test_cargo_names_every_test_a_should_panic_one_and_a_doctest_too() -> None:
    found = from_output(
        "running 3 tests\n"
        "test tests::later ... ignored, not yet\n"
        "test tests::test_mul - should panic ... ok\n"
        "test tests::test_add ... FAILED\n"
        "test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\n"
        "   Doc-tests calc\n"
        "test src/lib.rs - mul (line 3) ... ok\n"
        "test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n"
    )

    assert found is not None and found.naming == "cargo" and found.complete
    assert found.by_test == {
        "tests::later": "skipped",
        "tests::test_mul": "passed",
        "tests::test_add": "failed",
        "src/lib.rs - mul (line 3)": "passed",
    }


def test_go_names_what_it_prints_and_a_run_with_no_test_counts_none() -> None:
    verbose = from_output(
        "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n--- FAIL: TestB (0.00s)\nFAIL\n"
    )
    assert verbose is not None and verbose.by_test == {"TestA": "passed", "TestB": "failed"}
    plain = from_output("--- FAIL: TestB (0.00s)\nFAIL\tpkg\t0.01s\n")
    assert plain is not None and not plain.complete
    nothing = from_output("ok  \tpkg\t0.01s [no tests to run]\n?   \tother\t[no test files]\n")
    assert nothing is not None and nothing.ran == 0


def test_jest_totals_are_read_without_names() -> None:
    found = from_output("Tests:       1 failed, 2 skipped, 3 passed, 6 total\n")
    assert found is not None and found.failing == 1 and found.total("skipped") == 2 and not found.complete


def test_output_no_runner_prints_gives_no_record() -> None:
    assert from_output("all good\n") is None
