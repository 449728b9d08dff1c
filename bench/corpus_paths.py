"""Which corpus paths tiergate's risk path rules flag, and how they are judged.

Run: `.venv/bin/python -m bench.corpus_paths --clones DIR [--unlabelled]` from the checkout.

For each repository of `bench/corpus/repos.toml` (clones under DIR as `<owner>+<name>` or bare as
`<owner>+<name>/repo`), every corpus commit (its ordinary commits and its security fixes) has the paths
of its own change read through the built-in path rules (`RiskPaths().scan`, the rules the checkout in use
has). Printed: each distinct flagged path once per category, with the rule that matched, its label in
`bench/corpus/labels.toml` (right, wrong, or `-` when unlabelled) and how many commits touched it; then
the figures per category, for the whole corpus and for each split of `repos.toml` (tuning, held-out).
`--unlabelled` prints instead a `[[path]]` skeleton for every flagged path with
no label, to judge and append. Exit status 1 when some flagged path has no label.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.corpus_data import (
    CORPUS,
    SPLITS,
    Commit,
    Label,
    Repo,
    commits,
    load_fixes,
    load_labels,
    load_repos,
)
from tiergate.errors import UserError
from tiergate.tier.riskpaths import RiskPaths


@dataclass
class Flag:
    repo: str
    path: str
    category: str
    rule: str
    commits: int = 0
    fixes: list[str] = field(default_factory=list)  # advisories of the security fixes touching it


def flagged(corpus_commits: Iterable[Commit], rules: RiskPaths) -> dict[tuple[str, str, str], Flag]:
    flags: dict[tuple[str, str, str], Flag] = {}
    for commit in corpus_commits:
        scan = rules.scan(commit.paths)
        for match in (*scan.security, *scan.architecture):
            key = (commit.repo, match.path, match.category)
            flag = flags.setdefault(key, Flag(commit.repo, match.path, match.category, match.pattern))
            flag.commits += 1
            if commit.fix is not None:
                flag.fixes.append(commit.fix.advisory)
    return flags


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def skeleton(flag: Flag) -> str:
    return "\n".join(
        (
            "[[path]]",
            f"repo = {_quoted(flag.repo)}",
            f"path = {_quoted(flag.path)}",
            f"category = {_quoted(flag.category)}",
            'judged = ""',
            f"why = {_quoted('rule: ' + flag.rule)}",
            "",
        )
    )


def summary(flags: Sequence[Flag], labels: dict[tuple[str, str, str], Label]) -> list[str]:
    lines = []
    for category in ("security", "architecture", "all"):
        chosen = [f for f in flags if category in ("all", f.category)]
        judged = Counter(_judged(f, labels) for f in chosen)
        right, wrong = judged["right"], judged["wrong"]
        share = f"{100 * right / (right + wrong):.1f}% right" if right + wrong else "none judged"
        counts = f"{len(chosen)} flagged, {right} right, {wrong} wrong, {judged['-']} unlabelled"
        lines.append(f"{category}: {counts} ({share})")
    return lines


def _judged(flag: Flag, labels: dict[tuple[str, str, str], Label]) -> str:
    label = labels.get((flag.repo, flag.path, flag.category))
    return "-" if label is None else label.judged


def report(
    flags: Sequence[Flag], labels: dict[tuple[str, str, str], Label], repos: Sequence[Repo] = ()
) -> list[str]:
    lines = []
    for flag in flags:
        fixes = f" fixes={','.join(sorted(set(flag.fixes)))}" if flag.fixes else ""
        lines.append(
            f"{_judged(flag, labels):5} {flag.category:12} {flag.repo:20} {flag.path}"
            f"  [{flag.rule}] commits={flag.commits}{fixes}"
        )
    lines += ["", *summary(flags, labels)]
    split_of = {repo.name: repo.split for repo in repos}
    for split in SPLITS:
        chosen = [f for f in flags if split_of.get(f.repo) == split]
        if chosen and len(chosen) < len(flags):
            lines += ["", f"{split}:", *(f"  {line}" for line in summary(chosen, labels))]
    return lines


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clones", type=Path, required=True, help="folder holding the corpus clones")
    parser.add_argument("--unlabelled", action="store_true", help="print skeletons for unlabelled paths")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="folder of the corpus's TOML files")
    args = parser.parse_args(argv)
    try:
        labels = load_labels(args.corpus)
        repos = load_repos(args.corpus)
        corpus_commits = commits(args.clones, repos, load_fixes(args.corpus))
        flags = list(flagged(corpus_commits, RiskPaths()).values())
    except UserError as e:
        print(f"corpus_paths: {e}", file=sys.stderr)
        return 2
    flags.sort(key=lambda f: (f.repo, f.category, f.path))
    missing = [f for f in flags if _judged(f, labels) == "-"]
    lines = [skeleton(f) for f in missing] if args.unlabelled else report(flags, labels, repos)
    print("\n".join(lines))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
