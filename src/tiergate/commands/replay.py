"""`tiergate replay [REV_RANGE]`: the tier tiergate would have chosen for each past commit, and the mix.

Each commit's own change (against its parent) goes through the claim's engine with this project's
configuration; the summary gives the tier mix, its cost against always THOROUGH (`[costs]`), the rules
that made commits THOROUGH most often and the commits the content rules raised. Nothing is written.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TextIO

from tiergate.config.settings import load_config
from tiergate.git.repository import repo_root
from tiergate.text import plural, quote_inline
from tiergate.tier import pastcommits
from tiergate.tier.policy import Tier
from tiergate.tier.replay import COVERAGE_RULE, TOP_REASONS, Engine, Replayed, Summary, summarise

EPILOG = (
    "Merges are skipped by default: a clean merge's own change is empty, and its branch's commits are "
    "replayed one by one. With --first-parent only the first-parent line is walked and each merge counts "
    "as its pull request: its change against its first parent. Coverage of past commits is unknown: a "
    "commit that changed executable code is never LIGHT here (see the summary for how many would be)."
)
# A subject longer than this is cut in the per-commit lines.
SUBJECT_WIDTH = 60


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.add_argument(
        "rev_range",
        nargs="?",
        metavar="REV_RANGE",
        help="the commits to replay, as git rev-list takes them (default: the last 200 of HEAD)",
    )
    parser.add_argument("-n", "--max-count", type=_count, metavar="N", help="replay at most N commits")
    parser.add_argument(
        "--first-parent",
        action="store_true",
        help="walk first parents only, each merge counted as its change against its first parent",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object (its shape: docs/judging.md)"
    )


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    root = repo_root(Path.cwd())
    config = load_config(root)
    selection = pastcommits.select(root, args.rev_range, args.max_count, args.first_parent)
    engine = Engine(config)
    progress = Progress(sys.stderr, len(selection.commits)) if sys.stderr.isatty() else None
    replayed = []
    try:
        for commit in pastcommits.replay(root, selection, config.exclusions, patches=engine.reads_patches):
            replayed.append(engine.replay(commit))
            if progress:
                progress.step()
    finally:
        if progress:
            progress.close()
    summary = summarise(replayed, config)
    if args.json:
        record = as_json(replayed, summary, selection.range_label, selection.first_parent)
        sys.stdout.write(json.dumps(record, indent=2) + "\n")
    else:
        seconds = time.monotonic() - started
        sys.stdout.write(report(replayed, summary, selection.range_label, selection.first_parent, seconds))
    return 0


class Progress:
    """A bar on one line of a terminal's stderr, redrawn as commits are tiered, erased at the end."""

    WIDTH = 30

    def __init__(self, stream: TextIO, total: int) -> None:
        self.stream, self.total, self.done, self.drawn = stream, total, 0, -1

    def step(self) -> None:
        self.done += 1
        filled = self.WIDTH * self.done // max(self.total, 1)
        if filled != self.drawn or self.done == self.total:
            self.drawn = filled
            bar = "#" * filled + "." * (self.WIDTH - filled)
            self.stream.write(f"\rtiergate replay [{bar}] {self.done}/{self.total}")
            self.stream.flush()

    def close(self) -> None:
        self.stream.write("\r\x1b[K")
        self.stream.flush()


def report(
    replayed: list[Replayed], summary: Summary, range_label: str, first_parent: bool, seconds: float
) -> str:

    walk = "first parents, merges as their change" if first_parent else "merges skipped"
    rate = f", {len(replayed) / seconds:.0f} commits/s" if seconds > 0 else ""
    lines = [
        f"tiergate replay: {plural(len(replayed), 'commit')} of {quote_inline(range_label)} ({walk}){rate}"
    ]
    for r in replayed:
        change = r.commit.change
        subject = _subject(r)
        why = f"  [{'; '.join(r.rules)}]" if r.rules else ""
        raised = f" (content rules raised it from {r.without_content.tier})" if r.raised_by_content else ""
        lines.append(
            f"  {r.decision.tier.value:<8} {r.commit.id[:12]}  "
            f"{change.files_changed:>4} {_s('file', change.files_changed)} "
            f"{change.lines_changed:>6} {_s('line', change.lines_changed)}  {subject}{raised}{why}"
        )
    return "\n".join([*lines, "", *summary_lines(summary)]) + "\n"


