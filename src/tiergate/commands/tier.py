"""`tiergate tier`: the tier of the current repository's change, or of each line of a JSON Lines batch."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from tiergate.text import plural

if TYPE_CHECKING:
    from pathlib import Path

    from tiergate.foreign import Exclusions
    from tiergate.tier.assess import Assessment
    from tiergate.tier.riskpaths import PathMatch

HELP = "show the verification tier of the current change (or classify a JSON Lines batch)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base", metavar="REV", help="measure from REV (default: the loop's start, else HEAD)"
    )
    parser.add_argument(
        "--coverage",
        choices=("none", "partial", "full"),
        help="test coverage of the change, instead of judging it from coverage data",
    )
    parser.add_argument("--prompt", metavar="TEXT", help="the task prompt, for override keywords")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--explain", action="store_true", help="explain the decision for a person")
    out.add_argument("--json", action="store_true", help="print one JSON object")
    out.add_argument(
        "--batch", action="store_true", help="JSON Lines in on stdin, one decision per line out, same order"
    )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tiergate.errors import UserError
    from tiergate.git import repo_root

    if args.batch:
        from tiergate.tier.batch import BatchRules, classify_stream

        # A batch describes hypothetical changes, so no repository is needed; a project's thresholds and
        # patterns still apply when there is one.
        try:
            root = repo_root(Path.cwd())
        except UserError:
            root = Path.cwd()
        classify_stream(sys.stdin, sys.stdout, BatchRules.for_project(root))
        return 0
    from tiergate.tier.assess import assess_change

    root = repo_root(Path.cwd())
    loop_base, exclusions = _loop(root)
    base = args.base or loop_base or "HEAD"
    assessment = assess_change(
        root, base=base, prompt=args.prompt, coverage=args.coverage, exclusions=exclusions
    )
    if loop_base is not None and not args.base:
        assessment = since_loop(assessment)
    if args.json:
        _print_json(assessment, sys.stdout)
    elif args.explain:
        sys.stdout.write(explain(assessment, prompt_given=args.prompt is not None))
    else:
        sys.stdout.write(summary(assessment))
    return 0


def since_loop(assessment: Assessment) -> Assessment:
    """The assessment of a loop's change, labelled as what it is: the change since the loop began."""
    from dataclasses import replace

    return replace(assessment, change=replace(assessment.change, base_label="the loop began"))


def _loop(root: Path) -> tuple[str | None, Exclusions | None]:
    """What this project's active loop (or the loop waiting for a session) measures its change from
    (the workspace it began on, else its start commit), and the active loop's exclusions: what its
    hooks leave out, from the configuration it kept at its start, not from the file the agent can edit
    since."""
    import os

    from tiergate import foreign
    from tiergate.loop import store as state
    from tiergate.project import locate
    from tiergate.workspace.startpoint import change_base

    project = locate(root, os.environ)
    if not project.state_dir.is_dir():
        return None, None
    active = [s for s in state.all_loops(project) if s.active]
    if active:
        return change_base(project, active[-1].start, active[-1].base), foreign.of_loop(active[-1])
    pending = state.read_pending(project)
    return (change_base(project, pending.start, pending.base) if pending else None), None


def _print_json(assessment: Assessment, out: TextIO) -> None:
    import json

    change = assessment.change
    record = assessment.decision.as_dict() | {
        "files_changed": change.files_changed,
        "lines_changed": change.lines_changed,
        "test_coverage": assessment.coverage.level,
        "coverage_evidence": assessment.coverage.evidence,
        "base": change.base,
        "base_label": change.base_label,
        "files": [
            {"path": f.path, "status": f.status, "additions": f.additions, "deletions": f.deletions}
            for f in change.files
        ],
        # Other tools' state, never counted; and code under a tool's folder, counted all the same.
        "excluded": [{"path": v.path, "reason": v.reason} for v in change.excluded],
        "kept_as_code": [
            {"path": v.path, "reason": v.reason} for v in change.foreign_paths if not v.excluded
        ],
    }
    out.write(json.dumps(record, indent=2) + "\n")


