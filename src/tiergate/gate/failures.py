"""How one test failed (`Failure`), and when two failures are the same: their kind and their line
normalised of what differs between two runs (addresses, temporary paths, line numbers, durations). Pure.
"""

from __future__ import annotations

import re

from tiergate.frozen import frozen
from tiergate.text import clip

MAX_LINE_CHARS = 300
TRUNCATION = "..."
_EXCEPTION_NAME = re.compile(
    r"^([A-Za-z_][\w.]*(?:Error|Exception|Failure|Exit|Interrupt|Warning)|Failed)(?::|$)"
)
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
        return same_key(self.key, other.key)

    def describe(self) -> str:
        """`<line>` with its kind when that is not a plain failure: what a person reads."""
        kind = "" if self.kind == "failed" else f" ({self.kind}{f' at {self.where}' if self.where else ''})"
        return f"{self.line or '(no message)'}{kind}"


def normalise(line: str) -> str:
    """`line` without what differs between two runs of the same failure: memory addresses, temporary
    paths, line numbers and durations (and runs of spaces)."""
    for pattern, replacement in _NORMALISE:
        line = pattern.sub(replacement, line)
    return line.strip()


def same_key(a: str, b: str) -> bool:
    if a == b:
        return True
    cut = [k.removesuffix(TRUNCATION).rstrip() for k in (a, b) if k.endswith(TRUNCATION)]
    if not cut:
        return False
    short = min(cut, key=len)
    return all(k.startswith(short) for k in (a, b))


def failure_of(test: str, kind: str, line: str, where: str = "") -> Failure:
    return Failure(test, kind, clipped(line.strip()), normalise(line), where)


def clipped(line: str) -> str:
    return clip(line, MAX_LINE_CHARS, TRUNCATION)
