"""How long measuring a large change takes, against git's own bare diff of the same repository.

Run from the repository root: `.venv/bin/python -m bench.change_bench [--runs N]`.

The change: 2,000 files and 100,000 lines changed (1,000 modified, 500 untracked, 200 deleted,
200 staged new, 100 renamed), in a repository that also holds 2,000 untouched files. The goal is a
median under 0.5 s for `measure_change`; the baseline is `git diff --numstat HEAD` on the same tree.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from testing.gitrepo import GIT_ENV, commit_all, git, init_repo

from tiergate.tier.change import ChangeMeasurement, measure_change
from tiergate.tier.coverage.judgement import judge_coverage

GOAL_SECONDS = 0.5
EXPECTED_FILES = 2_000
EXPECTED_LINES = 100_000


def _text(name: str, lines: int, tag: str = "") -> str:
    return "".join(f"{name} line {i} {tag}\n" for i in range(lines))


def build(root: Path) -> Path:
    """The repository with the change in its working tree."""
    repo = init_repo(root / "repo")
    for i in range(2_000):
        _write(repo / f"untouched/u{i:04}.py", _text(f"u{i}", 40))
    for i in range(1_000):
        _write(repo / f"src/pkg{i % 20}/mod{i:04}.py", _text(f"m{i}", 100))
    for i in range(200):
        _write(repo / f"old/d{i:04}.txt", _text(f"d{i}", 50))
    for i in range(100):
        _write(repo / f"moving/r{i:04}.txt", _text(f"r{i}", 30))
    commit_all(repo, "base")
    for i in range(1_000):  # 25 of 100 lines rewritten: 25 additions and 25 deletions each
        path = repo / f"src/pkg{i % 20}/mod{i:04}.py"
        lines = path.read_text().splitlines(keepends=True)
        lines[::4] = [line.replace("line", "LINE") for line in lines[::4]]
        path.write_text("".join(lines))
    for i in range(500):
        _write(repo / f"new/n{i:04}.py", _text(f"n{i}", 60))
    for i in range(200):
        (repo / f"old/d{i:04}.txt").unlink()
        _write(repo / f"added/a{i:04}.txt", _text(f"a{i}", 50))
    git(repo, "add", "added")
    git(repo, "mv", "moving", "moved")
    return repo


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _write_coverage_json(repo: Path, change: ChangeMeasurement) -> None:
    """coverage.py's JSON report as if the tests ran every line of every changed Python file."""
    files = {
        f.path: {
            "executed_lines": list(range(1, len((repo / f.path).read_text().splitlines()) + 1)),
            "missing_lines": [],
        }
        for f in change.files
        if f.path.endswith(".py") and f.status != "deleted"
    }
    (repo / "coverage.json").write_text(json.dumps({"meta": {"format": 3}, "files": files}))


def median_seconds(action: Callable[[], object], runs: int) -> float:
    action()  # warm the page cache and git's stat cache, as a hook that runs often would find them
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        repo = build(Path(tmp))
        change = measure_change(repo)
        if (change.files_changed, change.lines_changed) != (EXPECTED_FILES, EXPECTED_LINES):
            print(f"wrong measurement: {change.files_changed} files, {change.lines_changed} lines")
            return 1
        env = {**GIT_ENV, "PATH": "/usr/bin:/bin:/usr/local/bin"}
        bare = median_seconds(
            lambda: subprocess.run(
                ["git", "diff", "--numstat", "HEAD"], cwd=repo, env=env, capture_output=True, check=True
            ),
            runs,
        )
        measured = median_seconds(lambda: measure_change(repo), runs)
        judged = median_seconds(lambda: judge_coverage(change), runs)
        _write_coverage_json(repo, change)
        with_data = median_seconds(lambda: judge_coverage(change), runs)
        judgement = judge_coverage(change)
    print(f"change: {EXPECTED_FILES} files, {EXPECTED_LINES} lines; median of {runs} runs")
    print(f"measure_change:            {measured:.3f} s (goal < {GOAL_SECONDS} s)")
    print(f"git diff --numstat HEAD:   {bare:.3f} s (baseline: no untracked files, no renames)")
    print(f"judge_coverage, no data:   {judged:.3f} s")
    print(f"judge_coverage, with data: {with_data:.3f} s ({judgement.level}: {judgement.evidence[:70]}...)")
    return 0 if measured < GOAL_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
