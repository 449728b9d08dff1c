"""Which kills of the check's `node --test` processes the gate runs again in processes of their own
(`nodestep.confirmations`): one for the change, a changed line drawn and one of its kills in those
processes, with the test files that killed it; none once a mutant survived or was not run. Pure: the
mutants' runs are in tests/scenarios/mutants_confirm_test.py."""

from __future__ import annotations

import random
from collections import Counter

from tiergate.gate.mutation import nodereports, nodestep
from tiergate.tier.mutation.fates import Fate, Tried
from tiergate.tier.mutation.mutants import Mutant


def mutant(line: int, replacement: str, path: str = "calc.js") -> Mutant:
    return Mutant(path, line, 0, 2, ">=", replacement, "comparison")


# Mutants 0..2 on line 2 of calc.js, 3 on line 3, 4 on line 5 of other.js; by their index (their key).
MADE = [mutant(2, ">"), mutant(2, "<"), mutant(2, "51"), mutant(3, "undefined"), mutant(5, "-", "other.js")]


def tried(*fates: Fate) -> tuple[Tried, ...]:
    return tuple(Tried(m, fate) for m, fate in zip(MADE, fates, strict=True))


# a.test.js's process killed 0, 1, 3; b.test.js's killed 1 and 2; mutant 4 was killed by the gate's own
# run, in a process of its own (no process of the check's decided it).
DECIDED = nodereports.Decided(
    (
        (
            "a.test.js",
            {"0": ("killed", "a.test.js > t"), "1": ("killed", "a.test.js > t"), "3": ("killed", "")},
        ),
        ("b.test.js", {"1": ("killed", "b.test.js > u"), "2": ("killed", "b.test.js > u")}),
    )
)
ALL_KILLED = tried("killed", "killed", "killed", "killed", "killed")


def test_a_process_kill_names_the_test_files_whose_process_killed_it() -> None:
    assert DECIDED.killers("1") == ("a.test.js", "b.test.js")
    assert DECIDED.killers("2") == ("b.test.js",)
    assert DECIDED.killers("4") == ()


def test_one_kill_of_one_line_is_drawn_among_the_process_kills() -> None:
    killers = {m: DECIDED.killers(str(MADE.index(m))) for m in MADE}
    lines: Counter[int] = Counter()
    drawn: Counter[str] = Counter()
    for seed in range(600):
        [(found, tests)] = nodestep.confirmations(ALL_KILLED, DECIDED, random.Random(seed))
        assert tests == killers[found] and found.path == "calc.js"  # other.js's was in a process of its own
        lines[found.line] += 1
        if found.line == 2:
            drawn[found.replacement] += 1

    # Each line as likely, and each of a line's kills.
    assert set(lines) == {2, 3} and all(250 < n < 350 for n in lines.values()), lines
    assert set(drawn) == {">", "<", "51"} and all(70 < n < 130 for n in drawn.values()), drawn


def test_nothing_is_run_again_once_a_mutant_survived_or_was_not_run() -> None:
    for fate in ("survived", "not_run"):
        found = tried("killed", "killed", "killed", "killed", fate)

        assert nodestep.confirmations(found, DECIDED, random.Random(0)) == []


def test_a_mutant_no_test_ran_takes_nothing_from_its_lines_draw() -> None:
    found = tried("uncovered", "killed", "killed", "uncovered", "killed")

    picks = nodestep.confirmations(found, DECIDED, random.Random(0))

    assert [m.line for m, _ in picks] == [2]
    assert picks[0][0] in (MADE[1], MADE[2])
