"""What helps in a failing check's output: the failing tests' names and how each failed.

One parser per test runner (pytest, unittest, go, cargo, jest, TAP, node); output none recognises keeps
its error-looking lines. Two failures are the same when their kind and normalised line are, which is
what the baseline comparison needs. See docs/judging.md, "Reading a check's output". Pure text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection, Iterable

from tiergate.frozen import frozen
from tiergate.text import clip

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
_PYTEST_ERROR_SECTION = re.compile(r"^ERROR at (setup|teardown|call) of (.+)$")
_UNITTEST_MARK = {"FAIL": "failed", "ERROR": "error"}
_EXCEPTION_NAME = re.compile(
    r"^([A-Za-z_][\w.]*(?:Error|Exception|Failure|Exit|Interrupt|Warning)|Failed)(?::|$)"
)
_GO_RUN = re.compile(r"^\s*=== (RUN|CONT|PAUSE|NAME)\s")
_GO_END = re.compile(r"^\s*(--- (FAIL|PASS|SKIP)|=== |FAIL\b|ok\s|PASS$)")
_CARGO_STDOUT = re.compile(r"^---- (\S+) stdout ----$")
_TAP_ANY = re.compile(r"^\s*(not )?ok \d+")
# What differs between two runs of the same failure: the normaliser's rules, in order.
_NORMALISE = (
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "0x?"),
    # An address whose repr pytest cut in the middle keeps only its last digits: `<object obje...7fcc54db70>`.
    (re.compile(r"(?<=\.\.\.)[0-9a-fA-F]{6,}\b"), "?"),
    (re.compile(r"(?:/private)?(?:/tmp|/var/folders|/var/tmp)/\S*|\S*pytest-of-[^\s/]+/\S*"), "<tmp>"),
    (re.compile(r"(\.[A-Za-z]\w*)(?::\d+)+\b"), r"\1:<n>"),
    (re.compile(r"\b(line|lines|at line) \d+\b"), r"\1 <n>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds|m|min)\b"), "<t>"),
    # pytest-xdist's worker names: which worker runs a test is the scheduler's doing, so a test that
    # crashes its worker ("worker 'gw0' crashed while running ...") names another one from run to run.
    (re.compile(r"\bgw\d+\b"), "gw?"),
    (re.compile(r"\s+"), " "),
)
TRUNCATION = "..."
_ERROR_LINE = re.compile(
    r"((^|\s)(error|fatal)(\[\w+\])?:|\berror (TS|CS)\d+|^\s*--> \S+:\d+|^\S+:\d+(:\d+)?: |[A-Za-z]+Error\b)",
    re.IGNORECASE,
)


@frozen
class Failure:
    """How one test failed, or (`test` empty) one failure line of an output that names no tests."""

    test: str
    kind: str  # "failed" or "error"
    line: str  # its message or assertion line, as shown ("" when the output carries none)
    key: str  # what is compared: the line, normalised
    where: str = ""  # pytest: "setup" or "teardown" for an error outside the test itself

    @property
    def exception(self) -> str:
        """The exception's type, when the line starts with it ("AssertionError" for a bare `assert`)."""
        if self.key.startswith("assert "):
            return "AssertionError"
        found = _EXCEPTION_NAME.match(self.key)
        return found.group(1) if found else ""

    def same_as(self, other: Failure) -> bool:
        """The same kind, exception and normalised message. A message the runner cut short (`...`)
        matches a message that goes on the same way: two runs may cut at different places."""
        if self.kind != other.kind or self.where != other.where:
            return False
        if self.exception and other.exception and self.exception != other.exception:
            return False
        return _same_key(self.key, other.key)

    def describe(self) -> str:
        """`<line>` with its kind when that is not a plain failure: what a person reads."""
        kind = "" if self.kind == "failed" else f" ({self.kind}{f' at {self.where}' if self.where else ''})"
        return f"{self.line or '(no message)'}{kind}"