def summary(assessment: Assessment) -> str:
    decision, change = assessment.decision, assessment.change
    since = " since the loop began" if change.base_label == "the loop began" else ""
    head = (
        f"{decision.tier}  {decision.verifier.subagent_type} on {decision.verifier.model}  "
        f"({plural(change.files_changed, 'file')}, {plural(change.lines_changed, 'line')}{since}, "
        f"test coverage {assessment.coverage.level})\n"
    )
    return head + "".join(f"  {reason}\n" for reason in decision.reasons)


# How many changed files --explain lists before summarising the rest.
LISTED_FILES = 20
_STATUS_LETTERS = {
    "added": "A",
    "modified": "M",
    "deleted": "D",
    "renamed": "R",
    "copied": "C",
    "typechange": "T",
    "untracked": "?",
}


def explain(assessment: Assessment, prompt_given: bool) -> str:
    decision, change, scan = assessment.decision, assessment.change, assessment.scan
    verifier = decision.verifier
    additions = sum(f.additions for f in change.files)
    deletions = sum(f.deletions for f in change.files)
    lines = [
        f"Tier: {decision.tier}: {verifier.subagent_type} on {verifier.model} "
        f"(relative cost {decision.relative_cost:g}x)",
        "",
        f"The change since {change.base_label} ({change.base[:12]}), "
        "working tree and untracked files included:",
        f"  {plural(change.files_changed, 'file')}, {plural(change.lines_changed, 'line')} "
        f"(+{additions} -{deletions})",
    ]
    for f in change.files[:LISTED_FILES]:
        name = f"{f.old_path} -> {f.path}" if f.old_path else f.path
        size = "binary" if f.binary else f"+{f.additions} -{f.deletions}"
        lines.append(f"    {_STATUS_LETTERS.get(f.status, '?')} {name}  {size}")
    if change.files_changed > LISTED_FILES:
        lines.append(f"    ... and {change.files_changed - LISTED_FILES} more")
    lines += _foreign(assessment)
    lines += [
        f"Test coverage: {assessment.coverage.level} ({assessment.coverage.evidence})",
        f"Security-sensitive paths: {_matches(scan.security)}",
        f"Architecture paths: {_matches(scan.architecture)}",
    ]
    if decision.override is not None:
        lines.append(f"Override keyword: '{decision.override.keyword}' asks for {decision.override.tier}")
    else:
        lines.append("Override keyword: none" + ("" if prompt_given else " (no --prompt given)"))
    lines += ["", "Why:"] + [f"  - {reason}" for reason in decision.reasons]
    lines += ["", "The verifier must bring:"] + [f"  - {item}" for item in verifier.evidence_required]
    return "\n".join(lines) + "\n"


def _foreign(assessment: Assessment) -> list[str]:
    """Every path set aside as another tool's state, with its reason (all of them: a path hidden
    there would be hidden work), and the code found under a tool's folder, counted as work."""
    from tiergate.text import quote_path

    change = assessment.change
    excluded = change.excluded
    kept = [v for v in change.foreign_paths if not v.excluded]
    lines = [
        f"Not counted: {plural(len(excluded), 'path')} of other tools' state "
        "(neither the change nor a verifier's doing):"
        if excluded
        else "Not counted: nothing (no other tool's state, no [workspace] ignore match)"
    ]
    lines += [f"    {quote_path(v.path)}  {v.reason}" for v in excluded]
    if kept:
        lines.append(f"Counted though under another tool's folder: {plural(len(kept), 'path')} of code:")
        lines += [f"    {quote_path(v.path)}  {v.reason}" for v in kept]
    return lines


def _matches(matches: tuple[PathMatch, ...]) -> str:
    if not matches:
        return "none"
    shown = "; ".join(m.describe() for m in matches[:LISTED_FILES])
    more = len(matches) - LISTED_FILES
    return shown + (f"; and {more} more" if more > 0 else "")
