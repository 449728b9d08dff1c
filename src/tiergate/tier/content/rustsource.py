"""Rust source read for where its tests are: its comments, string and character literals, inline modules,
and test items. Pure. A line is test code by where it stands (the comment below): Rust's unit tests live
in the file of the code they test.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import NamedTuple

from tiergate.frozen import frozen

# Test code: in an item under `#[cfg(test)]` (usually `mod tests { ... }`), in a function marked `#[test]`
# (or `#[tokio::test]`, any attribute whose last segment is `test`), or in a file that is all tests (one
# under a crate's `tests/` folder, one that opens with `#![cfg(test)]`). Items are found by their attributes
# and matching braces in the code with comments and literals blanked out (`masked`), so that a brace or a
# `#[test]` in a string, a raw string or a comment is never read as code. `cfg(not(test))` is not test code.


# Where a comment, string or character literal may begin. A raw string (`r"…"`, `br#"…"#`) and a prefixed
# string (`b"…"`, `c"…"`) begin at a word's start; `'` is a character literal or a lifetime (decided after).
_START = re.compile(r"""//|/\*|\b[bc]?r(?P<hashes>#*)"|\b[bc]"|"|\bb'|'""")
_BLOCK = re.compile(r"/\*|\*/")
_STRING_END = re.compile(r'\\.|"', re.S)
_CHAR = re.compile(r"'(?:\\(?:u\{[0-9A-Fa-f_]{1,8}\}|x[0-9A-Fa-f]{2}|.)|[^\\'\n])'", re.S)

_ATTRIBUTE = re.compile(r"#\s*\[")
_INNER_ATTRIBUTE = re.compile(r"#\s*!\s*\[")
_MODULE = re.compile(r"\bmod\s+(?:r#)?(\w+)\s*\{")
_TEST_MARK = re.compile(r"\s*(?:\w+\s*::\s*)*test\s*(?:\(.*\))?\s*", re.S)
_CFG = re.compile(r"\s*cfg\s*\((?P<predicate>.*)\)\s*", re.S)
_NOT = re.compile(r"\bnot\s*\([^()]*\)")
_TEST_WORD = re.compile(r"\btest\b")
_VISIBILITY = re.compile(r"^pub\s*(?:\([^)]*\))?\s*")
_STATEMENT_ITEMS = re.compile(r"^(?:const|static|use|type|let|extern\s+crate)\b")
# A function's header up to `fn`: its visibility and qualifiers.
FUNCTION = r"(?:pub\s*(?:\([^)]*\))?\s*)?(?:(?:async|const|unsafe|extern)\s+)*fn\b"
_FN_NAME = re.compile(FUNCTION + r"\s+(?:r#)?(\w+)")
_PAIRS = {"(": ")", "[": "]", "{": "}"}


class Span(NamedTuple):
    """A comment or a literal: `kind` ("comment", "string", "char") and where it is in the source (a
    tuple: a file has thousands)."""

    kind: str
    start: int
    end: int


@frozen
class Item:
    """A test item: `key` (its header as written, from its kind on: `mod tests`, `fn test_mul()`), the
    inline modules it stands in (`modules`, outermost first), and where it is: `start` (the start of the
    line of its first attribute) to `end` (past its closing brace or semicolon); `test` is the name of the
    test function it is (a `#[test]` function), "" for any other item."""

    key: str
    modules: tuple[str, ...]
    start: int
    end: int
    test: str = ""


def spans(source: str) -> Iterator[Span]:
    """The comments and literals of `source`, in order (a block comment as one, nested ones inside it)."""
    at = 0
    while (found := _START.search(source, at)) is not None:
        begun = found.group()
        if begun == "//":
            end = source.find("\n", found.start())
            end = len(source) if end < 0 else end
            yield Span("comment", found.start(), end)
        elif begun == "/*":
            end = _block_end(source, found.end())
            yield Span("comment", found.start(), end)
        elif begun.endswith("'"):
            char = _CHAR.match(source, found.end() - 1)
            if char is None:  # a lifetime or a loop label: code
                at = found.end()
                continue
            end = char.end()
            yield Span("char", found.start(), end)
        elif found["hashes"] is not None:
            closing = '"' + found["hashes"]
            close = source.find(closing, found.end())
            end = len(source) if close < 0 else close + len(closing)
            yield Span("string", found.start(), end)
        else:
            end = _string_end(source, found.end())
            yield Span("string", found.start(), end)
        at = max(end, found.end())


def _block_end(source: str, at: int) -> int:
    depth = 1
    for found in _BLOCK.finditer(source, at):
        depth += 1 if found.group() == "/*" else -1
        if depth == 0:
            return found.end()
    return len(source)


def _string_end(source: str, at: int) -> int:
    for found in _STRING_END.finditer(source, at):
        if found.group() == '"':
            return found.end()
    return len(source)


def masked(source: str) -> str:
    """`source` with every comment and literal blanked to spaces (its line breaks kept), so that what is
    left is code, at the same offsets."""
    parts = []
    at = 0
    for span in spans(source):
        parts.append(source[at : span.start])
        parts.append(re.sub(r"[^\n]", " ", source[span.start : span.end]))
        at = span.end
    parts.append(source[at:])
    return "".join(parts)


