"""Which test commands can take coverage at the gate, and the reason given for each that cannot."""

from __future__ import annotations

import pytest

from tiergate.gate.checks import make_check
from tiergate.gate.coverage.plan import Capability, RunnerFacts, capability, files_for, plan

SCRIPTS = RunnerFacts(
    scripts={
        "test": "node --test test/",
        "unit": "jest",
        "ci": "npm run test",
        "spec": "mocha -r ts-node/register",
    }
)


@pytest.mark.parametrize(
    ("command", "tool"),
    [
        ("pytest -q", "python"),
        ("py.test tests", "python"),
        ("python -m pytest -x", "python"),
        (".venv/bin/python3.12 -m pytest", "python"),
        ("python3 -m unittest discover", "python"),
        ("cd backend && PYTEST_ADDOPTS=-q uv run pytest", "python"),
        ("poetry run python -m pytest", "python"),
        ("env CI=1 exec pytest", "python"),
        ("node --test test/", "node"),
        ("node test/run.js", "node"),
        ("npx mocha", "node"),
        ("npm test", "node"),
        ("yarn test", "node"),
        ("pnpm run test", "node"),
    ],
)
def test_a_recognised_runner_takes_coverage(command: str, tool: str) -> None:
    assert capability(command, SCRIPTS).tool == tool


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("pytest -q | tee log", "a shell list, pipeline or redirection"),
        ("pytest && ruff check .", "a shell list, pipeline or redirection"),
        ("pytest > out.txt", "a shell list, pipeline or redirection"),
        ("PYTHONPATH=src pytest", "it sets PYTHONPATH itself"),
        ("NODE_V8_COVERAGE=cov node --test", "it sets NODE_V8_COVERAGE itself"),
        ("python -I -m pytest", "`python -I` ignores PYTHONPATH or site"),
        ("pytest --cov=app", "it measures coverage itself (pytest-cov's --cov)"),
        ("coverage run -m pytest", "it measures coverage itself (coverage)"),
        ("python -m coverage run -m pytest", "it measures coverage itself (coverage run)"),
        ("c8 node --test", "it measures coverage itself (c8)"),
        ("npx jest", "jest transforms or bundles the code it runs"),
        ("npm run unit", "runs the `unit` script (`jest`): jest transforms"),
        ("npm run ci", "runs another package script: followed one level only"),
        ("npm run spec", "`-r` loads code that transforms what runs"),
        ("npm run lint", "package.json has no `lint` script"),
        ("tox -e py311", "tox runs the tests in environments that do not pass PYTHONPATH on"),
        ("go test ./...", "go test: Go's -coverprofile is not measured at the gate yet"),
        ("sh check.sh", "`sh` is not a test runner the gate can measure"),
        ("make test", "`make` is not a test runner the gate can measure"),
        ("python tests/run.py", "python runs a script, not pytest or unittest"),
        ("$RUNNER tests", "its program is a shell expansion"),
        ("pytest 'unclosed", "its quoting cannot be read"),
    ],
)
def test_a_command_that_cannot_take_it_says_why(command: str, why: str) -> None:
    found = capability(command, SCRIPTS)
    assert found.tool is None and why in found.reason, found.reason


def test_pytest_options_that_add_cov_in_the_projects_config_turn_it_off() -> None:
    found = capability("pytest", RunnerFacts(pytest_options="[pytest]\naddopts = --cov=app -q\n"))
    assert found == Capability(None, found.reason) and "the project's pytest options add" in found.reason


def test_only_test_checks_are_planned_and_each_tool_measures_its_own_files() -> None:
    checks = [make_check("lint", "ruff check .", "t"), make_check("tests", "pytest", "t")]

    assert [(c.name, found.tool) for c, found in plan(checks, RunnerFacts())] == [("tests", "python")]
    files = ("app/calc.py", "web/calc.js", "web/calc.mjs", "web/view.ts")
    assert files_for("python", files) == ("app/calc.py",)
    assert files_for("node", files) == ("web/calc.js", "web/calc.mjs")
