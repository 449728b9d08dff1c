"""How fast `tiergate replay` tiers a real history: commits per second (goal: at least 20).

Run from the repository root: `.venv/bin/python -m bench.replay_bench [--repo PATH] [--count N] [--runs N]`.

PATH is a clone or a bare mirror (default: this repository's own history). The figure is the whole
engine, as the command runs it: selecting the last N non-merge commits of HEAD, streaming their changes
from one `git log`, and tiering each through the claim's engine with the default configuration (and the
repository's own, for a clone). Beside it: the same with the content rules off (`[risk] content =
false`: no patch is read), and the baseline, the same `git log` alone, read and thrown away.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from bench.change_bench import median_seconds
from tiergate.config.settings import Config, load_config
from tiergate.git import runner
from tiergate.tier import pastcommits
from tiergate.tier.replay import Engine, summarise

GOAL_PER_SECOND = 20.0


def replay(repo: Path, count: int, config: Config) -> int:
    selection = pastcommits.select(repo, "HEAD", limit=count)
    engine = Engine(config)
    replayed = [
        engine.replay(c)
        for c in pastcommits.replay(repo, selection, config.exclusions, patches=engine.reads_patches)
    ]
    summarise(replayed, config)
    return len(replayed)


def git_alone(repo: Path, count: int) -> int:
    selection = pastcommits.select(repo, "HEAD", limit=count)
    wanted = b"".join(c.encode() + b"\n" for c, _ in selection.commits)
    with runner.stream(
        repo, "log", *pastcommits.MEASURE_OPTIONS, *pastcommits.PATCH_OPTIONS, stdin=wanted
    ) as chunks:
        for _ in chunks:
            pass
    return len(selection.commits)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--count", type=int, default=pastcommits.DEFAULT_COUNT)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    repo = args.repo.resolve()
    config = load_config(repo) if (repo / ".git").exists() else Config()
    commits = replay(repo, args.count, config)
    seconds = median_seconds(lambda: replay(repo, args.count, config), args.runs)
    plain = replace(config, risk=replace(config.risk, content=False))
    paths_only = median_seconds(lambda: replay(repo, args.count, plain), args.runs)
    baseline = median_seconds(lambda: git_alone(repo, args.count), args.runs)
    rate = commits / seconds
    name = repo.parent.name if repo.name == "repo" else repo.name  # a mirror: <owner>+<name>/repo
    print(f"history: {name}, the last {commits} non-merge commits of HEAD; median of {args.runs} runs")
    print(f"replay:         {seconds:.3f} s, {rate:.0f} commits/s (goal >= {GOAL_PER_SECOND:.0f})")
    print(f"content rules off: {paths_only:.3f} s, {commits / paths_only:.0f} commits/s (no patch read)")
    print(f"git log alone:  {baseline:.3f} s, {commits / baseline:.0f} commits/s (baseline)")
    return 0 if rate >= GOAL_PER_SECOND else 1


if __name__ == "__main__":
    raise SystemExit(main())