@frozen
class OutputSummary:
    runners: tuple[str, ...]  # the parsers that recognised the output; empty: generic
    failed_tests: tuple[str, ...]  # in the order met, without repeats
    lines: tuple[str, ...]  # what a person (or a model) should read first, in output order
    # How each failing test failed (the first seen per name); for generic output, its failure lines.
    failures: tuple[Failure, ...] = ()


@frozen
class _Found:
    names: list[str]
    picked: list[int]  # indexes of the lines worth showing
    failures: list[Failure]


def normalise(line: str) -> str:
    """`line` without what differs between two runs of the same failure: memory addresses, temporary
    paths, line numbers and durations (and runs of spaces)."""
    for pattern, replacement in _NORMALISE:
        line = pattern.sub(replacement, line)
    return line.strip()


def _same_key(a: str, b: str) -> bool:
    if a == b:
        return True
    cut = [k.removesuffix(TRUNCATION).rstrip() for k in (a, b) if k.endswith(TRUNCATION)]
    if not cut:
        return False
    short = min(cut, key=len)
    return all(k.startswith(short) for k in (a, b))


def _failure(test: str, kind: str, line: str, where: str = "") -> Failure:
    return Failure(test, kind, _clip(line.strip()), normalise(line), where)


def clean_lines(output: str) -> list[str]:
    """Lines without colour codes; of a line redrawn with carriage returns, what was drawn last."""
    lines = output.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    # Not splitlines(): it would split at every carriage return, keeping each redrawn state.
    return [_ANSI.sub("", line.rstrip("\r")).rsplit("\r", 1)[-1].rstrip() for line in lines]


def summarize(output: str, max_lines: int = MAX_LINES) -> OutputSummary:
    lines = clean_lines(output)
    runners, names, picked, failures = _pick(lines)
    shown = [_clip(lines[i]) for i in sorted(picked) if lines[i].strip()]
    return OutputSummary(
        tuple(runners),
        tuple(dict.fromkeys(names)),
        tuple(_bounded(shown, max_lines)),
        tuple(failures.values()),
    )


def _pick(lines: list[str]) -> tuple[list[str], list[str], set[int], dict[str, Failure]]:
    """The runners that recognised `lines`, the failing tests' names, the indexes of the lines worth
    showing, and the failures by test (by normalised line for output that names no tests)."""
    runners: list[str] = []
    names: list[str] = []
    picked: set[int] = set()
    failures: dict[str, Failure] = {}
    for runner, parse in _PARSERS:
        found = parse(lines)
        if found is not None:
            runners.append(runner)
            names += found.names
            picked.update(found.picked)
            for failure in found.failures:
                failures.setdefault(failure.test, failure)
    if not runners:
        errors = _matching(lines, _ERROR_LINE)[:GENERIC_ERROR_LINES]
        picked = set(errors + _tail(lines))
        for i in errors:
            # Keyed by the normalised line: the same error printed twice is one failure.
            failure = _failure("", "failed", lines[i])
            failures.setdefault(failure.key, failure)
    return runners, names, picked, failures


@frozen
class Focused:
    """A failing output's lines split in two: those about the given tests (the new failures), and the
    rest (failures the baseline had too, totals), each bounded."""

    first: tuple[str, ...]
    rest: tuple[str, ...]


