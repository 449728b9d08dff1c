"""Rules for test files (`testfiles.is_test`): changed lines that weaken the tests, one at a time (a skip
or `.only` added, an assertion that cannot fail, an early exit) and, by the file's judge, what one line
cannot say (an assertion removed while its test stays, one inside a handler that swallows it). Each hit
is "tests weakened: ..." and architecture (THOROUGH). See docs/risk.md, "In test files".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from tiergate.tier.content.patch import FileLines, Run, Side
from tiergate.tier.content.rule import (
    BUILT_DIRS,
    BUILT_NAMES,
    ContentHit,
    ContentRule,
    Ecosystem,
    call,
    prefix,
    word,
)
from tiergate.tier.content.scan import excerpt
from tiergate.tier.content.testfiles import is_test
from tiergate.tier.testnames import JS_SUFFIXES, PYTHON_SUFFIXES

SKIPPED = "tests weakened: a skip, xfail or todo marker added"
ONLY = "tests weakened: .only added (the other tests no longer run)"
CONSTANT = "tests weakened: an assertion that cannot fail added"
REMOVED = "tests weakened: an assertion removed"
SWALLOWED = "tests weakened: an assertion inside a broad except"
SWALLOWED_JS = "tests weakened: an assertion inside an empty catch"
EXITED = "tests weakened: the test process made to exit early"


def added(construct: str, *patterns: str, near: str = "") -> tuple[ContentRule, ...]:
    """Architecture rules on added lines, one literal-first pattern each."""
    return tuple(
        ContentRule(construct, p, category="architecture", sides="added", near=near) for p in patterns
    )


def hit(path: str, number: int, side: Side, construct: str, text: str) -> ContentHit:
    """An architecture hit on a line a judge read, its text as the excerpt."""
    return ContentHit(path, number, side, construct, "architecture", excerpt(text, 0, 0))


_PY_LITERAL = r"""True|False|None|-?[0-9]+(?:\.[0-9]+)?|"[^"\n]*"|'[^'\n]*'"""
_PY_END = r"[ \t]*(?:,|#|$)"
_PY_ASSERT_WORD = word("assert", after_dot=False)

_PYTHON_RULES = (
    *added(
        SKIPPED,
        prefix("mark.skip"),
        word("mark.xfail"),
        call("pytest.skip"),
        call("pytest.xfail"),
        prefix("unittest.skip"),
        word("expectedFailure"),
        call("skipTest"),
        word("SkipTest"),
        r"@skip(?:If|Unless)?[ \t]*\(",
    ),
    *added(
        CONSTANT,
        _PY_ASSERT_WORD + r"[ \t]*\(?[ \t]*(?:True|1|not[ \t]+(?:False|None|0))[ \t]*\)?" + _PY_END,
        _PY_ASSERT_WORD + rf"[ \t]+({_PY_LITERAL})[ \t]*(?:==|is)[ \t]*\1" + _PY_END,
        word("assertTrue") + r"\([ \t]*(?:True|1)[ \t]*[,)]",
        word("assertFalse") + r"\([ \t]*(?:False|0|None)[ \t]*[,)]",
        word("assertEqual") + rf"\([ \t]*({_PY_LITERAL})[ \t]*,[ \t]*\1[ \t]*[,)]",
    ),
    *added(SWALLOWED, word("suppress") + r"\([ \t]*(?:AssertionError|Exception|BaseException)\b"),
    *added(
        EXITED,
        call("os._exit"),
        word("sys.exit") + r"\([ \t]*(?:0|None|False)?[ \t]*\)",
        call("pytest.exit"),
    ),
)

_JS_LITERAL = r"""true|false|null|undefined|-?[0-9]+(?:\.[0-9]+)?|"[^"\n]*"|'[^'\n]*'|`[^`\n]*`"""
# What a test or suite is declared with, in node:test, jest, mocha and vitest.
# The same literal as both arguments: `(1, 1)`.
_JS_SAME_TWICE = rf"\([ \t]*({_JS_LITERAL})[ \t]*,[ \t]*\1[ \t]*[,)]"
_HEADS = ("it", "test", "describe", "suite", "context", "specify")

