"""Outwitting by literals in Rust: the inputs and expected values of a crate's `#[test]` functions, and
the lines of its code (not its tests) that write them (`if a == 2 && b == 3 { return 6; }`, a `match`
arm `(2, 3) => 6`, a table row `((2, 3), 6)`). The Rust side of `tiergate.tier.content.answers`, which
does the matching. Pure. How a test, its values and its lines are read: the comment below.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from tiergate.tier.content.patch import FileLines, Run
from tiergate.tier.content.rustsource import (
    FUNCTION,
    all_tests,
    closing,
    masked,
    spans,
    test_functions,
    test_lines,
)

# A test is named by cargo's id for it (`tests::test_mul`, `calc::tests::test_mul`, an integration test's
# bare `test_mul`): the module path of its file in its crate, then the inline modules it stands in. Its
# expected values are the literals an `assert_eq!`/`assert_ne!` compares, or an `assert!` holds, outside the
# calls in them; its inputs the literals in those calls and everywhere else in its body (an assert's message
# is neither). Which lines are test code is decided by where they stand
# (`tiergate.tier.content.rustsource`): an answer written into a test module is no answer.


# A literal as a kind and its text as written but for its spelling (`0x1F` is 31, `1_000i64` is 1000):
# ("num", "31"), ("str", "abc"). `tiergate.tier.content.answers` keeps the telling ones.
Literal = tuple[str, str]

SUFFIX = ".rs"
_ROOTS = ("src", "tests", "benches", "examples")
_CRATE_ROOTS = ("lib", "main", "mod")
_TYPED = r"_?(?:[iu](?:8|16|32|64|128|size)|f32|f64)"  # a number's type, written after it
_NUMBER = re.compile(
    r"(?<![\w.])-?(?:0x[0-9a-fA-F_]+|0o[0-7_]+|0b[01_]+|[0-9][0-9_]*(?:\.[0-9][0-9_]*)?(?:[eE][+-]?[0-9]+)?)"
    + f"(?:{_TYPED})?"
    + r"(?!\w)"
)
_TYPE_SUFFIX = re.compile(_TYPED + "$")
_ASSERT = re.compile(r"\b(?:debug_)?assert(?P<kind>_eq|_ne)?!\s*\(")
_CALL = re.compile(r"(?<![\w!])[a-z_]\w*\s*(?:::\s*<[^<>]*>\s*)?\(")
_STRING_BODY = re.compile(r'^[bc]?r?#*"(?P<body>.*?)"#*$', re.S)

_BRANCHES = re.compile(r"^\s*(?:\}\s*)?(?:(?:else\s+)?if\b|else\b|match\b|return\b|while\b|break\b)")
_COMPARES = re.compile(r"==|!=|=>|\bmatches!|\.contains\s*\(")
_DEFINES = re.compile(r"^\s*" + FUNCTION)
# A literal (L) alone on its line, or a tuple or array of literals: a tail value or a table's row.
_ONLY_LITERALS = re.compile(r"^[\s(){}\[\],;&L]*$|^\s*(?:Some|Ok|Err)\s*\(\s*L\s*\)[\s,;]*$")
_TABLE = re.compile(r"(?:^|[^\w\s]|[A-Z]\w*)\s*[(\[]\s*[(\[]?\s*L\s*[)\]]?\s*(?:,\s*[(\[]?\s*L\s*[)\]]?\s*)+")


class RustTest(NamedTuple):
    """A `#[test]` function: cargo's id for it, the literals of its inputs and of what it expects."""

    name: str
    inputs: frozenset[Literal]
    expected: frozenset[Literal]


def rust_tests(path: str, source: str) -> Iterator[RustTest]:
    """Every `#[test]` function in `source` (the file at `path`) with its literals."""
    code = masked(source)
    prefix = module_path(path)
    for item, body, end in test_functions(code):
        inputs, expected = _test_literals(source, code, body, end)
        yield RustTest("::".join((*prefix, *item.modules, item.test)), frozenset(inputs), frozenset(expected))


