"""The TEST CHANGES block of a verifier's packet: the changed lines of the tests and test infrastructure the
change edited, so that every tier's verifier sees what was done to the tests it is asked to trust.

`block` is pure (changed lines in, text out); `of_change` reads a measured change's changed lines. Every
line of the agent's is quoted (`tiergate.text`), after a `|`, so none can start a line of the packet's own.
"""
# What was done to the tests: weakened, skipped, deleted, rewritten expected values, seen without having to
# think of looking. Bounded: a few lines per file and a whole block under `LIMIT` characters, the rest
# counted.

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from tiergate.text import plural, quote_inline, quote_path
from tiergate.tier.content.testfiles import is_test
from tiergate.tier.testnames import names_test_infrastructure

if TYPE_CHECKING:
    from tiergate.tier.change import ChangeMeasurement
    from tiergate.tier.content import FileLines

LIMIT = 2500
LINES_PER_FILE = 12
LINE_CHARS = 160
HEADING = (
    "TEST CHANGES (the changed lines of tests and test infrastructure, old line numbers for '-', new for "
    "'+'). Look for a test deleted, skipped or marked expected-to-fail, an assertion removed, loosened or "
    "made constant, an expected value changed to what the code returns, a hook or config that filters or "
    "rewrites results:"
)


def touches_tests(path: str) -> bool:
    """Whether `path` is a test file or test infrastructure (whose changed lines the block shows)."""
    name = path.rpartition("/")[2]
    return is_test(path) or names_test_infrastructure(name)


def block(files: Sequence[FileLines], limit: int = LIMIT) -> str:
    """The block for `files` (a change's changed lines), "" when it edited no test file."""
    chosen = [f for f in files if touches_tests(f.path) and (f.added_runs or f.removed_runs)]
    if not chosen:
        return ""
    lines = [HEADING]
    size = len(HEADING)
    for at, changed in enumerate(chosen):
        shown = _file_lines(changed)
        if size + sum(len(line) + 1 for line in shown) > limit:
            lines.append(f"- ... and {plural(len(chosen) - at, 'more test file')}")
            break
        lines += shown
        size += sum(len(line) + 1 for line in shown)
    return "\n".join(lines)


def _file_lines(changed: FileLines) -> list[str]:
    removed = list(zip(changed.removed_numbers, changed.removed, strict=True))
    added = list(zip(changed.added_numbers, changed.added, strict=True))
    status = "deleted" if not added else "added" if not removed and added[0][0] == 1 else "edited"
    head = f"- {quote_path(changed.path)} ({status}: {len(removed)} removed, {len(added)} added)"
    marked = [("-", n, t) for n, t in removed] + [("+", n, t) for n, t in added]
    body = [f"  {mark}{n} | {quote_inline(text.strip())[:LINE_CHARS]}" for mark, n, text in marked]
    if len(body) > LINES_PER_FILE:
        body = [*body[:LINES_PER_FILE], f"  ... {plural(len(body) - LINES_PER_FILE, 'more line')}"]
    return [head, *body]


def of_change(change: ChangeMeasurement, limit: int = LIMIT) -> str:
    """The block for a measured change: only its test files' changed lines are read (from its patch, or
    from the disk where untracked), so a claim that touched none reads nothing."""
    tests = tuple(f for f in change.files if touches_tests(f.path))
    if not tests:
        return ""
    from tiergate.tier.changedlines import changed_lines

    return block(changed_lines(replace(change, files=tests)), limit)
