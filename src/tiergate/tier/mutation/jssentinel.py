"""A JavaScript line's copy that behaves the same: its mutants' kills count only when their tests pass it.

It must change code, not only text (a test comparing a function's source, comments stripped, fails on any
mutant): each mutant's nearest plain operand (a name or a number, in its statement) is put in parentheses,
`score >= 50` -> `score >= (50)`: the same value, another source. A line's copy holds one such pair per
mutant, so that whichever function on the line a test reads, it reads a change. Pure: no I/O.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence

from tiergate.tier.mutation.jslexer import RESERVED, Lexer, Source, Token, UnreadableError, is_member
from tiergate.tier.mutation.mutants import Mutant

# How far from a mutant its operand is looked for, in tokens, either way.
_REACH = 8
# Where a statement ends or a block starts: the operand is looked for no further.
_STOPS = frozenset({";", "{", "}"})
# Words a plain operand may be although they are reserved.
_VALUES = frozenset({"this", "null", "true", "false"})
# Tokens after which a name is not a value (a declaration's, a label's, a member's).
_NOT_AFTER = frozenset({"let", "const", "var", "function", "class", "break", "continue", "get", "set"})
# What comes before a string that names a module.
_NOT_AFTER_STRING = frozenset({"from", "import", "export"})
# Before a name that may be a binding: a parameter's, a pattern's.
_BINDING_PLACES = frozenset({"(", ",", "...", "[", "{"})
# How far back an enclosing bracket is looked for, in tokens.
_LOOK_BACK = 400
_OPENING = frozenset({"(", "[", "{"})
_CLOSING = frozenset({")", "]", "}"})
# Words that start a statement wherever they stand first on a line: no expression goes on into them.
_STATEMENT_WORDS = frozenset(
    {"if", "for", "while", "do", "return", "const", "let", "var", "throw", "try", "switch", "break"}
    | {"continue"}
)
# Heads whose `(...) {` holds a condition, not parameters.
_CONTROL = frozenset({"if", "while", "for", "switch", "with"})
# In an object literal or a class body, after these a name is a key or a method's, not a value.
_KEY_PLACES = frozenset({"{", ",", ";", "}", "*", "@", ".", "?.", "++", "--", "#"})


def sentinels_of(path: str, content: bytes, mutants: Iterable[Mutant]) -> dict[int, Mutant | None]:
    """For each line of `mutants` (all of `path`, whose content is `content`), its copy that behaves the
    same as a change of `content`, or None when one of its mutants has no plain operand near it."""
    by_line: dict[int, list[Mutant]] = {}
    for mutant in mutants:
        by_line.setdefault(mutant.line, []).append(mutant)
    try:
        text = content.decode("utf-8")
        source = Lexer(text).read()
    except (UnicodeDecodeError, UnreadableError, RecursionError):
        return dict.fromkeys(by_line)
    chars = _Chars(content, text)
    return {line: _line_copy(path, line, source, chars, found) for line, found in sorted(by_line.items())}


def _line_copy(
    path: str, line: int, source: Source, chars: _Chars, mutants: Sequence[Mutant]
) -> Mutant | None:
    edits: set[tuple[int, int, str]] = set()
    for mutant in mutants:
        start = chars.of(mutant.start)
        if mutant.operator == "statement":  # a call alone on its line, after a `;`, `{` or `}`
            edits.add((start, start, "void 0; "))
            continue
        part = _part_holding(source, start)
        at = _operand_near(part, start, chars.of(mutant.end))
        if at is not None:
            token = part.tokens[at]
            edits.add((token.start, token.end, f"({token.text})"))
            continue
        begins = _statement_start(source, start)
        if begins is None:
            return None
        edits.add((begins, begins, "void 0; "))
    ordered = sorted(edits)
    begin, finish = ordered[0][0], max(end for _, end, _ in ordered)
    pieces, done = [], begin
    for start, end, text in ordered:
        pieces += [source.text[done:start], text]
        done = end
    pieces.append(source.text[done:finish])
    original = source.text[begin:finish]
    return Mutant(path, line, chars.byte(begin), chars.byte(finish), original, "".join(pieces), "statement")


def _part_holding(source: Source, start: int) -> Source:
    """The code holding the character `start`: a template's `${...}` it is in, or the file's."""
    for part in source.parts:
        if part.tokens and part.tokens[0].start <= start < part.tokens[-1].end:
            return part
    return source


def _first_at(source: Source, start: int) -> int:
    """The index of the first token that ends after the character `start` (the mutant's own)."""
    return bisect_right([token.end for token in source.tokens], start)


def _operand_near(source: Source, start: int, end: int) -> int | None:
    """The index of the plain operand nearest the span `start`..`end` (characters): its first from the
    span's start on, else the last before it, within the statement. Inside brackets opened from the
    span on, a line break ends nothing (no semicolon is inserted there)."""
    tokens = source.tokens
    first = _first_at(source, start)
    inside = _in_brackets(source, first)
    depth = 0
    for at in range(first, min(first + _REACH, len(tokens))):
        token = tokens[at]
        if at > first and depth == 0 and _ends_statement(token, inside):
            break
        if _plain(source, at, nested=inside or depth > 0):
            return at
        if token.kind == "punct" and token.text in _OPENING:
            depth += 1
        elif token.kind == "punct" and token.text in _CLOSING:
            depth -= 1
    for at in range(first - 1, max(first - 1 - _REACH, -1), -1):
        if _plain(source, at, nested=inside):
            return at
        if _ends_statement(tokens[at], inside):
            break
    return None


def _in_brackets(source: Source, at: int) -> bool:
    """Whether the token at `at` is inside a `(` or `[` still open there: no line break in it ends a
    statement."""
    depth = 0
    for index in range(at - 1, max(at - 1 - _LOOK_BACK, -1), -1):
        token = source.tokens[index]
        if token.kind != "punct":
            continue
        if token.text in _CLOSING:
            depth += 1
        elif token.text in _OPENING:
            if depth == 0:
                return token.text != "{"
            depth -= 1
    return False


def _statement_start(source: Source, start: int) -> int | None:
    """Where the statement holding `start` (characters) begins, when it starts its line after a `;`, a
    `{` or a `}` (or the file): a statement put there is one of its own. None when unsure."""
    tokens = source.tokens
    at = _first_at(source, start) - 1
    for index in range(at, max(at - _REACH, -1), -1):
        token = tokens[index]
        if token.kind == "punct" and token.text in _STOPS:
            return None
        if token.newline:
            before = tokens[index - 1] if index > 0 else None
            fresh = before is None or (before.kind == "punct" and before.text in _STOPS)
            fresh = fresh or (token.kind == "name" and token.text in _STATEMENT_WORDS)
            return token.start if fresh else None
    return None


def _ends_statement(token: Token, inside: bool = False) -> bool:
    return (token.newline and not inside) or (token.kind == "punct" and token.text in _STOPS)


def _plain(source: Source, at: int, *, nested: bool = False) -> bool:
    """Whether the token at `at` is a value that parentheses leave the same: a number, a string that is
    no directive, or a name that is no key, member, declaration, parameter or label."""
    token = source.tokens[at]
    before = source.tokens[at - 1] if at > 0 else None
    after = source.tokens[at + 1] if at + 1 < len(source.tokens) else None
    if (token.newline and not nested) or before is None or not _a_value(token, before):
        return False
    if after is not None and after.kind == "punct" and after.text in ("=>", ":"):
        return False
    if token.in_members and (before.kind != "punct" or before.text in _KEY_PLACES):
        return False
    return not (before.text in _BINDING_PLACES and _in_parameters(source, at))


def _a_value(token: Token, before: Token) -> bool:
    if token.kind == "string":  # not a directive, not a module's name
        return before.text not in _STOPS | _NOT_AFTER_STRING
    if token.kind == "number":
        return True
    reserved = token.text in RESERVED and token.text not in _VALUES
    named = not (reserved or token.text[0] == "#" or is_member(before) or before.text in _NOT_AFTER)
    return token.kind == "name" and named


def _in_parameters(source: Source, at: int) -> bool:
    """Whether the token at `at` is directly in a function's, an arrow's or a `catch`'s parameters, or in
    a pattern's `[...]` that a `=` follows: parentheses there do not parse."""
    tokens, depth = source.tokens, 0
    for index in range(at - 1, -1, -1):
        token = tokens[index]
        if token.kind != "punct" or token.text not in ("(", "[", "{", ")", "]", "}"):
            continue
        if token.text in (")", "]", "}"):
            depth += 1
            continue
        if depth:
            depth -= 1
            continue
        close = source.closing.get(index, index)
        after = tokens[close + 1].text if close + 1 < len(tokens) else ""
        if token.text == "(":
            head = tokens[index - 1].text if index > 0 else ""
            return after == "=>" or (after == "{" and head not in _CONTROL)
        return after == "="
    return False


class _Chars:
    """Offsets between a UTF-8 file's bytes and its text's characters."""

    def __init__(self, content: bytes, text: str) -> None:
        self.content, self.text, self.ascii = content, text, content.isascii()

    def of(self, byte: int) -> int:
        return byte if self.ascii else len(self.content[:byte].decode("utf-8", errors="replace"))

    def byte(self, char: int) -> int:
        return char if self.ascii else len(self.text[:char].encode())
