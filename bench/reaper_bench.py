"""What ending a check's processes costs (`tiergate.reaper`), per check and per run.

Run from the repository root: `.venv/bin/python -m bench.reaper_bench [--runs N]`.

Measured: a whole run of one `true` check and of four (run_checks: spawn with the parent-death signal,
the watcher started, the sweep after each check); then the parts alone: one sweep of /proc (as many
processes as the machine runs now), starting and closing a watcher, and the hook's CPU time for a run
(the watcher's own start-up runs in its own process, beside the checks).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tiergate import reaper
from tiergate.gate.checks import make_check
from tiergate.gate.processes import run_checks


def median_ms(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def cpu_ms(action: Callable[[], object], runs: int) -> float:
    start = os.times()
    for _ in range(runs):
        action()
    end = os.times()
    return (end.user + end.system - start.user - start.system) / runs * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        one = [make_check("one", "true", "bench")]
        four = [make_check(f"c{i}", "true", "bench") for i in range(4)]
        run_checks(one, Path(tmp))  # warm: imports, the C library's prctl looked up
        processes = sum(1 for p in Path("/proc").iterdir() if p.name.isdigit())
        print(f"median of {runs} runs; {processes} processes now")
        print(f"run of one `true` check:    {median_ms(lambda: run_checks(one, Path(tmp)), runs):6.1f} ms")
        print(f"run of four `true` checks:  {median_ms(lambda: run_checks(four, Path(tmp)), runs):6.1f} ms")
        print(f"  hook CPU, run of one:     {cpu_ms(lambda: run_checks(one, Path(tmp)), runs):6.1f} ms")
    print(f"one sweep of /proc:         {median_ms(lambda: reaper.sweep(reaper.new_mark()), runs):6.1f} ms")
    watcher = median_ms(lambda: reaper.Watcher(reaper.new_mark()).close(), runs)
    print(f"a watcher started, closed:  {watcher:6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
