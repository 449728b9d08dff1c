"""Run every benchmark, one after another, and print their figures: `.venv/bin/python -m bench`.

`python -m bench NAME...` runs only those (e.g. `python -m bench hook_bench tier_bench`). Each benchmark
measures its own baseline in the same run, so the ratios hold on a noisy machine.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

BENCHMARKS = (
    "tier_bench",  # batch classification throughput (goal: >= 200,000 paths/s)
    "riskpaths_bench",  # the path matcher alone
    "change_bench",  # measuring a 2,000-file, 100,000-line change (goal: < 0.5 s)
    "hook_bench",  # the pass-through Stop against oh-my-claudecode's (goal: <= 1/3 and < 80 ms)
    "subagent_stop_bench",  # SubagentStop on a 50 MB transcript, claim Stop on 2,000 files
    "content_rules",  # the claim Stop on 2,000 files / 101,000 lines, content rules on vs off (goal: < 1 s)
    "checks_bench",  # checks of 1, 2 and 3 s run concurrently (goal: < 3.5 s)
    "refuted_again_bench",  # a claim on a refuted workspace (goal: <= 1.1 x an active no-claim Stop)
    "seed_experiment",  # the seed's experiment: shallow check against the gate
    "replay_bench",  # tiergate replay on a real history (goal: >= 20 commits/s)
    "test_contract_bench",  # a claim's test runs against f9b8652 (goal: +0 untouched tests, +1 edited)
    "claude_loops_bench",  # a completed task on tiergate's own suite, against the bare test run
    "gate_scale_bench",  # a claim's answer over the bare suite's time T (goal: wrong 0.25 T, honest 1.3 T)
    "environment_bench",  # the checks' environment recorded and compared, against the Stop (goal: < 0.1)
    "claim_copy_bench",  # the claim's copy made and its checks run there, against the run in place
)


def main(argv: list[str]) -> int:
    chosen = argv or list(BENCHMARKS)
    unknown = [name for name in chosen if name not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    root = Path(__file__).resolve().parent.parent
    failed = []
    for name in chosen:
        print(f"\n=== {name} ===", flush=True)
        start = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", f"bench.{name}"], cwd=root, check=False)
        print(f"--- {name}: exit {result.returncode} in {time.perf_counter() - start:.1f} s", flush=True)
        if result.returncode != 0:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
