"""What a mutation step's fates say of the change's tests: the score, the reasons that keep a change off
LIGHT (a survivor, kills that say nothing, mutants not run), the verifier's section, and the record kept
with the gate's evidence; and the tier rule that reads them."""

from __future__ import annotations

import pytest

from tiergate.tier.mutation.fates import MutationRun, Tried
from tiergate.tier.mutation.mutants import Mutant
from tiergate.tier.policy import ChangeFacts, Tier, select_tier


def mutant(line: int, original: str = ">=", replacement: str = ">") -> Mutant:
    return Mutant(
        "calc.py", line, 10 * line, 10 * line + len(original), original, replacement, "comparison", "f", 1
    )


KILLED = Tried(mutant(3, "<", ">="), "killed", "tests/test_calc.py::test_f")
SURVIVED = Tried(mutant(6), "survived")


def test_a_survivor_is_a_reason_naming_its_line_and_change() -> None:
    run = MutationRun((KILLED, SURVIVED))

    assert run.score() == "1 of 2 mutants of the changed lines killed (1 survived)"
    [reason] = run.reasons()
    assert reason.startswith(
        "surviving-mutants: every test that runs its line passes with 1 mutant in (line 6"
    )
    assert "(line 6 of calc.py: `>=` -> `>`)" in reason
    assert reason.endswith("-> at least STANDARD")


def test_all_killed_says_nothing_against_light() -> None:
    assert MutationRun((KILLED,)).reasons() == ()


def test_more_survivors_than_named_are_counted() -> None:
    run = MutationRun(tuple(Tried(mutant(n), "survived") for n in range(1, 6)))

    [reason] = run.reasons()
    assert "(and 2 more)" in reason and "line 4 of" not in reason


def test_void_kills_and_mutants_not_run_are_reasons_too() -> None:
    run = MutationRun((KILLED, Tried(mutant(7), "not_run", "its function f is not in the tests' process")))
    voided = MutationRun((KILLED,), void="t::x failed on a copy of f that behaves the same")

    [not_run] = run.reasons()
    assert not_run.startswith("mutants-incomplete: 1 mutant of the changed lines not run (its function f")
    assert voided.reasons()[0].startswith("mutants-void: t::x failed on a copy of f")


def test_a_step_that_did_not_run_says_why_and_nothing_else() -> None:
    run = MutationRun(off="the tests did not all pass")

    assert run.reasons() == () and run.packet_text() == ""
    assert run.score() == "mutants not run: the tests did not all pass"


def test_the_verifiers_section_lists_each_survivor_quoted() -> None:
    sneaky = Tried(Mutant("a\nb.py", 2, 0, 3, "x\n>", "y", "comparison"), "survived")

    text = MutationRun((KILLED, SURVIVED, sneaky)).packet_text()

    assert text.startswith("MUTANTS: 1 of 3 mutants of the changed lines killed (2 survived).")
    assert "- line 6 of calc.py: `>=` -> `>` leaves every test passing" in text
    # The agent's path and code stay on one line each: nothing of theirs starts a line of the packet.
    assert all(line.startswith(("MUTANTS", "Each", "- ")) for line in text.splitlines())


def test_the_record_round_trips_and_a_foreign_one_is_refused() -> None:
    run = MutationRun((KILLED, SURVIVED), ("calc.py:2: runs at import",), "", "out of time", "", 1.5)

    assert MutationRun.from_record(run.to_record()) == run
    broken = run.to_record()
    broken["tried"][0]["fate"] = "pardoned"
    with pytest.raises(ValueError, match="not a mutant's fate"):
        MutationRun.from_record(broken)


def facts(mutants: tuple[str, ...]) -> ChangeFacts:
    return ChangeFacts(files_changed=2, lines_changed=8, test_coverage="full", mutants=mutants)


def test_a_survivor_keeps_a_small_covered_change_standard_and_a_light_word_cannot_lower_it() -> None:
    from tiergate.tier.policy import KeywordOverride

    reasons = MutationRun((KILLED, SURVIVED)).reasons()

    assert select_tier(facts(())).tier is Tier.LIGHT
    decided = select_tier(facts(reasons))
    assert decided.tier is Tier.STANDARD and decided.reasons[0] == reasons[0]
    asked = select_tier(facts(reasons), override=KeywordOverride(Tier.LIGHT, "quick"))
    assert asked.tier is Tier.STANDARD and "refused (surviving-mutants)" in asked.reasons[-1]
