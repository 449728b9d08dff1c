"""What a test command runs, read from its line: runner, hand-off, doctests, narrowing; and the
coverage it measures itself, dropped."""

from __future__ import annotations

from tiergate.gate.detection.testcommand import Runs, names_tests, what_runs, without_own_coverage


def test_runners_are_recognised_through_python_and_environment_wrappers() -> None:
    table = {
        "pytest -q": Runs("pytest", "python"),
        "python3.12 -m pytest tests": Runs("pytest", "python"),
        "uv run pytest": Runs("pytest", "python"),
        "cd src && poetry run python -m unittest discover": Runs("unittest", "python"),
        "go test -race ./...": Runs("go test", "go"),
        "cargo nextest run": Runs("cargo test", "rust"),
        "python script.py": Runs(),
        "pip install -e .": Runs(),
        "$PYTEST": Runs(),
    }
    assert {command: what_runs(command) for command in table} == table


def test_commands_that_hand_the_tests_to_another_tool() -> None:
    for command, tool in {
        "tox -e py": "tox",
        "python -m tox": "tox",
        "nox -s tests": "nox",
        "make test": "make",
        "just test": "just",
        "hatch run test": "hatch",
        "pdm run tests": "pdm",
        "npm test": "npm",
    }.items():
        assert what_runs(command) == Runs(delegates=tool), command
    assert what_runs("make docs") == Runs()


def test_doctests_and_narrowing_are_read_from_the_options() -> None:
    assert what_runs("pytest --doctest-modules src").doctests == "--doctest-modules"
    assert what_runs("pytest", "-ra --doctest-modules").doctests == (
        "the project's pytest options add --doctest-modules"
    )
    assert what_runs('pytest -m "not slow"').narrows == "it runs only some of the tests (-m)"
    assert what_runs("pytest -kfast").narrows == "it runs only some of the tests (-kfast)"
    assert (
        what_runs("pytest -x").narrows == "it stops at the first failure (-x): the tests after it are not run"
    )
    assert what_runs("python -m unittest --failfast").narrows.startswith("it stops at the first failure")
    assert what_runs("go test -short ./...").narrows == "it runs only some of the tests (-short)"
    assert (
        what_runs("python -m doctest README.md").narrows == "it runs only the doctests of the files it names"
    )
    assert what_runs("pytest -p no:cacheprovider -v").narrows == ""


def test_the_coverage_a_command_measures_itself_is_dropped() -> None:
    table = {
        'coverage run --include="pkg/*" -m unittest -v': ("python -m unittest -v", "`coverage run` dropped"),
        "pytest --cov=pkg --cov-report term-missing tests": (
            "pytest tests",
            "pytest-cov's --cov options dropped",
        ),
        "pytest --cov pkg --cov-branch": ("pytest", "pytest-cov's --cov options dropped"),
        "python -m pytest --cov -q": ("python -m pytest -q", "pytest-cov's --cov options dropped"),
        "pytest -q": ("pytest -q", ""),
        "coverage run script.py": ("coverage run script.py", ""),
        "cd src && coverage run -m pytest": ("cd src && coverage run -m pytest", ""),  # left as written
    }
    assert {command: without_own_coverage(command) for command in table} == table


def test_names_that_run_the_tests() -> None:
    assert all(map(names_tests, ["test", "tests", "unit", "test-all", "unit-tests", "py311", "pypy3", "py"]))
    assert not any(
        map(names_tests, ["lint", "docs", "test-docs", "coverage", "integration", "typecheck", ""])
    )
