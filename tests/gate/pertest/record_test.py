"""A test check's record of each test: its counts, complete or from the runner's totals, and its file form."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tiergate.gate.pertest.record import FAILING, TestRun, outcome_of

COMPLETE = TestRun(
    "pytest report",
    "pytest",
    (("t.py::a", "passed"), ("t.py::b", "failed"), ("t.py::c", "skipped"), ("t.py::d", "error")),
    True,
    (("passed", 9),),  # a complete record counts its own outcomes, whatever the runner printed
)


def test_a_complete_record_counts_its_tests() -> None:
    assert (COMPLETE.total("passed"), COMPLETE.ran, COMPLETE.failing) == (1, 3, 2)
    assert COMPLETE.named(FAILING) == ("t.py::b", "t.py::d")
    assert COMPLETE.describe_counts() == "1 passed, 1 failed, 1 error, 1 skipped"


def test_a_partial_record_counts_from_the_runners_totals() -> None:
    partial = TestRun(
        "pytest output", "pytest", (("t.py::b", "failed"),), False, (("passed", 3), ("failed", 1))
    )
    assert (partial.total("passed"), partial.total("failed"), partial.ran) == (3, 1, 4)
    assert TestRun("go output", "go", (), False).describe_counts() == "no test"


def test_the_record_reads_back_as_written_and_nothing_else_does() -> None:
    assert TestRun.from_record(COMPLETE.to_record()) == COMPLETE
    forged = replace(COMPLETE, disagrees="the report disagrees: it has t.py::b passed")
    assert TestRun.from_record(forged.to_record()) == forged
    with pytest.raises(ValueError, match="not a test outcome"):
        TestRun.from_record({**COMPLETE.to_record(), "outcomes": [["t.py::a", "fine"]]})
    with pytest.raises(ValueError, match="not a test run"):
        TestRun.from_record({**COMPLETE.to_record(), "complete": "yes"})
    assert outcome_of("xfailed") == "xfailed"


def test_a_run_of_a_selection_reads_back_as_one_and_an_older_record_as_a_whole_run() -> None:
    subset = TestRun("pytest report", "pytest", (("t.py::a", "passed"),), True, subset=True)
    older = {key: value for key, value in COMPLETE.to_record().items() if key != "subset"}

    assert TestRun.from_record(subset.to_record()) == subset
    assert "subset" not in COMPLETE.to_record()
    assert TestRun.from_record(older) == COMPLETE and not COMPLETE.subset
    with pytest.raises(ValueError, match="not a test run"):
        TestRun.from_record({**subset.to_record(), "subset": "yes"})
