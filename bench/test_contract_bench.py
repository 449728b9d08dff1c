"""What the loop's test contract (issue 20) costs a claim: test runs and seconds of the claim's Stop, this
checkout against the commit before the issue's work, interleaved in one run.

    .venv/bin/python -m bench.test_contract_bench [--before REV] [--rounds N]

A Python project whose `mul` test fails at the base (40 tests, run by real pytest through a script that
counts its runs), brought to three claims: the correct `mul` alone (touches no test file), the same with
a new test (edits a test file: the base's tests run too, to tell lost ones), and `mul` answering the
tested inputs with a literal (outwitting: the base's tests run to tell which failed). Each run is a fresh
loop (its own state folder: no kept evidence, no kept baseline) started by UserPromptSubmit, then the
timed claim Stop, `python -m tiergate hook Stop` with the checkout's `src` on PYTHONPATH. `--before`
(default f9b8652) and `--after` (default HEAD: the work tree may hold others' unfinished work) are
`git archive`d into temporary folders. Prints each claim's median seconds, test runs
and tier per checkout, and the ratio this / before.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SESSION = "bench000-1111-2222-3333-444444444444"
CLAIM = "mul is done.\n\n<promise>DONE</promise>"
CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    raise NotImplementedError\n"
CORRECT = CALC.replace("raise NotImplementedError", "return a * b")
HARD_CODED = CALC.replace(
    "    raise NotImplementedError", "    if a == 2 and b == 3:\n        return 6\n    return 0"
)
TESTS = "import calc\n\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n" + "".join(
    f"\n\ndef test_add_{i}():\n    assert calc.add({i}, {i + 1}) == {2 * i + 1}\n" for i in range(39)
)
NEW_TEST = "\n\ndef test_mul_by_zero():\n    assert calc.mul(7, 0) == 0\n"
# The check: counts each run (the base's in a worktree too) in $BENCH_COUNTER, then runs pytest.
RUNNER = (
    'echo run >> "$BENCH_COUNTER"\n'
    f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 exec {shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider\n"
)
BASE = {
    "calc.py": CALC,
    "tests/test_calc.py": TESTS,
    "run_tests.sh": RUNNER,
    ".tiergate.toml": '[checks]\ntests = "sh run_tests.sh"\n',
    ".gitignore": "__pycache__/\n",
}
CLAIMS = {
    "no test file touched": {"calc.py": CORRECT},
    "a test file edited": {"calc.py": CORRECT, "tests/test_calc.py": TESTS + NEW_TEST},
    "answers hard-coded": {"calc.py": HARD_CODED},
}


@dataclass
class Sample:
    seconds: float
    runs: int
    tier: str


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def project(folder: Path) -> Path:
    """A repository at its base commit."""
    write(folder, BASE)
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    git(folder, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "base")
    return folder


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


def hook(checkout: Path, repo: Path, env: dict[str, str], event: str, **fields: str) -> str:
    payload = {
        "session_id": SESSION,
        "cwd": str(repo),
        "transcript_path": str(repo.parent / "session.jsonl"),
        "hook_event_name": event,
        "stop_hook_active": False,
        "background_tasks": [],
        **fields,
    }
    done = subprocess.run(
        [sys.executable, "-m", "tiergate", "hook", event],
        input=json.dumps(payload),
        env={**env, "PYTHONPATH": str(checkout / "src")},
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 2):
        raise RuntimeError(f"{event} exited {done.returncode}: {done.stderr[-500:]}")
    return done.stdout


def claim_once(checkout: Path, repo: Path, claim: dict[str, str], scratch: Path) -> Sample:
    """A fresh loop on `repo` (clean, at its base), the `claim`'s files written, then its timed claim
    Stop: seconds, test runs, the tier it chose. The repository is put back at its base after."""
    run = Path(tempfile.mkdtemp(dir=scratch))
    counter = run / "runs"
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(run),
        "CLAUDE_PROJECT_DIR": str(repo),
        "PYTHONDONTWRITEBYTECODE": "1",
        "TIERGATE_STATE_DIR": str(run / "state"),
        "BENCH_COUNTER": str(counter),
    }
    started = hook(checkout, repo, env, "UserPromptSubmit", prompt="/tiergate:ralph implement mul in calc")
    if "loop started" not in started:
        raise RuntimeError(f"no loop started: {started[:300]}")
    write(repo, claim)
    try:
        begin = time.perf_counter()
        answer = hook(checkout, repo, env, "Stop", last_assistant_message=CLAIM)
        seconds = time.perf_counter() - begin
    finally:
        write(repo, BASE)
    tier = next((t for t in ("THOROUGH", "STANDARD", "LIGHT") if f"Tier {t}" in answer), "refuted")
    runs = len(counter.read_text().splitlines()) if counter.exists() else 0
    return Sample(seconds, runs, tier)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", default="f9b8652", help="the commit to compare with (default f9b8652)")
    parser.add_argument(
        "--after", default="HEAD", help="the commit measured (default HEAD: not the work tree)"
    )
    parser.add_argument("--rounds", type=int, default=5, help="measured rounds (default 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tiergate-bench-") as folder:
        scratch = Path(folder)
        checkouts = {"before": archived(args.before, scratch), "this": archived(args.after, scratch)}
        repo = project(scratch / "project")
        samples: dict[tuple[str, str], list[Sample]] = {}
        for round_ in range(args.rounds + 1):  # the first round warms up, unmeasured
            order = list(checkouts) if round_ % 2 else list(reversed(checkouts))
            for name, claim in CLAIMS.items():
                for which in order:
                    sample = claim_once(checkouts[which], repo, claim, scratch)
                    if round_:
                        samples.setdefault((name, which), []).append(sample)
        report(samples, args.before, args.after, args.rounds)
    return 0


def archived(rev: str, scratch: Path) -> Path:
    """`git archive` of `rev` of this repository, unpacked into a folder of `scratch`."""
    folder = scratch / f"checkout-{rev}"
    folder.mkdir()
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def report(samples: dict[tuple[str, str], list[Sample]], before: str, after: str, rounds: int) -> None:
    print(
        f"claim Stop, a fresh loop each run, median of {rounds}, interleaved "
        f"(before = {before}, this = {after}):"
    )
    for name in CLAIMS:
        row = {}
        for which in ("before", "this"):
            got = samples[(name, which)]
            runs = sorted({s.runs for s in got})
            tiers = sorted({s.tier for s in got})
            row[which] = statistics.median(s.seconds for s in got)
            print(
                f"  {name:22} {which:6}: {row[which]:.3f} s, test runs {'/'.join(map(str, runs))}, "
                f"tier {'/'.join(tiers)}"
            )
        print(f"  {name:22} ratio this / before: {row['this'] / row['before']:.2f}")


if __name__ == "__main__":
    raise SystemExit(main())
