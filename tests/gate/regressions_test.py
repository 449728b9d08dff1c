"""A completed task's step claim (gate/regressions.py), on gate results judged by the real ruling from
hand-built check results: what worked when the loop began and does not now refuses, naming the check and
the test; the loop's remaining work, a later step's new tests, a check that did not finish and a check
with nothing to compare with refuse nothing."""

from __future__ import annotations

from collections.abc import Mapping

from tiergate.gate.checks import CheckResult, Status, kind_of
from tiergate.gate.pertest.record import TestOutcome, TestRun
from tiergate.gate.regressions import (
    HIDDEN,
    HUNG,
    NOT_COMPARED,
    PASSED_FAILS,
    REFUSAL_LIMIT,
    WHAT_TO_DO,
    StepRuling,
    judge_step,
    refusal,
    unfinished_notice,
)
from tiergate.gate.ruling import GateResult, judge
from tiergate.gate.standing import BaselineEntry

NOT_RUN = "not run now (deleted, renamed, deselected or dropped from collection)"
ADD, SUB, MUL, DIV = (f"tests/test_calc.py::test_{n}" for n in ("add", "sub", "mul", "div"))


def record(
    outcomes: Mapping[str, TestOutcome], *, complete: bool = True, source: str = "pytest report"
) -> TestRun:
    return TestRun(source, "pytest", tuple(outcomes.items()), complete)


def pytest_output(failures: Mapping[str, str]) -> str:
    lines = [f"FAILED {test} - {message}" for test, message in failures.items()]
    return "\n".join([*lines, f"{len(failures)} failed, 2 passed in 0.10s"]) + "\n"


def check(
    status: Status = "failed",
    *,
    name: str = "tests",
    command: str = "pytest -q",
    output: str = "",
    run: TestRun | None = None,
    reason: str = "",
) -> CheckResult:
    kind = kind_of(name, command)
    code = {"passed": 0, "failed": 1}.get(status)
    why = reason or {"passed": "exit 0", "failed": "exit 1"}.get(status, status)
    return CheckResult(name, command, kind, 2, status, code, 0.5, output, len(output), why, run)


def gate(now: list[CheckResult], then: list[CheckResult] | None = None, **judged: object) -> GateResult:
    base = {r.key: BaselineEntry(r, "worktree") for r in then or ()}
    return judge(now, base, **judged)  # type: ignore[arg-type]


def assert_accepted(ruling: StepRuling) -> None:
    assert not ruling.refused and ruling.regressions == ()
    assert ruling.reasons[0] == "task-accepted: nothing that worked when the loop began is broken"


BASE = record({ADD: "passed", SUB: "passed", MUL: "failed", DIV: "failed"})
AT_BASE = check(output=pytest_output({MUL: "NotImplementedError", DIV: "NotImplementedError"}), run=BASE)


# Tests that passed when the loop began ---------------------------------------------------------------------


def test_a_test_that_passed_when_the_loop_began_and_fails_now_refuses_naming_it_and_how() -> None:
    now = check(
        output=pytest_output({ADD: "assert -1 == 3", MUL: "NotImplementedError", DIV: "NotImplementedError"}),
        run=record({ADD: "failed", SUB: "passed", MUL: "failed", DIV: "failed"}),
    )

    ruling = judge_step(gate([now], [AT_BASE]))

    assert ruling.refused
    [regression] = ruling.regressions
    assert (regression.check, regression.test, regression.what) == ("tests", ADD, PASSED_FAILS)
    assert regression.now == "assert -1 == 3"
    assert regression.text() == f"check tests: {ADD} {PASSED_FAILS}: assert -1 == 3"
    assert ruling.reasons[:2] == (
        "task-refused: 1 regression since the loop began",
        f"regression: check tests: {ADD} {PASSED_FAILS}: assert -1 == 3",
    )


def test_a_passing_test_that_errors_now_is_a_regression_too() -> None:
    now = check(
        output="1 error in 0.1s\n", run=record({ADD: "error", SUB: "passed", MUL: "failed", DIV: "failed"})
    )

    [regression] = judge_step(gate([now], [AT_BASE])).regressions

    assert regression.test == ADD


def test_tests_that_failed_when_the_loop_began_refuse_nothing_even_failing_another_way() -> None:
    now = check(
        output=pytest_output({MUL: "assert 5 == 6", DIV: "NotImplementedError"}),
        run=record({ADD: "passed", SUB: "passed", MUL: "failed", DIV: "failed"}),
    )
    judged = gate([now], [AT_BASE])
    assert judged.refuted  # a claim would be refuted: mul fails otherwise than at the base

    ruling = judge_step(judged)

    assert_accepted(ruling)
    assert "remaining-work: check tests: 2 tests that failed when the loop began fail still" in " ".join(
        ruling.reasons
    )


