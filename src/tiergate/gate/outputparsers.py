"""One parser per test runner (pytest, unittest, go, cargo, jest, TAP, node): the failing tests a
runner's output names, the lines worth showing, and how each test failed (`tiergate.gate.failures`). Pure.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable

from tiergate.frozen import frozen
from tiergate.gate.failures import Failure, failure_of, normalise, same_key

E_LINES_PER_FAILURE = 8

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
_PYTEST_ERROR_SECTION = re.compile(r"^ERROR at (setup|teardown|call) of (.+)$")
_UNITTEST_MARK = {"FAIL": "failed", "ERROR": "error"}
_GO_RUN = re.compile(r"^\s*=== (RUN|CONT|PAUSE|NAME)\s")
_GO_END = re.compile(r"^\s*(--- (FAIL|PASS|SKIP)|=== |FAIL\b|ok\s|PASS$)")
_CARGO_STDOUT = re.compile(r"^---- (\S+) stdout ----$")
_TAP_ANY = re.compile(r"^\s*(not )?ok \d+")


@frozen
class Found:
    names: list[str]
    picked: list[int]  # indexes of the lines worth showing
    failures: list[Failure]


def matching(lines: Iterable[str], pattern: re.Pattern[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if pattern.search(line)]


def _pytest(lines: list[str]) -> Found | None:
    ids = [(i, m) for i, line in enumerate(lines) if (m := _PYTEST_ID.match(line))]
    sections = [(i, m) for i, line in enumerate(lines) if (m := _PYTEST_SECTION.match(line))]
    e_lines = matching(lines, _PYTEST_E)
    if not ids and not (sections and e_lines):
        return None
    names = [m.group(2) for _, m in ids] or [m.group(1) for _, m in sections]
    picked = [i for i, _ in ids] + [i for i, _ in sections]
    picked += _first_per_section(e_lines, [i for i, _ in sections], E_LINES_PER_FAILURE)
    picked += matching(lines, _PYTEST_WHERE) + matching(lines, _PYTEST_TOTALS)
    return Found(names, picked, _pytest_failures(lines, ids, sections))


def _pytest_failures(
    lines: list[str], ids: list[tuple[int, re.Match[str]]], sections: list[tuple[int, re.Match[str]]]
) -> list[Failure]:
    """Per test: the first `E` line of its section when it is the summary's message, uncut (pytest
    cuts summary lines at the terminal's width); else the summary's message. Without summary lines
    (`-r` turned off), the sections' lines."""
    shown: dict[str, tuple[str, str]] = {}  # section title's test -> (first E line, setup/teardown)
    starts = [i for i, _ in sections] + [len(lines)]
    for (start, m), end in zip(sections, starts[1:], strict=True):
        title = m.group(1)
        phase = _PYTEST_ERROR_SECTION.match(title)
        test = phase.group(2) if phase else title
        first = next((lines[i] for i in range(start + 1, end) if _PYTEST_E.match(lines[i])), "")
        where = phase.group(1) if phase and phase.group(1) != "call" else ""
        shown.setdefault(test, (first[1:].strip(), where))
    if not ids:
        return [failure_of(t, "error" if w else "failed", line, where=w) for t, (line, w) in shown.items()]
    failures = []
    for _, m in ids:
        kind = "failed" if m.group(1) == "FAILED" else "error"
        message = m.group(3) or ""
        # The section's title is the node id's test part, with `.` for `::` (`TestX.test_a`).
        line, where = shown.get(m.group(2).split("::", 1)[-1].replace("::", "."), ("", ""))
        if not line or not same_key(normalise(line), normalise(message)):
            line = message  # the section belongs to another failure (or there is none): the summary's
        failures.append(failure_of(m.group(2), kind, line, where=where if kind == "error" else ""))
    return failures


def _first_per_section(indexes: list[int], starts: list[int], limit: int) -> list[int]:
    kept: list[int] = []
    counts: dict[int, int] = {}
    for index in indexes:
        section = max((s for s in starts if s < index), default=-1)
        counts[section] = counts.get(section, 0) + 1
        if counts[section] <= limit:
            kept.append(index)
    return kept


def _unittest(lines: list[str]) -> Found | None:
    ids = [(i, m) for i, line in enumerate(lines) if (m := _UNITTEST_ID.match(line))]
    if not ids:
        return None
    names = [_unittest_name(m.group(2), m.group(3)) for _, m in ids]
    picked = [i for i, _ in ids] + matching(lines, _UNITTEST_TOTALS)
    failures = []
    starts = [i for i, _ in ids] + [len(lines)]
    for (start, end), name, (_, m) in zip(itertools.pairwise(starts), names, ids, strict=True):
        found = _last_exception(lines, start, end)
        picked += found
        line = lines[found[-1]] if found else ""
        failures.append(failure_of(name, _UNITTEST_MARK[m.group(1)], line))
    return Found(names, picked, failures)


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


def _go(lines: list[str]) -> Found | None:
    fails = [(i, m) for i, line in enumerate(lines) if (m := _GO_FAIL.match(line))]
    if not fails:
        return None
    picked = [i for i, _ in fails] + matching(lines, _GO_MESSAGE) + matching(lines, _GO_OTHER)
    failures = [_go_failure(lines, i, m.group(1)) for i, m in fails]
    return Found([m.group(1) for _, m in fails], picked, failures)


