"""Which paths of real histories the built-in path rules flag: `python -m bench.paths_flagged MIRROR...`.

For each bare mirror (a git directory: `/path/to/owner+name/repo`), the distinct paths that the last N
non-merge commits touch (`--commits`, default 400) and that the rules flag, one line each:
`repository<TAB>category<TAB>path<TAB>rule`. A summary per repository and in total ends the output
(on stderr with `--tsv`, so that stdout stays one table a person can label).

`--labels FILE` reads hand-judged labels and prints how many of the flagged paths are judged right,
and which flagged paths have no label yet: the corpus's `bench/corpus/labels.toml` (`[[path]]` repo,
path, category, judged), or a table (`repository<TAB>category<TAB>path<TAB>verdict`, verdict `right`,
`wrong` or `debatable`; other columns ignored, `#` starts a comment).

Nothing of the mirrors is copied: only their paths are read, through `git log --name-only`.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import TextIO

from tiergate.tier.riskpaths import DEFAULT

Flag = tuple[str, str, str, str]  # repository, category, path, rule


def touched_paths(git_dir: Path, commits: int) -> list[str]:
    """The distinct paths the last `commits` non-merge commits touch, in the order first seen."""
    out = subprocess.run(
        ["git", f"--git-dir={git_dir}", "log", "--no-merges", f"-n{commits}", "--name-only", "--format="],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return list(dict.fromkeys(line for line in out.splitlines() if line))


def repository_name(git_dir: Path) -> str:
    """`owner+name/repo` (the mirror layout) reads as `owner/name`; any other directory by its name."""
    folder = git_dir.parent if git_dir.name in ("repo", ".git") else git_dir
    return folder.name.replace("+", "/", 1)


def flagged(repository: str, paths: list[str]) -> list[Flag]:
    return [(repository, m.category, m.path, m.pattern) for path in paths for m in DEFAULT.match(path)]


def read_labels(path: Path) -> dict[tuple[str, str, str], str]:
    if path.suffix == ".toml":
        import tomllib

        table = tomllib.loads(path.read_text(encoding="utf-8"))
        return {(p["repo"], p["category"], p["path"]): p["judged"] for p in table.get("path", [])}
    labels: dict[tuple[str, str, str], str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        repository, category, file, verdict, *_ = line.split("\t")
        labels[(repository, category, file)] = verdict
    return labels


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mirrors", nargs="+", type=Path)
    parser.add_argument("--commits", type=int, default=400)
    parser.add_argument("--tsv", action="store_true", help="the table alone on stdout, the summary on stderr")
    parser.add_argument("--labels", type=Path)
    args = parser.parse_args(argv)
    summary = sys.stderr if args.tsv else sys.stdout
    flags: list[Flag] = []
    for git_dir in args.mirrors:
        repository = repository_name(git_dir)
        paths = touched_paths(git_dir, args.commits)
        found = flagged(repository, paths)
        flags += found
        counts = Counter(category for _, category, _, _ in found)
        for flag in found:
            print("\t".join(flag))
        print(
            f"# {repository}: {len(paths)} paths, {len({f[2] for f in found})} flagged "
            f"(security {counts['security']}, architecture {counts['architecture']})",
            file=summary,
        )
    total = Counter(category for _, category, _, _ in flags)
    print(
        f"# total: {len({(f[0], f[2]) for f in flags})} distinct paths flagged "
        f"(security {total['security']}, architecture {total['architecture']})",
        file=summary,
    )
    if args.labels:
        judge(flags, read_labels(args.labels), summary)
    return 0


def judge(flags: list[Flag], labels: dict[tuple[str, str, str], str], out: TextIO) -> None:
    verdicts = Counter(labels.get(flag[:3], "unlabelled") for flag in flags)
    judged = sum(n for v, n in verdicts.items() if v != "unlabelled")
    right = verdicts["right"]
    share = f"{right / judged:.1%}" if judged else "n/a"
    others = ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items()) if v != "right")
    print(f"# judged: {judged} flags, {right} right ({share}); {others}", file=out)
    for flag in flags:
        if flag[:3] not in labels:
            print("# unlabelled: " + "\t".join(flag), file=out)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
