"""Python mutants of the changed lines: which are made, where, and that each one is still Python; what is
left alone (code that runs once, at import; strings; docstrings; lines not changed); and the equivalent
copy each function gets."""

from __future__ import annotations

import ast

import pytest

from tiergate.tier.mutation.mutants import Mutant
from tiergate.tier.mutation.pysentinel import sentinel_of
from tiergate.tier.mutation.python import AT_IMPORT, mutants_of

CODE = b'''"""The module's docstring."""
import os

LIMIT = 10
NAMES = {"a": 1}


def grade(score: int, floor: int = 3) -> str:
    """A docstring."""
    if score >= LIMIT and score != floor:
        return "pass"
    log("grade", score)
    total = score * 2 + 1
    return not total


class Shop:
    rate = 2

    @property
    def price(self):
        return self.rate > 1
'''


def made(
    lines: range | list[int], content: bytes = CODE, per_line: int = 9
) -> list[tuple[int, str, str, str]]:
    return [
        (m.line, m.operator, m.original, m.replacement)
        for m in mutants_of("m.py", content, lines, per_line).mutants
    ]


def test_a_boundary_gets_its_neighbour_and_its_opposite() -> None:
    found = made([10])

    assert (10, "comparison", ">=", ">") in found and (10, "comparison", ">=", "<") in found
    assert (10, "comparison", "!=", "==") in found
    assert (10, "boolean", "and", "or") in found
    assert (
        10,
        "condition",
        "score >= LIMIT and score != floor",
        "not (score >= LIMIT and score != floor)",
    ) in found


def test_returns_calls_arithmetic_and_constants() -> None:
    found = made([11, 12, 13, 14])

    assert (11, "return", '"pass"', "None") in found
    assert (12, "statement", 'log("grade", score)', "pass") in found
    assert {(13, "arithmetic", "*", "/"), (13, "arithmetic", "+", "-"), (13, "constant", "2", "3")} <= set(
        found
    )
    assert (14, "boolean", "not ", "") in found
    # No string constant is mutated: a message no test reads is not a weak test.
    assert not [m for m in found if m[2] in ('"pass"', '"grade"') and m[1] == "constant"]


def test_only_the_changed_lines_are_mutated() -> None:
    assert {line for line, *_ in made([11])} == {11}
    assert made([]) == []


def test_code_that_runs_at_import_is_named_and_left_alone() -> None:
    result = mutants_of("m.py", CODE, range(1, 23))

    skipped = dict(result.skipped)
    # An import and a decorator. A default value and a class attribute are mutated: their module runs
    # again (unit "").
    assert {2, 20} <= set(skipped) and skipped[2] == AT_IMPORT and not {8, 18} & set(skipped)
    assert not [m for m in result.mutants if m.line in (1, 2, 9, 20)]
    assert {(m.line, m.replacement, m.unit) for m in result.mutants if m.line in (8, 18)} == {
        (8, "4", ""),
        (18, "3", ""),
    }
    # A plain assignment at the top is run again in its module; a method's line is its class's function.
    [limit] = [m for m in result.mutants if m.line == 4]
    assert (limit.replacement, limit.unit) == ("11", "")
    [price, *_] = [m for m in result.mutants if m.line == 22]
    assert (price.unit, price.first) == ("Shop.price", 20)
    assert {m.unit for m in result.mutants if m.line in range(10, 15)} == {"grade"}


def test_every_mutant_is_python_and_changes_only_its_span() -> None:
    for mutant in mutants_of("m.py", CODE, range(1, 23), per_line=9).mutants:
        changed = mutant.apply(CODE)
        ast.parse(changed)
        assert changed[: mutant.start] == CODE[: mutant.start]
        assert changed.count(b"\n") == CODE.count(b"\n")


def test_offsets_are_bytes_past_text_that_is_not_ascii() -> None:
    code = "def f(x):\n    s = 'été à ça'; return x <= 3\n".encode()

    [mutant] = [m for m in mutants_of("m.py", code, [2]).mutants if m.replacement == "<"]

    assert code[mutant.start : mutant.end] == b"<="
    assert b"x < 3" in mutant.apply(code)


def test_per_line_bounds_the_rest_once_every_site_has_its_most_telling() -> None:
    # `if score >= LIMIT and score != floor:` has four sites: the condition, `>=`, `and`, `!=`. The red
    # team's R1: a cap of a line's mutants let pinned comparisons crowd out a weak one on the same line.
    found = [(operator, replacement) for _, operator, _, replacement in made([10], per_line=1)]

    assert found == [
        ("condition", "not (score >= LIMIT and score != floor)"),
        ("comparison", ">"),
        ("boolean", "or"),
        ("comparison", "=="),
    ]
    assert len(made([10], per_line=9)) > len(found)


def test_a_file_that_does_not_parse_gets_no_mutant_and_says_why() -> None:
    result = mutants_of("m.py", b"def f(:\n", [1])

    assert result.mutants == () and result.skipped == ((1, "not parsed (SyntaxError)"),)


def test_applying_a_mutant_to_another_file_is_refused() -> None:
    [mutant, *_] = mutants_of("m.py", CODE, [10]).mutants

    with pytest.raises(ValueError, match="not the one the mutant was made of"):
        mutant.apply(CODE.replace(b">=", b"=="))


def test_a_record_round_trips_and_a_foreign_one_is_refused() -> None:
    [mutant, *_] = mutants_of("m.py", CODE, [10]).mutants

    assert Mutant.from_record(mutant.to_record()) == mutant
    with pytest.raises(ValueError):
        Mutant.from_record({**mutant.to_record(), "operator": "rm -rf"})
    with pytest.raises(ValueError):
        Mutant.from_record({**mutant.to_record(), "start": 9, "end": 2})


def test_each_function_gets_a_copy_that_behaves_the_same() -> None:
    [mutant, *_] = mutants_of("m.py", CODE, [10]).mutants
    sentinel = sentinel_of("m.py", CODE, mutant)

    assert sentinel is not None and sentinel.unit == "grade"
    copy = sentinel.apply(CODE)
    assert b"    (lambda: None); log(" in copy or b"    (lambda: None); total" in copy
    namespace: dict[str, object] = {"log": lambda *_: None}
    exec(compile(copy, "m.py", "exec"), namespace)
    original: dict[str, object] = {"log": lambda *_: None}
    exec(compile(CODE, "m.py", "exec"), original)
    for score in (0, 3, 10, 11):
        assert namespace["grade"](score) == original["grade"](score)  # type: ignore[operator]
    assert namespace["grade"].__code__.co_code != original["grade"].__code__.co_code  # type: ignore[attr-defined]


def test_the_describing_text_is_one_quoted_line() -> None:
    code = b"def f(x):\n    return x >= (\n        1)\n"
    [mutant] = [m for m in mutants_of("a\nb.py", code, [2]).mutants if m.operator == "return"]

    assert "\n" not in mutant.describe()
