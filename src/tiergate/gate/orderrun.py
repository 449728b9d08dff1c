"""The tests the task is about, run again as a claim's gate run runs them (`tiergate.gate.pertest.order`
says what they are and when they refute): in the claim's copy, after the claim's own run and never beside
it, each alone in a process of its own and all of them together in reverse order, concurrently.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from tiergate.gate.checks import Check, CheckResult
from tiergate.gate.pertest import order
from tiergate.gate.pertest.record import TestRun
from tiergate.gate.pertest.selection import TestSelection
from tiergate.gate.processes import Progress, Running
from tiergate.gate.standing import BaselineEntry
from tiergate.gate.testreports import run_reported

LABEL = "the task's tests again"


def run_again(
    checks: Sequence[Check],
    results: Sequence[CheckResult],
    entries: Mapping[str, BaselineEntry],
    where: tuple[Path, Mapping[str, Mapping[str, str]]],
    *,
    timeout: float,
    progress: Progress | None = None,
) -> tuple[CheckResult, ...]:
    """The runs of the tests each test check's task is about, alone and in reverse order (none when no
    check has such tests). `where`: the folder the checks run in, and what each adds to its environment
    by key."""
    runs = [run for check, tests in _asked(checks, results, entries) for run in _runs(check, tests)]
    if not runs:
        return ()
    cwd, env = where
    return run_reported(
        [again for _, again, _ in runs],
        cwd,
        Running(timeout=timeout, progress=progress, label=LABEL),
        select={again.key: selection for _, again, selection in runs},
        env={again.key: dict(env.get(check.key, {})) for check, again, _ in runs},
    )


def found(
    checks: Sequence[Check],
    results: Sequence[CheckResult],
    entries: Mapping[str, BaselineEntry],
    ran: Sequence[CheckResult],
) -> dict[str, tuple[order.OrderFailure, ...]]:
    """The tests the task is about that pass only in the suite's order, by check key (a check with none
    is left out), from the runs `run_again` made (or kept: matched by key, a run missing shows nothing)."""
    by_key = {r.key: r for r in ran}
    failures = {}
    for check, tests in _asked(checks, results, entries):
        alone: dict[str, TestRun | None] = {}
        reverse = None
        for _, again, selection in _runs(check, tests):
            result = by_key.get(again.key)
            shown = None if result is None else _shown(result)
            if selection.reverse:
                reverse = shown
            else:
                alone[selection.tests[0]] = shown
        failed = order.order_failures(tests, alone, reverse)
        if failed:
            failures[check.key] = failed
    return failures


def _asked(
    checks: Sequence[Check], results: Sequence[CheckResult], entries: Mapping[str, BaselineEntry]
) -> list[tuple[Check, tuple[str, ...]]]:
    """Each test check with the tests its task is about (`order.task_tests`)."""
    by_key = {r.key: r for r in results}
    asked = []
    for check in checks:
        result, entry = by_key.get(check.key), entries.get(check.key)
        if check.kind != "tests" or result is None or entry is None:
            continue
        tests = order.task_tests(entry.result.tests, result.tests)
        if tests:
            asked.append((check, tests))
    return asked


def _runs(check: Check, tests: Sequence[str]) -> list[tuple[Check, Check, TestSelection]]:
    """The runs of `check` again: each of the first tests alone, then all of them in reverse order."""
    alone = [
        (check, replace(check, name=f"{check.name} ({test} alone)"), TestSelection((), (test,)))
        for test in tests[: order.ALONE_AT_MOST]
    ]
    if len(tests) < 2:
        return alone
    reverse = replace(check, name=f"{check.name} (the task's tests in reverse order)")
    return [*alone, (check, reverse, TestSelection((), tuple(tests), reverse=True))]


def _shown(result: CheckResult) -> TestRun | None:
    """The run's tests, when it honoured the selection and ran to its end; None: it shows nothing."""
    tests = result.tests
    if result.status not in ("passed", "failed") or tests is None or not tests.subset:
        return None
    return tests
