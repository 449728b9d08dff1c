"""Where a changed line of Python is placed: with the statement it is part of, as the line table has it."""

from __future__ import annotations

from tiergate.tier.coverage.statements import statement_lines

SOURCE = """\
import functools


@functools.cache
def total(
    items,
):
    squares = [
        item * item
        for item in items
    ]
    try:
        return (
            sum(squares)
            + 0
        )
    except TypeError:
        return -1
    else:
        pass


def kind(value):
    match value:
        case int():
            return "int"
    if value: return "set"
"""


def test_a_line_of_a_statement_spanning_lines_is_placed_with_all_of_it() -> None:
    spans = statement_lines(SOURCE)
    assert spans is not None
    assert spans[15] == frozenset({13, 14, 15, 16})  # inside a multi-line return
    assert spans[9] == spans[10] == frozenset(range(8, 12))  # a comprehension over lines
    assert spans[4] == spans[6] == frozenset(range(4, 8))  # a decorator, and a def's header
    assert spans[1] == frozenset({1})


def test_a_clause_line_is_placed_with_the_clauses_first_statement() -> None:
    spans = statement_lines(SOURCE)
    assert spans is not None
    assert spans[17] == frozenset({17, 18})  # `except TypeError:`
    assert spans[18] == frozenset({18})
    assert spans[25] == frozenset({25, 26})  # `case int():`
    assert spans[27] == frozenset({27})  # a one-line `if`: the body is on the statement's own line


def test_lines_no_statement_holds_are_not_placed() -> None:
    spans = statement_lines(SOURCE)
    assert spans is not None
    assert {2, 3, 19, 21, 22} & spans.keys() == set()  # blank lines and `else:`


def test_a_source_that_does_not_parse_is_not_placed() -> None:
    assert statement_lines("def broken(:\n") is None
    assert statement_lines(b"\x00") is None
