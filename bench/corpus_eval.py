"""The evaluation corpus replayed through tiergate's tier engine: the figures issue 12 asks for.

Run from the checkout: `.venv/bin/python -m bench.corpus_eval --clones DIR [--json]` (or
`.venv/bin/python bench/corpus_eval.py --clones DIR`).

Every corpus commit (`bench/corpus/`, read by `bench.corpus_data`: each repository's ordinary commits and
its security fixes) is read from its clone under DIR (`<owner>+<name>`, or a bare mirror's
`<owner>+<name>/repo`) and tiered as `tiergate replay` tiers a past commit (`tiergate.tier.pastcommits`
and `tiergate.tier.replay`: the claim's engine, the built-in rules and default configuration). A fix is
measured against its first parent. Printed:

- security fixes: the share THOROUGH with a security reason (a security path or a security content
  hit), of all fixes and of the fixes in code; each one missed, with its tier and why;
- ordinary commits: the share THOROUGH, in all and per repository;
- flagged paths: each distinct (repository, path, category) the path rules flag in corpus commits, and
  the share of them `labels.toml` judges right; the unlabelled ones listed;
- per repository: the tier mix of its ordinary commits and their cost against always-THOROUGH, and how
  many of them the content rules raised.

Each figure is given per split of `repos.toml` (the tuning repositories, the held-out ones), side by side
first, then in full for each split; `--json` gives the whole corpus's figures at its top and each split's
under `splits`.

Goals (issue 12): fixes >= 85%, ordinary <= 35%, flagged paths right >= 90%.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the checkout's root holds the `bench` package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus_data import (
    CORPUS,
    SPLITS,
    Fix,
    Label,
    Repo,
    git_dir,
    load_fixes,
    load_labels,
    load_repos,
    ordinary_shas,
)
from tiergate.config.settings import Config
from tiergate.errors import UserError
from tiergate.git import runner
from tiergate.tier import pastcommits
from tiergate.tier.policy import Tier
from tiergate.tier.replay import Engine, Replayed, Summary, summarise

GOALS = {"fixes_thorough_with_security": 85.0, "ordinary_thorough": 35.0, "paths_right": 90.0}


@dataclass
class RepoResult:
    repo: Repo
    ordinary: list[Replayed] = field(default_factory=list)
    fixes: list[tuple[Fix, Replayed]] = field(default_factory=list)


def replay_repo(clones: Path, repo: Repo, fixes: Sequence[Fix], engine: Engine) -> RepoResult:
    where = git_dir(clones, repo)
    own = [f for f in fixes if f.repo == repo.name]
    ordinary = ordinary_shas(where, repo, fixes)
    selection = _selection(where, [*ordinary, *(f.commit for f in own)], f"{repo.name}'s corpus")
    replayed = {
        r.commit.id: r
        for r in map(engine.replay, pastcommits.replay(where, selection, patches=engine.reads_patches))
    }
    result = RepoResult(repo, [replayed[sha] for sha in ordinary])
    result.fixes = [(f, replayed[_full(replayed, f.commit)]) for f in own]
    return result


def _selection(where: Path, ids: Sequence[str], label: str) -> pastcommits.Selection:
    """The corpus's commits in this order, merges included: each against its first parent."""
    out = runner.run(where, "rev-list", "--parents", "--no-walk=unsorted", "--end-of-options", *ids).stdout
    commits = tuple((c, tuple(p)) for c, *p in map(str.split, out.decode().splitlines()))
    return pastcommits.Selection(commits, label, first_parent=True)


def _full(replayed: dict[str, Replayed], commit: str) -> str:
    """The full id of a commit the corpus may name by a prefix."""
    return next(sha for sha in replayed if sha.startswith(commit))


def caught(replayed: Replayed) -> bool:
    """THOROUGH with a security reason: a security path, or a security construct in the changed lines."""
    return replayed.decision.tier is Tier.THOROUGH and replayed.decision.facts.has_security_implications


