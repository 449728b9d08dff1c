"""How much measuring coverage at the gate costs: the same gate run with and without it, interleaved.

Run from the repository root: `.venv/bin/python -m bench.gate_coverage [--runs N] [--python PATH]`
(`--python`: the interpreter that runs the pytest suite, with pytest installed; default this one).

Two generated projects, each a real git repository with one changed module and its new test: a pytest
suite (40 modules of small functions: string, dict and arithmetic work, 800 tests with parametrised
cases, run by `python -m pytest`) and, where `node` is on PATH, a `node --test` suite of the same shape.
Each round runs the gate on the project twice, once measuring the change's coverage and once not, in
alternating order, nothing reused; the figures are the medians, of wall time and of the CPU time of
the gate's processes (steadier on a shared machine). The goal: the measured run takes at most 1.25
times the plain one.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from testing.gaterun import gate_run
from testing.gitrepo import init_repo, write

from tiergate.gate.checks import make_check
from tiergate.project import Project
from tiergate.tier.change import measure_change
from tiergate.tier.coverage.judgement import judge_coverage, measurable_files

GOAL = 1.25
MODULES = 40
PY_MODULE = """\
def normalise_{i}(text):
    words = [w.strip(".,;").lower() for w in text.split()]
    return " ".join(w for w in words if w)


def tally_{i}(items):
    counts = {{}}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def price_{i}(lines, discount=0):
    total = 0
    for quantity, unit in lines:
        if quantity < 0:
            raise ValueError("negative quantity")
        total += quantity * unit
    return round(total * (100 - discount) / 100, 2)
"""
PY_TEST = """\
import pytest

from shop.m{i} import normalise_{i}, price_{i}, tally_{i}


@pytest.mark.parametrize("n", range(10))
def test_normalise(n):
    assert normalise_{i}("Hello, World; " * (n + 1)).split()[0] == "hello"


@pytest.mark.parametrize("n", range(5))
def test_tally(n):
    items = [str(k % 7) for k in range(200 * (n + 1))]
    assert tally_{i}(items)[0][1] >= 28


@pytest.mark.parametrize("n", range(5))
def test_price(n):
    assert price_{i}([(k, 1.5) for k in range(100)], discount=n) > 0
"""
PY_CHANGED = (
    PY_MODULE.format(i=0) + "\n\ndef shipping_0(weight):\n    return 5 if weight < 1 else 5 + 2 * weight\n"
)
PY_CHANGED_TEST = PY_TEST.format(i=0) + (
    "\n\ndef test_shipping():\n    from shop.m0 import shipping_0\n\n"
    "    assert shipping_0(0.5) == 5 and shipping_0(2) == 9\n"
)
JS_MODULE = """\
function normalise(text) {{
  return text.split(/\\s+/).map((w) => w.replace(/[.,;]/g, "").toLowerCase()).filter(Boolean).join(" ");
}}