_JS_RULES = (
    *added(
        SKIPPED,
        *(word(head) + r"\.(?:skip|skipIf|todo|fails|fixme)\b" for head in _HEADS),
        *(call(name, after_dot=False) + r"""[ \t]*["'`]""" for name in ("xit", "xtest", "xdescribe")),
        *(call(name, after_dot=False) + r"""[ \t]*["'`]""" for name in ("xcontext", "xspecify", "xsuite")),
        call("this.skip"),
        word("t") + r"\.(?:skip|todo)[ \t]*\(",
        r",[ \t]*\{[ \t]*(?:skip|todo)[ \t]*:[ \t]*(?:true|[\"'`])",
    ),
    *added(
        ONLY,
        *(word(head) + r"\.only\b" for head in _HEADS),
        *(call(name, after_dot=False) + r"""[ \t]*["'`]""" for name in ("fit", "fdescribe", "ftest")),
        r",[ \t]*\{[ \t]*only[ \t]*:[ \t]*true",
    ),
    *added(
        CONSTANT,
        word("expect")
        + rf"\([ \t]*({_JS_LITERAL})[ \t]*\)[ \t]*\.(?:toBe|toEqual|toStrictEqual)\([ \t]*\1[ \t]*\)",
        word("expect") + r"\([ \t]*(?:true|1)[ \t]*\)[ \t]*\.(?:toBeTruthy|toBeDefined)\([ \t]*\)",
        word("expect") + r"\([ \t]*(?:false|0|null)[ \t]*\)[ \t]*\.toBeFalsy\([ \t]*\)",
        word("assert") + r"(?:\.ok)?[ \t]*\([ \t]*(?:true|1)[ \t]*[,)]",
        word("assert") + r"\.(?:equal|strictEqual|deepEqual|deepStrictEqual)" + _JS_SAME_TWICE,
    ),
    *added(EXITED, call("process.exit"), word("process.exitCode") + r"[ \t]*=(?!=)"),
)

# A line that asserts, and one that declares a test.
_PY_ASSERTION = re.compile(
    r"^[ \t]*(?:assert\b|(?:[A-Za-z_][A-Za-z0-9_]*\.)*assert[A-Za-z0-9_]*[ \t]*\(|self\.fail[A-Za-z]*\("
    r"|(?:with[ \t]+)?pytest\.(?:raises|warns)[ \t]*\()"
)
_PY_HEADER = re.compile(r"^[ \t]*(?:(?:async[ \t]+)?def[ \t]+test|class[ \t]+Test)")
_JS_ASSERTION = re.compile(r"^[ \t]*(?:await[ \t]+|return[ \t]+)?(?:expect|assert|t\.assert)\b[ \t]*[(.]")
_JS_HEADER = re.compile(r"^[ \t]*(?:it|test|specify|describe|suite|context)(?:\.[A-Za-z]+)*[ \t]*\(")
_CONSTANTS = {
    "python": [re.compile(r.pattern) for r in _PYTHON_RULES if r.construct == CONSTANT],
    "javascript": [re.compile(r.pattern) for r in _JS_RULES if r.construct == CONSTANT],
}

_EXCEPT = re.compile(r"^(?P<indent>[ \t]*)except\b(?P<types>[^:\n]*):[ \t]*(?P<rest>[^\n]*)$")
_BROAD = re.compile(
    r"^[ \t]*(?:\(?[ \t]*(?:[A-Za-z_.]+[ \t]*,[ \t]*)*(?:Exception|BaseException|AssertionError)\b|$)"
)
_DOES_NOTHING = re.compile(
    r"^(?:pass|\.\.\.|continue|break|return(?:[ \t]+(?:None|True|False))?)[ \t]*(?:#.*)?$"
)
_RAISES = re.compile(r"^(?:raise\b|pytest\.fail\(|self\.fail)")
_CATCH = re.compile(r"\bcatch\b[ \t]*(?:\([^)\n]*\))?[ \t]*\{[ \t]*(?:/\*[^\n]*?\*/[ \t]*)?(?P<rest>[^\n]*)$")
_JS_ASSERTION_ANYWHERE = re.compile(r"\b(?:expect|assert)\b[ \t]*[(.]")
_TRY = re.compile(r"\btry[ \t]*\{")
# How far above an empty catch its `try {` may stand, when the lines between are not changed.
TRY_REACH = 30


def judge_python_tests(changed: FileLines) -> Iterable[ContentHit]:
    yield from removed_assertions(changed, _PY_ASSERTION, _PY_HEADER, _CONSTANTS["python"])
    yield from _python_swallowed(changed)


def judge_js_tests(changed: FileLines) -> Iterable[ContentHit]:
    yield from removed_assertions(changed, _JS_ASSERTION, _JS_HEADER, _CONSTANTS["javascript"])
    yield from _js_swallowed(changed)


def hunks(changed: FileLines) -> Iterator[tuple[Run | None, Run | None]]:
    """The file's `-U0` hunks as (removed run, added run): a hunk's added lines start where its removed
    ones did, moved by what the hunks before it added and removed."""
    removed, added_runs = changed.removed_runs, changed.added_runs
    i = j = shift = 0
    while i < len(removed) or j < len(added_runs):
        old = removed[i].number if i < len(removed) else None
        new = added_runs[j].number - shift if j < len(added_runs) else None
        if old is not None and old == new:
            yield removed[i], added_runs[j]
            shift += len(added_runs[j].lines) - len(removed[i].lines)
            i, j = i + 1, j + 1
        elif old is not None and (new is None or old < new):
            yield removed[i], None
            shift -= len(removed[i].lines)
            i += 1
        else:
            yield None, added_runs[j]
            shift += len(added_runs[j].lines)
            j += 1


