"""The claim Stop of two tiergate checkouts, interleaved in one run: before/after figures for one change
on a noisy machine.

    .venv/bin/python -m bench.claim_ab <before checkout> <after checkout> [--rounds N]

The two 2,000-file projects of `bench.content_rules` (one with content rules on, one with them off at its
loop's start), brought to their claim through this checkout's hooks. Each checkout then runs as
hooks/hooks.json registers it (its own launcher, CLAUDE_PLUGIN_ROOT set to it, so its own .venv) on the
same inputs: the claim with content on, the claim with content off, and a Stop of the content-on loop
without a claim (what every other turn of a loop pays). The loop's state is put back before every run and
every claim's answer is checked; the order of the checkouts alternates each round. Both checkouts must read
the same state format. Prints each case's medians and the ratio after / before.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from bench.content_rules import claim_cases
from bench.subagent_stop_bench import Case, Run, run_once

WARMUP = 1


def as_run_by(case: Case, checkout: Path) -> Case:
    """`case` as the checkout at `checkout` runs it."""
    argv = (str(checkout / "hooks" / "tiergate-hook"), *case.argv[1:])
    return replace(case, argv=argv, env={**case.env, "CLAUDE_PLUGIN_ROOT": str(checkout)})


def without_claim(case: Case) -> Case:
    payload = json.loads(case.stdin)
    payload["last_assistant_message"] = "Still working on it."
    return replace(case, name=f"{case.name}, no claim", stdin=json.dumps(payload).encode(), check=_ran)


def _ran(run: Run) -> str | None:
    return None if run.returncode == 0 else f"exit {run.returncode}: {run.stderr[-300:]!r}"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=9, help="measured rounds (default 9)")
    args = parser.parse_args()
    checkouts = [args.before.resolve(), args.after.resolve()]
    with tempfile.TemporaryDirectory(prefix="tiergate-bench-") as scratch:
        on, off = claim_cases(Path(scratch))
        cases = [on, off, without_claim(on)]
        times: dict[tuple[str, Path], list[float]] = {}
        for round_ in range(WARMUP + args.rounds):
            for case in cases:
                for checkout in checkouts if round_ % 2 == 0 else checkouts[::-1]:
                    run = run_once(as_run_by(case, checkout))
                    problem = case.check(run)
                    if problem is not None:
                        sys.exit(f"claim_ab: {case.name}, {checkout}, round {round_}: {problem}")
                    if round_ >= WARMUP:
                        times.setdefault((case.name, checkout), []).append(run.seconds * 1000)
    load = os.getloadavg()[0]
    print(f"\n{args.rounds} interleaved rounds; load average {load:.1f} on {os.cpu_count()} CPUs")
    print(f"{'median ms':28} {'before':>8} {'after':>8}  after/before")
    for case in cases:
        before, after = (statistics.median(times[(case.name, c)]) for c in checkouts)
        print(f"{case.name:28} {before:8.0f} {after:8.0f}  {after / before:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
