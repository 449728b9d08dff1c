"""Mutants of a Python file's changed lines, made from its syntax tree; pure: no I/O.

Mutated: lines in functions and methods (their code swapped in the tests' process) and top-level plain
assignments to names (run again in the module). Decorators, defaults, annotations, docstrings, f-strings,
class bodies and other top-level statements run once, at import, and are listed as such. String constants
are not mutated: a message no test reads is not a weak test.
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
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


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
    maker = _Maker(path, Text(content), frozenset(lines), tokens)
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


class Text:
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
    text = Text(content)
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

    def __init__(self, path: str, text: Text, lines: frozenset[int], tokens: list[_Token]) -> None:
        self.path, self.text, self.lines, self.tokens = path, text, lines, tokens
        self.starts = [t.start for t in tokens]
        self.found: list[tuple[int, Mutant]] = []
        self.skipped: dict[int, str] = {}
        self.unit, self.first = "", 0

    def module(self, tree: ast.Module) -> None:
        self.block(without_docstring(tree.body))

    def block(self, body: list[ast.stmt]) -> None:
        """A module's top, or a block of it (`try:`, `if ...:`): its functions and classes are units (a
        fallback defined in an `except ImportError:` is code like any other)."""
        for statement in body:
            if isinstance(statement, FUNCTIONS):
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
        for statement in without_docstring(node.body):
            if isinstance(statement, FUNCTIONS):
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
        for statement in without_docstring(node.body):
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
            if isinstance(node, (*FUNCTIONS, ast.Lambda)):
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
            without_docstring(children)
            if name == "body" and isinstance(node, (*FUNCTIONS, ast.ClassDef))
            else children
        )
        for child in body:
            if isinstance(child, ast.AST):
                yield from _walk(child)


def without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
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
