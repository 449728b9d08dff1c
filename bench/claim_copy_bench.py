"""What evaluating a claim in its copy costs (`tiergate.gate.cleancopy`), against running the same checks in
the workspace as the gate did before, measured in the same run.

    .venv/bin/python -m bench.claim_copy_bench [--rounds N] [--files N ...] [--tests N]

A git project of `--files` source files (about 2 KB each, in folders of 100) with a pytest suite of
`--tests` tests over them, a change of ten files from its base. Each round runs the suite once in the
workspace (the gate's run before the copy) and once as a claim now runs it: the copy made (the change's
tree of raw bytes, its files written), the suite run in it, the copy removed; and the suite run in a copy
without the watch on the files its Python reads (`tiergate.gate.imported`), and one not isolated
(`tiergate.gate.sandbox`), and, run by root, one isolated without the kernel's watch on what it opens
(`tiergate.gate.sandboxwatch`). Prints the medians, the copy's own time, both as ratios to the run in the
workspace, the watched run's to the unwatched one's, the isolated run's to the one run bare, and the
kernel-watched run's to the isolated one without it. The
goal is the gate-at-scale budget: an honest claim's gate within 1.3 times the bare suite.
"""

from __future__ import annotations

import argparse
import shlex
import site
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from tiergate.gate import sandbox
from tiergate.gate.bytecode import seed_of
from tiergate.gate.checks import Check, make_check
from tiergate.gate.cleancopy import claim_copy
from tiergate.gate.imported import KEY_VARIABLE, OUT_VARIABLE
from tiergate.gate.processes import Running
from tiergate.gate.testreports import run_reported

PYTEST = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider"
WATCH_VARIABLES = ("PYTHONPATH", OUT_VARIABLE, KEY_VARIABLE)
LINE = "def f{i}(x):\n    return x * {i} + {i}  # padding, to a module's usual size\n\n\n"
BODY = "".join(LINE.format(i=i) for i in range(20))


def make_project(where: Path, files: int, tests: int) -> tuple[Path, str]:
    project = where / "project"
    for n in range(files):
        module = project / "src" / f"pkg{n // 100}" / f"mod{n}.py"
        module.parent.mkdir(parents=True, exist_ok=True)
        module.write_text(BODY)
    (project / "tests").mkdir()
    for n in range(tests):
        (project / "tests" / f"test_{n}.py").write_text(
            "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parents[1] / 'src'))\n"
            f"from pkg{(n % files) // 100}.mod{n % files} import f3\n\n\n"
            f"def test_{n}():\n    assert f3(2) == 9\n"
        )
    (project / ".gitignore").write_text("__pycache__/\n")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=project, check=True)
    subprocess.run([*git, "add", "-A"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], cwd=project, check=True)
    asked = [*git, "rev-parse", "HEAD"]
    base = subprocess.run(asked, cwd=project, check=True, capture_output=True, text=True)
    for n in range(min(10, files)):
        module = project / "src" / f"pkg{n // 100}" / f"mod{n}.py"
        module.write_text(BODY + "\n# changed\n")
    return project, base.stdout.strip()


def measure(project: Path, base: str, rounds: int) -> tuple[float, float, float, float, float, float]:
    """Medians of: the suite in the workspace; the copy alone; the copy with the suite run in it; the
    suite alone in a copy, watched over unwatched, isolated over not, kernel-watched over not."""
    check = make_check("tests", PYTEST, "bench")
    # The bytecode a claim's copy starts with: this interpreter's packages and standard library as they
    # were before the "loop" (now), as a loop's environment record gives them.
    folders = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    seed = seed_of(dict.fromkeys(folders), [sys.executable], time.time())
    in_place, copy_only, in_copy, watch, isolated, kernel = [], [], [], [], [], []
    for _ in range(rounds):
        start = time.perf_counter()
        [result] = run_reported([check], project, Running(timeout=600))
        in_place.append(time.perf_counter() - start)
        assert result.status == "passed", result.reason
        start = time.perf_counter()
        with claim_copy(project, base, seed=seed):
            pass
        copy_only.append(time.perf_counter() - start)
        start = time.perf_counter()
        with claim_copy(project, base, seed=seed) as copy:
            [result] = run_reported([check], copy.cwd, Running(timeout=600), env={check.key: copy.env})
        in_copy.append(time.perf_counter() - start)
        assert result.status == "passed", result.reason
        with claim_copy(project, base, seed=seed) as copy:
            unwatched = {k: v for k, v in copy.env.items() if k not in WATCH_VARIABLES}
            loose = {k: v for k, v in copy.env.items() if k != sandbox.VARIABLE}
            plan = sandbox.from_variable(copy.env[sandbox.VARIABLE])
            # No loop's start, no kernel watch (`sandbox._watched`).
            unkernel = {**copy.env, **replace(plan, before=None).variable()}
            watch.append(_ratio(check, copy.cwd, unwatched, copy.env))
            isolated.append(_ratio(check, copy.cwd, loose, copy.env))
            kernel.append(_ratio(check, copy.cwd, unkernel, copy.env))
    medians = (statistics.median(t) for t in (in_place, copy_only, in_copy, watch, isolated, kernel))
    return tuple(medians)  # type: ignore[return-value]


def _ratio(check: Check, cwd: Path, without: dict[str, str], with_: dict[str, str]) -> float:
    """The suite's time run with `with_` over its time run with `without`."""
    timed = {0: 0.0, 1: 0.0}
    for which in (0, 1, 1, 0):  # each twice, in turn, so that neither runs only warm
        start = time.perf_counter()
        env = (without, with_)[which]
        [result] = run_reported([check], cwd, Running(timeout=600), env={check.key: env})
        assert result.status == "passed", result.reason
        timed[which] += time.perf_counter() - start
    return timed[1] / timed[0]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--files", type=int, nargs="+", default=[200, 2000, 10000])
    parser.add_argument("--tests", type=int, default=50)
    args = parser.parse_args(argv)
    names = (
        "files",
        "in place",
        "copy",
        "in copy",
        "copy/place",
        "in copy/place",
        "watched/not",
        "isolated/not",
        "kernel/not",
    )
    widths = (7, 9, 7, 8, 11, 14, 12, 13, 11)
    print(" ".join(f"{n:>{w}}" for n, w in zip(names, widths, strict=True)))
    for files in args.files:
        with tempfile.TemporaryDirectory(prefix="tiergate-copy-bench-") as where:
            project, base = make_project(Path(where), files, args.tests)
            place, copy, both, watched, isolated, kernel = measure(project, base, args.rounds)
        ratios = (
            f"{copy / place:>11.2f} {both / place:>14.2f} {watched:>12.2f} {isolated:>13.2f} {kernel:>11.2f}"
        )
        print(f"{files:>7} {place:>8.2f}s {copy:>6.2f}s {both:>7.2f}s {ratios}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
