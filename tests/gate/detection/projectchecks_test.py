"""Which checks a project has (its table, else detection on its real files) and where their programs are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tiergate.config.settings import load_config
from tiergate.gate.checks import BEHAVIOUR_STAGE, COMPILE_STAGE
from tiergate.gate.detection.projectchecks import (
    Located,
    detected_checks,
    locate_program,
    project_checks,
    read_facts,
)


def programs(folder: Path, *names: str) -> str:
    """A PATH of one folder holding an executable for each of `names`."""
    folder.mkdir(exist_ok=True)
    for name in names:
        (folder / name).write_text("#!/bin/sh\nexit 0\n")
        (folder / name).chmod(0o755)
    return str(folder)


def test_a_configured_table_wins_over_detection(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    (tmp_path / ".tiergate.toml").write_text(
        '[checks]\nsyntax = "python -m compileall -q ."\nunit = "pytest -q"\n'
    )
    checks = project_checks(tmp_path, load_config(tmp_path))
    assert [(c.name, c.command, c.kind) for c in checks] == [
        ("syntax", "python -m compileall -q .", "syntax"),
        ("unit", "pytest -q", "tests"),
    ]
    assert {c.source for c in checks} == {"configured in .tiergate.toml"}


def test_without_a_table_the_checks_are_detected_from_the_project_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", programs(tmp_path / "bin", "ruff", "pytest", "npm"))
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\n[tool.pytest.ini_options]\n")
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"build": "tsc"}}))
    checks = project_checks(tmp_path, load_config(tmp_path))
    assert [(c.name, c.command, c.kind, c.stage) for c in checks] == [
        ("lint", "ruff check .", "lint", BEHAVIOUR_STAGE),
        ("tests", "pytest -q", "tests", BEHAVIOUR_STAGE),
        ("build", "npm run build", "build", COMPILE_STAGE),
    ]
    assert checks[0].source == "detected: pyproject.toml has [tool.ruff]"


def test_a_project_with_nothing_to_detect_has_no_checks(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("hello\n")
    assert project_checks(tmp_path, load_config(tmp_path)) == ()


def test_malformed_project_files_count_as_absent(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.ruff\n")
    (tmp_path / "package.json").write_text("[1, 2")
    facts = read_facts(tmp_path)
    assert facts.names == {"pyproject.toml", "package.json"}
    assert facts.pyproject == {}
    assert facts.package_json == {}
    (tmp_path / "package.json").write_text("[1, 2]")  # valid JSON, but not an object
    assert read_facts(tmp_path).package_json == {}


def test_a_detected_check_whose_program_is_not_on_path_is_skipped_with_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.ruff]\n[tool.mypy]\n[tool.pytest.ini_options]\n")
    monkeypatch.setenv("PATH", programs(tmp_path / "bin", "pytest"))
    assert [c.name for c in project_checks(project, load_config(project))] == ["tests"]
    detection = detected_checks(project)
    assert [(c.name, why) for c, why in detection.skipped] == [
        ("lint", "`ruff` is not on PATH"),
        ("types", "`mypy` is not on PATH"),
    ]
    found = detected_checks(project, path=programs(tmp_path / "more", "ruff", "mypy", "pytest"))
    assert ([c.name for c in found.offered], found.skipped) == (["lint", "types", "tests"], ())


def test_a_check_program_is_looked_up_as_the_shell_would(tmp_path: Path) -> None:
    path = programs(tmp_path / "bin", "ruff")
    root = tmp_path / "project"
    (root / "scripts").mkdir(parents=True)
    programs(root / "scripts", "check.sh")
    (root / "scripts" / "plain.sh").write_text("echo not executable\n")
    ruff = str(tmp_path / "bin" / "ruff")
    table = {
        "ruff check .": Located("ruff", ruff),
        "FOO=1 exec ruff check .": Located("ruff", ruff),
        "no-such-program-xyz .": Located("no-such-program-xyz", "", "`no-such-program-xyz` is not on PATH"),
        "true": Located("true", "shell builtin"),
        "[ -f app.py ]": Located("[", "shell builtin"),
        "./scripts/check.sh": Located("./scripts/check.sh", str(root / "scripts" / "check.sh")),
        "cd scripts && ./check.sh": Located("./check.sh", str(root / "scripts" / "check.sh")),
        "./scripts/plain.sh": Located(
            "./scripts/plain.sh", "", "`./scripts/plain.sh` is not an executable file"
        ),
        "./scripts": Located("./scripts", "", "`./scripts` is not an executable file"),
        "cd scripts && ./gone.sh": Located("./gone.sh", "", "`./gone.sh` (in scripts) does not exist"),
        "$TOOL check": Located(None),
    }
    assert {command: locate_program(command, root, path) for command in table} == table
