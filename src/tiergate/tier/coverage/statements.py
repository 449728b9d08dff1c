"""Where Python places a line of source: the statement it is part of. Pure: source text in, line numbers out.

Line coverage of Python is kept per statement, on one line of it (coverage.py's statements, the gate's
probes), while a change can touch any line of one that spans several (a continued expression, a
decorator, a `def` header, an `except` clause). Such a line runs when its statement does, as Python's
line table has it; judged alone, the change would pass as having no executable line to cover.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

_NESTED = ("body", "orelse", "finalbody")


def statement_lines(source: str | bytes) -> dict[int, frozenset[int]] | None:
    """Each line of a statement's own text (its header, for a compound statement), mapped to all the
    lines of that text; None when the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    spans: dict[int, frozenset[int]] = {}
    _place(tree.body, spans)
    return spans


def _place(statements: Sequence[ast.stmt], spans: dict[int, frozenset[int]]) -> None:
    for node in statements:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        clauses = [(_start(c), c.body) for c in [*getattr(node, "handlers", ()), *getattr(node, "cases", ())]]
        inner = [body[0].lineno for body in _bodies(node)] + [start for start, _ in clauses]
        last = min(inner) - 1 if inner else (node.end_lineno or node.lineno)
        _own(spans, range(first, max(first, last) + 1))
        for start, body in clauses:
            # An `except` or `case` line runs with its clause: placed with the clause's first statement.
            _place(body, spans)
            _own(spans, range(start, body[0].lineno + 1))
        for body in _bodies(node):
            _place(body, spans)


def _start(clause: ast.excepthandler | ast.match_case) -> int:
    return clause.pattern.lineno if isinstance(clause, ast.match_case) else clause.lineno


def _bodies(node: ast.stmt) -> list[list[ast.stmt]]:
    nested = (getattr(node, field, None) for field in _NESTED)
    return [body for body in nested if isinstance(body, list) and body and isinstance(body[0], ast.stmt)]


def _own(spans: dict[int, frozenset[int]], lines: range) -> None:
    span = frozenset(lines)
    for line in lines:
        spans.setdefault(line, span)
