"""Stall detection: every signal, its threshold, what resets it, and the reason it gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tiergate.loop import stalls
from tiergate.loop.stalls import Refutation, Signals, Stall, StallPolicy, Turn

PYTEST_RUN_1 = """FAILED tests/test_api.py::test_filter_by_tag - AssertionError: assert 0 == 3
tests/test_api.py:42: in test_filter_by_tag
    assert len(items) == 3
E   AssertionError at 0x7f3a2c1b9d30
/tmp/pytest-of-root/pytest-17/test_filter0/db.sqlite
1 failed, 11 passed in 0.52s"""
PYTEST_RUN_2 = """FAILED tests/test_api.py::test_filter_by_tag - AssertionError: assert 0 == 3
tests/test_api.py:44: in test_filter_by_tag
    assert len(items)   ==  3
E   AssertionError at 0x7f99aa01ff10
/tmp/pytest-of-root/pytest-18/test_filter0/db.sqlite
1 failed, 11 passed in 1.07s"""
OTHER_TEST = PYTEST_RUN_1.replace("test_filter_by_tag", "test_list_all")


def refuted(sig: str, fingerprint: str | None = "w1", reason: str = "tests failed") -> Refutation:
    return Refutation(sig, fingerprint, reason)


# -- signatures -------------------------------------------------------------------------------------


def test_normalising_drops_what_varies_between_runs_of_one_failure() -> None:
    assert stalls.normalise(PYTEST_RUN_1) == stalls.normalise(PYTEST_RUN_2)
    assert stalls.normalise(PYTEST_RUN_1) != stalls.normalise(OTHER_TEST)


def test_normalising_replaces_ids_durations_and_numbers_with_placeholders() -> None:
    text = "Commit 1a2b3c4d5e at 0xDEADBEEF took 12.5 s, line 17, in /tmp/x/y.py"
    assert stalls.normalise(text) == "commit <id> at <addr> took <time>, line #, in <tmp>"
    assert stalls.normalise("  Same\n\tWords  ") == "same words"


def test_a_signature_is_the_failing_checks_with_their_details_and_the_critique() -> None:
    sig = stalls.signature({"tests": PYTEST_RUN_1, "lint": "E501 line too long (120 > 110)"}, "Fix it.")
    assert sig == (
        "check lint: e# line too long (# > #) | check tests: "
        + stalls.normalise(PYTEST_RUN_1)
        + " | critique: fix it."
    )
    assert stalls.signature({"tests": PYTEST_RUN_1, "lint": ""}) == stalls.signature(
        {"lint": "", "tests": PYTEST_RUN_2}
    )
    assert stalls.signature({"tests": PYTEST_RUN_1}) != stalls.signature({"tests": OTHER_TEST})
    assert stalls.signature({"build": ""}) != stalls.signature({"tests": ""})
    assert stalls.signature(critique="The route returns 200 without saving.") == stalls.signature(
        critique="the route  returns 200\nwithout saving."
    )
    assert stalls.signature() == stalls.signature(critique="  ") == ""


# -- the same failure again --------------------------------------------------------------------------


def test_the_same_failure_twice_in_a_row_is_a_stall_with_its_reason() -> None:
    sig = stalls.signature({"tests": PYTEST_RUN_1})
    found = stalls.repeated_failure([refuted(sig, reason="test_filter_by_tag: assert 0 == 3")] * 2)
    assert found == Stall(
        "repeated-failure",
        "repeated-failure: the last 2 refuted claims failed the same way (test_filter_by_tag: assert 0 == 3)",
    )


def test_a_different_failure_in_between_or_too_few_is_no_stall() -> None:
    a, b = stalls.signature({"tests": PYTEST_RUN_1}), stalls.signature({"tests": OTHER_TEST})
    assert stalls.repeated_failure([refuted(a)]) is None
    assert stalls.repeated_failure([refuted(a), refuted(b)]) is None
    assert stalls.repeated_failure([refuted(a), refuted(b), refuted(a)]) is None
    assert stalls.repeated_failure([refuted(b), refuted(a), refuted(a)]) is not None
    three = StallPolicy(same_failure=3)
    assert stalls.repeated_failure([refuted(a)] * 2, three) is None
    assert stalls.repeated_failure([refuted(a)] * 3, three) is not None


def test_failures_without_a_signature_are_not_compared() -> None:
    assert stalls.repeated_failure([refuted(""), refuted("")]) is None


def test_the_reason_falls_back_to_the_signature_and_is_clipped() -> None:
    long = "x" * 400
    found = stalls.repeated_failure([refuted(long, reason="")] * 2)
    assert found is not None
    assert found.reason.endswith("x…)") and len(found.reason) < 250


# -- a claim with nothing changed since the last refuted one -----------------------------------------


def test_a_claim_on_the_workspace_of_the_last_refuted_claim_is_a_stall() -> None:
    last = refuted("s", "fp-2", reason="the filter reads the wrong field")
    found = stalls.unchanged_claim("fp-2", [refuted("s", "fp-1"), last])
    assert found == Stall(
        "unchanged-claim",
        "unchanged-claim: completion claimed again with no change to the workspace since the last "
        "refuted claim (it was refuted: the filter reads the wrong field)",
    )


def test_a_claim_after_a_change_or_without_a_refuted_one_is_no_stall() -> None:
    assert stalls.unchanged_claim("fp-3", [refuted("s", "fp-2")]) is None
    assert stalls.unchanged_claim("fp-1", [refuted("s", "fp-1"), refuted("s", "fp-2")]) is None
    assert stalls.unchanged_claim("fp-1", []) is None


def test_an_unknown_fingerprint_proves_nothing() -> None:
    assert stalls.unchanged_claim(None, [refuted("s", None)]) is None
    assert stalls.unchanged_claim("fp", [refuted("s", None)]) is None


# -- empty turns -----------------------------------------------------------------------------------


def test_turns_that_neither_claim_nor_change_anything_stall_at_the_limit() -> None:
    turns = [Turn("a"), Turn("a"), Turn("a")]
    assert stalls.empty_turns(turns, start_fingerprint="s") is None  # the first one changed s -> a
    found = stalls.empty_turns([*turns, Turn("a")], start_fingerprint="s")
    assert found == Stall(
        "empty-turns",
        "empty-turns: 3 turns in a row ended without a claim and without any change to the workspace",
    )
    assert stalls.empty_turns(turns, start_fingerprint="a") is not None


def test_a_change_or_a_claim_starts_the_count_again() -> None:
    assert stalls.empty_turns([Turn("a"), Turn("a"), Turn("a"), Turn("b"), Turn("b")], "a") is None
    assert stalls.empty_turns([Turn("a"), Turn("a"), Turn("a", claimed=True), Turn("a")], "a") is None
    assert stalls.empty_turns([Turn(None)] * 5, None) is None  # unknown is not unchanged
    assert stalls.empty_turns([Turn("a")] * 2, "a", StallPolicy(empty_turns=2)) is not None


# -- the budget --------------------------------------------------------------------------------------


def test_the_iteration_cap_and_the_wall_clock_budget() -> None:
    assert stalls.budget(Signals(iteration=19, max_iterations=20)) is None
    assert stalls.budget(Signals(iteration=20, max_iterations=20)) == Stall(
        "budget", "budget: the iteration cap is reached (20/20)"
    )
    assert stalls.budget(Signals(elapsed=3599.0, budget=3600.0)) is None
    assert stalls.budget(Signals(elapsed=4 * 3600.0 + 61, budget=4 * 3600.0)) == Stall(
        "budget", "budget: the wall-clock budget is spent (4h01m of 4h00m)"
    )
    assert stalls.budget(Signals(elapsed=90.0, budget=90.0)) == Stall(
        "budget", "budget: the wall-clock budget is spent (1m30s of 1m30s)"
    )
    assert stalls.budget(Signals(iteration=500)) is None  # no cap given


# -- all together ----------------------------------------------------------------------------------


def test_detect_reports_every_stall_in_a_fixed_order() -> None:
    sig = stalls.signature({"tests": PYTEST_RUN_1})
    signals = Signals(
        refutations=(refuted(sig, "fp"), refuted(sig, "fp")),
        turns=(Turn("fp"), Turn("fp"), Turn("fp")),
        start_fingerprint="fp",
        claim_fingerprint="fp",
        iteration=20,
        max_iterations=20,
    )
    assert [s.kind for s in stalls.detect(signals)] == [
        "repeated-failure",
        "unchanged-claim",
        "empty-turns",
        "budget",
    ]
    assert stalls.detect(Signals()) == ()


@given(st.lists(st.sampled_from(["a", "b", None]), max_size=12), st.sampled_from(["a", "b", None]))
def test_empty_turns_count_exactly_the_trailing_unchanged_turns(
    prints: list[str | None], start: str | None
) -> None:
    turns = [Turn(p) for p in prints]
    previous, trailing = start, 0
    for p in prints:
        trailing = trailing + 1 if p is not None and p == previous else 0
        previous = p
    found = stalls.empty_turns(turns, start, StallPolicy(empty_turns=2))
    assert (found is not None) == (trailing >= 2)
