"""A Python unit's copy that behaves the same: the kills of its mutants count only when their tests pass
with it in (a lambda made and dropped before one of its statements). Pure: no I/O."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tiergate.tier.mutation.mutants import Mutant
from tiergate.tier.mutation.python import FUNCTIONS, Text, without_docstring


def sentinel_of(path: str, content: bytes, mutant: Mutant) -> Mutant | None:
    """A change to `mutant`'s unit that behaves the same (a lambda made and dropped before one of its
    statements), run as its mutants are: tests that fail on it fail on any change to the code. None
    when the unit has no simple statement that starts a line or follows a `:` or `;` (none known)."""
    try:
        tree = ast.parse(content)
    except (SyntaxError, ValueError):
        return None
    text = Text(content)
    for statement in _unit_statements(tree, mutant):
        start = text.offset(statement.lineno, statement.col_offset)
        before = content[text.starts[statement.lineno - 1] : start].strip()
        if before == b"" or before.endswith((b":", b";")):
            unit, first = mutant.unit, mutant.first
            return Mutant(
                path, statement.lineno, start, start, "", "(lambda: None); ", "statement", unit, first
            )
    return None


def _unit_statements(tree: ast.Module, mutant: Mutant) -> Iterator[ast.stmt]:
    """The simple statements of `mutant`'s unit that run in its own code (not a nested function's); for
    the module's own (run again whole), its top's, then its functions'."""
    if not mutant.unit:
        top = [s for s in without_docstring(tree.body) if not _compound(s) and not _future(s)]
        yield from top
        for node in ast.walk(tree):
            if isinstance(node, FUNCTIONS):
                yield from _simple_statements(node.body)
        return
    found = _function_named(tree.body, mutant.unit, mutant.first, "")
    if found is not None:
        yield from _simple_statements(found.body)


_BLOCKS = ("body", "orelse", "handlers", "cases")  # (`match`'s cases hold the blocks of its statement)


def _compound(statement: ast.stmt) -> bool:
    return any(isinstance(getattr(statement, f, None), list) for f in _BLOCKS)


def _future(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.ImportFrom) and statement.module == "__future__"


def _simple_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The simple statements of a function's `body`, its blocks' too, not its nested functions'."""
    pending = list(without_docstring(body))
    while pending:
        statement = pending.pop(0)
        if isinstance(statement, (*FUNCTIONS, ast.ClassDef)):
            continue
        if not _compound(statement):
            yield statement
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(statement, field, None) or []
            pending.extend(i for i in inner if isinstance(i, ast.stmt))
            pending.extend(s for holder in inner if not isinstance(holder, ast.stmt) for s in holder.body)


def _function_named(
    body: list[ast.stmt], qualname: str, first: int, prefix: str
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for statement in body:
        name = prefix + getattr(statement, "name", "")
        if isinstance(statement, FUNCTIONS) and name == qualname:
            if min([statement.lineno, *(d.lineno for d in statement.decorator_list)]) == first:
                return statement
        elif isinstance(statement, ast.ClassDef) and qualname.startswith(name + "."):
            found = _function_named(statement.body, qualname, first, name + ".")
            if found is not None:
                return found
    return None
