"""What a test check's run shows beyond its exit status: its tests, and whether they are evidence.

An exit 0 with failing tests, a report with fewer failures than the runner's totals or never finished,
or one that disagrees with what the tests streamed to the gate as they ran, fails the check; a run where
not one test ran is no evidence (`no_tests`). See docs/judging.md, "Each test's outcome". Pure.
"""

from __future__ import annotations

from dataclasses import replace

from tiergate.gate.checks import CheckResult
from tiergate.gate.pertest.record import FAILING, TestRun
from tiergate.text import listed, plural

NAMES_SHOWN = 10


def with_tests(result: CheckResult, report: TestRun | None, printed: TestRun | None) -> CheckResult:
    """`result` with its tests (`report` when there is one, else `printed`, read from its output),
    its status and reason corrected by what they show."""
    tests = report if report is not None else printed
    if tests is None or result.status not in ("passed", "failed"):
        return replace(result, tests=tests)
    reason = _not_a_pass(result, tests, printed)
    if reason:
        return replace(result, tests=tests, status="failed", reason=reason)
    if tests.finished and tests.ran == 0 and tests.failing == 0:
        why = f"ran no test ({tests.describe_counts()}, from its {tests.source}): no evidence"
        return replace(result, tests=tests, status="no_tests", reason=why)
    return replace(result, tests=tests)


def _not_a_pass(result: CheckResult, tests: TestRun, printed: TestRun | None) -> str:
    """Why a run that its exit status or its report calls passed is failed ("" when it is not)."""
    exit_text = "" if result.status == "failed" else "exit 0, but "
    if tests.disagrees:
        return f"{exit_text}{tests.disagrees}"
    if printed is not None and tests is not printed and printed.failing > tests.failing:
        return (
            f"{exit_text}its {tests.source} shows {plural(tests.failing, 'failing test')} where the "
            f"runner's own totals say {printed.failing}: the report is not evidence of a pass"
        )
    if result.status == "failed":
        return ""
    if not tests.finished:
        return f"exit 0, but its {tests.source} was begun and never finished: the run ended early"
    if tests.failing:
        return f"exit 0, but {plural(tests.failing, 'test')} failed{_names(tests)} (from its {tests.source})"
    return ""


def _names(tests: TestRun) -> str:
    names = tests.named(FAILING)
    if not names:
        return ""
    return ": " + listed(names, NAMES_SHOWN)
