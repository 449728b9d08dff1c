"""How long the gate takes with three checks of 1 s, 2 s and 3 s, against running them one after another.

Run from the repository root: `.venv/bin/python -m bench.checks_bench [--runs N]`.

In one run, on one real git repository with an edited file: the three checks one at a time (the
sequential sum), then the whole gate on them (fingerprint, both stages, results kept), then the gate
again on the same workspace (its results reused). The goal is a gate under 3.5 s; the sequential sum
is about 6 s.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from testing.gaterun import gate_run
from testing.gitrepo import init_repo, write

from tiergate.gate.checks import Check, make_check
from tiergate.gate.processes import run_checks
from tiergate.project import Project

GOAL_SECONDS = 3.5
CHECKS = [make_check(name, f"sleep {seconds}", "bench") for name, seconds in (("a", 1), ("b", 2), ("c", 3))]


def one_alone(check: Check, repo: Path) -> float:
    start = time.perf_counter()
    run_checks([check], repo)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    sequential: list[float] = []
    gated: list[float] = []
    reused: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        repo = init_repo(Path(tmp) / "repo", {"app.py": "x = 1\n"})
        project = Project(repo, repo / ".tiergate")
        for run in range(runs):
            write(repo, {"app.py": f"x = {run + 2}\n"})  # a new workspace state each run: nothing to reuse
            sequential.append(sum(one_alone(check, repo) for check in CHECKS))
            start = time.perf_counter()
            result = gate_run(project, None, CHECKS)
            gated.append(time.perf_counter() - start)
            start = time.perf_counter()
            again = gate_run(project, None, CHECKS)
            reused.append(time.perf_counter() - start)
            if result.refuted or result.reused or not again.reused:
                print("unexpected: the checks failed or their results were not reused")
                return 1
    gate = statistics.median(gated)
    print(f"three checks of 1 s, 2 s and 3 s; median of {runs} runs")
    print(f"one after another (sum):  {statistics.median(sequential):.2f} s")
    print(f"the gate, concurrently:   {gate:.2f} s (goal < {GOAL_SECONDS} s)")
    print(f"the gate, results reused: {statistics.median(reused):.3f} s")
    return 0 if gate < GOAL_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