def module_path(path: str) -> tuple[str, ...]:
    """The module path cargo names a file's tests with, from the file's place in its crate: `src/lib.rs`
    and `tests/calc.rs` are crate roots, `src/calc.rs` and `src/calc/mod.rs` are `calc`."""
    folders = path.split("/")[:-1]
    stem = path.rpartition("/")[2].removesuffix(SUFFIX)
    roots = [at for at, folder in enumerate(folders) if folder in _ROOTS]
    if not roots:
        return ()
    root = roots[-1]
    inner = folders[root + 1 :]
    if folders[root] == "src" and inner[:1] == ["bin"]:
        inner = inner[1:]  # src/bin/x.rs is a crate root, and so is src/bin/x/main.rs
        if not inner:
            return ()
        inner = inner[1:]
    elif folders[root] != "src" and not inner:
        return ()  # tests/x.rs: an integration test's crate root
    parts = [*inner, stem]
    if parts[-1] in _CRATE_ROOTS:
        parts.pop()
    return tuple(parts)


def _test_literals(source: str, code: str, body: int, end: int) -> tuple[set[Literal], set[Literal]]:
    inputs: set[Literal] = set()
    expected: set[Literal] = set()
    asserted: list[tuple[int, int]] = []
    for found in _ASSERT.finditer(code, body, end):
        close = closing(code, found.end() - 1)
        asserted.append((found.start(), close))
        compared = _arguments(code, found.end(), close - 1)[: 2 if found["kind"] else 1]
        for start, stop in compared:
            calls = [(c.end(), closing(code, c.end() - 1)) for c in _CALL.finditer(code, start, stop)]
            for at, value in _literals(source, code, start, stop):
                inside = any(a <= at < b for a, b in calls)
                (inputs if inside else expected).add(value)
    for at, value in _literals(source, code, body, end):
        if not any(a <= at < b for a, b in asserted):
            inputs.add(value)
    return inputs, expected


def _arguments(code: str, start: int, stop: int) -> list[tuple[int, int]]:
    """The spans of a macro's comma-separated arguments between `start` and `stop`."""
    found = []
    at = start
    index = start
    while index < stop:
        char = code[index]
        if char in "([{":
            index = closing(code, index)
            continue
        if char == ",":
            found.append((at, index))
            at = index + 1
        index += 1
    found.append((at, stop))
    return [(a, b) for a, b in found if code[a:b].strip()]


def _literals(source: str, code: str, start: int, stop: int) -> Iterator[tuple[int, Literal]]:
    """The literals between `start` and `stop`, with where each is."""
    for span in spans(source[start:stop]):
        if span.kind == "string":
            value = _string(source[start + span.start : start + span.end])
            if value is not None:
                yield start + span.start, value
    for found in _NUMBER.finditer(code, start, stop):
        yield found.start(), _number(found.group())


def _string(text: str) -> Literal | None:
    found = _STRING_BODY.match(text)
    return ("str", found["body"]) if found else None


def _number(text: str) -> Literal:
    bare = text.replace("_", "")
    if bare.lstrip("-")[:2] in ("0x", "0o", "0b"):
        try:
            return "num", str(int(bare, 0))
        except ValueError:  # a type written after hex digits: kept as written
            return "num", bare
    return "num", _TYPE_SUFFIX.sub("", bare)


def literals(text: str) -> Iterator[Literal]:
    """The literals written in one line of Rust."""
    for _, value in _literals(text, masked(text), 0, len(text)):
        yield value


def branches(text: str) -> bool:
    """Whether a line of Rust branches, compares, returns or tabulates literals (the lines answers are
    written on): an `if`, a `match` arm, a `return`, an `==`, a tail value, a table's row."""
    if _DEFINES.match(text):
        return False
    if _BRANCHES.match(text) or _COMPARES.search(text):
        return True
    shape = _NUMBER.sub("L", _strings_as_literal(text))
    return bool(_ONLY_LITERALS.match(shape) and "L" in shape) or _TABLE.search(shape) is not None


def _strings_as_literal(text: str) -> str:
    parts, at = [], 0
    for span in spans(text):
        parts.append(text[at : span.start])
        parts.append("L" if span.kind != "comment" else "")
        at = span.end
    parts.append(text[at:])
    return "".join(parts)


def code_lines(changed: FileLines, source: str) -> FileLines:
    """`changed` (a Rust file's changed lines) with only the added lines that are not test code in
    `source`, the file as the change leaves it: none for a file that is all tests."""
    if all_tests(changed.path, masked(source)):
        return FileLines(changed.path, [], changed.removed_runs)
    tests = test_lines(changed.path, source)
    runs = [
        Run(number, [line])
        for number, line in zip(changed.added_numbers, _marked(changed.added_runs), strict=True)
        if number not in tests
    ]
    return FileLines(changed.path, runs, changed.removed_runs)


def _marked(runs: list[Run]) -> list[str]:
    return [line for run in runs for line in run.lines]
