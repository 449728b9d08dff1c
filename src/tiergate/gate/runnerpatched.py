"""A test runner replaced while the tests ran: what its report says is not what the tests did. Pure.

tiergate's pytest plugin notes which of pytest's outcome-deciding parts (a test's call, the report,
`pytest.raises`, `skip`, ...) were replaced after it was imported (`pytestoutcomes._RUNNER`). A part
replaced on the claim and not at the loop's base is named, THOROUGH; the same patch at the base is the
project's way. See docs/judging.md, "Each test's outcome".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from tiergate.gate.checks import CheckResult
from tiergate.gate.standing import BaselineEntry
from tiergate.text import listed

SHOWN = 5


def named(results: Sequence[CheckResult], entries: Mapping[str, BaselineEntry]) -> tuple[CheckResult, ...]:
    """`results`, each whose runner was replaced on the claim and not at the base with a reason more."""
    return tuple(_named(r, entries.get(r.key)) for r in results)


def _named(result: CheckResult, entry: BaselineEntry | None) -> CheckResult:
    if result.tests is None or not result.tests.patched:
        return result
    at_base = set(entry.result.tests.patched) if entry is not None and entry.result.tests else set()
    new = [p for p in result.tests.patched if p not in at_base]
    if not new:
        return result
    shown = listed(new, SHOWN, each=lambda p: f"`{p}`")
    reason = (
        f"runner-patched: while check `{result.name}`'s tests ran, {shown} of the test runner was replaced "
        "(not so at the loop's base): what it reported is the replacement's word, not the tests' -> THOROUGH"
    )
    return replace(result, read_outside=(*result.read_outside, reason))