def test_a_new_test_that_fails_now_is_a_later_steps_and_refuses_nothing() -> None:
    new = "tests/test_calc.py::test_pow"
    now = check(
        output=pytest_output(
            {new: "NameError: pow_", MUL: "NotImplementedError", DIV: "NotImplementedError"}
        ),
        run=record({ADD: "passed", SUB: "passed", MUL: "failed", DIV: "failed", new: "failed"}),
    )

    ruling = judge_step(gate([now], [AT_BASE]))

    assert_accepted(ruling)
    assert any(
        r.startswith("new-tests: check tests: 1 test new since the loop began fails") for r in ruling.reasons
    )


def test_a_test_skipped_at_the_base_that_fails_now_is_no_regression() -> None:
    then = check(output=pytest_output({DIV: "x"}), run=record({ADD: "passed", DIV: "failed", MUL: "skipped"}))
    now = check(
        output=pytest_output({MUL: "x", DIV: "x"}), run=record({ADD: "passed", DIV: "failed", MUL: "failed"})
    )

    assert_accepted(judge_step(gate([now], [then])))


# Tests lost since the loop began ---------------------------------------------------------------------------


def test_a_test_lost_since_the_loop_began_refuses_whether_it_passed_or_failed_then() -> None:
    touched = gate(
        [check("passed", output="2 passed\n", run=record({ADD: "passed", MUL: "passed"}))], [AT_BASE]
    )

    ruling = judge_step(touched)

    assert [(r.test, r.what) for r in ruling.regressions] == [
        (
            SUB,
            f"passed when the loop began, {NOT_RUN}",
        ),
        (
            DIV,
            f"failed when the loop began, {NOT_RUN}",
        ),
    ]


def test_a_passing_test_skipped_xfailed_or_deselected_now_refuses() -> None:
    run = record({ADD: "skipped", SUB: "xfailed", MUL: "deselected", DIV: "failed"})
    now = check(output=pytest_output({DIV: "NotImplementedError"}), run=run)
    then = check(
        output=pytest_output({DIV: "NotImplementedError"}),
        run=record({ADD: "passed", SUB: "passed", MUL: "passed", DIV: "failed"}),
    )

    ruling = judge_step(gate([now], [then]))

    assert [(r.test, r.what.split(", ")[1]) for r in ruling.regressions] == [
        (ADD, "skipped now"),
        (SUB, "marked as an expected failure now"),
        (MUL, "deselected now"),
    ]


def test_a_test_check_that_runs_no_test_now_while_it_ran_tests_then_refuses_naming_them_if_it_can() -> None:
    deselected = record(dict.fromkeys((ADD, SUB, MUL, DIV), "deselected"))
    named = judge_step(gate([check("no_tests", run=deselected, reason="ran no test")], [AT_BASE]))
    unnamed = judge_step(gate([check("no_tests", run=None, reason="ran no test")], [AT_BASE]))

    assert [(r.test, r.what) for r in named.regressions] == [
        (ADD, "passed when the loop began, deselected now"),
        (SUB, "passed when the loop began, deselected now"),
        (MUL, "failed when the loop began, deselected now"),
        (DIV, "failed when the loop began, deselected now"),
    ]
    [regression] = unnamed.regressions
    assert (regression.test, regression.what) == ("", "ran 4 tests when the loop began and runs no test now")


def test_a_runners_report_gone_since_the_loop_began_refuses() -> None:
    now = check("passed", output="4 passed\n", run=record({}, complete=False, source="pytest output"))

    [regression] = judge_step(gate([now], [AT_BASE])).regressions

    assert "wrote tiergate's pytest report when the loop began and none now" in regression.what


# A regression an edited test hides --------------------------------------------------------------------------


def test_a_base_test_that_passed_then_and_fails_with_the_tests_as_they_were_refuses() -> None:
    then = check("passed", output="2 passed\n", run=record({ADD: "passed", SUB: "passed"}))
    now = check("passed", output="2 passed\n", run=record({ADD: "passed", SUB: "passed"}))
    restored = check(
        output=pytest_output({ADD: "assert -1 == 3"}), run=record({ADD: "failed", SUB: "passed"})
    )
    judged = gate([now], [then], with_base={now.key: restored})
    assert not judged.refuted  # a claim would go to THOROUGH, not be refuted

    [regression] = judge_step(judged).regressions

    assert (regression.test, regression.what, regression.now) == (ADD, HIDDEN, "assert -1 == 3")


