"""Which tests ran, read from a test runner's plain output: its totals line, and the tests it names.

Used where the runner wrote no report (`tiergate.gate.testreports`), and to check a report against what
the runner printed. See docs/judging.md, "Each test's outcome". Pure text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tiergate.gate.output import clean_lines
from tiergate.gate.pertest.record import TestOutcome, TestRun, outcome_of

# What each runner prints for an outcome, in its totals or beside a test; no two runners disagree.
_SAID: dict[str, TestOutcome] = {
    **dict.fromkeys(("PASSED", "PASS", "ok", "pass", "passed"), "passed"),
    **dict.fromkeys(("FAILED", "FAIL", "fail", "failed", "failures"), "failed"),
    **dict.fromkeys(("ERROR", "errors", "cancelled"), "error"),
    **dict.fromkeys(("SKIPPED", "SKIP", "skipped", "ignored"), "skipped"),
    **dict.fromkeys(("XFAIL", "expected failure", "expected failures", "todo", "TODO"), "xfailed"),
    **dict.fromkeys(("XPASS", "unexpected success", "unexpected successes"), "xpassed"),
}
_PYTEST_TOTALS = re.compile(
    r"^=*\s*((?:\d+ (?:failed|passed|skipped|deselected|xfailed|xpassed|errors?|warnings?|rerun|"
    r"subtests? \w+)(?:, )?)+|no tests ran)(?: in [\d.]+s(?: \([^)]*\))?)?\s*=*$"
)
_PYTEST_COUNT = re.compile(r"(\d+) (failed|passed|skipped|deselected|xfailed|xpassed|errors?)\b")
_PYTEST_VERBOSE = re.compile(r"^(\S+::\S+(?:\[.*?\])?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b")
_PYTEST_SUMMARY = re.compile(r"^(FAILED|ERROR|XFAIL|XPASS) (\S+::\S+)")
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in ")
_UNITTEST_END = re.compile(r"^(OK|FAILED)(?: \((.*)\))?$")
_UNITTEST_LINE = re.compile(
    r"^(\w+) \(([\w.]+)\) \.\.\. (ok|FAIL|ERROR|skipped\b.*|expected failure|unexpected success)$"
)
_NODE_TOTAL = re.compile(r"^(?:\u2139|#) (tests|pass|fail|cancelled|skipped|todo) (\d+)$")
_TAP_LINE = re.compile(r"^\s*(not )?ok \d+ - (.+?)(?:\s+#\s*(SKIP|TODO)\b.*)?$")
_SPEC_LINE = re.compile(r"^\s*(\u2714|\u2716|\ufe63) (.+?) \(\d[\d.]*m?s\)(?: # (SKIP|TODO)\b.*)?$")
_CARGO_RESULT = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored;")
# What each test binary (and the doctests) prints before its tests: one without its result ended early.
_CARGO_RUNNING = re.compile(r"^running \d+ tests?$")
# A test's id (a doctest's has spaces: `src/lib.rs - mul (line 3)`), without what `#[should_panic]` adds to
# it: a test the change marks so is the same test, which passes now only because it panics.
_CARGO_LINE = re.compile(r"^test (.+?)(?: - should panic)? \.\.\. (ok|FAILED|ignored)\b")
_GO_LINE = re.compile(r"^\s*--- (PASS|FAIL|SKIP): (\S+)")
_GO_NOTHING = re.compile(r"^(?:ok\s+\S+.*\[no tests to run\]|\?\s+\S+\s+\[no test files\])$")
_GO_PACKAGE = re.compile(r"^(?:ok|FAIL)\s+\S+\s+[\d.]+s")
_JEST_TOTALS = re.compile(r"^Tests:\s+(.*\d+ total)$")
_JEST_COUNT = re.compile(r"(\d+) (failed|skipped|passed|todo)\b")


def from_output(output: str) -> TestRun | None:
    """The record of the first runner (in the order of `_READERS`) whose totals the output shows; None when
    no runner's totals are there."""
    lines = clean_lines(output)
    for read in _READERS:
        found = read(lines)
        if found is not None:
            return found
    return None


def _record(
    naming: str, outcomes: dict[str, TestOutcome], counts: dict[TestOutcome, int], *, finished: bool = True
) -> TestRun:
    listed = sum(1 for o in outcomes.values() if o != "deselected")
    shown = sum(n for o, n in counts.items() if o != "deselected")
    complete = bool(outcomes) and listed == shown and finished
    source = f"{naming.removesuffix(' output')} output"
    return TestRun(source, naming, tuple(outcomes.items()), complete, tuple(counts.items()), finished)