def _go_failure(lines: list[str], at: int, name: str) -> Failure:
    """A go test's messages: the lines after its `--- FAIL` (plain `go test`), else those before it
    back to its `=== RUN` (`go test -v` prints them as they come). A panic is an error."""
    after = list(itertools.takewhile(lambda line: not _GO_END.match(line), lines[at + 1 :]))
    if not any(_GO_MESSAGE.match(line) for line in after):
        before = list(itertools.takewhile(lambda line: not _GO_RUN.match(line), reversed(lines[:at])))
        after = before[::-1]
    messages = [line.strip() for line in after if _GO_MESSAGE.match(line) or line.startswith("panic: ")]
    kind = "error" if any(m.startswith("panic: ") for m in messages) else "failed"
    return failure_of(name, kind, "; ".join(messages))


def _cargo(lines: list[str]) -> Found | None:
    fails = [(i, m) for i, line in enumerate(lines) if (m := _CARGO_FAIL.match(line))]
    if not fails:
        return None
    picked = [i for i, _ in fails] + matching(lines, _CARGO_TOTALS)
    messages: dict[str, list[str]] = {}
    test = ""
    for i, line in enumerate(lines):
        if section := _CARGO_STDOUT.match(line):
            test = section.group(1)
        if not _CARGO_PANIC.search(line):
            continue
        picked.append(i)
        # `thread 'x' (id) panicked at src/lib.rs:9:23:` and the message below it (older: on it).
        text = [line.split("panicked at ", 1)[1]]
        for j in range(i + 1, min(i + 6, len(lines))):
            if not lines[j].strip() or lines[j].startswith(("stack backtrace:", "note:")):
                break
            picked.append(j)
            text.append(lines[j].strip())
        messages.setdefault(test, text)
    failures = [failure_of(m.group(1), "failed", " ".join(messages.get(m.group(1), []))) for _, m in fails]
    return Found([m.group(1) for _, m in fails], picked, failures)


def _jest(lines: list[str]) -> Found | None:
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
    picked = [i for i, _ in bullets] + matching(lines, _JEST_DETAIL) + matching(lines, _JEST_FILE)
    failures = []
    ends = [i for i, _ in bullets[1:]] + [len(lines)]
    for (start, _), end, name in zip(bullets, ends, names, strict=True):
        block = [line.strip() for line in lines[start + 1 : end] if line.strip()]
        details = [line for line in block if _JEST_DETAIL.match(line) and not line.startswith("Tests:")]
        # A suite that failed to run says why on its first line (a missing module, a syntax error).
        kind = "error" if name.endswith("(test suite failed to run)") else "failed"
        failures.append(failure_of(name, kind, "; ".join(details or block[:1])))
    return Found(names, picked, failures)


def _tap(lines: list[str]) -> Found | None:
    fails = [(i, m) for i, line in enumerate(lines) if (m := _TAP_NOT_OK.match(line))]
    if not fails:
        return None
    picked = [i for i, _ in fails] + matching(lines, _TAP_DETAIL)
    errors: dict[int, list[str]] = {}  # line of the error -> its text
    for i in matching(lines, _TAP_DETAIL):
        if lines[i].strip().startswith("error: "):
            errors[i] = [lines[i].strip().removeprefix("error: ")]
    for start in matching(lines, _TAP_ERROR_BLOCK):
        # `error: |-` puts the message on the lines below, indented deeper.
        depth = len(lines[start]) - len(lines[start].lstrip())
        errors[start] = []
        for i in range(start + 1, min(start + 5, len(lines))):
            if len(lines[i]) - len(lines[i].lstrip()) <= depth:
                break
            picked.append(i)
            errors[start].append(lines[i].strip())
    failures = []
    for i, m in fails:
        # node's TAP puts a test's YAML block after its `not ok` line, before the next test.
        end = next((j for j in range(i + 1, len(lines)) if _TAP_ANY.match(lines[j])), len(lines))
        text = [" ".join(errors[j]) for j in sorted(errors) if i < j < end]
        failures.append(failure_of(m.group(1), "failed", "; ".join(text)))
    return Found([m.group(1) for _, m in fails], picked, failures)


def _node(lines: list[str]) -> Found | None:
    crosses = [(i, m) for i, line in enumerate(lines) if (m := _NODE_CROSS.match(line))]
    if not crosses:
        return None
    picked = [i for i, _ in crosses] + matching(lines, _NODE_TOTALS)
    failures = []
    for i, m in crosses:
        error = i + 1 < len(lines) and _NODE_ERROR.match(lines[i + 1])
        if error:
            picked.append(i + 1)
        failures.append(failure_of(m.group(1), "failed", lines[i + 1] if error else ""))
    return Found([m.group(1) for _, m in crosses], picked, failures)


PARSERS: tuple[tuple[str, Callable[[list[str]], Found | None]], ...] = (
    ("pytest", _pytest),
    ("unittest", _unittest),
    ("go", _go),
    ("cargo", _cargo),
    ("jest", _jest),
    ("tap", _tap),
    ("node", _node),
)