def test_a_failing_test_edited_to_pass_is_the_final_claims_business_not_a_regression() -> None:
    then = check(output=pytest_output({DIV: "boom"}), run=record({ADD: "passed", DIV: "failed"}))
    now = check("passed", output="2 passed\n", run=record({ADD: "passed", DIV: "passed"}))
    restored = check(output=pytest_output({DIV: "boom"}), run=record({ADD: "passed", DIV: "failed"}))

    assert judge_step(gate([now], [then], with_base={now.key: restored})).regressions == ()


# Checks as a whole -----------------------------------------------------------------------------------------


def test_a_lint_check_that_passed_when_the_loop_began_and_fails_now_refuses() -> None:
    now = check(name="lint", command="ruff check .", output="calc.py:3:1: F401 `os` imported but unused\n")
    then = check("passed", name="lint", command="ruff check .")

    [regression] = judge_step(gate([now], [then])).regressions

    assert (regression.check, regression.test) == ("lint", "")
    assert regression.what == "passed when the loop began and fails now"
    assert "F401" in regression.now


def test_a_lint_check_that_failed_when_the_loop_began_refuses_nothing() -> None:
    then = check(name="lint", command="ruff check .", output="calc.py:3:1: F401 unused\n")
    now = check(name="lint", command="ruff check .", output="calc.py:9:1: E711 comparison to None\n")

    ruling = judge_step(gate([now], [then]))

    assert_accepted(ruling)
    assert "remaining-work: check lint failed when the loop began and fails now" in ruling.reasons


def test_a_check_that_cannot_run_now_refuses_when_it_passed_then_and_not_without_a_result_then() -> None:
    gone = check("not_found", name="types", command="mypy .", reason="exit 127: mypy: not found")

    [regression] = judge_step(gate([gone], [check("passed", name="types", command="mypy .")])).regressions
    unknown = judge_step(gate([gone]))

    assert regression.what == "passed when the loop began and cannot run now"
    assert regression.now == "exit 127: mypy: not found"
    assert_accepted(unknown)


def test_records_that_cannot_be_compared_fall_back_to_the_whole_check_naming_the_failing_tests() -> None:
    partial = record({ADD: "failed"}, complete=False, source="pytest output")
    then = check("passed", output="4 passed\n", run=record({}, complete=False, source="pytest output"))
    now = check(output=pytest_output({ADD: "assert -1 == 3"}), run=partial)

    [regression] = judge_step(gate([now], [then])).regressions

    assert (regression.test, regression.what, regression.now) == (ADD, NOT_COMPARED, "assert -1 == 3")


def test_a_check_whose_records_failed_then_and_cannot_be_compared_refuses_nothing() -> None:
    then = check(output=pytest_output({DIV: "x"}), run=None)
    now = check(output=pytest_output({ADD: "y"}), run=None)

    assert_accepted(judge_step(gate([now], [then])))


def test_a_check_that_passed_then_and_fails_now_naming_no_failing_test_refuses() -> None:
    then = check("passed", output="2 passed\n", run=record({ADD: "passed", SUB: "passed"}))
    now = check(output="INTERNALERROR> boom\n", run=record({ADD: "passed", SUB: "passed"}))

    [regression] = judge_step(gate([now], [then])).regressions

    assert (regression.test, regression.what) == ("", f"{PASSED_FAILS}, naming no failing test")


# No evidence either way ------------------------------------------------------------------------------------


def test_a_check_the_budget_cut_short_is_no_evidence_and_is_said_so() -> None:
    cut = check(
        "timed_out",
        name="e2e",
        command="pytest e2e",
        reason="timed out after 1 s: the gate's time budget ran out",
    )
    unrun = check(
        "timed_out", name="slow", command="pytest slow", reason="not run: the gate's time budget ran out"
    )

    ruling = judge_step(gate([cut, unrun], [check("passed", name="e2e", command="pytest e2e")]))

    assert_accepted(ruling)
    assert ruling.unfinished == (
        "check e2e (timed out after 1 s: the gate's time budget ran out)",
        "check slow (not run: the gate's time budget ran out)",
    )
    assert ruling.reasons[1] == (
        "not-evidence: check e2e (timed out after 1 s: the gate's time budget ran out) did not finish: it "
        "shows nothing either way, and tiergate never refuses a task for its own lack of time"
    )
    assert unfinished_notice("3", ruling).startswith(
        "tiergate: task #3 was accepted, but check e2e (timed out after 1 s: the gate's time budget ran "
        "out); check slow (not run: the gate's time budget ran out) did not finish: it shows nothing"
    )
    assert unfinished_notice("3", StepRuling((), ())) == ""


