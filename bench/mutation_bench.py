"""The mutation step's cost (issue 35) as a share of one run of the covering tests, the bare command measured
in the same run.

    .venv/bin/python -m bench.mutation_bench [--rounds N] [--libraries FILE] [--only NAME] [--per-process]

Each case is a git repository whose working tree holds a claimed change, and a test check that runs the
tests covering the changed file. Each round runs, in alternating order: the check's command by itself, no
tiergate (`bare`, T: one run of the covering tests); the gate on the claim measuring coverage, no mutants;
and the gate with the mutants too. The figures are medians: T; the step's own time as it reports it (from
the first mutant's code put in to the last fate written: `MutationRun.seconds`), the mutants' runs inside the
check; the gate's wall time with the mutants over without; and the step over T, whose goal is at most 0.5.

Cases:
- `generated pytest`: 40 modules of small functions (`bench.gate_coverage`'s shape, 800 tests), one module
  changed by a new function with its test; the check runs that module's test file.
- `generated node --test`: the same in JavaScript (CommonJS); the mutants run in the test file's own
  process once its tests are reported, and the step's time is the sum over the check's processes.
- `--libraries FILE`: real libraries, one case per entry of a JSON list, each `{"name", "repo" (a git
  checkout), "parent", "commit" (the change is `parent..commit` put in the working tree at `parent`),
  "python" (an interpreter with the library's test requirements) or "node": true, "tests" (the test files
  that cover the changed file)}`, made from checkouts of fetched snapshots (none of their code is in this
  repository), with `npm install` run at `parent` for JavaScript; `bench.covering_tests` fills each
  JavaScript entry's `tests` with the test files whose run reaches a changed line.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from testing.gaterun import gate_run
from testing.gitrepo import init_repo, write

from bench.gate_coverage import JS_CHANGED, JS_MODULE, JS_TEST, MODULES, PY_MODULE, PY_TEST
from tiergate.gate.checks import make_check
from tiergate.gate.request import MutantBounds
from tiergate.project import Project
from tiergate.tier.change import measure_change
from tiergate.tier.coverage.judgement import measurable_files
from tiergate.tier.mutation.fates import MutationRun

GOAL = 0.5
PY_CHANGED = PY_MODULE.format(i=0) + (
    "\n\ndef shipping_0(weight, express=False):\n"
    "    if weight < 1:\n        return 5\n"
    "    cost = 5 + 2 * weight\n"
    "    return cost * 2 if express else cost\n"
)
PY_CHANGED_TEST = PY_TEST.format(i=0) + (
    "\n\ndef test_shipping():\n    from shop.m0 import shipping_0\n\n"
    "    assert shipping_0(0.5) == 5 and shipping_0(1) == 7 and shipping_0(2) == 9\n"
    "    assert shipping_0(2, express=True) == 18\n"
)
JS_CHANGED_TEST = JS_TEST.format(i=0) + (
    'test("shipping", () => {\n  const { shipping } = require("../lib/m0.js");\n'
    "  assert.strictEqual(shipping(0.5), 5);\n  assert.strictEqual(shipping(1), 7);\n"
    "  assert.strictEqual(shipping(2), 9);\n});\n"
)


@dataclass
class Case:
    name: str
    repo: Path
    command: str


def generated_python(root: Path) -> Case:
    files = {f"shop/m{i}.py": PY_MODULE.format(i=i) for i in range(MODULES)}
    files |= {f"tests/test_m{i}.py": PY_TEST.format(i=i) for i in range(MODULES)}
    files |= {"shop/__init__.py": "", ".gitignore": "__pycache__/\n"}
    repo = init_repo(root / "py", files)
    write(repo, {"shop/m0.py": PY_CHANGED, "tests/test_m0.py": PY_CHANGED_TEST})
    python = shlex.quote(sys.executable)
    command = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {python} -m pytest -q -p no:cacheprovider tests/test_m0.py"
    return Case("generated pytest", repo, command)


def generated_node(root: Path) -> Case:
    files = {f"lib/m{i}.js": JS_MODULE.format(i=i) for i in range(MODULES // 2)}
    files |= {f"test/m{i}.test.js": JS_TEST.format(i=i) for i in range(MODULES // 2)}
    repo = init_repo(root / "js", files)
    write(repo, {"lib/m0.js": JS_CHANGED, "test/m0.test.js": JS_CHANGED_TEST})
    return Case("generated node --test", repo, "node --test test/m0.test.js")


def library(root: Path, entry: dict[str, Any]) -> Case:
    """The library's own checkout at its change's parent, the change put in its working tree: the
    checkout its environment's editable install names, so that the bare run imports the change too."""
    where = Path(entry["repo"])
    git = ["git", "-C", str(where)]
    for step in (
        ["reset", "-q", "--hard"],
        ["clean", "-fdq"],
        ["checkout", "-q", "--detach", entry["parent"]],
    ):
        subprocess.run([*git, *step], check=True, capture_output=True)
    diff = subprocess.run(
        [*git, "diff", "--binary", entry["parent"], entry["commit"]], check=True, capture_output=True
    )
    subprocess.run([*git, "apply", "--whitespace=nowarn"], input=diff.stdout, check=True)
    tests = " ".join(shlex.quote(t) for t in entry["tests"])
    if entry.get("node"):
        command = f"node --test {tests}"
    else:
        python = shlex.quote(entry["python"])
        # The library's own folder first (`src/`, its layout): its editable install names the checkout,
        # which the claim's copy hides.
        # Its environment's plugins load (pytest-timeout, for werkzeug's marks): they are its own.
        command = f"{python} -m pytest -q -p no:cacheprovider -o pythonpath=src {tests}"
    return Case(entry["name"], where, command)