def focus(output: str, tests: Collection[str], max_lines: int = MAX_LINES) -> Focused:
    """The lines `summarize` shows, those about `tests` first: a runner prints its failures in its own
    order (pytest: the setup errors before the failures), and thirty old setup errors must not bury,
    or push out, the one new assertion. A line is about the test whose name it is under: from a line
    naming a failing test (a section's title, a summary line) to the next line naming one."""
    lines = clean_lines(output)
    _, names, picked, _ = _pick(lines)
    owners = _owners(lines, list(dict.fromkeys(names)))
    wanted = set(tests)
    first = [_clip(lines[i]) for i in sorted(picked) if lines[i].strip() and owners.get(i) in wanted]
    rest = [_clip(lines[i]) for i in sorted(picked) if lines[i].strip() and owners.get(i) not in wanted]
    first = list(dict.fromkeys(first))
    rest = [line for line in dict.fromkeys(rest) if line not in first]
    # The new failures get the room they need, but for a few lines of the rest (the totals among them),
    # which is trimmed: its failures are the baseline's, and the check's block already names them.
    kept_first = _bounded(first, max(1, max_lines - min(len(rest), REST_LINES)))
    room_rest = max(1, min(REST_LINES, max_lines - len(kept_first)))
    return Focused(tuple(kept_first), tuple(_bounded(rest, room_rest)))


REST_LINES = 12


def _owners(lines: list[str], names: list[str]) -> dict[int, str]:
    """Each line's test: the failing test named last at or above it (none above the first name)."""
    patterns = [(name, _name_pattern(name)) for name in names]
    owners: dict[int, str] = {}
    current: str | None = None
    for i, line in enumerate(lines):
        named = [name for name, pattern in patterns if pattern.search(line)]
        if named:
            # The longest name that matches: `test_a` is in `test_a_b`'s line only as a word of it.
            current = max(named, key=len)
        if current is not None:
            owners[i] = current
    return owners


def _name_pattern(name: str) -> re.Pattern[str]:
    """A failing test's name as a line shows it: its full id, or its last part (pytest's section
    titles drop the file, `Class.test` for `Class::test`; unittest names the method first)."""
    last = re.split(r"::|\s>\s", name)[-1].strip()
    if re.fullmatch(r"[\w.]+", last):
        last = last.rsplit(".", 1)[-1]
    alternatives = {re.escape(name), re.escape(last)}
    return re.compile(rf"(?<!\w)(?:{'|'.join(sorted(alternatives, key=len, reverse=True))})(?![\w])")


