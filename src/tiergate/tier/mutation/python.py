"""Mutants of a Python file's changed lines, made from its syntax tree; pure: no I/O.

Only code a test can run again without importing the module anew is mutated: lines inside functions and
methods (their code is swapped in the tests' own process), and at a module's top level, a plain
assignment to names (run again in the module). Decorators, default values, annotations, docstrings,
f-strings, class bodies and other top-level statements run once, at import, and are listed as such.
String constants are not mutated: a message no test reads is not a weak test.
"""

from __future__ import annotations

import ast
import bisect
import codecs
import io
import itertools
import tokenize
from collections.abc import Collection, Iterator
from typing import NamedTuple

from tiergate.tier.mutation.mutants import Mutant, Operator, capped

# Tried first when a line has more mutants than it may keep: the field's most telling operators first.
PRIORITY: tuple[Operator, ...] = (
    "comparison",
    "condition",
    "boolean",
    "arithmetic",
    "return",
    "constant",
    "statement",
)
AT_IMPORT = "runs at import, or in a block at a module's or class's top: not mutated"

# Each operator's mutants: a boundary moved, or the operator turned round.
_COMPARISONS: dict[str, tuple[str, ...]] = {
    "<": ("<=", ">="),
    "<=": ("<", ">"),
    ">": (">=", "<="),
    ">=": (">", "<"),
    "==": ("!=",),
    "!=": ("==",),
    "is": ("is not",),
    "is not": ("is",),
    "in": ("not in",),
    "not in": ("in",),
}
_ARITHMETIC: dict[str, str] = {
    "+": "-",
    "-": "+",
    "*": "/",
    "/": "*",
    "//": "*",
    "%": "//",
    "**": "*",
    "&": "|",
    "|": "&",
    "<<": ">>",
    ">>": "<<",
}
_BOOLEAN = {"and": "or", "or": "and"}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class Made(NamedTuple):
    """The mutants of the changed lines, and the changed lines that hold code no mutant was made for,
    with why (line, reason)."""

    mutants: tuple[Mutant, ...]
    skipped: tuple[tuple[int, str], ...]


def mutants_of(path: str, content: bytes, lines: Collection[int], per_line: int = 4) -> Made:
    """The mutants of `content`'s `lines` (1-based), at most `per_line` a line; none if it does not parse."""
    try:
        tree = ast.parse(content)
        tokens = _operator_tokens(content)
    except (SyntaxError, ValueError, tokenize.TokenError) as exc:
        return Made((), tuple((n, f"not parsed ({type(exc).__name__})") for n in sorted(lines)))
    maker = _Maker(path, _Text(content), frozenset(lines), tokens)
    maker.module(tree)
    return Made(_chosen(maker.found, per_line), tuple(sorted(maker.skipped.items())))


def _chosen(found: list[tuple[int, Mutant]], per_line: int) -> tuple[Mutant, ...]:
    by_line: dict[int, list[tuple[int, Mutant]]] = {}
    for rank, mutant in found:
        by_line.setdefault(mutant.line, []).append((rank, mutant))
    kept = [
        m
        for line in by_line.values()
        for m in capped([m for _, m in sorted(line, key=lambda p: (p[0], p[1].start))], per_line, _site)
    ]
    return tuple(sorted(kept, key=lambda m: (m.start, PRIORITY.index(m.operator))))


def _site(mutant: Mutant) -> int:
    return mutant.start


class _Text:
    """The file's bytes with its line starts: ast's columns are UTF-8 bytes, tokenize's characters."""

    def __init__(self, content: bytes) -> None:
        self.content = content
        self.starts = [0]
        for line in content.split(b"\n")[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        # ast and tokenize count line 1's columns after a byte-order mark, which the file still holds.
        self.starts[0] = len(codecs.BOM_UTF8) if content.startswith(codecs.BOM_UTF8) else 0

    def offset(self, line: int, byte_column: int) -> int:
        return self.starts[line - 1] + byte_column

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end_line, end_column = node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]
        return start, self.offset(end_line, end_column)

    def text(self, start: int, end: int) -> str:
        return self.content[start:end].decode()


class _Token(NamedTuple):
    start: int  # byte offsets
    end: int
    line: int
    text: str


def _operator_tokens(content: bytes) -> list[_Token]:
    """Every operator and keyword operator of the file, by byte offset."""
    text = _Text(content)
    rows = content.removeprefix(codecs.BOM_UTF8).split(b"\n")
    found = []
    for token in tokenize.tokenize(io.BytesIO(content).readline):
        if token.type not in (tokenize.OP, tokenize.NAME):
            continue
        (row, column), (end_row, end_column) = token.start, token.end
        start = text.offset(row, len(rows[row - 1].decode()[:column].encode()))
        end = text.offset(end_row, len(rows[end_row - 1].decode()[:end_column].encode()))
        found.append(_Token(start, end, row, token.string))
    return found


