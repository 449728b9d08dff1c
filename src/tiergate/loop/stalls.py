"""Stall detection: what a loop has seen so far in, the ways it is going round in circles out. Four
signals, each a `Stall` with a reason a person can read: repeated-failure, unchanged-claim, empty-turns,
budget (docs/judging.md, "After a refutation"). A failure's signature is normalised (durations, line
numbers, addresses, temporary paths, commit ids, spacing, case) so that two identical failures look
identical. Pure: the caller fingerprints the workspace and measures the elapsed time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from tiergate import TYPE_CHECKING
from tiergate.frozen import frozen
from tiergate.text import one_line, plural

if TYPE_CHECKING:
    from typing import Literal

    StallKind = Literal["repeated-failure", "unchanged-claim", "empty-turns", "budget"]

# Stalls that say "another try of the same will not differ", as opposed to the budget, which ends the loop.
PROGRESS_STALLS: frozenset[StallKind] = frozenset({"repeated-failure", "unchanged-claim", "empty-turns"})


@frozen
class StallPolicy:
    same_failure: int = 2  # refuted claims in a row with one signature (2: the same failure seen again)
    empty_turns: int = 3  # turns in a row with no claim and no change to the workspace


STALL_POLICY = StallPolicy()


@frozen
class Refutation:
    """A refuted claim: why it failed, as a signature and as prose, and the workspace it was made on."""

    signature: str  # from `signature()`
    fingerprint: str | None
    reason: str = ""


@frozen
class Turn:
    """One turn's end (a Stop): the workspace as it was then, and whether the turn claimed completion."""

    fingerprint: str | None
    claimed: bool = False


@frozen
class Signals:
    """Everything stall detection looks at, oldest first."""

    refutations: tuple[Refutation, ...] = ()
    turns: tuple[Turn, ...] = ()
    start_fingerprint: str | None = None  # the workspace before the first turn
    claim_fingerprint: str | None = None  # the workspace of the claim being judged now, if any
    iteration: int = 1
    max_iterations: int | None = None
    elapsed: float = 0.0
    budget: float | None = None


@frozen
class Stall:
    kind: StallKind
    reason: str


_NOISE = (
    (re.compile(r"0x[0-9a-f]+"), "<addr>"),  # addresses
    (re.compile(r"\b(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b"), "<id>"),  # commit and object ids
    (re.compile(r"(?:/[^\s/:'\"]+)*/(?:tmp|temp|var/folders)/\S*"), "<tmp>"),  # temporary paths
    (re.compile(r"\d+(?:\.\d+)?\s*(?:ms|s|sec|secs|seconds|m|min)\b"), "<time>"),  # durations
    (re.compile(r"\d+"), "#"),  # line numbers, counts, ports, pids
    (re.compile(r"\s+"), " "),
)


def normalise(text: str) -> str:
    """`text` without what varies between two runs of the same failure."""
    out = text.lower()
    for pattern, replacement in _NOISE:
        out = pattern.sub(replacement, out)
    return out.strip()


def signature(checks: Mapping[str, str] | None = None, critique: str | None = None) -> str:
    """The signature of a failure: each failing check's name with its failure detail (the failing test
    names and assertion lines), and the verifier's critique, all normalised. Order does not matter."""
    parts = [f"check {name}: {normalise(detail)}" for name, detail in sorted((checks or {}).items())]
    if critique and critique.strip():
        parts.append(f"critique: {normalise(critique)}")
    return " | ".join(parts)


def detect(signals: Signals, policy: StallPolicy = STALL_POLICY) -> tuple[Stall, ...]:
    """Every stall the signals show, in a fixed order."""
    found = (
        repeated_failure(signals.refutations, policy),
        unchanged_claim(signals.claim_fingerprint, signals.refutations),
        empty_turns(signals.turns, signals.start_fingerprint, policy),
        budget(signals),
    )
    return tuple(stall for stall in found if stall is not None)


def repeated_failure(refutations: Iterable[Refutation], policy: StallPolicy = STALL_POLICY) -> Stall | None:
    recent = list(refutations)[-policy.same_failure :]
    if len(recent) < policy.same_failure or not recent[-1].signature:
        return None
    if any(r.signature != recent[-1].signature for r in recent):
        return None
    what = one_line(recent[-1].reason or recent[-1].signature, 160)
    return Stall(
        "repeated-failure",
        f"repeated-failure: the last {len(recent)} refuted claims failed the same way ({what})",
    )


def unchanged_claim(claim_fingerprint: str | None, refutations: Iterable[Refutation]) -> Stall | None:
    last = next(reversed(list(refutations)), None)
    # An unknown fingerprint (outside git, an error) proves nothing either way.
    if last is None or claim_fingerprint is None or claim_fingerprint != last.fingerprint:
        return None
    why = f" (it was refuted: {one_line(last.reason, 160)})" if last.reason else ""
    return Stall(
        "unchanged-claim",
        f"unchanged-claim: completion claimed again with no change to the workspace since the last "
        f"refuted claim{why}",
    )


def empty_turns(
    turns: Iterable[Turn], start_fingerprint: str | None = None, policy: StallPolicy = STALL_POLICY
) -> Stall | None:
    empty = 0
    previous = start_fingerprint
    for turn in turns:
        unchanged = turn.fingerprint is not None and turn.fingerprint == previous
        empty = empty + 1 if unchanged and not turn.claimed else 0
        previous = turn.fingerprint
    return empty_turn_stall(empty, policy)


def empty_turn_stall(count: int, policy: StallPolicy = STALL_POLICY) -> Stall | None:
    """The empty-turns stall once `count` turns in a row were empty, else None."""
    if count < policy.empty_turns:
        return None
    return Stall(
        "empty-turns",
        f"empty-turns: {plural(count, 'turn')} in a row ended without a claim and without any change to "
        "the workspace",
    )


def budget(signals: Signals) -> Stall | None:
    if signals.max_iterations is not None and signals.iteration >= signals.max_iterations:
        return Stall(
            "budget",
            f"budget: the iteration cap is reached ({signals.iteration}/{signals.max_iterations})",
        )
    if signals.budget is not None and signals.elapsed >= signals.budget:
        return Stall(
            "budget",
            f"budget: the wall-clock budget is spent ({_duration(signals.elapsed)} of "
            f"{_duration(signals.budget)})",
        )
    return None


def _duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    return f"{minutes // 60}h{minutes % 60:02d}m" if minutes >= 60 else f"{minutes}m{int(seconds % 60):02d}s"