def _pytest(lines: list[str]) -> TestRun | None:
    totals = [line for line in lines if _PYTEST_TOTALS.match(line)]
    if not totals:
        return None
    counts: dict[TestOutcome, int] = {}
    for number, word in _PYTEST_COUNT.findall(totals[-1]):
        counts[outcome_of("error" if word.startswith("error") else word)] = int(number)
    outcomes: dict[str, TestOutcome] = {}
    for line in lines:
        if found := _PYTEST_VERBOSE.match(line) or _PYTEST_SUMMARY.match(line):
            verbose = found.re is _PYTEST_VERBOSE
            test, mark = found.group(1, 2) if verbose else found.group(2, 1)
            outcomes.setdefault(test, _SAID[mark])
    return _record("pytest", outcomes, counts)


def _unittest(lines: list[str]) -> TestRun | None:
    ran = [int(m.group(1)) for line in lines if (m := _UNITTEST_RAN.match(line))]
    if not ran and "NO TESTS RAN" not in lines:
        return None
    counts: dict[TestOutcome, int] = {}
    ends = [m for line in lines if (m := _UNITTEST_END.match(line))]
    for part in (ends[-1].group(2) or "").split(", ") if ends else ():
        word, _, number = part.partition("=")
        if word in _SAID and number.isdigit():
            counts[_SAID[word]] = int(number)
    total = ran[-1] if ran else 0
    counts["passed"] = max(0, total - sum(counts.values()))
    outcomes: dict[str, TestOutcome] = {}
    for line in lines:
        if found := _UNITTEST_LINE.match(line):
            method, where, said = found.groups()
            name = where if where.endswith(f".{method}") else f"{where}.{method}"
            outcomes[name] = _unittest_outcome(said)
    return _record("unittest", outcomes, counts)


def _unittest_outcome(said: str) -> TestOutcome:
    if said.startswith("skipped"):
        return "skipped"
    return _SAID.get(said, "xpassed")


def _node(lines: list[str]) -> TestRun | None:
    totals = {m.group(1): int(m.group(2)) for line in lines if (m := _NODE_TOTAL.match(line))}
    if "tests" not in totals or "pass" not in totals:
        return None
    counts = {_SAID[word]: n for word, n in totals.items() if word != "tests" and n}
    outcomes: dict[str, TestOutcome] = {}
    for line in lines:
        if found := _TAP_LINE.match(line):
            failed, name, directive = found.groups()
            outcomes.setdefault(name, _node_outcome(not failed, directive))
        elif found := _SPEC_LINE.match(line):
            mark, name, directive = found.groups()
            outcomes.setdefault(name, _node_outcome(mark != "\u2716", directive))
    # Names without their file or suite: not the report's ids, so never compared with them.
    return _record("node output", outcomes, counts)


def _node_outcome(passed: bool, directive: str | None) -> TestOutcome:
    if directive == "SKIP":
        return "skipped"
    if directive == "TODO":
        return "xfailed"
    return "passed" if passed else "failed"


def _cargo(lines: list[str]) -> TestRun | None:
    results = [m for line in lines if (m := _CARGO_RESULT.match(line))]
    if not results:
        return None
    counts: dict[TestOutcome, int] = {
        "passed": sum(int(m.group(1)) for m in results),
        "failed": sum(int(m.group(2)) for m in results),
        "skipped": sum(int(m.group(3)) for m in results),
    }
    outcomes = {m.group(1): _SAID[m.group(2)] for line in lines if (m := _CARGO_LINE.match(line))}
    # A test binary that began and printed no result ended early (`process::exit` in the code it tests).
    finished = sum(1 for line in lines if _CARGO_RUNNING.match(line)) <= len(results)
    return _record("cargo", outcomes, {k: v for k, v in counts.items() if v}, finished=finished)


def _go(lines: list[str]) -> TestRun | None:
    outcomes = {m.group(2): _SAID[m.group(1)] for line in lines if (m := _GO_LINE.match(line))}
    if outcomes:
        counts: dict[TestOutcome, int] = {}
        for outcome in outcomes.values():
            counts[outcome] = counts.get(outcome, 0) + 1
        # Plain `go test` names only its failures, and a package that passed says `ok` with no count.
        verbose = any(o != "failed" for o in outcomes.values())
        record = _record("go", outcomes, counts)
        return record if verbose else TestRun(record.source, "go", record.outcomes, False, record.counts)
    packages = [line for line in lines if _GO_PACKAGE.match(line) or _GO_NOTHING.match(line)]
    if packages and all(_GO_NOTHING.match(line) for line in packages):
        return TestRun("go output", "go", (), True)  # not one package had a test to run
    return None


def _jest(lines: list[str]) -> TestRun | None:
    totals = [m.group(1) for line in lines if (m := _JEST_TOTALS.match(line.strip()))]
    if not totals:
        return None
    counts = {_SAID[w]: int(n) for n, w in _JEST_COUNT.findall(totals[-1])}
    return TestRun("jest output", "jest", (), False, tuple(counts.items()))


_READERS: tuple[Callable[[list[str]], TestRun | None], ...] = (_pytest, _unittest, _node, _cargo, _go, _jest)
