from __future__ import annotations

from dataclasses import replace
from typing import Any

from tiergate.gate.detect import DetectedCheck, ProjectFacts, detect, detect_checks, programs_named


def facts(
    *names: str, pyproject: dict[str, Any] | None = None, package: dict[str, Any] | None = None
) -> ProjectFacts:
    return ProjectFacts(frozenset(names), pyproject or {}, package or {})


def commands(found: list[DetectedCheck]) -> dict[str, str]:
    return {check.name: check.command for check in found}


def test_a_project_without_any_marker_has_no_checks() -> None:
    assert detect_checks(facts("README.md", "docs", "Makefile")) == []


def test_python_tools_are_detected_from_pyproject_tables_with_the_table_as_reason() -> None:
    pyproject = {"tool": {"ruff": {}, "mypy": {"strict": True}, "pytest": {"ini_options": {}}}}
    found = detect_checks(facts("pyproject.toml", "src", pyproject=pyproject))
    assert commands(found) == {"lint": "ruff check .", "types": "mypy", "tests": "pytest -q"}
    assert [c.reason for c in found] == [
        "pyproject.toml has [tool.ruff]",
        "pyproject.toml has [tool.mypy]",
        "pyproject.toml has [tool.pytest.ini_options]",
    ]


def test_python_tools_are_detected_from_their_own_config_files() -> None:
    found = detect_checks(facts("setup.py", "ruff.toml", "pyrightconfig.json", "tests"))
    assert commands(found) == {"lint": "ruff check .", "types": "pyright", "tests": "pytest -q"}
    assert found[0].reason == "ruff.toml exists"


def test_mypy_wins_over_pyright_when_both_are_configured() -> None:
    found = detect_checks(facts("pyproject.toml", "mypy.ini", "pyrightconfig.json"))
    assert commands(found) == {"types": "mypy"}


def test_python_config_files_count_only_in_a_python_project() -> None:
    # A tests/ folder and a ruff.toml beside a Go module do not make it a Python project.
    found = detect_checks(facts("go.mod", "tests", "ruff.toml"))
    assert {c.ecosystem for c in found} == {"go"}


def test_node_checks_come_from_package_json_scripts_run_with_the_lock_files_package_manager() -> None:
    package = {
        "scripts": {"lint": "eslint .", "typecheck": "tsc -p .", "build": "vite build", "test": "vitest"}
    }
    found = detect_checks(facts("package.json", "pnpm-lock.yaml", package=package))
    assert commands(found) == {
        "lint": "pnpm run lint",
        "types": "pnpm run typecheck",
        "build": "pnpm run build",
        "tests": "pnpm run test",
    }
    assert found[-1].reason == 'package.json has a "test" script'


def test_node_uses_npm_without_a_lock_file_and_yarn_or_bun_with_theirs() -> None:
    package = {"scripts": {"build": "tsc"}}
    assert commands(detect_checks(facts("package.json", package=package))) == {"build": "npm run build"}
    assert commands(detect_checks(facts("package.json", "yarn.lock", package=package))) == {
        "build": "yarn run build"
    }
    assert commands(detect_checks(facts("package.json", "bun.lockb", package=package))) == {
        "build": "bun run build"
    }


def test_npm_inits_placeholder_test_script_is_not_a_test_suite() -> None:
    package = {"scripts": {"test": 'echo "Error: no test specified" && exit 1'}}
    assert detect_checks(facts("package.json", package=package)) == []


def test_a_typescript_project_without_a_typecheck_script_gets_tsc() -> None:
    found = detect_checks(facts("package.json", "tsconfig.json", package={"scripts": {}}))
    assert commands(found) == {"types": "npx tsc --noEmit"}
    assert found[0].reason == "tsconfig.json exists"


def test_malformed_package_scripts_are_ignored_not_fatal() -> None:
    listed: dict[str, Any] = {"scripts": ["lint", "test"]}
    assert detect_checks(facts("package.json", package=listed)) == []
    mixed: dict[str, Any] = {"scripts": {"test": 42, "lint": "eslint ."}}
    assert commands(detect_checks(facts("package.json", package=mixed))) == {"lint": "npm run lint"}


def test_go_gets_vet_build_and_test_and_golangci_lint_when_configured() -> None:
    assert commands(detect_checks(facts("go.mod"))) == {
        "lint": "go vet ./...",
        "build": "go build ./...",
        "tests": "go test ./...",
    }
    found = detect_checks(facts("go.mod", ".golangci.yml"))
    assert found[0] == DetectedCheck("lint", "golangci-lint run", "go", ".golangci.yml exists")


def test_rust_gets_clippy_build_and_test() -> None:
    assert commands(detect_checks(facts("Cargo.toml", "src"))) == {
        "lint": "cargo clippy --all-targets",
        "build": "cargo build",
        "tests": "cargo test",
    }


def test_names_shared_by_two_ecosystems_are_suffixed_with_the_ecosystem_and_the_rest_stay_plain() -> None:
    pyproject: dict[str, Any] = {"tool": {"pytest": {}, "mypy": {}}}
    package: dict[str, Any] = {"scripts": {"test": "jest", "build": "webpack"}}
    found = detect_checks(facts("pyproject.toml", "package.json", pyproject=pyproject, package=package))
    assert commands(found) == {
        "types": "mypy",
        "tests-python": "pytest -q",
        "build": "npm run build",
        "tests-node": "npm run test",
    }
    assert len({c.name for c in found}) == len(found)


def test_only_checks_whose_program_was_found_are_offered_and_the_others_say_why() -> None:
    pyproject: dict[str, Any] = {"tool": {"ruff": {}, "mypy": {}, "pytest": {"ini_options": {}}}}
    found = facts("pyproject.toml", "go.mod", pyproject=pyproject)
    assert programs_named(found) == {"ruff", "mypy", "pytest", "go"}
    detection = detect(replace(found, programs=frozenset({"pytest"})))
    assert [c.name for c in detection.offered] == ["tests"]  # one tests check left: no suffix
    assert [(c.command, why) for c, why in detection.skipped] == [
        ("ruff check .", "`ruff` is not on PATH"),
        ("mypy", "`mypy` is not on PATH"),
        ("go vet ./...", "`go` is not on PATH"),
        ("go build ./...", "`go` is not on PATH"),
        ("go test ./...", "`go` is not on PATH"),
    ]
    everything = detect(replace(found, programs=frozenset({"ruff", "mypy", "pytest", "go"})))
    assert everything.skipped == ()
    assert list(everything.offered) == detect_checks(found)  # not looked up: every check is offered
    assert [c.name for c in everything.offered if c.name.startswith("tests")] == ["tests-python", "tests-go"]