function tally(items) {{
  const counts = new Map();
  for (const item of items) counts.set(item, (counts.get(item) || 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}}

function price(lines, discount = 0) {{
  let total = 0;
  for (const [quantity, unit] of lines) {{
    if (quantity < 0) throw new Error("negative quantity");
    total += quantity * unit;
  }}
  return Math.round(total * (100 - discount)) / 100;
}}

module.exports = {{ normalise, tally, price, id: {i} }};
"""
JS_TEST = """\
const test = require("node:test");
const assert = require("node:assert");
const {{ normalise, tally, price }} = require("../lib/m{i}.js");

const items = (n) => Array.from({{ length: 200 * (n + 1) }}, (_, k) => String(k % 7));
const lines = Array.from({{ length: 100 }}, (_, k) => [k, 1.5]);
for (let n = 0; n < 10; n++) {{
  const text = "Hello, World; ".repeat(n + 1);
  test(`normalise ${{n}}`, () => assert.strictEqual(normalise(text).split(" ")[0], "hello"));
  test(`tally ${{n}}`, () => assert.ok(tally(items(n))[0][1] >= 28));
  test(`price ${{n}}`, () => assert.ok(price(lines, n) > 0));
}}
"""
JS_CHANGED = JS_MODULE.format(i=0).replace(
    "module.exports = {",
    "function shipping(weight) {\n  return weight < 1 ? 5 : 5 + 2 * weight;\n}\n\n"
    "module.exports = { shipping,",
)
JS_CHANGED_TEST = JS_TEST.format(i=0) + (
    'test("shipping", () => assert.strictEqual(require("../lib/m0.js").shipping(2), 9));\n'
)


def python_project(root: Path, python: str) -> tuple[Path, str]:
    files = {f"shop/m{i}.py": PY_MODULE.format(i=i) for i in range(MODULES)}
    files |= {f"tests/test_m{i}.py": PY_TEST.format(i=i) for i in range(MODULES)}
    files |= {"shop/__init__.py": "", ".gitignore": "__pycache__/\n"}
    repo = init_repo(root / "py", files)
    write(repo, {"shop/m0.py": PY_CHANGED, "tests/test_m0.py": PY_CHANGED_TEST})
    return (
        repo,
        f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {shlex.quote(python)} -m pytest -q -p no:cacheprovider tests",
    )


def node_project(root: Path, python: str) -> tuple[Path, str]:
    # Half as many files: `node --test` starts a process per test file.
    files = {f"lib/m{i}.js": JS_MODULE.format(i=i) for i in range(MODULES // 2)}
    files |= {f"test/m{i}.test.js": JS_TEST.format(i=i) for i in range(MODULES // 2)}
    repo = init_repo(root / "js", files)
    write(repo, {"lib/m0.js": JS_CHANGED, "test/m0.test.js": JS_CHANGED_TEST})
    return repo, "node --test test/"


def timed(repo: Path, state: Path, command: str, measured: bool) -> tuple[float, float, str]:
    """One gate run, nothing reused; its wall and CPU time, and the coverage judgement it leads to."""
    change = measure_change(repo)
    check = make_check("tests", command, "bench")
    cpu = _children_cpu()
    start = time.perf_counter()
    result = gate_run(
        Project(repo, state),
        None,
        [check],
        reuse=False,
        measure=measurable_files(change) if measured else None,
    )
    elapsed, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if result.refuted:
        raise SystemExit(f"the bench's tests failed:\n{result.report_text()}")
    return elapsed, cpu, judge_coverage(change, result.coverage).evidence


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def compare(
    name: str, make: Callable[[Path, str], tuple[Path, str]], python: str, runs: int, tmp: Path
) -> float:
    repo, command = make(tmp, python)
    state = tmp / f"state-{name}"
    timed(repo, state, command, measured=False)  # warm the caches (bytecode, disk) before measuring
    times: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
    evidence = ""
    for run in range(runs):
        for measured in (run % 2 == 1, run % 2 == 0):  # alternate which goes first
            wall, cpu, said = timed(repo, state, command, measured)
            times[measured].append((wall, cpu))
            evidence = said if measured else evidence
    print(f"{name}: `{command}`; median of {runs}")
    ratios = []
    for index, what in enumerate(("wall", "CPU")):
        plain, covered = (statistics.median(t[index] for t in times[m]) for m in (False, True))
        ratios.append(covered / plain)
        print(f"  {what}: uncovered {plain:.2f} s, covered {covered:.2f} s, ratio {covered / plain:.2f}")
    print(f"  evidence: {evidence}")
    print(f"  goal: ratio <= {GOAL}")
    return ratios[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    runs, python = args.runs, args.python
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "xdg")  # the sealing key too: never the user's
        ratios = [compare("pytest", python_project, python, runs, Path(tmp))]
        if shutil.which("node"):
            ratios.append(compare("node --test", node_project, python, runs, Path(tmp)))
        else:
            print("node --test: skipped, node is not on PATH")
    return 0 if max(ratios) <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
