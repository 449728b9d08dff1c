"""Mutants of the changed lines of a JavaScript file (.js, .mjs, .cjs). Pure: no I/O.

Read by a small tokenizer (`jslexer`), so that nothing in a string, a template, a comment or a regular
expression is mutated. What it cannot read with confidence (JSX, Flow, an unclosed literal, unbalanced
brackets) gives no mutants rather than mutants that do not parse. See `mutants_of`.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Collection, Iterator
from posixpath import splitext
from typing import NamedTuple

from tiergate.tier.mutation.jslexer import JOINED, RESERVED, Lexer, Source, Token, UnreadableError, is_member
from tiergate.tier.mutation.mutants import Mutant, Operator, capped

SUFFIXES = frozenset({".js", ".mjs", ".cjs"})


class _Candidate(NamedTuple):
    rank: int  # the lower the earlier chosen when a line has more than `per_line`
    start: int
    end: int
    replacement: str
    operator: Operator


_RANKS: dict[Operator, int] = {
    "comparison": 0,
    "condition": 1,
    "boolean": 2,
    "arithmetic": 3,
    "return": 4,
    "constant": 5,
    "statement": 6,
}
_NEGATING = 7  # the second comparison mutant (`<` -> `>=`) comes after every other


def mutants_of(path: str, content: bytes, lines: Collection[int], per_line: int = 4) -> tuple[Mutant, ...]:
    """The mutants of `content` (the file at `path`) whose span starts on one of `lines` (1-based), at
    most `per_line` a line (comparison first, then condition, boolean, arithmetic, return, constant,
    statement), by start offset. None for a file not .js, .mjs or .cjs, not UTF-8, or not read with
    confidence (JSX, Flow annotations, an unclosed literal or bracket)."""
    wanted = frozenset(lines)
    if per_line <= 0 or not wanted or splitext(path)[1].lower() not in SUFFIXES:
        return ()
    try:
        source = Lexer(content.decode("utf-8")).read()
    except (UnicodeDecodeError, UnreadableError, RecursionError):  # (templates nested in templates)
        return ()
    newlines = [found.start() for found in re.finditer("\n", source.text)]
    by_line: dict[int, list[_Candidate]] = {}
    for part in (source, *source.parts):  # a template's `${...}` is code too
        for index, token in enumerate(part.tokens):
            line = bisect_left(newlines, token.start) + 1
            if line in wanted:
                fitting = (c for c in _candidates(part, index) if _fits(part.text, c))
                by_line.setdefault(line, []).extend(fitting)
    chosen: list[tuple[int, _Candidate]] = []
    for line, candidates in by_line.items():
        candidates.sort(key=lambda c: (c.rank, c.start, c.end, c.replacement))
        chosen.extend((line, c) for c in capped(candidates, per_line, _site))
    chosen.sort(key=lambda pair: (pair[1].start, pair[1].rank, pair[1].end, pair[1].replacement))
    return _to_mutants(path, source.text, content, chosen)


def _site(candidate: _Candidate) -> int:
    return candidate.start


def refusal(content: bytes) -> str:
    """Why no mutant is made of this file whatever its lines ("" when mutants can be): a file not read
    with confidence is no evidence either way, and the step says so."""
    try:
        Lexer(content.decode("utf-8")).read()
    except UnicodeDecodeError:
        return "not UTF-8"
    except (UnreadableError, RecursionError):
        return "not read with confidence (JSX, Flow annotations, an unclosed literal or bracket)"
    return ""


def _to_mutants(
    path: str, text: str, content: bytes, chosen: list[tuple[int, _Candidate]]
) -> tuple[Mutant, ...]:
    """The candidates as mutants, their character offsets turned into byte offsets of the UTF-8 file."""
    places = sorted({c.start for _, c in chosen} | {c.end for _, c in chosen})
    bytes_at: dict[int, int] = {}
    done, count, ascii = 0, 0, content.isascii()
    for place in places:  # in order, so that each character is encoded once
        count += place - done if ascii else len(text[done:place].encode())
        bytes_at[place], done = count, place
    return tuple(
        Mutant(
            path, line, bytes_at[c.start], bytes_at[c.end], text[c.start : c.end], c.replacement, c.operator
        )
        for line, c in chosen
    )


def _fits(text: str, candidate: _Candidate) -> bool:
    """Whether the replacement stays apart from its neighbours: `a+-b` made `a--b` is a decrement."""
    before = text[candidate.start - 1] if candidate.start > 0 else ""
    after = text[candidate.end : candidate.end + 1]
    first = candidate.replacement[:1] or after
    last = candidate.replacement[-1:] or before
    return not (_joins(before, first) or _joins(last, after))


def _joins(left: str, right: str) -> bool:
    if not left or not right:
        return False
    if _wordy(left) and _wordy(right):
        return True
    if (left.isdigit() and right == ".") or (left == "." and right.isdigit()):
        return True
    return left + right in JOINED


def _wordy(char: str) -> bool:
    return char.isalnum() or char in "_$\\#"


def _candidates(source: Source, index: int) -> Iterator[_Candidate]:
    for operator in (_comparison, _condition, _boolean, _arithmetic, _return, _constant, _statement):
        yield from operator(source, index)


_BOUNDARY = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "===": "!==", "!==": "===", "==": "!=", "!=": "=="}
_NEGATION = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def _comparison(source: Source, index: int) -> Iterator[_Candidate]:
    token = source.tokens[index]
    if token.kind != "punct" or token.text not in _BOUNDARY or not _after_operand(source, index):
        return
    yield _Candidate(_RANKS["comparison"], token.start, token.end, _BOUNDARY[token.text], "comparison")
    if token.text in _NEGATION:
        yield _Candidate(_NEGATING, token.start, token.end, _NEGATION[token.text], "comparison")


def _condition(source: Source, index: int) -> Iterator[_Candidate]:
    """`if (c)`, `while (c)` -> `if (!(c))`: the span is the parenthesised head, brackets counted."""
    token = source.tokens[index]
    if token.kind != "punct" or token.text != "(" or index == 0:
        return
    keyword = source.tokens[index - 1]
    if keyword.kind != "name" or keyword.text not in ("if", "while") or keyword.operand_end:
        return
    if keyword.in_members:  # a method named `if` in an object literal or a class
        return
    end = source.tokens[source.closing[index]].end
    negated = f"(!{source.text[token.start : end]})"
    yield _Candidate(_RANKS["condition"], token.start, end, negated, "condition")


# A `!` is kept before what would start a declaration or a block once it is gone (`!function () {}()`).
_KEPT_NOT = frozenset({"function", "class", "let", "async", "{"})


def _boolean(source: Source, index: int) -> Iterator[_Candidate]:
    token = source.tokens[index]
    if token.kind != "punct":
        return
    if token.text in ("&&", "||"):
        swapped = "||" if token.text == "&&" else "&&"
        yield _Candidate(_RANKS["boolean"], token.start, token.end, swapped, "boolean")
    elif (
        token.text == "!"
        and index + 1 < len(source.tokens)
        and source.tokens[index + 1].text not in _KEPT_NOT
    ):
        yield _Candidate(_RANKS["boolean"], token.start, token.end, "", "boolean")


_BINARY = {"+": "-", "-": "+", "*": "/", "/": "*", "%": "*"}
_ALWAYS = {"+=": "-=", "-=": "+=", "*=": "/=", "/=": "*=", "++": "--", "--": "++"}


def _arithmetic(source: Source, index: int) -> Iterator[_Candidate]:
    """Binary `+ - * / %` (after an operand: `-1`, `+y`, `function*`, `yield*` are not), compound
    assignments, increments."""
    token = source.tokens[index]
    if token.kind != "punct":
        return
    replacement = _ALWAYS.get(token.text)
    if replacement is None and token.text in _BINARY and _after_operand(source, index):
        replacement = _BINARY[token.text]
    if replacement is not None:
        yield _Candidate(_RANKS["arithmetic"], token.start, token.end, replacement, "arithmetic")


def _after_operand(source: Source, index: int) -> bool:
    return index > 0 and source.tokens[index - 1].operand_end


def _return(source: Source, index: int) -> Iterator[_Candidate]:
    """`return EXPR` -> `return undefined`, when where EXPR ends is certain."""
    token = source.tokens[index]
    if token.kind != "name" or token.text != "return" or token.operand_end or token.in_members:
        return
    span = _returned(source, index + 1)
    if span is None:
        return
    start, end = source.tokens[span[0]].start, source.tokens[span[1]].end
    if source.text[start:end] != "undefined":
        spaced = _wordy(source.text[start - 1])  # `return(x)`: `returnundefined` is a name
        yield _Candidate(_RANKS["return"], start, end, " undefined" if spaced else "undefined", "return")


# What may start a returned expression, besides a word, a number, a string, a template or a regex.
_STARTS_EXPRESSION = frozenset({"(", "[", "{", "!", "~", "+", "-", "++", "--"})
# What after a line break starts a new statement rather than continuing the expression (`return x` then
# `foo()` on the next line is two statements).
_STARTS_STATEMENT = frozenset({"{", "++", "--", "!", "~"})


def _returned(source: Source, first: int) -> tuple[int, int] | None:
    """The first and last token of the expression a `return` returns, starting at `first`, up to the
    `;` or the `}` that ends the statement; None when there is none or its end is uncertain."""
    tokens = source.tokens
    if first >= len(tokens) or tokens[first].newline:  # `return` then a line break returns nothing
        return None
    if tokens[first].kind == "punct" and tokens[first].text not in _STARTS_EXPRESSION:
        return None
    at = first
    while at < len(tokens):
        token = tokens[at]
        if token.kind == "punct" and token.text in (";", "}", ")", "]"):
            break
        if at > first and token.newline and _may_end(tokens[at - 1]) and _starts_statement(token):
            return None
        at = source.closing.get(at, at) + 1
    if at < len(tokens) and tokens[at].text in (")", "]"):
        return None
    last = at - 1
    if tokens[first].text == "(" and last > first and tokens[source.closing[first]].text == ")":
        # `return (a) {` is no statement: a method named `return`, read as one in no context here
        after = source.closing[first] + 1
        if after < len(tokens) and tokens[after].text == "{":
            return None
    return first, last


def _may_end(token: Token) -> bool:
    return token.operand_end or (token.kind == "punct" and token.text == "}")


def _starts_statement(token: Token) -> bool:
    if token.kind == "punct":
        return token.text in _STARTS_STATEMENT
    return token.kind != "template"  # a template after a line break is a tagged template's


_PLAIN_NUMBER = re.compile(r"(0|[1-9]\d{0,99})(n?)|(0|[1-9]\d{0,99})?\.(\d+)")


def _constant(source: Source, index: int) -> Iterator[_Candidate]:
    """A number `n` -> the literal of n + 1 (`400` -> `401`, `1.5` -> `2.5`); `true` <-> `false`. Not
    a property's key (`{ 0: a }`), a member's name (`x.true`) or a method's."""
    token = source.tokens[index]
    if _is_key(source, index):
        return
    replacement = None
    if token.kind == "number":
        replacement = _plus_one(token.text)
    elif token.kind == "name" and token.text in ("true", "false") and not is_member(_before(source, index)):
        replacement = "false" if token.text == "true" else "true"
    if replacement is not None:
        yield _Candidate(_RANKS["constant"], token.start, token.end, replacement, "constant")


