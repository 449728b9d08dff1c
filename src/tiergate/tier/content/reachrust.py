"""Rust code that reaches into its tests (see `reaching`): added lines of a library's code, outside its
`#[cfg(test)]` modules and `#[test]` functions, that branch on being compiled for the tests (`cfg(test)`,
and `cfg(debug_assertions)`, which the tests' build has and a release lacks), read the test
harness's environment or arguments, end the process, inspect their caller, read the test files, or keep
state between calls. Pure; one line at a time (Rust's `'a` lifetimes make joining lines by brackets
unreliable).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tiergate.tier.content.patch import FileLines
from tiergate.tier.content.reaching import Mechanism, reach
from tiergate.tier.content.rule import ContentHit
from tiergate.tier.content.runners import RUST_RUNNER_ENV
from tiergate.tier.content.testfiles import names_test_path

_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_TESTS_CFG = re.compile(r"cfg!?[ \t]*\((?P<inner>[^\n]*)\)")
_TEST_ATTRIBUTE = re.compile(r"^#\[(?:[\w:]+::)?test\b|^#\[cfg\([ \t]*test[ \t]*\)\]")
_ITEM = re.compile(r"^(?:pub(?:\([^)]*\))?[ \t]+)?(?:async[ \t]+)?(?:mod|fn|impl)\b")
_PROGRAM = re.compile(r"\benv::(?P<what>args|args_os|current_exe)\b")
# An exit with no failing status (a failing one fails the run, which the gate sees).
_EXIT = re.compile(r"(?<![\w])(?:std::)?process::(?P<what>exit)[ \t]*\((?![ \t]*[1-9][0-9]*[ \t]*\))")
_CALLER = re.compile(
    r"\b(?P<what>Location::caller|Backtrace::(?:capture|force_capture|new)|thread::current[ \t]*\(\)[ \t]*"
    r"\.[ \t]*name)\b"
)
_READS = re.compile(
    r"\b(?:include_str!|include_bytes!|fs::|File::open|read_to_string|read_dir|Path::new|PathBuf::from"
    r"|CARGO_MANIFEST_DIR)|\.join[ \t]*\("
)
# A static's state changed (statics are SCREAMING_CASE, `non_upper_case_globals`); an instance's
# (`self.workers.fetch_add`) is the object's, as in any language.
_STATIC = r"(?<![\w.])[A-Z][A-Z0-9_]*"
_STATE = re.compile(
    r"(?P<what>^(?:pub(?:\([^)]*\))?[ \t]+)?static[ \t]+mut\b|^thread_local![ \t]*[({]"
    + rf"|{_STATIC}[ \t]*\.[ \t]*fetch_(?:add|sub|update|and|or|xor|max|min)[ \t]*\("
    + rf"|{_STATIC}[ \t]*\.[ \t]*(?:lock|borrow_mut|write)[ \t]*\(\)"
    + r"[^;\n]*\.(?:pop|pop_front|pop_back)[ \t]*\(\)"
    + rf"|{_STATIC}[ \t]*\.[ \t]*with[ \t]*\([^;\n]*\.set[ \t]*\([^;\n]*\.get[ \t]*\(\)[ \t]*[-+])"
)
# Files where reading arguments or exiting is the program's job, not a library's.
_PROGRAM_DIRS = frozenset({"bin", "examples", "benches", "xtask"})
_PROGRAM_NAMES = frozenset({"main.rs", "build.rs"})


def judge_rust(changed: FileLines) -> Iterator[ContentHit]:
    program = _program(changed.path)
    for number, text in _code_lines(changed):
        line = _without_comment(text).strip()
        if not line:
            continue
        yield from _line(changed.path, number, text, line, program)


def _line(path: str, number: int, text: str, line: str, program: bool) -> Iterator[ContentHit]:
    literals = [m.group(1) for m in _STRING.finditer(line)]
    code = _STRING.sub('""', line)
    cfg = _TESTS_CFG.search(code)
    if cfg is not None and _branches_on_tests(cfg):
        what = "cfg(debug_assertions)" if "debug_assertions" in cfg["inner"] else "cfg(test)"
        yield reach(path, number, Mechanism.PRESENCE, what, text)
        return
    env = next((lit for lit in literals if lit.startswith(RUST_RUNNER_ENV)), None)
    if env is not None:
        yield reach(path, number, Mechanism.PRESENCE, env, text)
        return
    found = _PROGRAM.search(code)
    if found is not None and not program:
        yield reach(path, number, Mechanism.PRESENCE, f"env::{found['what']}", text)
        return
    found = _EXIT.search(code)
    if found is not None and not program:
        yield reach(path, number, Mechanism.EXITS, f"process::{found['what']}", text)
        return
    found = _CALLER.search(code)
    if found is not None:
        yield reach(path, number, Mechanism.CALLER, re.sub(r"[ \t]", "", found["what"]), text)
        return
    if literals and _READS.search(code) is not None:
        named = next((lit for lit in literals if names_test_path(lit)), None)
        if named is not None:
            yield reach(path, number, Mechanism.READS, named, text)
            return
    found = _STATE.search(code)
    if found is not None:
        what = re.sub(r"[ \t(].*", "", found["what"].strip()).lstrip(".")
        yield reach(path, number, Mechanism.STATE, what, text)


# What a build for the tests has that the one users run may not: the test harness, and (cargo's test
# profile inherits the dev one) debug assertions.
_AS_TESTED = r"\b(?:test|debug_assertions)\b"


def _branches_on_tests(cfg: re.Match[str]) -> bool:
    """`cfg!(test)` or `cfg!(debug_assertions)` in an expression, or an item compiled only outside the
    build the tests run (`#[cfg(not(test))]`, `#[cfg(not(debug_assertions))]`); an item compiled only for
    the tests (`#[cfg(all(test, ...))]`) is test code."""
    if re.search(_AS_TESTED, cfg["inner"]) is None:
        return False
    return (
        cfg.group().startswith("cfg!")
        or re.search(r"\bnot[ \t]*\([^)]*" + _AS_TESTED, cfg["inner"]) is not None
    )


def _program(path: str) -> bool:
    folders, _, name = path.rpartition("/")
    return name in _PROGRAM_NAMES or any(part in _PROGRAM_DIRS for part in folders.split("/"))


def _code_lines(changed: FileLines) -> Iterator[tuple[int, str]]:
    """The added lines outside the test modules and test functions the added lines open, and outside
    block comments."""
    test_indent: int | None = None  # the indentation of the test item the lines are in
    marked = False  # the line before was a test attribute
    in_comment = False
    for number, text in zip(changed.added_numbers, changed.added, strict=True):
        stripped = text.strip()
        if in_comment:
            in_comment = "*/" not in stripped
            continue
        if stripped.startswith("/*"):
            in_comment = "*/" not in stripped
            continue
        if not stripped or stripped.startswith("//"):
            continue
        indent = len(text) - len(text.lstrip(" \t"))
        if test_indent is not None:
            if indent > test_indent or (indent == test_indent and stripped.startswith("}")):
                continue
            test_indent = None
        if _TEST_ATTRIBUTE.match(stripped):
            marked = True
            continue
        if marked and _ITEM.match(stripped):
            test_indent = None if stripped.endswith(";") else indent
            marked = False
            continue
        marked = marked and stripped.startswith("#[")
        yield number, text


def _without_comment(text: str) -> str:
    code = _STRING.sub(lambda m: '"' + " " * (len(m.group()) - 2) + '"', text)
    at = code.find("//")
    return text if at < 0 else text[:at]


def blocks_marked_as_tests(source: str) -> list[tuple[int, int]]:
    """The line ranges (first, last; 1-based) of the items a file marks as tests (`#[cfg(test)] mod ... {`,
    `#[test] fn ... {`): what the added lines of a change inside them are, when the change does not show
    their start."""
    lines = source.split("\n")
    blocks: list[tuple[int, int]] = []
    at = 0
    while at < len(lines):
        if _TEST_ATTRIBUTE.match(lines[at].strip()):
            item = _item_after(lines, at + 1)
            if item is not None:
                end = _block_end(lines, item)
                if end is not None:
                    blocks.append((item + 1, end + 1))
                    at = end
        at += 1
    return blocks


def _item_after(lines: list[str], at: int) -> int | None:
    while at < len(lines):
        stripped = lines[at].strip()
        if stripped and not stripped.startswith(("#[", "//")):
            return at if _ITEM.match(stripped) else None
        at += 1
    return None


def _block_end(lines: list[str], start: int) -> int | None:
    """The line where the item starting at `start` closes its braces; None for `mod x;`."""
    depth, opened = 0, False
    for at in range(start, len(lines)):
        code = _without_comment(lines[at])
        code = _STRING.sub('""', code)
        if not opened and code.rstrip().endswith(";") and "{" not in code:
            return None
        depth += code.count("{") - code.count("}")
        opened = opened or "{" in code
        if opened and depth <= 0:
            return at
    return None
