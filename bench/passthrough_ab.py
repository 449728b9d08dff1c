"""The pass-through Stop of two tiergate checkouts, interleaved in one run: before/after figures for one
change on a noisy machine.

    .venv/bin/python bench/passthrough_ab.py <before checkout> <after checkout> [rounds]

Each checkout runs as hooks/hooks.json registers it (its `hooks/tiergate-hook` launcher, CLAUDE_PLUGIN_ROOT
set to it, so its own .venv), on the same Stop input in the same fresh git project, with no tiergate state:
the path every Stop of every session pays. The order alternates each round, so that noise hits both alike.
Prints each checkout's median, p10 and p90 and the ratio of the medians (after / before).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WARMUP = 5


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    roots = [Path(a).resolve() for a in argv[:2]]
    rounds = int(argv[2]) if len(argv) == 3 else 300
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        project = tmp / "project"
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        (tmp / "home").mkdir()
        payload = stop_input(project, tmp / "home")
        times: dict[Path, list[float]] = {root: [] for root in roots}
        for i in range(rounds + WARMUP):
            for root in roots if i % 2 == 0 else roots[::-1]:
                seconds = run(root, payload, env(root, project, tmp))
                if i >= WARMUP:
                    times[root].append(seconds * 1000)
    for root in roots:
        ms = sorted(times[root])
        n = len(ms)
        print(
            f"{root}: median {statistics.median(ms):.2f} ms, p10 {ms[n // 10]:.2f}, p90 {ms[9 * n // 10]:.2f}"
        )
    before, after = (statistics.median(times[root]) for root in roots)
    print(f"after / before (medians): {after / before:.3f}")
    return 0


def stop_input(project: Path, home: Path) -> bytes:
    session = "3f2b8c1e-9d7a-4c1b-8e2f-5a6b7c8d9e0f"
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": str(home / f"{session}.jsonl"),
            "cwd": str(project),
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": "I looked at it.",
        }
    ).encode()


def env(root: Path, project: Path, tmp: Path) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp / "home"),
        "XDG_STATE_HOME": str(tmp / "state"),
        "CLAUDE_PROJECT_DIR": str(project),
        "CLAUDE_PLUGIN_ROOT": str(root),
    }


def run(root: Path, payload: bytes, environment: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [str(root / "hooks" / "tiergate-hook"), "Stop"],
        input=payload,
        env=environment,
        capture_output=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0 or done.stdout:
        sys.exit(f"{root}: the pass-through Stop answered {done.returncode} {done.stdout[:200]!r}")
    return seconds


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