class _Maker:
    """Walks one module: which code a test can run again, and the mutants of its changed lines."""

    def __init__(self, path: str, text: _Text, lines: frozenset[int], tokens: list[_Token]) -> None:
        self.path, self.text, self.lines, self.tokens = path, text, lines, tokens
        self.starts = [t.start for t in tokens]
        self.found: list[tuple[int, Mutant]] = []
        self.skipped: dict[int, str] = {}
        self.unit, self.first = "", 0

    def module(self, tree: ast.Module) -> None:
        self.block(_without_docstring(tree.body))

    def block(self, body: list[ast.stmt]) -> None:
        """A module's top, or a block of it (`try:`, `if ...:`): its functions and classes are units (a
        fallback defined in an `except ImportError:` is code like any other)."""
        for statement in body:
            if isinstance(statement, _FUNCTIONS):
                self.function(statement, statement.name)
            elif isinstance(statement, ast.ClassDef):
                self.klass(statement, statement.name)
            elif _reassignable(statement):
                self.unit, self.first = "", 0
                self.code(statement)
            elif isinstance(statement, ast.If | ast.Try | ast.With):
                if statement.lineno in self.lines:
                    self.skipped.setdefault(statement.lineno, AT_IMPORT)
                for field in ("body", "orelse", "finalbody"):
                    self.block(getattr(statement, field, None) or [])
                for handler in getattr(statement, "handlers", None) or []:
                    self.block(handler.body)
            else:
                self.at_import(statement)

    def klass(self, node: ast.ClassDef, qualname: str) -> None:
        self.at_import_only(node.decorator_list, node.bases, node.keywords)
        for statement in _without_docstring(node.body):
            if isinstance(statement, _FUNCTIONS):
                self.function(statement, f"{qualname}.{statement.name}")
            elif isinstance(statement, ast.ClassDef):
                self.klass(statement, f"{qualname}.{statement.name}")
            elif _reassignable(statement):  # a class attribute: its module run again puts it in
                self.unit, self.first = "", 0
                self.code(statement)
            else:
                self.at_import(statement)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str) -> None:
        self.at_import_only(node.decorator_list)
        # Default values are worked out as the module runs: mutated, the module runs again.
        self.unit, self.first = "", 0
        for default in (*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)):
            self.code(default)
        self.unit = qualname
        self.first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        for statement in _without_docstring(node.body):
            self.code(statement)

    def at_import(self, node: ast.AST) -> None:
        for inner in ast.walk(node):
            if isinstance(inner, ast.stmt) and inner.lineno in self.lines:
                self.skipped.setdefault(inner.lineno, AT_IMPORT)

    def at_import_only(self, *groups: list[ast.expr] | list[ast.expr | None] | list[ast.keyword]) -> None:
        for group in groups:
            for node in group:
                if node is not None:
                    for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                        if line in self.lines:
                            self.skipped.setdefault(line, AT_IMPORT)

    def code(self, statement: ast.AST) -> None:
        """The mutants of one statement (or a default's expression) run in the current unit, inner
        statements and functions too."""
        for node in _walk(statement):
            if isinstance(node, (*_FUNCTIONS, ast.Lambda)):
                continue  # nested: part of the unit's code, walked by `_walk` itself
            for rank, mutant in self.of(node):
                if mutant.line in self.lines:
                    self.found.append((rank, mutant))

    def of(self, node: ast.AST) -> Iterator[tuple[int, Mutant]]:
        first = getattr(node, "lineno", None)
        if first is None or not any(n in self.lines for n in range(first, node.end_lineno + 1)):  # type: ignore[attr-defined]
            return
        if isinstance(node, ast.Compare):
            yield from self.comparison(node)
        elif isinstance(node, ast.BinOp):
            yield from self.operator(node.left, node.right, _ARITHMETIC, "arithmetic", node)
        elif isinstance(node, ast.AugAssign):
            yield from self.operator(node.target, node.value, _ARITHMETIC, "arithmetic", node, suffix="=")
        elif isinstance(node, ast.BoolOp):
            for left, right in itertools.pairwise(node.values):
                yield from self.operator(left, right, _BOOLEAN, "boolean", node)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            start, _ = self.text.span(node)
            yield self.make(node.lineno, start, self.text.span(node.operand)[0], "", "boolean")
        elif isinstance(node, ast.If | ast.While | ast.IfExp):
            yield self.condition(node.test)
        elif isinstance(node, ast.Return) and node.value is not None and not _is_none(node.value):
            yield self.replace(node.value, "None", "return")
        elif isinstance(node, ast.Constant):
            yield from self.constant(node)
        elif _removable(node):
            yield self.replace(node, "pass", "statement")

    def comparison(self, node: ast.Compare) -> Iterator[tuple[int, Mutant]]:
        operands = [node.left, *node.comparators]
        for left, right in itertools.pairwise(operands):
            found = self.between(left, right)
            if found is None:
                continue
            line, start, end, text = found
            for replacement in _COMPARISONS.get(text, ()):
                yield self.make(line, start, end, replacement, "comparison")

    def operator(
        self,
        left: ast.AST,
        right: ast.AST,
        table: dict[str, str],
        kind: Operator,
        node: ast.AST,
        suffix: str = "",
    ) -> Iterator[tuple[int, Mutant]]:
        found = self.between(left, right)
        if found is None or _formats_text(node):
            return
        line, start, end, text = found
        turned = table.get(text.removesuffix(suffix)) if text.endswith(suffix) else None
        if turned is not None:
            yield self.make(line, start, end, turned + suffix, kind)

    def between(self, left: ast.AST, right: ast.AST) -> tuple[int, int, int, str] | None:
        """The operator between two operands (brackets aside): its line, span and text."""
        after, before = self.text.span(left)[1], self.text.span(right)[0]
        index = bisect.bisect_left(self.starts, after)
        inside = []
        for token in self.tokens[index:]:
            if token.end > before:
                break
            if token.text not in ("(", ")"):
                inside.append(token)
        if not inside:
            return None
        return inside[0].line, inside[0].start, inside[-1].end, " ".join(t.text for t in inside)

    def condition(self, test: ast.expr) -> tuple[int, Mutant]:
        start, end = self.text.span(test)
        return self.make(test.lineno, start, end, f"not ({self.text.text(start, end)})", "condition")

    def constant(self, node: ast.Constant) -> Iterator[tuple[int, Mutant]]:
        value = node.value
        if isinstance(value, bool):
            yield self.replace(node, str(not value), "constant")
        elif isinstance(value, int | float):
            yield self.replace(node, repr(value + 1), "constant")

    def replace(self, node: ast.AST, replacement: str, kind: Operator) -> tuple[int, Mutant]:
        start, end = self.text.span(node)
        return self.make(node.lineno, start, end, replacement, kind)  # type: ignore[attr-defined]

    def make(self, line: int, start: int, end: int, replacement: str, kind: Operator) -> tuple[int, Mutant]:
        original = self.text.text(start, end)
        mutant = Mutant(self.path, line, start, end, original, replacement, kind, self.unit, self.first)
        return PRIORITY.index(kind), mutant


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and what it holds, but for what runs at import or is no code: annotations, docstrings,
    an f-string's text, decorators and defaults of nested functions; keyword arguments' constants
    (settings, not logic)."""
    yield node
    if isinstance(node, ast.JoinedStr):  # its text is no code; what it formats runs at each call
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                yield from _walk(part.value)
        return
    for name, value in ast.iter_fields(node):
        if name in ("annotation", "returns", "decorator_list", "type_comment"):
            continue
        if isinstance(node, ast.keyword) and isinstance(value, ast.Constant):
            continue
        if isinstance(node, ast.arguments):
            continue
        children = value if isinstance(value, list) else [value]
        body = (
            _without_docstring(children)
            if name == "body" and isinstance(node, (*_FUNCTIONS, ast.ClassDef))
            else children
        )
        for child in body:
            if isinstance(child, ast.AST):
                yield from _walk(child)


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return body[1:]
    return body


def _reassignable(statement: ast.stmt) -> bool:
    """A top-level statement that only binds names: run again in its module, it changes only them."""
    if isinstance(statement, ast.Assign):
        return all(isinstance(t, ast.Name) for t in statement.targets)
    if isinstance(statement, ast.AnnAssign | ast.AugAssign):
        return isinstance(statement.target, ast.Name) and statement.value is not None
    return False


def _removable(node: ast.AST) -> bool:
    """A one-line statement whose removal changes what runs: a call for its effect, a raise, a jump."""
    if node.lineno != node.end_lineno:  # type: ignore[attr-defined]
        return False
    if isinstance(node, ast.Expr):
        return isinstance(node.value, ast.Call | ast.Await)
    return isinstance(node, ast.Raise | ast.Continue | ast.Break)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _formats_text(node: ast.AST) -> bool:
    """`"%s" % x`: text formatting, not arithmetic."""
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
    )


def sentinel_of(path: str, content: bytes, mutant: Mutant) -> Mutant | None:
    """A change to `mutant`'s unit that behaves the same (a lambda made and dropped before one of its
    statements), run as its mutants are: tests that fail on it fail on any change to the code. None
    when the unit has no simple statement that starts a line or follows a `:` or `;` (none known)."""
    try:
        tree = ast.parse(content)
    except (SyntaxError, ValueError):
        return None
    text = _Text(content)
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
        top = [s for s in _without_docstring(tree.body) if not _compound(s) and not _future(s)]
        yield from top
        for node in ast.walk(tree):
            if isinstance(node, _FUNCTIONS):
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
    pending = list(_without_docstring(body))
    while pending:
        statement = pending.pop(0)
        if isinstance(statement, (*_FUNCTIONS, ast.ClassDef)):
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
        if isinstance(statement, _FUNCTIONS) and name == qualname:
            if min([statement.lineno, *(d.lineno for d in statement.decorator_list)]) == first:
                return statement
        elif isinstance(statement, ast.ClassDef) and qualname.startswith(name + "."):
            found = _function_named(statement.body, qualname, first, name + ".")
            if found is not None:
                return found
    return None
