"""What helps in a failing check's output: the failing tests' names and their assertion lines.

Each test runner has its own parser below; every parser that recognises its marks in the output
contributes names and lines (a `make check` may run two runners). The marks:

    pytest     `FAILED <node id>` / `ERROR <node id>` summary lines, `E   ` lines, `file:line: Error` lines
    unittest   `FAIL: test (module.Class.test)` / `ERROR: ...`, the exception line, `FAILED (...)`
    go         `--- FAIL: TestName`, the indented `file.go:12: message` lines, `panic:`, `FAIL <pkg>`
    cargo      `test path::name ... FAILED`, `panicked at` and its message, `test result: FAILED`
    jest       `● Suite > test` (jest's own arrow), `Expected:` / `Received:`, `Tests: ... failed`
    tap        `not ok 3 - name`, its `location:` and `error:` (node --test in a pipe, any TAP producer)
    node       node --test's spec reporter: a cross, the test's name and its duration, then the error

Output no parser recognises (a compiler, a linter, a script) keeps its error-looking lines and its last
lines. Names are what the baseline comparison uses to tell a new failing test from an old one.

Pure text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

MAX_LINES = 40
MAX_LINE_CHARS = 300
GENERIC_TAIL_LINES = 15
GENERIC_ERROR_LINES = 20
E_LINES_PER_FAILURE = 8

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_PYTEST_ID = re.compile(r"^(FAILED|ERROR) (?!\()(\S+?)(?: - (.*))?$")
_PYTEST_SECTION = re.compile(r"^_{3,} (.+?) _{3,}$")
_PYTEST_E = re.compile(r"^E {2,}\S")
_PYTEST_WHERE = re.compile(r"^[^\s:]+:\d+: [A-Z]\w*(Error|Exception|Failed|Exit)\w*$")
_PYTEST_TOTALS = re.compile(r"^=*\s*\d+ (failed|passed|errors?)\b.*")
_UNITTEST_ID = re.compile(r"^(FAIL|ERROR): (\S+) \(([^)]+)\)")
_UNITTEST_TOTALS = re.compile(r"^(FAILED \((failures|errors)=.*\)|Ran \d+ tests? in .*)$")
_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(Error|Exception|Failure|Exit|Interrupt)|AssertionError)\b(:.*)?$")
_PY_FILE = re.compile(r'^\s*File ".*", line \d+')
_GO_FAIL = re.compile(r"^\s*--- FAIL: (\S+)")
_GO_MESSAGE = re.compile(r"^\s+\S+\.go:\d+: .*")
_GO_OTHER = re.compile(r"^(panic: .*|FAIL\s+\S+.*)$")
_CARGO_FAIL = re.compile(r"^test (\S+) \.\.\. FAILED$")
_CARGO_PANIC = re.compile(r"panicked at ")
_CARGO_TOTALS = re.compile(r"^test result: FAILED\..*")
_JEST_BULLET = re.compile(r"^\s*● (.+)$")
_JEST_FILE = re.compile(r"^\s*FAIL\s+(\S+)")
_JEST_DETAIL = re.compile(r"^\s*(expect\(.*|Expected.*:.*|Received.*:.*|Tests:\s+\d+ failed.*)$")
_TAP_NOT_OK = re.compile(r"^\s*not ok \d+ - (.+?)(\s+#.*)?$")
_TAP_DETAIL = re.compile(r"^\s*(location: .*|error: (?![|>]).*|# fail [1-9]\d*)$")
_TAP_ERROR_BLOCK = re.compile(r"^\s*error: [|>]-?$")
_NODE_CROSS = re.compile(r"^\s*\u2716 (.+?) \(\d[\d.]*m?s\)$")
_NODE_ERROR = re.compile(r"^\s*\w*Error\b.*")
_NODE_TOTALS = re.compile(r"^\u2139 fail [1-9]\d*$")
_ERROR_LINE = re.compile(
    r"((^|\s)(error|fatal)(\[\w+\])?:|\berror (TS|CS)\d+|^\s*--> \S+:\d+|^\S+:\d+(:\d+)?: |[A-Za-z]+Error\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class OutputSummary:
    runners: tuple[str, ...]  # the parsers that recognised the output; empty: generic
    failed_tests: tuple[str, ...]  # in the order met, without repeats
    lines: tuple[str, ...]  # what a person (or a model) should read first, in output order


@dataclass(frozen=True)
class _Found:
    names: list[str]
    picked: list[int]  # indexes of the lines worth showing


def clean_lines(output: str) -> list[str]:
    """Lines without colour codes; of a line redrawn with carriage returns, what was drawn last."""
    lines = output.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    # Not splitlines(): it would split at every carriage return, keeping each redrawn state.
    return [_ANSI.sub("", line.rstrip("\r")).rsplit("\r", 1)[-1].rstrip() for line in lines]


def summarize(output: str, max_lines: int = MAX_LINES) -> OutputSummary:
    lines = clean_lines(output)
    runners: list[str] = []
    names: list[str] = []
    picked: set[int] = set()
    for runner, parse in _PARSERS:
        found = parse(lines)
        if found is not None:
            runners.append(runner)
            names += found.names
            picked.update(found.picked)
    if not runners:
        picked = set(_generic(lines))
    shown = [_clip(lines[i]) for i in sorted(picked) if lines[i].strip()]
    return OutputSummary(tuple(runners), tuple(dict.fromkeys(names)), tuple(_bounded(shown, max_lines)))


def _bounded(lines: list[str], max_lines: int) -> list[str]:
    """At most `max_lines` lines, without repeats: the first ones, and the last few (the totals)."""
    unique = list(dict.fromkeys(lines))
    if len(unique) <= max_lines:
        return unique
    last = min(3, max_lines // 4)
    head = unique[: max_lines - last - 1]
    return [*head, f"[... {len(unique) - len(head) - last} more lines]", *unique[len(unique) - last :]]


def _clip(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 3] + "..."


def _matching(lines: Iterable[str], pattern: re.Pattern[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if pattern.search(line)]


# Parsers ---------------------------------------------------------------------------------------------------


def _pytest(lines: list[str]) -> _Found | None:
    ids = [(i, m) for i, line in enumerate(lines) if (m := _PYTEST_ID.match(line))]
    sections = [(i, m) for i, line in enumerate(lines) if (m := _PYTEST_SECTION.match(line))]
    e_lines = _matching(lines, _PYTEST_E)
    if not ids and not (sections and e_lines):
        return None
    names = [m.group(2) for _, m in ids] or [m.group(1) for _, m in sections]
    picked = [i for i, _ in ids] + [i for i, _ in sections]
    picked += _first_per_section(e_lines, [i for i, _ in sections], E_LINES_PER_FAILURE)
    picked += _matching(lines, _PYTEST_WHERE) + _matching(lines, _PYTEST_TOTALS)
    return _Found(names, picked)


def _first_per_section(indexes: list[int], starts: list[int], limit: int) -> list[int]:
    kept: list[int] = []
    counts: dict[int, int] = {}
    for index in indexes:
        section = max((s for s in starts if s < index), default=-1)
        counts[section] = counts.get(section, 0) + 1
        if counts[section] <= limit:
            kept.append(index)
    return kept


def _unittest(lines: list[str]) -> _Found | None:
    ids = [(i, m) for i, line in enumerate(lines) if (m := _UNITTEST_ID.match(line))]
    if not ids:
        return None
    names = [_unittest_name(m.group(2), m.group(3)) for _, m in ids]
    picked = [i for i, _ in ids] + _matching(lines, _UNITTEST_TOTALS)
    starts = [i for i, _ in ids] + [len(lines)]
    for start, end in itertools.pairwise(starts):
        picked += _last_exception(lines, start, end)
    return _Found(names, picked)


def _unittest_name(method: str, where: str) -> str:
    # Python 3.11 prints `test_x (module.Class.test_x)`; older versions `test_x (module.Class)`.
    return where if where.endswith(f".{method}") else f"{where}.{method}"


def _last_exception(lines: list[str], start: int, end: int) -> list[int]:
    """The exception line of a traceback block and the `File ..., line N` line before it."""
    exceptions = [i for i in range(start + 1, end) if _EXCEPTION.match(lines[i])]
    if not exceptions:
        return []
    last = exceptions[-1]
    files = [i for i in range(start + 1, last) if _PY_FILE.match(lines[i])]
    return [*files[-1:], last]


def _go(lines: list[str]) -> _Found | None:
    fails = [(i, m) for i, line in enumerate(lines) if (m := _GO_FAIL.match(line))]
    if not fails:
        return None
    picked = [i for i, _ in fails] + _matching(lines, _GO_MESSAGE) + _matching(lines, _GO_OTHER)
    return _Found([m.group(1) for _, m in fails], picked)


def _cargo(lines: list[str]) -> _Found | None:
    fails = [(i, m) for i, line in enumerate(lines) if (m := _CARGO_FAIL.match(line))]
    if not fails:
        return None
    picked = [i for i, _ in fails] + _matching(lines, _CARGO_TOTALS)
    for panic in _matching(lines, _CARGO_PANIC):
        picked.append(panic)
        # The panic's message follows it, up to the backtrace or a blank line.
        for i in range(panic + 1, min(panic + 6, len(lines))):
            if not lines[i].strip() or lines[i].startswith(("stack backtrace:", "note:")):
                break
            picked.append(i)
    return _Found([m.group(1) for _, m in fails], picked)


def _jest(lines: list[str]) -> _Found | None:
    bullets = [(i, m) for i, line in enumerate(lines) if (m := _JEST_BULLET.match(line))]
    if not bullets:
        return None
    names = []
    for i, m in bullets:
        title = m.group(1).strip()
        if title == "Test suite failed to run":
            suite = next((f.group(1) for j in range(i, -1, -1) if (f := _JEST_FILE.match(lines[j]))), "?")
            title = f"{suite} (test suite failed to run)"
        names.append(title)
    picked = [i for i, _ in bullets] + _matching(lines, _JEST_DETAIL) + _matching(lines, _JEST_FILE)
    return _Found(names, picked)


def _tap(lines: list[str]) -> _Found | None:
    fails = [(i, m) for i, line in enumerate(lines) if (m := _TAP_NOT_OK.match(line))]
    if not fails:
        return None
    picked = [i for i, _ in fails] + _matching(lines, _TAP_DETAIL)
    for start in _matching(lines, _TAP_ERROR_BLOCK):
        # `error: |-` puts the message on the lines below, indented deeper.
        depth = len(lines[start]) - len(lines[start].lstrip())
        for i in range(start + 1, min(start + 5, len(lines))):
            if len(lines[i]) - len(lines[i].lstrip()) <= depth:
                break
            picked.append(i)
    return _Found([m.group(1) for _, m in fails], picked)


def _node(lines: list[str]) -> _Found | None:
    crosses = [(i, m) for i, line in enumerate(lines) if (m := _NODE_CROSS.match(line))]
    if not crosses:
        return None
    picked = [i for i, _ in crosses] + _matching(lines, _NODE_TOTALS)
    picked += [i + 1 for i, _ in crosses if i + 1 < len(lines) and _NODE_ERROR.match(lines[i + 1])]
    return _Found([m.group(1) for _, m in crosses], picked)


def _generic(lines: list[str]) -> list[int]:
    errors = _matching(lines, _ERROR_LINE)[:GENERIC_ERROR_LINES]
    tail = [i for i in range(len(lines)) if lines[i].strip()][-GENERIC_TAIL_LINES:]
    return errors + tail


_PARSERS: tuple[tuple[str, Callable[[list[str]], _Found | None]], ...] = (
    ("pytest", _pytest),
    ("unittest", _unittest),
    ("go", _go),
    ("cargo", _cargo),
    ("jest", _jest),
    ("tap", _tap),
    ("node", _node),
)