def closing(code: str, at: int) -> int:
    """The offset past the bracket that closes the one at `at` in `code` (masked); the end when none."""
    stack = []
    for index in range(at, len(code)):
        char = code[index]
        if char in _PAIRS:
            stack.append(_PAIRS[char])
        elif char in ")]}":
            if stack and stack[-1] == char:
                stack.pop()
            if not stack:
                return index + 1
    return len(code)


def modules(code: str) -> list[tuple[str, int, int]]:
    """The inline modules of `code` (masked): name, the offset of `mod`, the offset past its `}`."""
    return [(m[1], m.start(), closing(code, m.end() - 1)) for m in _MODULE.finditer(code)]


def all_tests(path: str, code: str) -> bool:
    """Whether the whole file (at `path`, `code` masked) is test code: under a crate's `tests/` folder, or
    opening with `#![cfg(test)]`. A `tests` folder inside `src` holds modules, not a crate's tests."""
    folders = path.split("/")[:-1]
    if "tests" in folders and "src" not in folders[: folders.index("tests")]:
        return True
    for found in _INNER_ATTRIBUTE.finditer(code):
        if code[: found.start()].count("{") == code[: found.start()].count("}"):
            content = code[found.end() : closing(code, found.end() - 1) - 1]
            if _cfg_test(content):
                return True
    return False


def test_items(code: str) -> list[Item]:
    """The outermost test items of `code` (masked), in order, each with the inline modules it is in."""
    mods = modules(code)
    items: list[Item] = []
    at = 0
    while (found := _ATTRIBUTE.search(code, at)) is not None:
        item = _item_at(code, found.start())
        if item is None:
            at = found.end()
            continue
        key, end, test = item
        where = tuple(name for name, start, stop in mods if start < found.start() < stop)
        items.append(Item(key, where, _line_start(code, found.start()), end, test))
        at = end
    return items


def test_functions(code: str) -> Iterator[tuple[Item, int, int]]:
    """Each `#[test]` function of `code` (masked), wherever it stands (in a test module too), with the
    offsets of its body's braces."""
    mods = modules(code)
    at = 0
    while (found := _ATTRIBUTE.search(code, at)) is not None:
        attributes, header = _attributes(code, found.start())
        at = header  # the run's other attributes are not the start of another
        name = _FN_NAME.match(code, header) if any(_TEST_MARK.fullmatch(a) for a in attributes) else None
        body = -1 if name is None else code.find("{", name.end())
        if name is None or body < 0:
            continue
        where = tuple(n for n, start, stop in mods if start < found.start() < stop)
        end = closing(code, body)
        item = Item(_normal(code[header:body]), where, _line_start(code, found.start()), end, name[1])
        yield item, body, end


def _item_at(code: str, at: int) -> tuple[str, int, str] | None:
    """The item whose attributes begin at `at`, when one of them marks it as test code: its key, where it
    ends, and its test function's name ("" when it is none)."""
    attributes, header = _attributes(code, at)
    marks_test = any(_TEST_MARK.fullmatch(a) for a in attributes)
    if not marks_test and not any(_cfg_test(a) for a in attributes):
        return None
    end, opening = _item_end(code, header)
    key = _normal(code[header:opening])
    name = _FN_NAME.search(code, header, opening) if marks_test else None
    return key, end, name[1] if name else ""


def _attributes(code: str, at: int) -> tuple[list[str], int]:
    """The contents of the run of outer attributes from `at` on, and where the item after them begins."""
    contents = []
    while (found := _ATTRIBUTE.match(code, at)) is not None:
        end = closing(code, found.end() - 1)
        contents.append(code[found.end() : end - 1])
        at = end
        while at < len(code) and code[at].isspace():
            at += 1
    return contents, at


def _item_end(code: str, header: int) -> tuple[int, int]:
    """Where the item whose header begins at `header` ends (past its `}` or `;`), and where its body's
    brace (or its semicolon) is."""
    statement = _STATEMENT_ITEMS.match(_VISIBILITY.sub("", code[header : header + 80]))
    index = header
    while index < len(code):
        char = code[index]
        if char == ";":
            return index + 1, index
        if char == "{" and not statement:
            return closing(code, index), index
        if char in _PAIRS:
            index = closing(code, index)
            continue
        if char in ")]}":
            return index, index  # the enclosing block ends first: an item cut short
        index += 1
    return len(code), len(code)


def _cfg_test(attribute: str) -> bool:
    found = _CFG.fullmatch(attribute)
    if found is None:
        return False
    predicate = found["predicate"]
    while (less := _NOT.sub(" ", predicate)) != predicate:
        predicate = less
    return _TEST_WORD.search(predicate) is not None


def _line_start(code: str, at: int) -> int:
    """The start of `at`'s line when only blanks stand before it there, else `at`."""
    start = code.rfind("\n", 0, at) + 1
    return start if not code[start:at].strip() else at


def _normal(header: str) -> str:
    return _VISIBILITY.sub("", " ".join(header.split()))


def test_lines(path: str, source: str) -> frozenset[int]:
    """The numbers (from 1) of the lines of `source` (the file at `path`) that are test code."""
    code = masked(source)
    if all_tests(path, code):
        return frozenset(range(1, source.count("\n") + 2))
    breaks = [found.start() for found in re.finditer("\n", source)]
    lines: set[int] = set()
    for item in test_items(code):
        # A line's number is one more than the line breaks before it.
        first = bisect.bisect_left(breaks, item.start) + 1
        lines.update(range(first, bisect.bisect_left(breaks, item.end) + 2))
    return frozenset(lines)
