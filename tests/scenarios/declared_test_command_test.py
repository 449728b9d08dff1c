"""The project's own test command, run by the gate of a project with no `[checks]`: real git, real
`tiergate checks` and `tiergate doctor` processes, one tiny project per shape of declaration.

In each, the one test of `double` is a doctest that only the declared command runs (unittest through
`load_tests`, or pytest's `--doctest-modules`); tiergate's own guess (`pytest -q` beside the tests
folder) passes with the bug in. The declared command is chosen, so the bug is refuted."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from testing import tiergatecli
from testing.doctestproject import BUG, PATH, mini_project
from testing.gitrepo import GIT_ENV, init_repo, write

UNITTEST_COMMAND = "python -m unittest -v"
PYTEST_COMMAND = "python -m pytest -q -p no:cacheprovider --doctest-modules"
NOXFILE = """\
import nox


@nox.session(python=["3.11", "3.12"])
def tests(session):
    session.install("-e", ".")
    session.run("python", "-m", "unittest", "-v", *session.posargs)
"""
WORKFLOW = """\
name: tests
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: python -m pip install -e .
      - name: Run the tests
        run: |
          python -m unittest -v
"""
# Each shape: the declaring file, and the command tiergate should run.
SHAPES = {
    "tox": (
        {"tox.ini": "[tox]\nenvlist = py311\n\n[testenv]\ncommands = {envpython} -m unittest -v {posargs}\n"},
        UNITTEST_COMMAND,
    ),
    "nox": ({"noxfile.py": NOXFILE}, UNITTEST_COMMAND),
    "make": (
        {
            "Makefile": "PYTHON ?= python\n\n.PHONY: test\ntest:\n\t"
            + PYTEST_COMMAND.replace("python", "$(PYTHON)", 1)
            + "\n"
        },
        PYTEST_COMMAND,
    ),
    "just": ({"justfile": f"test *args:\n    {PYTEST_COMMAND} {{{{args}}}}\n"}, PYTEST_COMMAND),
    "workflow": ({".github/workflows/tests.yml": WORKFLOW}, UNITTEST_COMMAND),
}


def env() -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "TIERGATE_STATE_DIR")}
    return {
        **kept,
        **GIT_ENV,
        "PATH": PATH,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def tiergate(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return tiergatecli.tiergate(cwd, *args, environ=env(), timeout=120)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_declared_command_runs_and_refutes_a_bug_only_its_doctest_catches(
    tmp_path: Path, shape: str
) -> None:
    declaring, command = SHAPES[shape]
    project = mini_project(tmp_path / shape, declaring)
    write(project, {"mini.py": BUG})
    run = tiergate(project, "checks", "--json")
    assert run.returncode == 1, run.stdout + run.stderr
    report = json.loads(run.stdout)
    [tests] = report["checks"]
    assert (tests["name"], tests["command"], tests["status"]) == ("tests", command, "failed")
    assert "double" in json.dumps(tests)


def test_the_guessed_command_alone_would_have_passed_the_same_bug(tmp_path: Path) -> None:
    # The same project declaring nothing: tiergate's guess runs, and the doctest does not.
    project = mini_project(tmp_path / "guess", {})
    write(project, {"mini.py": BUG})
    run = tiergate(project, "checks", "--json")
    [tests] = json.loads(run.stdout)["checks"]
    assert (tests["command"], tests["status"], run.returncode) == ("pytest -q", "passed", 0), run.stdout


def test_doctor_says_which_test_command_it_chose_from_where_and_what_it_passed_over(tmp_path: Path) -> None:
    tox = "[tox]\nenvlist = py311\n\n[testenv]\ncommands =\n    coverage run -m unittest -v {posargs}\n"
    make = "test:\n\tpython -m unittest -v $(tests)\n\nunit:\n\tpython -m unittest -f\n"
    project = mini_project(tmp_path / "doctor", {"tox.ini": tox, "Makefile": make})
    lines = tiergate(project, "doctor").stdout.splitlines()
    assert (
        "ok    check tests: python -m unittest -v (detected, not configured: declared in tox.ini line 6 "
        "([testenv] commands) as `coverage run -m unittest -v {posargs}` ({posargs} is nothing: tiergate "
        "passes no arguments; `coverage run` dropped: the gate measures coverage itself); also in Makefile "
        "line 2 (target test))"
    ) in lines
    passed = [line for line in lines if line.startswith("ok    check tests passed over: ")]
    assert passed == [
        "ok    check tests passed over: python -m unittest -f (Makefile line 5 (target unit)): "
        "it stops at the first failure (-f): the tests after it are not run",
        "ok    check tests passed over: pytest -q (tiergate's guess: tests exists): "
        "the project declares its own test command, which wins over a guess",
    ]
    report = json.loads(tiergate(project, "doctor", "--json").stdout)
    [tests] = report["checks"]
    assert tests["command"] == "python -m unittest -v"
    assert [(d["file"], d["line"], d["where"]) for d in tests["declared"]] == [
        ("tox.ini", 6, "[testenv] commands"),
        ("Makefile", 2, "target test"),
    ]
    assert [
        (p["command"], p["declared"][0]["file"] if p["declared"] else None) for p in tests["passed_over"]
    ] == [
        ("python -m unittest -f", "Makefile"),
        ("pytest -q", None),
    ]


def test_a_packages_own_tests_folder_is_run_with_the_package_importable(tmp_path: Path) -> None:
    # toolz's layout: setup.py, the tests inside the package (`calc/tests`, no __init__.py there), no
    # declared command. `pytest` alone would not import `calc` from there; `python -m pytest` does.
    files = {
        "setup.py": "from setuptools import setup\n\nsetup(name='calc')\n",
        "calc/__init__.py": "def double(x):\n    return 2 * x\n",
        "calc/tests/test_double.py": "from calc import double\n\n\ndef test_double():\n"
        "    assert double(2) == 4\n",
    }
    project = init_repo(tmp_path / "calc", files)
    write(project, {"calc/__init__.py": "def double(x):\n    return x + 1\n"})

    run = tiergate(project, "checks", "--json")

    assert run.returncode == 1, run.stdout + run.stderr
    [tests] = json.loads(run.stdout)["checks"]
    assert (tests["command"], tests["status"]) == ("python -m pytest -q", "failed")
    assert tests["failed_tests"] == ["calc/tests/test_double.py::test_double"]
    doctor = tiergate(project, "doctor").stdout
    assert "check tests: python -m pytest -q (detected, not configured: calc/tests exists" in doctor
