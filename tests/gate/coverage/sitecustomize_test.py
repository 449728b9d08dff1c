"""The gate's line probes (`tiergate/gate/checksite/sitecustomize.py`), installed as the gate installs them
(copied as sitecustomize.py first on PYTHONPATH, with a plan) in a real Python process: the report it
writes at exit, read directly."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from testing.gitrepo import write

from tiergate.gate.coverage.measuring import SITECUSTOMIZE

# Statements on lines 4-9 (the docstring on 1 and the __future__ import on 2 are not).
CALC = '''"""Calculations."""
from __future__ import annotations

def sign(x):
    if x < 0:
        return -1
    if x == 0:
        return 0
    return 1
'''


def run_python(root: Path, code: str, include: list[str] | None) -> tuple[str, list[dict[str, Any]]]:
    """`code` run in `root` with the probes first on PYTHONPATH (and a plan when `include` is given): what
    it printed, and the reports written."""
    site, out = root.parent / "site", root.parent / "out"
    site.mkdir()
    out.mkdir()
    shutil.copyfile(SITECUSTOMIZE, site / "sitecustomize.py")
    env = {k: v for k, v in os.environ.items() if k != "TIERGATE_COVERAGE_PLAN"}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(root / "shadowed")])
    if include is not None:
        plan = out / "plan.json"
        plan.write_text(json.dumps({"out": str(out), "include": include}), encoding="utf-8")
        env["TIERGATE_COVERAGE_PLAN"] = str(plan)
    printed = subprocess.check_output([sys.executable, "-c", code], cwd=root, env=env, text=True, timeout=60)
    reports = [
        json.loads(p.read_text(encoding="utf-8")) for p in out.iterdir() if p.name.startswith("report-")
    ]
    return printed, reports


def test_a_planned_module_reports_its_statement_lines_and_the_ones_that_ran(tmp_path: Path) -> None:
    root = tmp_path / "p"
    write(root, {"calc.py": CALC, "other.py": "VALUE = 1\n"})
    calc = os.path.realpath(root / "calc.py")

    printed, [report] = run_python(
        root, "import calc, other; print(calc.sign(5), calc.__doc__, other.VALUE)", [calc]
    )

    assert printed.split() == ["1", "Calculations.", "1"]
    assert report["tool"] == "tiergate line probes"
    assert report["files"] == {calc: [[4, 5, 6, 7, 8, 9], [4, 5, 7, 9]]}


def test_without_a_plan_nothing_is_probed_or_written(tmp_path: Path) -> None:
    root = tmp_path / "p"
    write(root, {"calc.py": CALC})

    printed, reports = run_python(root, "import calc; print('__tiergate_lines__' in vars(calc))", None)

    assert printed.split() == ["False"]
    assert reports == []


def test_the_sitecustomize_it_shadows_still_runs(tmp_path: Path) -> None:
    root = tmp_path / "p"
    write(
        root, {"calc.py": CALC, "shadowed/sitecustomize.py": "import builtins\nbuiltins.SHADOWED = 'ran'\n"}
    )

    printed, [report] = run_python(root, "import calc; print(SHADOWED, calc.sign(-2))", [])

    assert printed.split() == ["ran", "-1"]
    assert report["files"] == {}