def summary_lines(summary: Summary) -> list[str]:
    n = summary.commits
    mix = ", ".join(f"{tier.value} {count} ({_percent(count, n)})" for tier, count in summary.tiers.items())
    mean = summary.cost / n if n else 0.0
    lines = [
        "Summary",
        f"  Tier mix: {mix}",
        f"  Relative cost: {summary.cost:g} against {summary.always_thorough:g} for always-THOROUGH "
        f"({_percent(summary.cost, summary.always_thorough)}; {mean:.1f}x a commit on average)",
        f"  Coverage: {COVERAGE_RULE}.",
        f"  LIGHT if the gate measured full coverage: {plural(summary.light_if_full_coverage, 'commit')} "
        f"(tiered LIGHT here: {summary.tiers[Tier.LIGHT]})",
    ]
    if summary.thorough_reasons:
        lines.append("  Most frequent reasons for THOROUGH (commits it made THOROUGH):")
        lines += [f"    {count:>5}  {rule}" for rule, count in summary.thorough_reasons[:TOP_REASONS]]
        more = len(summary.thorough_reasons) - TOP_REASONS
        if more > 0:
            lines.append(f"           and {plural(more, 'other rule')}")
    raised = summary.raised_by_content
    lines.append(f"  Raised by the content rules: {plural(len(raised), 'commit')}")
    for r in raised[:TOP_REASONS]:
        lines.append(
            f"    {r.commit.id[:12]}  {r.without_content.tier.value} -> {r.decision.tier.value}  "
            f"{_subject(r)}: {r.content[0].describe()}"
            + (f" (and {plural(len(r.content) - 1, 'more hit')})" if len(r.content) > 1 else "")
        )
    if len(raised) > TOP_REASONS:
        lines.append(f"    and {plural(len(raised) - TOP_REASONS, 'more commit')} (--json lists them all)")
    return lines


def _subject(r: Replayed) -> str:
    subject = quote_inline(r.commit.subject)
    return subject if len(subject) <= SUBJECT_WIDTH else subject[: SUBJECT_WIDTH - 3] + "..."


def _s(noun: str, n: int) -> str:
    """The noun for `n`, padded so that the columns stay aligned: "file " or "files"."""
    return noun + ("s" if n != 1 else " ")


def _percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "0%"


def as_json(
    replayed: list[Replayed], summary: Summary, range_label: str, first_parent: bool
) -> dict[str, object]:

    return {
        "range": range_label,
        "first_parent": first_parent,
        "commits": [_commit_json(r) for r in replayed],
        "summary": {
            "commits": summary.commits,
            "tiers": {tier.value: count for tier, count in summary.tiers.items()},
            "relative_cost": summary.cost,
            "always_thorough_cost": summary.always_thorough,
            "cost_ratio": round(summary.cost_ratio, 4),
            "thorough_reasons": [{"rule": rule, "commits": n} for rule, n in summary.thorough_reasons],
            "raised_by_content": [r.commit.id for r in summary.raised_by_content],
            "light_if_full_coverage": summary.light_if_full_coverage,
            "coverage_rule": COVERAGE_RULE,
        },
    }


def _commit_json(r: Replayed) -> dict[str, object]:
    change = r.commit.change
    return {
        "commit": r.commit.id,
        "parents": list(r.commit.parents),
        "subject": r.commit.subject,
        "base": change.base,
        "tier": r.decision.tier.value,
        "relative_cost": r.decision.relative_cost,
        "files_changed": change.files_changed,
        "lines_changed": change.lines_changed,
        "test_coverage": r.coverage.level,
        "coverage_evidence": r.coverage.evidence,
        "has_security_implications": r.decision.facts.has_security_implications,
        "has_architectural_changes": r.decision.facts.has_architectural_changes,
        "reasons": list(r.decision.reasons),
        "thorough_rules": list(r.rules),
        "content_hits": [h.describe() for h in r.content],
        "tier_without_content": r.without_content.tier.value,
        "raised_by_content": r.raised_by_content,
        "tier_if_full_coverage": r.if_full_coverage.tier.value,
        "excluded": [{"path": v.path, "reason": v.reason} for v in change.excluded],
    }