def removed_assertions(
    changed: FileLines, assertion: re.Pattern[str], header: re.Pattern[str], constants: list[re.Pattern[str]]
) -> Iterator[ContentHit]:
    """Removed assertions whose test stays, in hunks that add fewer (real) assertions than they remove,
    and not added again elsewhere in the file (moved)."""
    moved: set[str] | None = None
    for removed, added_run in hunks(changed):
        if removed is None:
            continue
        kept = _tests_kept(removed, assertion, header)
        if not kept:
            continue
        new = [line[1:] for line in added_run.lines] if added_run is not None else []
        asserting = [
            line for line in new if assertion.match(line) and not any(c.search(line) for c in constants)
        ]
        if len(asserting) >= len(kept):
            continue
        if moved is None:
            moved = {line.strip() for line in changed.added}
        for number, text in kept:
            if text.strip() not in moved:
                yield hit(changed.path, number, "removed", REMOVED, text)


def _tests_kept(run: Run, assertion: re.Pattern[str], header: re.Pattern[str]) -> list[tuple[int, str]]:
    """The run's assertion lines that are not inside a test removed with them (its header removed above)."""
    kept: list[tuple[int, str]] = []
    dropped: int | None = None  # the indentation of a removed test's header, while inside it
    for offset, marked in enumerate(run.lines):
        text = marked[1:]
        if not text.strip():
            continue
        indent = _indent(text)
        if dropped is not None and indent <= dropped and not text.lstrip().startswith(("@", "#", "//")):
            dropped = None
        if header.match(text):
            dropped = indent if dropped is None else dropped
        elif dropped is None and assertion.match(text):
            kept.append((run.number + offset, text))
    return kept


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" \t"))


def _python_swallowed(changed: FileLines) -> Iterator[ContentHit]:
    lines = list(zip(changed.added_numbers, changed.added, strict=True))
    for at, (number, text) in enumerate(lines):
        match = _EXCEPT.match(text)
        if match is None or _BROAD.match(match["types"]) is None:
            continue
        handler = match["rest"].strip() or _next_line(lines, at)
        if handler is None:
            continue
        swallows = _DOES_NOTHING.match(handler) is not None or (
            "AssertionError" in match["types"] and _RAISES.match(handler) is None
        )
        if swallows and _asserts_above(lines, at, len(match["indent"])):
            yield hit(changed.path, number, "added", SWALLOWED, text)


def _next_line(lines: list[tuple[int, str]], at: int) -> str | None:
    """The added line right after line `at`, stripped; None when the next line is not an added one."""
    if at + 1 < len(lines) and lines[at + 1][0] == lines[at][0] + 1:
        return lines[at + 1][1].strip()
    return None


def _asserts_above(lines: list[tuple[int, str]], at: int, indent: int) -> bool:
    """Whether the added lines right above line `at`, indented deeper than `indent`, hold an assertion."""
    expected = lines[at][0] - 1
    for number, text in reversed(lines[:at]):
        if number != expected:
            return False
        expected -= 1
        if not text.strip():
            continue
        if _indent(text) <= indent:
            return False
        if _PY_ASSERTION.match(text):
            return True
    return False


def _js_swallowed(changed: FileLines) -> Iterator[ContentHit]:
    lines = list(zip(changed.added_numbers, changed.added, strict=True))
    for at, (number, text) in enumerate(lines):
        match = _CATCH.search(text)
        if match is None or not _empty(match["rest"], lines, at):
            continue
        if _JS_ASSERTION_ANYWHERE.search(text[: match.start()]) or _wraps_assertion(lines, at):
            yield hit(changed.path, number, "added", SWALLOWED_JS, text)


def _empty(rest: str, lines: list[tuple[int, str]], at: int) -> bool:
    """Whether a catch block whose first line goes on with `rest` does nothing."""
    rest = rest.strip()
    if rest.startswith("}"):
        return True
    if rest and not rest.startswith("//"):
        return False
    following = _next_line(lines, at)
    return following is not None and following.startswith("}")


def _wraps_assertion(lines: list[tuple[int, str]], at: int) -> bool:
    """Whether the `try` of the catch at line `at` holds an added assertion, or wraps lines not changed."""
    number = lines[at][0]
    expected, gap, found = number - 1, False, False
    for above, text in reversed(lines[:at]):
        if above <= number - TRY_REACH:
            return False
        gap = gap or above != expected
        expected = above - 1
        if _TRY.search(text):
            return found or gap or _JS_ASSERTION_ANYWHERE.search(text[text.find("try") :]) is not None
        found = found or _JS_ASSERTION_ANYWHERE.search(text) is not None
    return False


PYTHON_TESTS = Ecosystem(
    "python-tests",
    rules=_PYTHON_RULES,
    suffixes=PYTHON_SUFFIXES,
    comments=("#",),
    ignore_dirs=BUILT_DIRS,
    accepts=is_test,
    judge=judge_python_tests,
    judge_replaces_path_floor=False,
)

JAVASCRIPT_TESTS = Ecosystem(
    "javascript-tests",
    rules=_JS_RULES,
    suffixes=JS_SUFFIXES,
    comments=("//", "/*", "* "),
    ignore_dirs=BUILT_DIRS,
    ignore_names=BUILT_NAMES,
    accepts=is_test,
    judge=judge_js_tests,
    judge_replaces_path_floor=False,
)
