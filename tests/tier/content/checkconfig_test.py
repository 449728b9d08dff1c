"""The check-configuration content rules: a change that weakens the project's checks is architecture, a
hook's version bump is not. Synthetic diffs written here; the paths are not architecture by path alone."""

from __future__ import annotations

import re

import pytest
from testing.unifieddiff import patch

from tiergate.tier import content
from tiergate.tier.content import ContentHit, scan_patch
from tiergate.tier.content.checkconfig import CHECK_CONFIG, CHECK_RUNS
from tiergate.tier.riskpaths import DEFAULT as PATHS


def architecture(path: str, removed: list[str], added: list[str]) -> list[ContentHit]:
    return [
        h for h in scan_patch(patch(path, removed, added), content.DEFAULT) if h.category == "architecture"
    ]


# (file, removed lines, added lines): each weakens a check
WEAKENING: list[tuple[str, list[str], list[str]]] = [
    ("pytest.ini", [], ["addopts = --deselect tests/test_api.py::test_timeout"]),
    ("pytest.ini", [], ["addopts = -q --ignore=tests/slow"]),
    ("pytest.ini", [], ["addopts = -p no:randomly"]),
    ("pytest.ini", [], ['addopts = -m "not network"']),
    ("pytest.ini", ["filterwarnings = error"], []),
    ("pytest.ini", ["addopts = --strict-markers"], ["addopts = -q"]),
    ("tests/conftest.py", [], ['collect_ignore = ["test_flaky.py"]']),
    ("tests/unit/pytest.ini", [], ["addopts = --deselect tests/unit/test_x.py"]),
    ("tox.ini", [], ["ignore_outcome = true"]),
    ("tox.ini", [], ["commands = pytest {posargs} || true"]),
    ("noxfile.py", [], ['    session.run("pytest", "--no-cov")']),
    (".coveragerc", [], ["omit = src/app/legacy/*"]),
    (".coveragerc", ["fail_under = 95"], ["fail_under = 60"]),
    ("pyproject.toml", ["fail_under = 90"], []),
    ("pyproject.toml", [], ['extend-ignore = ["E501"]']),
    ("ruff.toml", [], ['ignore = ["B008", "S101"]']),
    ("ruff.toml", ['select = ["E", "F", "B", "S"]'], []),
    ("ruff.toml", [], ['"tests/*" = ["S101"]', "[lint.per-file-ignores]"]),
    (".flake8", [], ["extend-ignore = E203,W503"]),
    ("mypy.ini", ["strict = True"], []),
    ("mypy.ini", ["disallow_untyped_defs = True"], []),
    ("mypy.ini", [], ["ignore_errors = True"]),
    ("mypy.ini", [], ["disable_error_code = attr-defined"]),
    ("setup.cfg", ["warn_unused_ignores = True"], []),
    (".pre-commit-config.yaml", ["  - id: mypy"], []),
    (".pre-commit-config.yaml", [], ["exclude: ^src/legacy/"]),
    (".pre-commit-config.yaml", [], ["  skip: [mypy, pyright]"]),
    (".eslintrc.json", [], ['    "no-eval": "off",']),
    (".eslintrc.yml", ["  eqeqeq: error"], ["  eqeqeq: warn"]),
    ("eslint.config.mjs", [], ["  ignores: ['src/generated/**'],"]),
    (".eslintrc.cjs", [], ["  ignorePatterns: ['dist'],"]),
    ("jest.config.js", [], ["  testPathIgnorePatterns: ['/flaky/'],"]),
    ("jest.config.js", ["  coverageThreshold: { global: { lines: 90 } },"], []),
    ("package.json", [], ['    "test": "jest --passWithNoTests",']),
    ("vitest.config.ts", [], ["    exclude: ['test/e2e/**'],"]),
    (".golangci.yml", [], ["  disable:", "    - errcheck"]),
    (".golangci.yml", [], ["  exclude-rules:"]),
    (".golangci.yml", ["  enable:"], []),
    ("clippy.toml", ['disallowed-methods = ["std::env::set_var"]'], []),
    (".github/workflows/ci.yml", [], ["    continue-on-error: true"]),
    (".gitlab-ci.yml", [], ["  allow_failure: true"]),
    (".github/workflows/ci.yml", ['      RUSTFLAGS: "-D warnings"'], []),
    ("Makefile", [], ["\tgit commit --no-verify -m wip"]),
    ("scripts/release.sh", [], ["cargo test || exit 0"]),
    ("tsconfig.json", ['    "strict": true,'], []),
]


