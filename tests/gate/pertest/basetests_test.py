"""The pure decision on a test check's run with the base's tests: which test of the base refutes the claim,
which makes it THOROUGH, and which says nothing; and what that run needs to run again at all (only what
differs from the claim's own run), judged the same."""

from __future__ import annotations

from dataclasses import replace

from tiergate.gate.pertest.basetests import (
    base_test_failures,
    base_tests_selection,
    comparable,
    whole_check_failure,
)
from tiergate.gate.pertest.record import TestOutcome, TestRun
from tiergate.gate.pertest.selection import TestSelection


def run(
    *outcomes: tuple[str, TestOutcome], naming: str = "pytest", complete: bool = True, subset: bool = False
) -> TestRun:
    return TestRun("pytest report", naming, outcomes, complete, subset=subset)


BASE = run(("t::add", "passed"), ("t::div", "failed"), ("t::mul", "failed"))
MESSAGES = {"t::div": "assert 18 == 2", "t::add": "assert 4 == 3"}


def test_a_failing_test_that_fails_as_it_was_and_passes_as_edited_refutes() -> None:
    now = run(("t::add", "passed"), ("t::div", "passed"), ("t::mul", "passed"))
    restored = run(("t::add", "passed"), ("t::div", "failed"), ("t::mul", "passed"))

    [found] = base_test_failures(BASE, now, restored, MESSAGES)

    assert (found.test, found.refutes, found.edited_to_pass) == ("t::div", True, True)
    assert found.text() == (
        "t::div failed when the loop began and still fails with the tests as they were then; it passes "
        "only with the tests as the change edited them (as they were: assert 18 == 2)"
    )


def test_a_failing_test_fixed_by_the_code_or_still_failing_says_nothing() -> None:
    now = run(("t::add", "passed"), ("t::div", "passed"), ("t::mul", "failed"))
    restored = run(("t::add", "passed"), ("t::div", "passed"), ("t::mul", "failed"))

    assert base_test_failures(BASE, now, restored, MESSAGES) == ()


def test_a_failing_test_deleted_that_still_fails_as_it_was_refutes_saying_it_is_not_run() -> None:
    now = run(("t::add", "passed"), ("t::mul", "passed"))
    restored = run(("t::add", "passed"), ("t::div", "failed"), ("t::mul", "passed"))

    [found] = base_test_failures(BASE, now, restored, {})

    assert found.refutes and found.now is None
    assert found.text().endswith("then; it is not run at all with the tests as the change left them")


def test_a_passing_test_failing_as_it_was_goes_thorough_or_refutes_by_the_setting() -> None:
    now = run(("t::add", "passed"), ("t::div", "passed"), ("t::mul", "passed"))
    restored = run(("t::add", "failed"), ("t::div", "passed"), ("t::mul", "passed"))

    [thorough] = base_test_failures(BASE, now, restored, MESSAGES)
    [refuting] = base_test_failures(BASE, now, restored, MESSAGES, refute_regressions=True)

    assert not thorough.refutes and refuting.refutes and not refuting.edited_to_pass
    assert thorough.text().startswith(
        "t::add passed when the loop began and fails with the tests as they were then (assert 4 == 3): "
        "a behaviour change the task asked for"
    )


def test_a_base_test_missing_from_a_failing_run_as_it_was_counts_as_failing() -> None:
    now = run(("t::add", "passed"), ("t::div", "passed"), ("t::mul", "passed"))
    collection_error = run(("t", "error"))

    found = base_test_failures(BASE, now, collection_error, {})

    assert [(f.test, f.refutes) for f in found] == [("t::add", False), ("t::div", True), ("t::mul", True)]


def test_records_that_cannot_be_compared_test_by_test_give_nothing() -> None:
    now = run(("t::add", "passed"), ("t::div", "passed"), ("t::mul", "passed"))
    restored = run(("t::div", "failed"), complete=False)
    other = run(("add", "passed"), naming="node")

    assert not comparable(BASE, now, restored) and not comparable(BASE, now, other)
    assert base_test_failures(BASE, now, restored, {}) == ()
    assert base_test_failures(None, now, now, {}) == ()


