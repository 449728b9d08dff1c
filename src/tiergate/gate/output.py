"""What helps in a failing check's output: the failing tests' names, the lines to read first, and how
each failed. Output no runner's parser recognises (`tiergate.gate.outputparsers`) keeps its error-looking
lines. See docs/judging.md, "Reading a check's output". Pure text.
"""

from __future__ import annotations

import re

from tiergate.frozen import frozen
from tiergate.gate.failures import Failure, clipped, failure_of
from tiergate.gate.outputparsers import PARSERS, matching

MAX_LINES = 40
GENERIC_TAIL_LINES = 15
GENERIC_ERROR_LINES = 20

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_ERROR_LINE = re.compile(
    r"((^|\s)(error|fatal)(\[\w+\])?:|\berror (TS|CS)\d+|^\s*--> \S+:\d+|^\S+:\d+(:\d+)?: |[A-Za-z]+Error\b)",
    re.IGNORECASE,
)


@frozen
class OutputSummary:
    runners: tuple[str, ...]  # the parsers that recognised the output; empty: generic
    failed_tests: tuple[str, ...]  # in the order met, without repeats
    lines: tuple[str, ...]  # what a person (or a model) should read first, in output order
    # How each failing test failed (the first seen per name); for generic output, its failure lines.
    failures: tuple[Failure, ...] = ()


def clean_lines(output: str) -> list[str]:
    """Lines without colour codes; of a line redrawn with carriage returns, what was drawn last."""
    lines = output.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    # Not splitlines(): it would split at every carriage return, keeping each redrawn state.
    return [_ANSI.sub("", line.rstrip("\r")).rsplit("\r", 1)[-1].rstrip() for line in lines]


def summarize(output: str, max_lines: int = MAX_LINES) -> OutputSummary:
    lines = clean_lines(output)
    runners, names, picked, failures = parsed(lines)
    shown = [clipped(lines[i]) for i in sorted(picked) if lines[i].strip()]
    return OutputSummary(
        tuple(runners),
        tuple(dict.fromkeys(names)),
        tuple(bounded(shown, max_lines)),
        tuple(failures.values()),
    )


def parsed(lines: list[str]) -> tuple[list[str], list[str], set[int], dict[str, Failure]]:
    """The runners that recognised `lines`, the failing tests' names, the indexes of the lines worth
    showing, and the failures by test (by normalised line for output that names no tests)."""
    runners: list[str] = []
    names: list[str] = []
    picked: set[int] = set()
    failures: dict[str, Failure] = {}
    for runner, parse in PARSERS:
        found = parse(lines)
        if found is not None:
            runners.append(runner)
            names += found.names
            picked.update(found.picked)
            for failure in found.failures:
                failures.setdefault(failure.test, failure)
    if not runners:
        errors = matching(lines, _ERROR_LINE)[:GENERIC_ERROR_LINES]
        picked = set(errors + _tail(lines))
        for i in errors:
            # Keyed by the normalised line: the same error printed twice is one failure.
            failure = failure_of("", "failed", lines[i])
            failures.setdefault(failure.key, failure)
    return runners, names, picked, failures


def bounded(lines: list[str], max_lines: int) -> list[str]:
    """At most `max_lines` lines, without repeats: the first ones, and the last few (the totals)."""
    unique = list(dict.fromkeys(lines))
    if len(unique) <= max_lines:
        return unique
    last = min(3, max_lines // 4)
    head = unique[: max_lines - last - 1]
    return [*head, f"[... {len(unique) - len(head) - last} more lines]", *unique[len(unique) - last :]]


def _tail(lines: list[str]) -> list[int]:
    return [i for i in range(len(lines)) if lines[i].strip()][-GENERIC_TAIL_LINES:]
