"""The seed's table of interventions, row by row, with its criteria; then the whole chain on a real
repository: intervention, green point, rollback with its backup, halt."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testing.gitrepo import init_repo, write

from tiergate.loop import interventions
from tiergate.loop.interventions import (
    Attempt,
    ChangeApproach,
    Halt,
    InterventionPolicy,
    Retry,
    RollbackThenChangeApproach,
)
from tiergate.loop.stalls import Stall
from tiergate.project import Project
from tiergate.workspace import backups, greenpoint, putback, snapshots

SEED = InterventionPolicy(attempt_limit=3, skip_limit=3)


def fail(item: str, reason: str = "") -> Attempt:
    return Attempt(item, passed=False, reason=reason or f"{item}: probe failed")


def ok(item: str) -> Attempt:
    return Attempt(item, passed=True)


# -- row 1: under the attempt limit: retry, with the last failure's reason -----------------------------


@pytest.mark.parametrize("dirty", [False, True])
def test_under_the_limit_retry_with_the_last_failures_reason(dirty: bool) -> None:
    record = [fail("F07", "GET /items without ?tag answered [] (expected 3 items)")]
    decision = interventions.choose(record, "F07", dirty=dirty, policy=SEED)
    assert isinstance(decision, Retry)
    assert (decision.item, decision.attempt, decision.limit) == ("F07", 2, 3)
    assert not decision.rollback_first  # the work is kept: the critique is about it
    assert "GET /items without ?tag answered [] (expected 3 items)" in decision.message
    assert decision.message.startswith("Attempt 1 of 3 at F07 was refuted: GET /items")  # the one refuted
    assert "(2 attempts left before the approach must change)" in decision.message
    assert decision.reasons[0] == (
        "under-limit: F07 was refuted 1 of 3 allowed times: retry with the failure's reason"
    )
    assert decision.reasons[1] == (
        "dirty: the workspace is kept for the retry" if dirty else "clean: nothing to roll back"
    )


def test_each_retry_carries_the_newest_reason_so_the_input_differs() -> None:
    record = [fail("F01", "the first reason")]
    first = interventions.choose(record, "F01", dirty=True, policy=SEED)
    record.append(fail("F01", "the second reason"))
    second = interventions.choose(record, "F01", dirty=True, policy=SEED)
    assert isinstance(first, Retry) and isinstance(second, Retry)
    assert first.message != second.message
    assert "the second reason" in second.message and "the first reason" not in second.message


def test_a_retry_without_a_reason_says_where_to_find_one() -> None:
    decision = interventions.choose([Attempt("F01", passed=False)], "F01", dirty=False, policy=SEED)
    assert isinstance(decision, Retry)
    assert "no reason was given; find it by running the checks yourself" in decision.message


def test_the_seeds_clean_before_retry_is_a_policy_choice() -> None:
    policy = InterventionPolicy(rollback_on_retry=True)
    dirty = interventions.choose([fail("F01")], "F01", dirty=True, policy=policy)
    clean = interventions.choose([fail("F01")], "F01", dirty=False, policy=policy)
    assert isinstance(dirty, Retry) and dirty.rollback_first
    assert dirty.message.startswith("The workspace was rolled back to the last green point first.")
    assert dirty.reasons[1] == "dirty: rolled back before the retry (rollback_on_retry)"
    assert isinstance(clean, Retry) and not clean.rollback_first


# -- rows 2 and 3: at the limit, the workspace decides ---------------------------------------------------


def test_at_the_limit_on_a_clean_workspace_change_approach() -> None:
    record = [fail("F03"), fail("F03"), fail("F03", "empty patch: nothing changed")]
    decision = interventions.choose(record, "F03", dirty=False, policy=SEED)
    assert decision == ChangeApproach(
        "F03",
        3,
        "F03 failed 3 times; the same approach will not pass.\n"
        "The last failure: empty patch: nothing changed\n"
        "Change approach: move on to the next item, or take a different route to this one.",
        (
            "attempt-limit: F03 was refuted 3 times (limit 3)",
            "clean: the workspace is at the last green point: nothing to roll back",
        ),
    )


def test_at_the_limit_on_a_dirty_workspace_roll_back_first_then_change_approach() -> None:
    record = [fail("F05"), fail("F05"), fail("F05", "POST /items answered 201 but stored nothing")]
    decision = interventions.choose(record, "F05", dirty=True, policy=SEED)
    assert isinstance(decision, RollbackThenChangeApproach)
    assert (decision.item, decision.attempts) == ("F05", 3)
    assert decision.reasons == (
        "attempt-limit: F05 was refuted 3 times (limit 3)",
        "dirty: the workspace differs from the last green point: roll back to it first",
    )
    assert "POST /items answered 201 but stored nothing" in decision.message
    assert "rolled the workspace back to the last green point" in decision.message
    assert "tiergate backups" in decision.message


def test_the_criterion_for_rolling_back_is_dirtiness_not_the_number_of_failures() -> None:
    many_clean = [fail("F03")] * 7  # more than the limit: a stubborn item, never dirtied
    one_dirty = [fail("F04")]
    assert isinstance(
        interventions.choose(many_clean, "F03", dirty=False, policy=SEED),
        ChangeApproach,
    )
    assert isinstance(interventions.choose(one_dirty, "F04", dirty=True, policy=SEED), Retry)


# -- row 4: too many given up: halt ---------------------------------------------------------------------


def test_the_item_that_would_be_the_skip_limits_th_given_up_halts_instead() -> None:
    record = [*[fail("F02")] * 3, ok("F03"), *[fail("F04")] * 3, *[fail("F05")] * 3]
    assert interventions.skipped_items(record) == ("F02", "F04")
    decision = interventions.choose(record, "F05", dirty=True, policy=SEED)
    assert isinstance(decision, Halt)
    assert decision.skipped == ("F02", "F04", "F05")
    assert decision.dirty
    assert decision.reason == (
        "skip-limit: 3 items given up (F02, F04, F05; limit 3): the premise is wrong, and going on only "
        "burns budget"
    )
    assert decision.reasons == ("attempt-limit: F05 was refuted 3 times (limit 3)", decision.reason)
    assert decision.message == (
        f"tiergate halted the loop: {decision.reason}. Given up: F02, F04, F05. Done: F03. "
        "The workspace is left as it is for you to look at."
    )


def test_below_the_skip_limit_the_loop_goes_on() -> None:
    record = [*[fail("F02")] * 3, *[fail("F04")] * 3]
    assert isinstance(interventions.choose(record, "F04", dirty=False, policy=SEED), ChangeApproach)


def test_too_many_failures_in_a_row_halt_whatever_the_items() -> None:
    policy = InterventionPolicy(attempt_limit=5, skip_limit=10, failure_limit=4)
    assert InterventionPolicy(attempt_limit=4, skip_limit=5).failures_allowed == 20
    record = [ok("F01"), fail("F02"), fail("F02"), fail("F03"), fail("F03")]
    decision = interventions.choose(record, "F03", dirty=False, policy=policy)
    assert isinstance(decision, Halt)
    assert decision.reason == "failure-limit: 4 refuted attempts in a row (limit 4)"
    assert decision.message.endswith("Done: F01. The workspace is at the last green point.")
    assert not isinstance(interventions.choose(record[:-1], "F03", dirty=False, policy=policy), Halt)


# -- stalls -----------------------------------------------------------------------------------------------


def test_a_stall_reaches_the_limit_at_once() -> None:
    stall = Stall("repeated-failure", "repeated-failure: the last 2 refuted claims failed the same way (x)")
    record = [fail("F01"), fail("F01")]
    clean = interventions.choose(record, "F01", dirty=False, stalls=[stall], policy=SEED)
    dirty = interventions.choose(record, "F01", dirty=True, stalls=[stall], policy=SEED)
    assert isinstance(clean, ChangeApproach) and clean.reasons[0] == stall.reason
    assert isinstance(dirty, RollbackThenChangeApproach) and dirty.reasons[0] == stall.reason


@pytest.mark.parametrize("kind", ["unchanged-claim", "empty-turns"])
def test_every_progress_stall_changes_approach(kind: str) -> None:
    stall = Stall(kind, f"{kind}: ...")  # type: ignore[arg-type]
    decision = interventions.choose([fail("F01")], "F01", dirty=False, stalls=[stall], policy=SEED)
    assert isinstance(decision, ChangeApproach)


def test_a_spent_budget_halts_whatever_else_holds() -> None:
    budget = Stall("budget", "budget: the iteration cap is reached (20/20)")
    decision = interventions.choose([ok("F01"), fail("F02")], "F02", dirty=True, stalls=[budget], policy=SEED)
    assert isinstance(decision, Halt)
    assert decision.reason == budget.reason
    assert decision.message == (
        "tiergate halted the loop: budget: the iteration cap is reached (20/20). Done: F01. "
        "The workspace is left as it is for you to look at."
    )


# -- counts derived from the one record ------------------------------------------------------------------


def test_attempts_count_since_the_items_last_pass() -> None:
    record = [fail("A"), fail("A"), ok("A"), fail("B"), fail("A")]
    assert interventions.attempts_of(record, "A") == 1
    assert interventions.attempts_of(record, "B") == 1
    assert interventions.attempts_of(record, "C") == 0
    assert interventions.done_items(record) == ()  # A's last attempt failed
    assert interventions.done_items([*record, ok("A")]) == ("A",)
    assert interventions.failures_in_a_row(record) == 2


def test_skipped_items_are_those_left_unfinished_for_another() -> None:
    assert interventions.skipped_items([]) == ()
    assert interventions.skipped_items([fail("A"), ok("B")]) == ("A",)
    assert interventions.skipped_items([fail("A"), fail("B"), fail("A")]) == ("B",)  # A is back in play
    assert interventions.skipped_items([fail("A"), fail("B"), fail("A"), ok("A"), fail("C")]) == ("B",)
    assert interventions.skipped_items([ok("A"), fail("B")]) == ()


def test_a_single_task_loop_counts_each_approach_as_an_item() -> None:
    task = "make the tests pass"
    assert interventions.approach_item(task, 1) == task
    assert interventions.approach_item(task, 3) == "make the tests pass#3"
    record: list[Attempt] = []
    decisions = []
    for n in (1, 2, 3):
        item = interventions.approach_item(task, n)
        for _ in range(3):
            record.append(fail(item))
            decisions.append(type(interventions.choose(record, item, dirty=False, policy=SEED)).__name__)
    assert decisions == ["Retry", "Retry", "ChangeApproach"] * 2 + ["Retry", "Retry", "Halt"]


items = st.sampled_from(["A", "B", "C"])
attempts = st.builds(Attempt, items, st.booleans(), st.just("r"))


@given(st.lists(attempts, max_size=20), items, st.booleans())
def test_the_table_holds_for_any_record(record: list[Attempt], item: str, dirty: bool) -> None:
    record = [*record, fail(item)]
    decision = interventions.choose(record, item, dirty, policy=SEED)
    under = interventions.attempts_of(record, item) < SEED.attempt_limit
    if isinstance(decision, RollbackThenChangeApproach):
        assert dirty and not under
    if isinstance(decision, ChangeApproach):
        assert not dirty and not under
    if isinstance(decision, Retry):
        assert under and decision.attempt == interventions.attempts_of(record, item) + 1
        assert "r" in decision.message
    if isinstance(decision, Halt):
        assert decision.message.startswith("tiergate halted the loop: ")


# -- the whole chain on a real repository ---------------------------------------------------------------


def test_interventions_on_a_real_repository_never_lose_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An autopilot run played by hand: F1 passes (green point), F2 leaves a dirty workspace three times
    (rolled back, its work saved), F3 changes nothing three times (no rollback), F4 halts at the skip
    limit with its work left for the user."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    root = init_repo(tmp_path / "svc", {".gitignore": "*.log\n", "server.py": "ROUTES = []\n"})
    start = snapshots.workspace_at(root, "HEAD").head
    project = Project(root, tmp_path / "state")
    policy = InterventionPolicy(attempt_limit=3, skip_limit=3)
    record: list[Attempt] = []

    def refute(item: str, reason: str) -> interventions.Intervention:
        record.append(Attempt(item, passed=False, reason=reason))
        point = greenpoint.last_green(project, "loop1", start)
        return interventions.choose(record, item, greenpoint.is_dirty(root, point), policy=policy)

    write(root, {"server.py": "ROUTES = ['list']\n", "routes/list.py": "def list_items(): ...\n"})
    record.append(Attempt("F1", passed=True))
    greenpoint.mark(project, "loop1")
    f1 = {p: (root / p).read_text() for p in ("server.py", "routes/list.py")}

    write(root, {"routes/filter.py": "def by_tag(items, tag): return [i for i in items if i.tga == tag]\n"})
    write(root, {"server.log": "ignored output\n"})
    assert isinstance(refute("F2", "filter on the wrong field"), Retry)
    assert isinstance(refute("F2", "filter on the wrong field"), Retry)
    third = refute("F2", "filter on the wrong field")
    assert isinstance(third, RollbackThenChangeApproach)
    point = greenpoint.last_green(project, "loop1", start)
    backup = putback.rollback(project, point.workspace, f"rolling back to {point.describe()}")
    assert backup is not None
    assert {p: (root / p).read_text() for p in f1} == f1  # F1's verified, uncommitted work is kept
    assert not (root / "routes" / "filter.py").exists()
    assert (root / "server.log").read_text() == "ignored output\n"

    for n in range(2):
        decision = refute("F3", "empty patch")
        assert isinstance(decision, Retry), n
    assert isinstance(refute("F3", "empty patch"), ChangeApproach)  # clean: nothing rolled back
    assert [b.name for b in backups.list_backups(project, root)] == [backup.name]

    write(root, {"routes/validate.py": "def valid(x): return True\n"})
    for _ in range(2):
        refute("F4", "the validator accepts everything")
    halt = refute("F4", "the validator accepts everything")
    assert isinstance(halt, Halt) and halt.skipped == ("F2", "F3", "F4")
    assert (root / "routes" / "validate.py").exists()  # a halt leaves the workspace to the user
    putback.restore(project, backup)
    assert (root / "routes" / "filter.py").read_text().startswith("def by_tag")
