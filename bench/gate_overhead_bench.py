"""tiergate's own time around a project's tests: `tiergate checks --rerun` against the bare test command,
interleaved in one run (issue 21 asks for at most 0.5 s plus 10% of the check's time).

    .venv/bin/python -m bench.gate_overhead_bench [--rounds N] [--tests N]

A generated Python project (a module and `--tests` pytest tests doing some arithmetic, about three
seconds of tests on these machines by default), a git repository with one commit and a one-line change
in the work tree (so that the gate measures the change's coverage, as at a claim). Each round runs, in
turn: the bare command (`python -m pytest -q`), and `tiergate checks --rerun` with the checkout's `src`
on PYTHONPATH (the baseline at HEAD is made once, before the rounds, as a loop makes it once). Prints
the medians, the overhead (tiergate minus bare), the budget (0.5 s + 10% of bare) and whether it holds.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMAND = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider"
CODE = '''"""Arithmetic the tests exercise."""


def collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def scaled(a, b):
    return a * b
'''
TEST = """from calc import collatz


def test_{i}():
    assert sum(collatz(n) for n in range(1, {work})) > 0
"""


def make_project(where: Path, tests: int, work: int) -> Path:
    project = where / "project"
    (project / "tests").mkdir(parents=True)
    (project / "calc.py").write_text(CODE)
    for i in range(tests):
        (project / "tests" / f"test_{i}.py").write_text(TEST.format(i=i, work=work))
    (project / ".tiergate.toml").write_text(f"[checks]\ntests = {COMMAND!r}\n".replace("'", '"'))
    (project / ".gitignore").write_text("__pycache__/\n")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=project, check=True)
    subprocess.run([*git, "add", "-A"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], cwd=project, check=True)
    (project / "calc.py").write_text(CODE.replace("return a * b", "return b * a"))
    return project


def timed(command: list[str], project: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} exited {result.returncode}: {result.stdout[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tests", type=int, default=60)
    parser.add_argument("--work", type=int, default=6000, help="collatz range per test (its CPU)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        project = make_project(where, args.tests, args.work)
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT / "src"),
            "XDG_STATE_HOME": str(where / "state"),
            "HOME": str(where / "home"),
        }
        env.pop("TIERGATE_STATE_DIR", None)
        bare = ["sh", "-c", COMMAND]
        gate = [sys.executable, "-m", "tiergate", "checks", "--rerun"]
        timed(gate, project, env)  # the baseline at HEAD, made once as a loop makes it
        bares: list[float] = []
        gates: list[float] = []
        for _ in range(args.rounds):
            bares.append(timed(bare, project, env))
            gates.append(timed(gate, project, env))
    b, g = statistics.median(bares), statistics.median(gates)
    budget = 0.5 + 0.1 * b
    print(f"bare test command        median {b:.2f} s  ({', '.join(f'{x:.2f}' for x in bares)})")
    print(f"tiergate checks --rerun  median {g:.2f} s  ({', '.join(f'{x:.2f}' for x in gates)})")
    verdict = "holds" if g - b <= budget else "OVER"
    print(f"overhead {g - b:.2f} s; budget 0.5 s + 10% = {budget:.2f} s: {verdict}")
    print(f"ratio tiergate / bare: {g / b:.2f}")


if __name__ == "__main__":
    main()
