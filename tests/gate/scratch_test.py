"""The scratch copy the base's tests run in, on real git: the claimed workspace (tracked edits, untracked
files) with its test paths as the base commit holds them, added tests and conftests gone, the environment
linked, and the workspace itself untouched."""

from __future__ import annotations

import subprocess
from pathlib import Path

from testing.gitrepo import git, init_repo, write
from testing.pytestcheck import PYTEST

from tiergate.gate.checks import make_check
from tiergate.gate.pertest.basetests import base_test_failures, base_tests_selection
from tiergate.gate.pertest.record import TestOutcome, TestRun
from tiergate.gate.pertest.selection import TestSelection
from tiergate.gate.processes import Running
from tiergate.gate.request import RunStart
from tiergate.gate.scratch import base_tests_copy, run_base_tests

FILES = {
    "calc.py": "def div(a, b):\n    raise NotImplementedError\n",
    "tests/test_calc.py": "from calc import div\n\n\ndef test_div():\n    assert div(6, 3) == 2\n",
    ".gitignore": ".venv/\n",
}


def pytest_run(*outcomes: tuple[str, TestOutcome]) -> TestRun:
    return TestRun("pytest report", "pytest", outcomes, True)


def claimed(root: Path) -> tuple[Path, str]:
    repo = init_repo(root / "project", FILES)
    base = git(repo, "rev-parse", "HEAD").strip()
    write(
        repo,
        {
            "calc.py": "def div(a, b):\n    return a * b\n",
            "tests/test_calc.py": FILES["tests/test_calc.py"].replace("== 2", "== 18"),
            "tests/test_new.py": "def test_new():\n    assert True\n",
            "conftest.py": "import calc\n",
            "notes.md": "untracked work\n",
            ".venv/marker": "the environment\n",
        },
    )
    return repo, base


def test_the_copy_holds_the_claimed_code_and_the_base_tests(tmp_path: Path) -> None:
    repo, base = claimed(tmp_path)

    with base_tests_copy(repo, base) as made:
        copy = made.cwd
        assert copy != repo
        assert (copy / "calc.py").read_text() == "def div(a, b):\n    return a * b\n"
        assert (copy / "tests/test_calc.py").read_text() == FILES["tests/test_calc.py"]
        assert not (copy / "tests/test_new.py").exists() and not (copy / "conftest.py").exists()
        assert (copy / "notes.md").read_text() == "untracked work\n"
        assert (copy / ".venv").is_symlink() and (copy / ".venv/marker").read_text() == "the environment\n"
        where = copy

    assert not where.exists()
    assert (repo / ".venv/marker").exists() and (repo / "tests/test_new.py").exists()
    assert (repo / "tests/test_calc.py").read_text().endswith("== 18\n")
    assert "tiergate-baseline" not in git(repo, "worktree", "list")


def test_the_base_tests_run_there_fail_on_the_claimed_code(tmp_path: Path) -> None:
    repo, base = claimed(tmp_path)
    status = git(repo, "status", "--porcelain")
    check = make_check("tests", PYTEST, "test")

    [result] = run_base_tests(repo, base, [check], Running(timeout=60), RunStart())

    assert result.status == "failed" and result.tests is not None
    assert result.tests.by_test == {"tests/test_calc.py::test_div": "failed"}
    assert git(repo, "status", "--porcelain") == status
    mine = subprocess.run(check.command, shell=True, cwd=repo, capture_output=True, check=False)
    assert mine.returncode == 0  # the agent's edited tests pass in the workspace


def test_with_a_selection_only_the_touched_test_file_and_the_failing_test_run_again(tmp_path: Path) -> None:
    calc = "def div(a, b):\n    raise NotImplementedError\n\n\ndef mul(a, b):\n    return a * b\n"
    files = {
        **FILES,
        "calc.py": calc,
        "tests/test_mul.py": "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
        "tests/test_same.py": "import calc\n\n\ndef test_same():\n    pass\n",
    }
    repo = init_repo(tmp_path / "project", files)
    base_commit = git(repo, "rev-parse", "HEAD").strip()
    # The claim: div "fixed" with its test edited to match, mul broken on the way.
    write(
        repo,
        {
            "calc.py": "def div(a, b):\n    return a * b\n\n\ndef mul(a, b):\n    return a + b\n",
            "tests/test_calc.py": FILES["tests/test_calc.py"].replace("== 2", "== 18"),
        },
    )
    same: tuple[str, TestOutcome] = ("tests/test_same.py::test_same", "passed")
    base = pytest_run(
        ("tests/test_calc.py::test_div", "failed"), ("tests/test_mul.py::test_mul", "passed"), same
    )
    now = pytest_run(
        ("tests/test_calc.py::test_div", "passed"), ("tests/test_mul.py::test_mul", "failed"), same
    )
    check = make_check("tests", PYTEST, "test")
    selection = base_tests_selection(["tests/test_calc.py"], base, now, "")
    assert selection == TestSelection(("tests/test_calc.py",), ("tests/test_mul.py::test_mul",))

    [result] = run_base_tests(
        repo, base_commit, [check], Running(timeout=60), RunStart(), select={check.key: selection}
    )

    # test_same.py is the same file on the same code as in the claim's run: not run again.
    assert result.tests is not None and result.tests.subset
    assert result.tests.by_test == {
        "tests/test_calc.py::test_div": "failed",
        "tests/test_mul.py::test_mul": "failed",
    }
    found = base_test_failures(base, now, result.tests, {})
    assert [(f.test, f.refutes) for f in found] == [
        ("tests/test_calc.py::test_div", True),
        ("tests/test_mul.py::test_mul", False),
    ]
