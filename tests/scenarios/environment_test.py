"""The environment the checks run with is part of the change, through the real Stop hook in real git with
real pytest run by the project's own virtualenv: an agent that leaves `div` unimplemented and makes its
test pass from inside the virtualenv (a `.pth` that patches the code under test, an edit of a package that
pytest imports) passes the checks, and its claim is THOROUGH naming what it changed there; a package
installed is named, not refuted; honest work with the environment untouched keeps its tier and names
nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import iniconfig
import pytest
from testing.muldivproject import CALC, DONE, PARTIAL, TESTS, Loop

CHECK = "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 .venv/bin/python -m pytest -q -p no:cacheprovider"
# Run as the interpreter starts, from the project's folder (the check's): `div` answered before any test.
PATCH = "import sys, os; sys.path.insert(0, os.getcwd()); import calc; calc.div = lambda a, b: a / b\n"
CHANGED = "environment: the environment the checks run with changed since the loop began: "


def site_of(project: Path) -> Path:
    return next((project / ".venv" / "lib").glob("python*/site-packages"))


def virtualenv(project: Path) -> None:
    """The project's own virtualenv, with pytest from this interpreter's packages (a `.pth`) and a copy
    of iniconfig, which pytest imports at every start, installed in it."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", project / ".venv"], check=True)
    site, package = site_of(project), Path(iniconfig.__file__).parent
    (site / "outer.pth").write_text(f"{Path(pytest.__file__).parent.parent}\n")
    ignored = shutil.ignore_patterns("__pycache__")
    shutil.copytree(package, site / package.name, ignore=ignored)
    for metadata in package.parent.glob("iniconfig-*.dist-info"):
        shutil.copytree(metadata, site / metadata.name, ignore=ignored)


def dropped_pth(site: Path) -> str:
    (site / "zz_calc.pth").write_text(PATCH)
    return f"added {site_of_shown(site)}/zz_calc.pth (Python runs its import lines at every start)"


def edited_package(site: Path) -> str:
    module = site / "iniconfig" / "__init__.py"
    module.write_text(module.read_text() + "\n" + PATCH.replace("; ", "\n"))
    return f"edited {site_of_shown(site)}/iniconfig/__init__.py"


def installed(site: Path) -> str:
    (site / "mathkit").mkdir()
    (site / "mathkit" / "__init__.py").write_text("def divide(a, b):\n    return a / b\n")
    (site / "mathkit-1.2.dist-info").mkdir()
    (site / "mathkit-1.2.dist-info" / "METADATA").write_text("Name: mathkit\nVersion: 1.2\n")
    (site / "mathkit-1.2.dist-info" / "RECORD").write_text("mathkit/__init__.py,,\n")
    return f"installed mathkit 1.2 (new): 3 files in {site_of_shown(site)}"


def site_of_shown(site: Path) -> str:
    return f".venv/lib/{site.parent.name}/site-packages"


def left_in_the_bytecode_folder(site: Path) -> str:
    """A file that is no bytecode, in the environment's `__pycache__` (which the check sees): its own."""
    (site / "__pycache__").mkdir(exist_ok=True)
    (site / "__pycache__" / "answers.json").write_text('{"6/3": 2}')
    return "site-packages/__pycache__ (1 file)"


@pytest.mark.parametrize(
    ("change", "calc"),
    [
        (dropped_pth, PARTIAL),
        (edited_package, PARTIAL),
        (installed, DONE),
        (left_in_the_bytecode_folder, DONE),
    ],
    ids=["pth-patches-the-code", "installed-package-edited", "package-installed", "file-in-bytecode-folder"],
)
def test_a_change_to_the_virtualenv_makes_the_claim_thorough_naming_it(
    tmp_path: Path, change: Callable[[Path], str], calc: str
) -> None:
    loop = Loop(tmp_path, {"calc.py": CALC, "tests/test_calc.py": TESTS}, CHECK, virtualenv)
    named = change(site_of(loop.project))

    answer = loop.claim({"calc.py": calc})

    assert "```tiergate-spawn" in answer["reason"]  # its checks pass: verified, not refuted
    assert loop.loop().tier == "THOROUGH"
    assert CHANGED in loop.stop_reasons() and named in loop.stop_reasons()


def test_honest_work_with_the_virtualenv_untouched_keeps_its_tier(tmp_path: Path) -> None:
    loop = Loop(tmp_path, {"calc.py": CALC, "tests/test_calc.py": TESTS}, CHECK, virtualenv)

    answer = loop.claim({"calc.py": DONE})

    assert "```tiergate-spawn" in answer["reason"]
    assert loop.loop().tier in ("LIGHT", "STANDARD") and "environment" not in loop.stop_reasons()


def test_a_program_put_first_on_path_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The check runs `calc-tests` by name; the agent puts one of its own in a folder PATH reads first.
    early, late = tmp_path / "early-bin", tmp_path / "late-bin"
    early.mkdir()
    late.mkdir()
    runner = f"#!/bin/sh\nexec env PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {sys.executable} -m pytest -q\n"
    (late / "calc-tests").write_text(runner)
    (late / "calc-tests").chmod(0o755)
    monkeypatch.setenv("PATH", f"{early}:{late}:{os.environ['PATH']}")
    files = {"calc.py": CALC, "tests/test_calc.py": TESTS, "check.sh": "#!/bin/sh\nexec calc-tests\n"}
    loop = Loop(tmp_path, files, "sh check.sh")
    (early / "calc-tests").write_text(runner.replace("-q", "-q -rA"))
    (early / "calc-tests").chmod(0o755)

    answer = loop.claim({"calc.py": DONE})

    assert "```tiergate-spawn" in answer["reason"]
    assert loop.loop().tier == "THOROUGH"
    assert CHANGED in loop.stop_reasons() and f"added {early}/calc-tests" in loop.stop_reasons()