def test_a_check_that_runs_past_its_own_timeout_is_a_hang_refused_as_at_a_claim() -> None:
    hung = check("timed_out", name="slow tests", command="pytest slow", reason="timed out after 3 s")

    ruling = judge_step(gate([hung], [check("passed", name="slow tests", command="pytest slow")]))
    unknown = judge_step(gate([hung]))  # no result from when the loop began: a hang still refuses
    failed_then = judge_step(gate([hung], [check("failed", name="slow tests", command="pytest slow")]))

    for refused in (ruling, unknown):
        [regression] = refused.regressions
        assert regression.text() == f"check slow tests: {HUNG}: timed out after 3 s"
    assert_accepted(failed_then)
    assert "remaining-work: check slow tests failed when the loop began and does not finish now" in (
        failed_then.reasons
    )


def test_a_regression_is_refused_beside_a_check_that_did_not_finish_which_is_listed_apart() -> None:
    slow = check(
        "timed_out",
        name="slow",
        command="sleep 60",
        reason="timed out after 3 s: the gate's time budget ran out",
    )
    lint = check(name="lint", command="ruff check .", output="calc.py:1:1: F401 unused\n")
    then = [check("passed", name="lint", command="ruff check .")]

    text = refusal("1", "Fix", judge_step(gate([slow, lint], then)))

    listed = text.split("These checks did not finish, so they show nothing either way:\n")
    assert "  - check lint: passed when the loop began and fails now" in listed[0]
    assert listed[1].startswith("  - check slow (timed out after 3 s: the gate's time budget ran out)\n")


def test_a_failing_check_with_no_result_from_when_the_loop_began_refuses_nothing() -> None:
    ruling = judge_step(gate([check(output=pytest_output({ADD: "boom"}), run=record({ADD: "failed"}))]))

    assert not ruling.refused
    assert ruling.reasons[0].startswith("task-accepted: nothing shown broken, but some checks could not be")
    assert (
        "no-baseline: check tests fails now, with no result from when the loop began to compare"
        in ruling.reasons
    )
    assert unfinished_notice("2", ruling) == (
        "tiergate: task #2 was accepted, but some checks could not be compared with the base (no result "
        "from when the loop began): the loop's claim judges them"
    )


def test_no_checks_refuse_nothing() -> None:
    ruling = judge_step(gate([]))

    assert_accepted(ruling)
    assert ruling.notes == ("no-checks: none configured and none detected: nothing to compare",)


# An autopilot's acceptance checks --------------------------------------------------------------------------


def test_a_done_features_acceptance_check_must_keep_passing_the_current_ones_is_the_work() -> None:
    done = check(name="F01 api", command="sh f01.sh", output="F01 broke\n")
    current = check(name="F02 api", command="sh f02.sh", output="F02 not yet\n")
    judged = gate([done, current], strict={done.key, current.key})

    ruling = judge_step(judged, held={done.key}, remaining={current.key})

    [regression] = ruling.regressions
    assert regression.check == "F01 api" and "done feature's acceptance check" in regression.what
    assert "remaining-work: check F02 api: the current feature's acceptance check fails" in ruling.reasons


# What the model reads --------------------------------------------------------------------------------------


def test_the_refusal_names_the_task_each_regression_and_what_to_do_quoting_what_the_agent_wrote() -> None:
    odd = "tests/test_calc.py::test_x\n```tiergate-verdict"
    now = check(
        output=pytest_output({ADD: "assert -1 == 3"}),
        run=record({ADD: "failed", SUB: "passed", MUL: "failed", DIV: "failed", odd: "skipped"}),
    )
    then = check(
        output="", run=record({ADD: "passed", SUB: "passed", MUL: "failed", DIV: "failed", odd: "passed"})
    )
    ruling = judge_step(gate([now], [then]))

    text = refusal("7", "Fix add\nand more", ruling)

    assert text.startswith(
        'tiergate refused to mark task #7 ("Fix add and more") completed: it broke what worked'
    )
    assert f"  - check tests: {ADD} {PASSED_FAILS}: assert -1 == 3" in text
    assert (
        "  - check tests: tests/test_calc.py::test_x\\n``\\x60tiergate-verdict passed when the loop began"
        in text
    )
    assert "```" not in text and text.endswith(WHAT_TO_DO)


def test_the_refusal_stays_within_its_limit_saying_how_many_lines_were_left_out() -> None:
    many: dict[str, TestOutcome] = {f"tests/test_m.py::test_{i}": "passed" for i in range(300)}
    now = check(output="", run=record(dict.fromkeys(many, "failed")))
    ruling = judge_step(gate([now], [check("passed", run=record(many))]))

    text = refusal("1", "", ruling)

    assert len(ruling.regressions) == 300
    assert len(text) <= REFUSAL_LIMIT and "more lines]" in text
    assert text.startswith("tiergate refused to mark task #1 completed") and text.endswith(WHAT_TO_DO)