@dataclass(frozen=True)
class Share:
    count: int
    of: int

    @property
    def percent(self) -> float:
        return round(100 * self.count / self.of, 1) if self.of else 0.0

    def __str__(self) -> str:
        return f"{self.count}/{self.of} ({self.percent}%)"

    def as_json(self) -> dict[str, object]:
        return {"count": self.count, "of": self.of, "percent": self.percent}


@dataclass(frozen=True)
class Figures:
    fixes: Share  # THOROUGH with a security reason, of all fixes
    code_fixes: Share  # the same, of the fixes in code
    missed: tuple[tuple[Fix, Replayed], ...]
    ordinary_thorough: Share
    paths_right: Share  # of the flagged paths with a label
    flagged: dict[tuple[str, str, str], str]  # (repo, path, category) -> the rule that flags it
    unlabelled: tuple[tuple[str, str, str], ...]
    repos: tuple[tuple[RepoResult, Summary], ...]  # each repository's ordinary commits, summed up


def flagged_paths(results: Sequence[RepoResult]) -> dict[tuple[str, str, str], str]:
    """Each distinct (repository, path, category) the path rules flag in corpus commits, with the rule."""
    flags: dict[tuple[str, str, str], str] = {}
    for result in results:
        for replayed in (*result.ordinary, *(r for _, r in result.fixes)):
            for match in (*replayed.scan.security, *replayed.scan.architecture):
                flags.setdefault((result.repo.name, match.path, match.category), match.pattern)
    return flags


def figures(
    results: Sequence[RepoResult], labels: dict[tuple[str, str, str], Label], config: Config
) -> Figures:
    fixes = [(f, r) for result in results for f, r in result.fixes]
    code = [(f, r) for f, r in fixes if f.kind == "code"]
    ordinary = [r for result in results for r in result.ordinary]
    flags = flagged_paths(results)
    judged = Counter(labels[key].judged for key in flags if key in labels)
    return Figures(
        fixes=Share(sum(caught(r) for _, r in fixes), len(fixes)),
        code_fixes=Share(sum(caught(r) for _, r in code), len(code)),
        missed=tuple((f, r) for f, r in fixes if not caught(r)),
        ordinary_thorough=Share(sum(r.decision.tier is Tier.THOROUGH for r in ordinary), len(ordinary)),
        paths_right=Share(judged["right"], judged["right"] + judged["wrong"]),
        flagged=flags,
        unlabelled=tuple(sorted(key for key in flags if key not in labels)),
        repos=tuple((result, summarise(result.ordinary, config)) for result in results),
    )


def by_split(
    results: Sequence[RepoResult], labels: dict[tuple[str, str, str], Label], config: Config
) -> dict[str, Figures]:
    """The figures of each split that has repositories, in `SPLITS` order."""
    chosen = {split: [r for r in results if r.repo.split == split] for split in SPLITS}
    return {split: figures(rs, labels, config) for split, rs in chosen.items() if rs}


def side_by_side(splits: dict[str, Figures]) -> str:
    """One line per figure, one column per split: what the tuning repositories reach, and the held-out."""
    rows = [
        ("fixes THOROUGH, security reason", "fixes", "fixes_thorough_with_security", ">="),
        ("  of them fixes in code", "code_fixes", "", ""),
        ("ordinary commits THOROUGH", "ordinary_thorough", "ordinary_thorough", "<="),
        ("flagged paths judged right", "paths_right", "paths_right", ">="),
    ]
    lines = [f"{'By split':34}" + "".join(f"{name:>22}" for name in splits) + "  goal"]
    for title, figure, goal, sense in rows:
        cells = "".join(f"{getattr(found, figure)!s:>22}" for found in splits.values())
        lines.append(f"{title:34}{cells}  {f'{sense} {GOALS[goal]:g}%' if goal else ''}".rstrip())
    return "\n".join(lines) + "\n"