@pytest.mark.parametrize(("path", "removed", "added"), WEAKENING)
def test_a_change_that_weakens_a_check_is_architecture_with_its_file_and_line(
    path: str, removed: list[str], added: list[str]
) -> None:
    hits = architecture(path, removed, added)
    assert hits, (path, removed, added)
    reason = hits[0].describe()
    assert re.match(rf"{re.escape(path)}:\d+ \((added|removed) line\) check weakened: ", reason), reason


def test_every_check_config_construct_has_a_weakening_case() -> None:
    found = {hit.construct for path, old, new in WEAKENING for hit in architecture(path, old, new)}
    wanted = {rule.construct for eco in (CHECK_CONFIG, CHECK_RUNS) for rule in eco.rules}
    assert wanted - found == set()


# (file, removed lines, added lines): routine maintenance, or a check made stronger
ROUTINE: list[tuple[str, list[str], list[str]]] = [
    (".pre-commit-config.yaml", ["    rev: v0.4.1"], ["    rev: v0.5.0"]),
    (
        ".pre-commit-config.yaml",
        ["    rev: 24.1.0", "    rev: v1.8.0"],
        ["    rev: 24.2.0", "    rev: v1.9.0"],
    ),
    (".pre-commit-config.yaml", [], ["  - id: ruff-format"]),
    ("pyproject.toml", ['    "ruff==0.4.1",'], ['    "ruff==0.5.0",']),
    ("pyproject.toml", [], ["fail_under = 90"]),
    ("ruff.toml", [], ['select = ["E", "F", "B"]']),
    ("ruff.toml", ["line-length = 88"], ["line-length = 100"]),
    ("mypy.ini", [], ["strict = True"]),
    ("mypy.ini", ["python_version = 3.10"], ["python_version = 3.11"]),
    ("pytest.ini", [], ["addopts = --strict-markers"]),
    ("pytest.ini", [], ["filterwarnings = error"]),
    ("tox.ini", ["envlist = py39,py310"], ["envlist = py310,py311"]),
    (".eslintrc.json", [], ['    "no-eval": "error",']),
    ("package.json", ['    "eslint": "^8.57.0",'], ['    "eslint": "^9.0.0",']),
    (".golangci.yml", ["  version: 1"], ["  version: 2"]),
    (
        ".github/workflows/ci.yml",
        ["      - uses: actions/checkout@v3"],
        ["      - uses: actions/checkout@v4"],
    ),
    ("Makefile", [], ["\tgit commit -m release"]),
    (".gitignore", [], ["ignore = build/"]),  # not a check's configuration
    ("src/app.py", [], ["exclude = {'a'}", "ignore: bool = True"]),  # code, not configuration
    ("pyproject.toml", ["#strict = true", "# disallow_untyped_calls = true"], []),  # comments
    (".eslintrc.js", ["// eslint-disable-next-line strict"], []),
    ("tests/fixtures/app/.eslintrc.json", [], ['    "no-eval": "off",']),  # a fixture's checks
    ("examples/todo/pytest.ini", [], ["addopts = --deselect tests/test_x.py"]),
]


@pytest.mark.parametrize(("path", "removed", "added"), ROUTINE)
def test_routine_maintenance_and_stronger_checks_are_not_architecture(
    path: str, removed: list[str], added: list[str]
) -> None:
    assert architecture(path, removed, added) == []


@pytest.mark.parametrize(
    "path",
    [".pre-commit-config.yaml", "pytest.ini", "tox.ini", ".eslintrc.json", "jest.config.js", ".golangci.yml"],
)
def test_check_configs_are_read_by_the_rules_and_not_architecture_by_path(path: str) -> None:
    assert CHECK_CONFIG.holds(path)
    assert PATHS.match(path) == ()


def test_masked_failures_are_read_in_every_yaml_file_and_script_the_rest_only_in_check_configs() -> None:
    assert CHECK_RUNS.holds(".github/workflows/test.yml")
    assert CHECK_RUNS.holds("scripts/check.sh")
    assert not CHECK_CONFIG.holds("deploy/k8s/app.yaml")
    assert architecture("deploy/k8s/app.yaml", [], ["exclude: true", "  - id: x"]) == []
    assert architecture("deploy/k8s/app.yaml", [], ["    continue-on-error: true"]) != []


def test_every_rule_is_architecture_and_starts_with_a_literal() -> None:
    # a leading character class or \b is tried at every position (tiergate.tier.content.scan)
    for rule in CHECK_CONFIG.rules + CHECK_RUNS.rules:
        assert rule.category == "architecture"
        assert not rule.pattern.startswith(("\\b", "[", "(", ".", "\\s", "\\w")), rule.pattern