def test_a_whole_check_failing_as_it_was_goes_thorough_and_refutes_only_when_it_passed_at_the_base() -> None:
    found = whole_check_failure(False, True, True, "FAILED x", refute_regressions=True)
    passed = whole_check_failure(True, True, True, "FAILED x", refute_regressions=True)

    assert found is not None and not found.refutes and found.test == ""
    assert passed is not None and passed.refutes
    assert "the check fails with the tests as they were when the loop began (FAILED x)" in found.text()
    assert whole_check_failure(True, False, True, "", refute_regressions=False) is None
    assert whole_check_failure(True, True, False, "", refute_regressions=False) is None


def test_a_selection_runs_again_the_touched_test_files_and_the_tests_failing_or_lost_now() -> None:
    base = run(
        ("tests/a_test.py::x", "passed"), ("tests/b_test.py::y", "passed"), ("tests/c_test.py::z", "failed")
    )
    now = run(("tests/a_test.py::x", "passed"), ("tests/b_test.py::y", "failed"))

    selection = base_tests_selection(["app/tests/a_test.py", "app/tests/new_test.py"], base, now, "app")

    # new_test.py is not at the base: in the scratch copy it is gone, and selecting it costs nothing.
    assert selection == TestSelection(
        ("tests/a_test.py", "tests/new_test.py"), ("tests/b_test.py::y", "tests/c_test.py::z")
    )
    passing = run(("tests/a_test.py::x", "passed"))
    assert base_tests_selection([], passing, passing, "") == TestSelection((), ())  # nothing differs


def test_infrastructure_data_a_path_outside_the_project_or_records_not_to_trust_ask_for_the_whole_run() -> (
    None
):
    base = run(("tests/a_test.py::x", "passed"))
    for touched in (
        ["tests/conftest.py"],
        ["tests/helpers.py"],
        ["tests/data/case.json"],
        ["other/x_test.py"],
    ):
        assert (
            base_tests_selection(touched, base, base, "app" if touched[0].startswith("other") else "") is None
        )
    assert base_tests_selection(["tests/fixtures/test_copy.py"], base, base, "") is None
    for record in (
        None,
        replace(base, complete=False),
        replace(base, finished=False),
        replace(base, subset=True),
    ):
        assert base_tests_selection(["tests/a_test.py"], record, base, "") is None
        assert base_tests_selection(["tests/a_test.py"], base, record, "") is None
    node = replace(base, naming="node")
    assert base_tests_selection(["tests/a_test.py"], node, node, "") is None
    whole = run(("<collection>", "error"))
    assert base_tests_selection(["tests/a_test.py"], base, whole, "") is None


def test_a_run_of_a_selection_judges_only_the_tests_it_ran_or_could_not_collect() -> None:
    base = run(("t.py::a", "passed"), ("t.py::b", "failed"), ("u.py::c", "passed"), ("v.py::d", "failed"))
    now = run(("t.py::a", "passed"), ("t.py::b", "passed"), ("u.py::c", "passed"), ("v.py::d", "passed"))
    # t.py ran again and b fails as it was; u.py fails to collect as it was; v.py was not selected.
    selected = run(("t.py::a", "passed"), ("t.py::b", "failed"), ("u.py", "error"), subset=True)

    found = base_test_failures(base, now, selected, {})

    assert comparable(base, now, selected)
    assert [(f.test, f.refutes) for f in found] == [("t.py::b", True), ("u.py::c", False)]
    # The same tests missing from a whole run that had failures are failing, as before.
    whole = replace(selected, subset=False)
    assert [f.test for f in base_test_failures(base, now, whole, {})] == ["t.py::b", "u.py::c", "v.py::d"]


def test_a_selection_is_never_the_base_or_the_claim_compared_test_by_test() -> None:
    whole = run(("t.py::a", "passed"), ("t.py::b", "failed"))
    part = run(("t.py::a", "passed"), subset=True)

    assert not comparable(whole, part, whole) and not comparable(part, whole, whole)
    assert base_test_failures(whole, part, whole, {}) == ()