def _plus_one(literal: str) -> str | None:
    """The literal plus one, written as the literal is; None for the forms left alone (hexadecimal,
    exponents, separators, legacy octal, `1.`)."""
    found = _PLAIN_NUMBER.fullmatch(literal)
    if found is None:
        return None
    if found[1] is not None:
        return f"{int(found[1]) + 1}{found[2]}"
    return f"{int(found[3] or '0') + 1}.{found[4]}"


def _is_key(source: Source, index: int) -> bool:
    before, after = _before(source, index), _after(source, index)
    if after is not None and after.kind == "punct" and after.text == "(":
        return True  # a method's name (a number is never called)
    key_place = before is not None and before.kind == "punct" and before.text in ("{", ",")
    return key_place and after is not None and after.kind == "punct" and after.text == ":"


def _before(source: Source, index: int) -> Token | None:
    return source.tokens[index - 1] if index > 0 else None


def _after(source: Source, index: int) -> Token | None:
    return source.tokens[index + 1] if index + 1 < len(source.tokens) else None


def _statement(source: Source, index: int) -> Iterator[_Candidate]:
    """`foo(x);` alone on its line, after a `;`, `{` or `}` -> `void 0;`. The callee is a name or a
    chain of names (`this.log.info`)."""
    tokens = source.tokens
    token = tokens[index]
    if token.kind != "name" or (token.text in RESERVED and token.text != "this") or token.in_members:
        return
    before = _before(source, index)
    if before is not None and not (
        token.newline and before.kind == "punct" and before.text in (";", "{", "}")
    ):
        return
    at = index + 1
    while at + 1 < len(tokens) and is_member(tokens[at]) and tokens[at + 1].kind == "name":
        at += 2
    if at >= len(tokens) or tokens[at].kind != "punct" or tokens[at].text != "(":
        return
    call_end = source.closing[at]
    semicolon = _after(source, call_end)
    if semicolon is None or semicolon.kind != "punct" or semicolon.text != ";":
        return
    following = _after(source, call_end + 1)
    end = tokens[call_end].end
    if (following is None or following.newline) and "\n" not in source.text[token.start : end]:
        yield _Candidate(_RANKS["statement"], token.start, end, "void 0", "statement")
