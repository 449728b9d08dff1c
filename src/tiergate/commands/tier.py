"""`tiergate tier`: the tier of the current repository's change, or of each line of a JSON Lines batch."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from tiergate import foreign
from tiergate.config.settings import Config, load_config
from tiergate.errors import UserError
from tiergate.foreign import Exclusions
from tiergate.gate.baseline import base_commit
from tiergate.gate.coverage.measuring import describe_plan, project_plan
from tiergate.gate.detection.projectchecks import checks_at_base, project_checks
from tiergate.gate.reuse import kept_coverage
from tiergate.gate.timeouts import TimeLimits
from tiergate.git.objects import empty_tree
from tiergate.git.repository import repo_root
from tiergate.loop import store as state
from tiergate.project import locate
from tiergate.text import SEMI_AND_MORE, more_line, more_than, plural, quote_inline, quote_path
from tiergate.tier.assess import Assessment, Given, assess_change
from tiergate.tier.batch import BatchRules, classify_stream
from tiergate.tier.coverage.lines import GateCoverage
from tiergate.tier.policy import TierPolicy
from tiergate.tier.riskpaths import PathMatch
from tiergate.workspace.loopbase import change_base, judging


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
    if args.batch:
        # A batch describes hypothetical changes, so no repository is needed; a project's thresholds and
        # patterns still apply when there is one.
        try:
            root = repo_root(Path.cwd())
        except UserError:
            root = Path.cwd()
        classify_stream(sys.stdin, sys.stdout, BatchRules.for_project(root))
        return 0

    root = repo_root(Path.cwd())
    loop_base, exclusions = _loop(root)
    base = args.base or loop_base or "HEAD"
    config = load_config(root)
    kept = None if args.base else _kept_coverage(root, loop_base, config, exclusions)
    given = Given(args.coverage, exclusions, gate_coverage=kept)
    assessment = assess_change(root, base=base, prompt=args.prompt, config=config, given=given)
    if loop_base is not None and not args.base:
        assessment = since_loop(assessment)
    if args.json:
        _print_json(assessment, sys.stdout)
    elif args.explain:
        since = base_text(
            assessment.change.base_label,
            assessment.change.base,
            empty=assessment.change.base == empty_tree(root),
            loop=not args.base and loop_base is not None,
        )
        route = light_route(assessment, config.tier_policy, _gate_plan(root, config))
        sys.stdout.write(explain(assessment, prompt_given=args.prompt is not None, route=route, since=since))
    else:
        sys.stdout.write(summary(assessment))
    return 0


def since_loop(assessment: Assessment) -> Assessment:
    """The assessment of a loop's change, labelled as what it is: the change since the loop began."""
    return replace(assessment, change=replace(assessment.change, base_label="the loop began"))


def _loop(root: Path) -> tuple[str | None, Exclusions | None]:
    """What this project's active loop (or the loop waiting for a session) measures its change from
    (the workspace it began on, else its start commit), and the active loop's exclusions: what its
    hooks leave out, from the configuration it kept at its start, not from the file the agent can edit
    since."""
    project = locate(root, os.environ)
    if not project.state_dir.is_dir():
        return None, None
    active = [s for s in state.all_loops(project) if s.active]
    if active:
        judging(active[-1].started_at)
        return change_base(project, active[-1].start, active[-1].base), foreign.of_loop(active[-1])
    pending = state.read_pending(project)
    return (change_base(project, pending.start, pending.base) if pending else None), None