def bare(case: Case) -> float:
    start = time.perf_counter()
    done = subprocess.run(case.command, shell=True, cwd=case.repo, capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{case.name}: the covering tests fail bare:\n{done.stdout.decode()[-2000:]}")
    return time.perf_counter() - start


def gated(case: Case, state: Path, mutants: bool) -> tuple[float, MutationRun | None]:
    change = measure_change(case.repo)
    start = time.perf_counter()
    result = gate_run(
        Project(case.repo, state),
        None,
        [make_check("tests", case.command, "bench")],
        reuse=False,
        measure=measurable_files(change),
        change=change,
        mutants=MutantBounds(seconds=600.0) if mutants else None,
    )
    elapsed = time.perf_counter() - start
    if result.refuted:
        raise SystemExit(f"{case.name}: the gate refutes the change:\n{result.report_text()}")
    return elapsed, result.coverage.mutation if result.coverage else None


def measure(case: Case, state: Path, rounds: int) -> float:
    gated(case, state, True)  # warm: bytecode, disk, the import map
    bares: list[float] = []
    plains: list[float] = []
    mutated: list[float] = []
    steps: list[float] = []
    run: MutationRun | None = None
    for index in range(rounds):
        order = (False, True) if index % 2 else (True, False)
        bares.append(bare(case))
        for mutants in order:
            elapsed, found = gated(case, state, mutants)
            (mutated if mutants else plains).append(elapsed)
            if mutants and found is not None:
                run = found
                steps.append(found.seconds)
    t, step = statistics.median(bares), statistics.median(steps) if steps else float("nan")
    with_, without = statistics.median(mutated), statistics.median(plains)
    print(f"{case.name}: `{case.command}`, median of {rounds}")
    print(f"  T (the covering tests, bare): {t:.2f} s")
    print(f"  gate without mutants {without:.2f} s, with {with_:.2f} s: {with_ / without:.2f}x")
    difference = (with_ - without) / t
    print(
        f"  the step: {step:.2f} s = {step / t:.2f} T (goal <= {GOAL} T); gate difference {difference:.2f} T"
    )
    if run is not None:
        print(f"  mutants: {run.score()}{'; void: ' + run.void if run.void else ''}")
        for tried in run.of("survived"):
            print(f"    survived: {tried.mutant.describe()}")
    return step / t


def per_process() -> None:
    """The check's `node --test` processes get no plan: every mutant runs in a process of its own, the
    fallback the in-process step takes for what it cannot decide."""
    from tiergate.gate.mutation.nodestep import NodeStep

    def no_plan(self: NodeStep, where: Path, out: Path) -> dict[str, str]:
        self._mutants(where)
        return {}

    NodeStep.env = no_plan  # type: ignore[method-assign]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--libraries", type=Path, help="a JSON list of real libraries' changes")
    parser.add_argument("--only", help="only the cases whose name holds this")
    parser.add_argument(
        "--per-process",
        action="store_true",
        help="JavaScript mutants each in a process of its own, as without the in-process step: its gain",
    )
    args = parser.parse_args()
    if args.per_process:
        per_process()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["XDG_STATE_HOME"] = str(root / "xdg")  # the sealing key too: never the user's
        # Named before they are made: making a library's case resets its checkout, which `--only` spares.
        makers: list[tuple[str, Callable[[], Case]]] = [
            ("generated pytest", lambda: generated_python(root)),
            ("generated node --test", lambda: generated_node(root)),
        ]
        if args.libraries:
            entries = json.loads(args.libraries.read_text())
            makers += [(e["name"], functools.partial(library, root, e)) for e in entries]
        shares: list[float] = []
        for name, make in makers:
            if args.only and args.only not in name:
                continue
            shares.append(measure(make(), root / f"state-{len(shares)}", args.rounds))
    return 0 if shares and max(shares) <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
