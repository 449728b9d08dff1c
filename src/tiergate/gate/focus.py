"""A failing output's lines split in two: those about the tests given (the new failures) first, the rest
after, each bounded (`tiergate.gate.output` picks them). Pure text.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from tiergate.frozen import frozen
from tiergate.gate.failures import clipped
from tiergate.gate.output import MAX_LINES, bounded, clean_lines, parsed


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
    _, names, picked, _ = parsed(lines)
    owners = _owners(lines, list(dict.fromkeys(names)))
    wanted = set(tests)
    first = [clipped(lines[i]) for i in sorted(picked) if lines[i].strip() and owners.get(i) in wanted]
    rest = [clipped(lines[i]) for i in sorted(picked) if lines[i].strip() and owners.get(i) not in wanted]
    first = list(dict.fromkeys(first))
    rest = [line for line in dict.fromkeys(rest) if line not in first]
    # The new failures get the room they need, but for a few lines of the rest (the totals among them),
    # which is trimmed: its failures are the baseline's, and the check's block already names them.
    kept_first = bounded(first, max(1, max_lines - min(len(rest), REST_LINES)))
    room_rest = max(1, min(REST_LINES, max_lines - len(kept_first)))
    return Focused(tuple(kept_first), tuple(bounded(rest, room_rest)))


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