def _print_json(assessment: Assessment, out: TextIO) -> None:
    change = assessment.change
    record = assessment.decision.as_dict() | {
        "files_changed": change.files_changed,
        "lines_changed": change.lines_changed,
        "test_coverage": assessment.coverage.level,
        "coverage_evidence": assessment.coverage.evidence,
        # What the last gate run on this workspace made of the changed lines' mutants (null: none ran).
        "mutation": None if assessment.mutation is None else assessment.mutation.summary(),
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
        # The changed lines' risky constructs (null when `[risk] content = false`).
        "content_hits": [
            {"path": h.path, "line": h.line, "side": h.side, "construct": h.construct, "category": h.category}
            for h in assessment.content
        ]
        if assessment.content_searched
        else None,
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


def _kept_coverage(
    root: Path, base: str | None, config: Config, exclusions: Exclusions | None
) -> GateCoverage | None:
    """What the last gate run on this very workspace measured of the change, if its results are kept."""
    project = locate(root, os.environ)
    if not project.state_dir.is_dir():
        return None
    # The gate's checks (as declared at the loop's base), under whose keys it kept what it measured.
    checks = checks_at_base(root, config, base_commit(root, base) if base else None)
    return kept_coverage(
        project,
        base,
        checks,
        timeout=TimeLimits(config.gate.timeout_seconds).ceiling,
        exclusions=config.exclusions if exclusions is None else exclusions,
    )


def _gate_plan(root: Path, config: Config) -> str:
    """Which of the project's checks would measure the change's coverage at a claim's gate, or why none."""
    return describe_plan(project_plan(root, project_checks(root, config)))[1]


def light_route(assessment: Assessment, policy: TierPolicy, gate_plan: str) -> list[str]:
    """How the change could reach LIGHT: which of files, lines and coverage block it, and for
    coverage, what would measure it (or why nothing can) and what is not covered."""
    decision = assessment.decision
    facts = decision.facts
    if decision.tier == "LIGHT":
        return ["  it is LIGHT"]
    if facts.has_security_implications or facts.has_architectural_changes:
        return [
            "  never: a security or architecture floor holds it at THOROUGH (no size or coverage lowers it)"
        ]
    files, lines = facts.files_changed, facts.lines_changed
    route = [
        _blocks(
            files < policy.light_files_below, f"files: {files}, LIGHT needs < {policy.light_files_below}"
        ),
        _blocks(
            lines < policy.light_lines_below, f"lines: {lines}, LIGHT needs < {policy.light_lines_below}"
        ),
        _blocks(
            assessment.coverage.level == "full", f"coverage: {assessment.coverage.level}, LIGHT needs full"
        ),
    ]
    if assessment.coverage.level != "full":
        route += [f"      {assessment.coverage.evidence}", f"      at a claim's gate: {gate_plan}"]
    return route


def _blocks(ok: bool, what: str) -> str:
    return f"  {'ok    ' if ok else 'blocks'}  {what}"


def base_text(label: str, base: str, *, empty: bool, loop: bool) -> str:
    """What the change is measured from, for a person: a name with its short id, a given id once, and
    git's empty tree (a repository with no commits yet) called so rather than "HEAD"."""
    if empty:
        return "the empty tree (no commit yet, so every file is new)"
    short = base[:12]
    if loop:
        return f"the loop's base ({short})"
    if len(label) >= 4 and base.lower().startswith(label.lower()):
        return short  # the id the user gave: once, not twice
    return f"{label} ({short})"


def explain(
    assessment: Assessment,
    prompt_given: bool,
    route: list[str] | None = None,
    since: str | None = None,
) -> str:
    decision, change, scan = assessment.decision, assessment.change, assessment.scan
    verifier = decision.verifier
    additions = sum(f.additions for f in change.files)
    deletions = sum(f.deletions for f in change.files)
    lines = [
        f"Tier: {decision.tier}: {verifier.subagent_type} on {verifier.model} "
        f"(relative cost {decision.relative_cost:g}x)",
        "",
        f"The change since {since or f'{change.base_label} ({change.base[:12]})'}, "
        "working tree and untracked files included:",
        f"  {plural(change.files_changed, 'file')}, {plural(change.lines_changed, 'line')} "
        f"(+{additions} -{deletions})",
    ]
    for f in change.files[:LISTED_FILES]:
        name = f"{f.old_path} -> {f.path}" if f.old_path else f.path
        size = "binary" if f.binary else f"+{f.additions} -{f.deletions}"
        lines.append(f"    {_STATUS_LETTERS.get(f.status, '?')} {name}  {size}")
    lines += more_line(change.files_changed, LISTED_FILES, "    ... and {} more")
    lines += _foreign(assessment)
    lines += [
        f"Test coverage: {assessment.coverage.level} ({assessment.coverage.evidence})",
        *_mutants(assessment),
        f"Security-sensitive paths: {_matches(scan.security)}",
        f"Architecture paths: {_matches(scan.architecture)}",
        *_content(assessment),
    ]
    if decision.override is not None:
        lines.append(f"Override keyword: '{decision.override.keyword}' asks for {decision.override.tier}")
    else:
        lines.append("Override keyword: none" + ("" if prompt_given else " (no --prompt given)"))
    lines += ["", "Why:"] + [f"  - {reason}" for reason in decision.reasons]
    if route is not None:
        lines += ["", "How it could reach LIGHT:", *route]
    lines += ["", "The verifier must bring:"] + [f"  - {item}" for item in verifier.evidence_required]
    return "\n".join(lines) + "\n"


def _mutants(assessment: Assessment) -> list[str]:
    """The change's mutation score, as the last gate run on this workspace found it, and its survivors."""
    run = assessment.mutation
    if run is None:
        return ["Mutants: none run on this workspace yet (a claim's gate runs them with the tests)"]
    lines = [f"Mutants: {run.score()}"]
    lines += [f"    survived: {t.mutant.describe()}" for t in run.of("survived")]
    lines += [f"    not run: {t.mutant.describe()} ({quote_inline(t.by)})" for t in run.of("not_run")]
    lines += [f"    not mutated: {quote_inline(why)}" for why in run.skipped[:LISTED_FILES]]
    return lines


def _foreign(assessment: Assessment) -> list[str]:
    """Every path set aside as another tool's state, with its reason (all of them: a path hidden
    there would be hidden work), and the code found under a tool's folder, counted as work."""
    change = assessment.change
    excluded = change.excluded
    kept = [v for v in change.foreign_paths if not v.excluded]
    lines = [
        f"Not counted: {plural(len(excluded), 'path')} of other tools' state or output "
        "(neither the change nor a verifier's doing):"
        if excluded
        else "Not counted: nothing (no other tool's state or output, no [workspace] ignore match)"
    ]
    lines += [f"    {quote_path(v.path)}  {v.reason}" for v in excluded]
    if kept:
        lines.append(f"Counted though under another tool's folder: {plural(len(kept), 'path')} of code:")
        lines += [f"    {quote_path(v.path)}  {v.reason}" for v in kept]
    return lines


def _content(assessment: Assessment) -> list[str]:
    """The changed lines' risky constructs, one per line (the first LISTED_FILES of them)."""
    if not assessment.content_searched:
        return ["Risky constructs in the changed lines: not searched ([risk] content = false)"]
    hits = assessment.content
    head = f"{plural(len(hits), 'hit')}:" if hits else "none"
    lines = [f"Risky constructs in the changed lines: {head}"]
    lines += [f"    {h.category}: {h.describe()}" for h in hits[:LISTED_FILES]]
    lines += more_line(len(hits), LISTED_FILES, "    ... and {} more")
    if assessment.judged:
        judged = sorted(assessment.judged)
        lines.append(
            f"Judged by their changed lines, not their path: {plural(len(judged), 'CI workflow')}: "
            + ", ".join(_quoted(p) for p in judged[:LISTED_FILES])
            + (" ..." if len(judged) > LISTED_FILES else "")
        )
    return lines


def _quoted(path: str) -> str:
    return quote_path(path)


def _matches(matches: tuple[PathMatch, ...]) -> str:
    if not matches:
        return "none"
    shown = "; ".join(m.describe() for m in matches[:LISTED_FILES])
    return shown + more_than(len(matches), LISTED_FILES, SEMI_AND_MORE)