def _bounded(lines: list[str], max_lines: int) -> list[str]:
    """At most `max_lines` lines, without repeats: the first ones, and the last few (the totals)."""
    unique = list(dict.fromkeys(lines))
    if len(unique) <= max_lines:
        return unique
    last = min(3, max_lines // 4)
    head = unique[: max_lines - last - 1]
    return [*head, f"[... {len(unique) - len(head) - last} more lines]", *unique[len(unique) - last :]]


def _clip(line: str) -> str:
    return clip(line, MAX_LINE_CHARS, TRUNCATION)


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
    return _Found(names, picked, _pytest_failures(lines, ids, sections))


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
        return [_failure(t, "error" if w else "failed", line, where=w) for t, (line, w) in shown.items()]
    failures = []
    for _, m in ids:
        kind = "failed" if m.group(1) == "FAILED" else "error"
        message = m.group(3) or ""
        # The section's title is the node id's test part, with `.` for `::` (`TestX.test_a`).
        line, where = shown.get(m.group(2).split("::", 1)[-1].replace("::", "."), ("", ""))
        if not line or not _same_key(normalise(line), normalise(message)):
            line = message  # the section belongs to another failure (or there is none): the summary's
        failures.append(_failure(m.group(2), kind, line, where=where if kind == "error" else ""))
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


def _unittest(lines: list[str]) -> _Found | None:
    ids = [(i, m) for i, line in enumerate(lines) if (m := _UNITTEST_ID.match(line))]
    if not ids:
        return None
    names = [_unittest_name(m.group(2), m.group(3)) for _, m in ids]
    picked = [i for i, _ in ids] + _matching(lines, _UNITTEST_TOTALS)
    failures = []
    starts = [i for i, _ in ids] + [len(lines)]
    for (start, end), name, (_, m) in zip(itertools.pairwise(starts), names, ids, strict=True):
        found = _last_exception(lines, start, end)
        picked += found
        line = lines[found[-1]] if found else ""
        failures.append(_failure(name, _UNITTEST_MARK[m.group(1)], line))
    return _Found(names, picked, failures)


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
    failures = [_go_failure(lines, i, m.group(1)) for i, m in fails]
    return _Found([m.group(1) for _, m in fails], picked, failures)


def _go_failure(lines: list[str], at: int, name: str) -> Failure:
    """A go test's messages: the lines after its `--- FAIL` (plain `go test`), else those before it
    back to its `=== RUN` (`go test -v` prints them as they come). A panic is an error."""
    after = list(itertools.takewhile(lambda line: not _GO_END.match(line), lines[at + 1 :]))
    if not any(_GO_MESSAGE.match(line) for line in after):
        before = list(itertools.takewhile(lambda line: not _GO_RUN.match(line), reversed(lines[:at])))
        after = before[::-1]
    messages = [line.strip() for line in after if _GO_MESSAGE.match(line) or line.startswith("panic: ")]
    kind = "error" if any(m.startswith("panic: ") for m in messages) else "failed"
    return _failure(name, kind, "; ".join(messages))


def _cargo(lines: list[str]) -> _Found | None:
    fails = [(i, m) for i, line in enumerate(lines) if (m := _CARGO_FAIL.match(line))]
    if not fails:
        return None
    picked = [i for i, _ in fails] + _matching(lines, _CARGO_TOTALS)
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
    failures = [_failure(m.group(1), "failed", " ".join(messages.get(m.group(1), []))) for _, m in fails]
    return _Found([m.group(1) for _, m in fails], picked, failures)


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
    failures = []
    ends = [i for i, _ in bullets[1:]] + [len(lines)]
    for (start, _), end, name in zip(bullets, ends, names, strict=True):
        block = [line.strip() for line in lines[start + 1 : end] if line.strip()]
        details = [line for line in block if _JEST_DETAIL.match(line) and not line.startswith("Tests:")]
        # A suite that failed to run says why on its first line (a missing module, a syntax error).
        kind = "error" if name.endswith("(test suite failed to run)") else "failed"
        failures.append(_failure(name, kind, "; ".join(details or block[:1])))
    return _Found(names, picked, failures)


def _tap(lines: list[str]) -> _Found | None:
    fails = [(i, m) for i, line in enumerate(lines) if (m := _TAP_NOT_OK.match(line))]
    if not fails:
        return None
    picked = [i for i, _ in fails] + _matching(lines, _TAP_DETAIL)
    errors: dict[int, list[str]] = {}  # line of the error -> its text
    for i in _matching(lines, _TAP_DETAIL):
        if lines[i].strip().startswith("error: "):
            errors[i] = [lines[i].strip().removeprefix("error: ")]
    for start in _matching(lines, _TAP_ERROR_BLOCK):
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
        failures.append(_failure(m.group(1), "failed", "; ".join(text)))
    return _Found([m.group(1) for _, m in fails], picked, failures)


def _node(lines: list[str]) -> _Found | None:
    crosses = [(i, m) for i, line in enumerate(lines) if (m := _NODE_CROSS.match(line))]
    if not crosses:
        return None
    picked = [i for i, _ in crosses] + _matching(lines, _NODE_TOTALS)
    failures = []
    for i, m in crosses:
        error = i + 1 < len(lines) and _NODE_ERROR.match(lines[i + 1])
        if error:
            picked.append(i + 1)
        failures.append(_failure(m.group(1), "failed", lines[i + 1] if error else ""))
    return _Found([m.group(1) for _, m in crosses], picked, failures)


def _tail(lines: list[str]) -> list[int]:
    return [i for i in range(len(lines)) if lines[i].strip()][-GENERIC_TAIL_LINES:]


_PARSERS: tuple[tuple[str, Callable[[list[str]], _Found | None]], ...] = (
    ("pytest", _pytest),
    ("unittest", _unittest),
    ("go", _go),
    ("cargo", _cargo),
    ("jest", _jest),
    ("tap", _tap),
    ("node", _node),
)
