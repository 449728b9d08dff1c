"""The claim Stop of two tiergate checkouts, interleaved in one run: before/after figures for one change
on a noisy machine.

    .venv/bin/python -m bench.claim_ab <before checkout> <after checkout> [--rounds N]

The two 2,000-file projects of `bench.content_rules` (one with content rules on, one with them off at its
loop's start), brought to their claim through this checkout's hooks; with `--small`, a claim of the size
most are instead: one file of a 200-file project, ten lines, content rules on. Each checkout then runs as
hooks/hooks.json registers it (its own launcher, CLAUDE_PLUGIN_ROOT set to it, so its own .venv) on the
same inputs: the claim with content on, the claim with content off, and a Stop of the content-on loop
without a claim (what every other turn of a loop pays). The loop's state is put back before every run and
every claim's answer is checked; the order of the checkouts alternates each round. Both checkouts must read
the same state format. Prints each case's medians of wall and of CPU time, and the ratios after / before.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from testing.gitrepo import commit_all, init_repo

from bench.content_rules import case_of, claim_cases, code
from bench.hook_bench import state_dir
from bench.subagent_stop_bench import Case, Run, hook, hook_env, run_once, write

WARMUP = 1


def as_run_by(case: Case, checkout: Path) -> Case:
    """`case` as the checkout at `checkout` runs it."""
    argv = (str(checkout / "hooks" / "tiergate-hook"), *case.argv[1:])
    return replace(case, argv=argv, env={**case.env, "CLAUDE_PLUGIN_ROOT": str(checkout)})


def small_case(scratch: Path) -> Case:
    """A 200-file project (no checks) whose loop's claim changes one file by ten lines, content rules on."""
    home = scratch / "home"
    home.mkdir()
    repo = init_repo(scratch / "small", {".tiergate.toml": "[risk]\ncontent = true\n"})
    for i in range(200):
        write(repo / f"src/pkg{i % 10}/mod{i:03}.py", code(i, 60, 0))
    commit_all(repo, "base")
    time.sleep(2.5)  # older than the loop, as a project's files are (see `bench.content_rules.project`)
    env = hook_env(repo, home)
    state_dir(repo, env).mkdir(parents=True)
    hook(env, repo, "UserPromptSubmit", prompt="/tiergate:ralph rework one module --max-iterations 5")
    path = repo / "src/pkg3/mod003.py"
    lines = path.read_text().splitlines(keepends=True)
    lines[10:20] = code(3, 10, 1).splitlines(keepends=True)
    path.write_text("".join(lines))
    return replace(case_of(repo, home, "small claim", "1 file,"), goal=None)


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
    parser.add_argument("--small", action="store_true", help="a one-file claim instead")
    args = parser.parse_args()
    checkouts = [args.before.resolve(), args.after.resolve()]
    with tempfile.TemporaryDirectory(prefix="tiergate-bench-") as scratch:
        if args.small:
            small = small_case(Path(scratch))
            cases = [small, without_claim(small)]
        else:
            on, off = claim_cases(Path(scratch))
            cases = [on, off, without_claim(on)]
        times: dict[tuple[str, Path], list[tuple[float, float]]] = {}
        for round_ in range(WARMUP + args.rounds):
            for case in cases:
                for checkout in checkouts if round_ % 2 == 0 else checkouts[::-1]:
                    run = run_once(as_run_by(case, checkout))
                    problem = case.check(run)
                    if problem is not None:
                        sys.exit(f"claim_ab: {case.name}, {checkout}, round {round_}: {problem}")
                    if round_ >= WARMUP:
                        ms = (run.seconds * 1000, run.cpu_seconds * 1000)
                        times.setdefault((case.name, checkout), []).append(ms)
    load = os.getloadavg()[0]
    print(f"\n{args.rounds} interleaved rounds; load average {load:.1f} on {os.cpu_count()} CPUs")
    # CPU time (the hook and its git runs) is the figure a loaded machine does not inflate.
    print(f"{'median ms':28} {'before':>8} {'after':>8}  after/before    cpu before    after  after/before")
    for case in cases:
        wall = [statistics.median(t[0] for t in times[(case.name, c)]) for c in checkouts]
        cpu = [statistics.median(t[1] for t in times[(case.name, c)]) for c in checkouts]
        print(
            f"{case.name:28} {wall[0]:8.0f} {wall[1]:8.0f}  {wall[1] / wall[0]:.2f}x"
            f"          {cpu[0]:8.0f} {cpu[1]:8.0f}  {cpu[1] / cpu[0]:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
