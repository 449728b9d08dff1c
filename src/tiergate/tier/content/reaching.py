"""Code that reaches into its tests: the mechanisms by which implementation code (not a test, not test
infrastructure) changes the verdict of the tests that run it, and what a project that is itself a testing
tool is excused. Pure. The rules that find them are per language (`reachpython`, `reachjs`, `reachrust`),
read by the `reaching` ecosystem (`reachcode`); see docs/risk.md, "Code that reaches into its tests".

Each hit is architecture (THOROUGH at least), named "reaches into its tests: <mechanism> (<what>)".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import Enum

from tiergate.frozen import frozen
from tiergate.tier.content.patch import FileLines
from tiergate.tier.content.rule import ContentHit
from tiergate.tier.content.testcode import hit, hunks

PREFIX = "reaches into its tests: "


class Mechanism(Enum):
    """How code reaches into its tests; the value is said in the reason."""

    IMPORTS = "the test runner imported by the code"
    PATCHES = "the test runner, its assertions or its machinery patched"
    CALLS = "the test runner called from the code"
    EXITS = "the process made to exit from the code"
    CALLER = "the code inspects its caller"
    READS = "the code reads the test files"
    PRESENCE = "the code branches on the test runner's presence or environment"
    STATE = "an answer from state kept between calls"


# What a testing tool's own code does by nature (a pytest plugin imports pytest, calls `pytest.skip`,
# reads PYTEST_CURRENT_TEST, collects test files, walks frames for its reports): not named in a project
# that was one at its base. Patching the runner still is (unless the base did the same), and so are an
# exit, and state between calls.
TOOLS_DO = frozenset(
    {Mechanism.IMPORTS, Mechanism.CALLS, Mechanism.PRESENCE, Mechanism.READS, Mechanism.CALLER}
)
_SHOWN = re.compile(r"[^A-Za-z0-9_.:$@/*()-]")
_SHOWN_CHARS = 60


def reach(path: str, number: int, mechanism: Mechanism, what: str, text: str) -> ContentHit:
    """A hit on line `number` of `path` (whose text is `text`): `what` names the runner, call or name
    involved, cut to identifier characters (it is the agent's text, in the construct)."""
    shown = _SHOWN.sub("", what)[:_SHOWN_CHARS]
    construct = f"{PREFIX}{mechanism.value}" + (f" ({shown})" if shown else "")
    return hit(path, number, "added", construct, text)


def mechanism_of(construct: str) -> Mechanism | None:
    """The mechanism a hit's construct names, or None for another rule's hit."""
    if not construct.startswith(PREFIX):
        return None
    said = construct[len(PREFIX) :].split(" (", 1)[0]
    return next((m for m in Mechanism if m.value == said), None)


LANGUAGES = ("python", "javascript", "rust")
_SUFFIXES = {
    "python": (".py",),
    "javascript": (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"),
    "rust": (".rs",),
}


def language_of(path: str) -> str | None:
    lowered = path.lower()
    return next((lang for lang, suffixes in _SUFFIXES.items() if lowered.endswith(suffixes)), None)


@frozen
class BaseFacts:
    """What the loop's base commit says, for the hits to be judged against: the languages in which the
    project was a testing tool there (`tools`), and the stripped text of the lines its non-test code held
    among those the hits quote (`lines`: a patch the base made already is not the change's)."""

    tools: frozenset[str] = frozenset()
    lines: frozenset[str] = frozenset()


def excused(
    hits: Iterable[ContentHit], facts: BaseFacts, texts: dict[tuple[str, int], str]
) -> list[ContentHit]:
    """`hits` without those the base excuses: a testing tool's natural mechanisms (`TOOLS_DO`) in a
    language it was one in, and any reaching line whose text (`texts`, by path and line) the base's
    non-test code held already (a line moved, or a patch the base made)."""
    kept: list[ContentHit] = []
    for found in hits:
        mechanism = mechanism_of(found.construct)
        if mechanism is not None:
            if mechanism in TOOLS_DO and language_of(found.path) in facts.tools:
                continue
            if texts.get((found.path, found.line), "").strip() in facts.lines:
                continue
        kept.append(found)
    return kept


def quoted_lines(hits: Iterable[ContentHit], texts: dict[tuple[str, int], str]) -> frozenset[str]:
    """The stripped text of the reaching hits' lines, to look for at the base."""
    return frozenset(
        texts[(h.path, h.line)].strip()
        for h in hits
        if mechanism_of(h.construct) is not None and (h.path, h.line) in texts
    )


def base_position(changed: FileLines, number: int) -> float:
    """Where added line `number` of `changed` stands in the file at the base: the first line its hunk
    replaced, or half a line after the line it was inserted after."""
    shift = 0
    for removed, added in hunks(changed):
        if added is not None and added.number <= number < added.number + len(added.lines):
            return float(removed.number) if removed is not None else added.number - shift - 0.5
        shift += (len(added.lines) if added is not None else 0) - (
            len(removed.lines) if removed is not None else 0
        )
    return float(number - shift)