def report(found: Figures) -> str:
    lines = [
        f"Security fixes THOROUGH with a security reason: {found.fixes} "
        f"(goal >= {GOALS['fixes_thorough_with_security']:g}%); of the fixes in code: {found.code_fixes}"
    ]
    for fix, replayed in found.missed:
        why = "; ".join(replayed.decision.reasons)
        lines.append(
            f"  missed: {fix.repo} {replayed.commit.id[:12]} {fix.advisory} ({fix.kind}) "
            f"{replayed.decision.tier.value}: {why[:150]}"
        )
    lines.append(
        f"Ordinary commits THOROUGH: {found.ordinary_thorough} (goal <= {GOALS['ordinary_thorough']:g}%)"
    )
    lines.append(
        f"Flagged distinct paths judged right: {found.paths_right} (goal >= {GOALS['paths_right']:g}%); "
        f"{len(found.flagged)} flagged, {len(found.unlabelled)} unlabelled"
    )
    lines += [f"  unlabelled: {r} {c} {p} [{found.flagged[(r, p, c)]}]" for r, p, c in found.unlabelled]
    lines.append("Per repository, its ordinary commits: tier mix, cost against always-THOROUGH, and more")
    for result, summary in found.repos:
        tiers = summary.tiers
        caught_fixes = sum(caught(r) for _, r in result.fixes)
        lines.append(
            f"  {result.repo.name:20} {result.repo.ecosystem:10} {summary.commits:>4} commits  "
            f"L {tiers[Tier.LIGHT]:>3}  S {tiers[Tier.STANDARD]:>3}  T {tiers[Tier.THOROUGH]:>3}  "
            f"cost {100 * summary.cost_ratio:.0f}%  raised by content {len(summary.raised_by_content):>3}  "
            f"LIGHT if covered {summary.light_if_full_coverage:>3}  "
            f"fixes caught {caught_fixes}/{len(result.fixes)}"
        )
    return "\n".join(lines) + "\n"


def as_json(found: Figures) -> dict[str, object]:
    return {
        "fixes": found.fixes.as_json(),
        "code_fixes": found.code_fixes.as_json(),
        "missed_fixes": [
            {
                "repo": fix.repo,
                "commit": r.commit.id,
                "advisory": fix.advisory,
                "kind": fix.kind,
                "tier": r.decision.tier.value,
                "reasons": list(r.decision.reasons),
            }
            for fix, r in found.missed
        ],
        "ordinary_thorough": found.ordinary_thorough.as_json(),
        "paths_right": found.paths_right.as_json(),
        "flagged_paths": len(found.flagged),
        "unlabelled": [
            {"repo": r, "path": p, "category": c, "rule": found.flagged[(r, p, c)]}
            for r, p, c in found.unlabelled
        ],
        "repos": [
            {
                "repo": result.repo.name,
                "ecosystem": result.repo.ecosystem,
                "ordinary": summary.commits,
                "tiers": {tier.value: n for tier, n in summary.tiers.items()},
                "cost_ratio": round(summary.cost_ratio, 4),
                "raised_by_content": len(summary.raised_by_content),
                "light_if_full_coverage": summary.light_if_full_coverage,
                "fixes_caught": sum(caught(r) for _, r in result.fixes),
                "fixes": len(result.fixes),
            }
            for result, summary in found.repos
        ],
    }


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clones", type=Path, required=True, help="folder holding the corpus clones")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="folder of the corpus's TOML files")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    config = Config()
    engine = Engine(config)
    try:
        fixes = load_fixes(args.corpus)
        labels = load_labels(args.corpus)
        results = [replay_repo(args.clones, repo, fixes, engine) for repo in load_repos(args.corpus)]
    except UserError as e:
        print(f"corpus_eval: {e}", file=sys.stderr)
        return 2
    splits = by_split(results, labels, config)
    if args.json:
        whole = as_json(figures(results, labels, config))
        whole["splits"] = {split: as_json(found) for split, found in splits.items()}
        sys.stdout.write(json.dumps(whole, indent=2) + "\n")
        return 0
    sys.stdout.write(side_by_side(splits))
    for split, found in splits.items():
        names = ", ".join(result.repo.name for result, _ in found.repos)
        sys.stdout.write(f"\n== {split}: {names}\n{report(found)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
