"""Which checks a project has (its table, else detection on its real files) and where their programs are."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from testing.gitrepo import git, init_repo, write

from tiergate.config.settings import load_config
from tiergate.gate.checks import BEHAVIOUR_STAGE, COMPILE_STAGE
from tiergate.gate.detection.projectchecks import (
    Located,
    checks_at_base,
    declared_changes,
    detected_checks,
    locate_program,
    project_checks,
    read_facts,
)
from tiergate.gate.detection.projectfiles import AtCommit
from tiergate.gate.detection.sincebase import script_of


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


# The checks as declared at the loop's base ------------------------------------------------------------

DECLARING = {
    "pyproject.toml": "[tool.ruff]\n",
    "Makefile": "test:\n\tpytest -q tests\n",
    "package.json": json.dumps({"scripts": {"test": "node --test", "lint": "eslint ."}}),
    ".github/workflows/ci.yml": "jobs:\n  t:\n    steps:\n      - run: pytest -q\n",
    ".github/workflows/notes.txt": "not a workflow\n",
    "calc/__init__.py": "",
    "calc/tests/test_calc.py": "",
    "data/tests/readme.txt": "",  # not a package: no __init__.py
}


def with_git(path: str) -> str:
    git_program = shutil.which("git")
    assert git_program is not None
    return f"{path}{os.pathsep}{Path(git_program).parent}"


@pytest.mark.parametrize("inside", ["", "sub/project"])
def test_a_commit_gives_the_facts_its_files_would_give_on_disk(tmp_path: Path, inside: str) -> None:
    top = init_repo(tmp_path / "repo", {f"{inside}/{p}".lstrip("/"): text for p, text in DECLARING.items()})
    root = top / inside
    commit = git(top, "rev-parse", "HEAD").strip()

    at_base = read_facts(AtCommit(top, commit, inside))

    on_disk = read_facts(root)
    assert at_base == replace(on_disk, names=on_disk.names - {".git"})
    assert at_base.package_tests == {"calc/tests"}
    assert set(at_base.texts) == {"pyproject.toml", "Makefile", ".github/workflows/ci.yml"}


def test_the_gates_checks_are_the_bases_whatever_the_workspace_says_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", with_git(programs(tmp_path / "bin", "pytest", "npm", "ruff")))
    root = init_repo(tmp_path / "repo", DECLARING)
    base = git(root, "rev-parse", "HEAD").strip()
    narrowed = {"scripts": {"test": "node --test test/a.test.js", "lint": "eslint ."}}
    write(
        root,
        {
            "Makefile": "test:\n\tpytest -q tests/test_one.py\n",
            "package.json": json.dumps(narrowed),
            "pyproject.toml": "[project]\nname = 'calc'\n",
        },
    )
    config = load_config(root)

    now = {c.name: c.command for c in project_checks(root, config)}
    gate = checks_at_base(root, config, base)

    assert now["tests-python"] == "pytest -q tests/test_one.py" and "lint-python" not in now
    assert [(c.name, c.command) for c in gate] == [
        ("lint-python", "ruff check ."),
        ("tests-python", "pytest -q tests"),
        ("lint-node", "npm run lint"),
        ("tests-node", "npm run test"),
    ]
    assert gate[1].source == "detected at the loop's base: declared in Makefile line 2 (target test)"
    changed = declared_changes(root, config, base)
    assert changed == (
        "the declared command of check `lint-python` changed since the loop began: `ruff check .` "
        "(tiergate's guess) at the base, none now; the gate runs the base's",
        "the declared command of check `tests-python` changed since the loop began: `pytest -q tests` "
        "(Makefile line 2 (target test)) at the base, `pytest -q tests/test_one.py` (Makefile line 2 "
        "(target test)) now; the gate runs the base's",
        'the declared command of check `tests-node` changed since the loop began: package.json\'s "test" '
        "script is `node --test` at the base, `node --test test/a.test.js` now; `npm run test` runs the "
        "workspace's, and the tests it leaves out are told by their outcomes at the base",
    )
    assert checks_at_base(root, config, None) == project_checks(root, config)  # no base: the files now
    assert declared_changes(root, config, None) == ()


def test_a_configured_table_is_the_gates_whatever_the_base_declared(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {**DECLARING, ".tiergate.toml": '[checks]\ntests = "make test"\n'})
    base = git(root, "rev-parse", "HEAD").strip()
    write(root, {"Makefile": "test:\n\ttrue\n"})
    config = load_config(root)

    assert [(c.name, c.command) for c in checks_at_base(root, config, base)] == [("tests", "make test")]
    assert declared_changes(root, config, base) == ()


def test_a_check_added_or_renamed_since_the_base_is_not_a_change_of_what_it_declared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Node project's tests beside the Python ones rename `tests` to `tests-python`: the same check.
    monkeypatch.setenv("PATH", with_git(programs(tmp_path / "bin", "pytest", "npm", "mypy")))
    root = init_repo(tmp_path / "repo", {"pyproject.toml": "[tool.pytest.ini_options]\n"})
    base = git(root, "rev-parse", "HEAD").strip()
    scripts = {"scripts": {"test": "node --test"}}
    write(
        root,
        {"package.json": json.dumps(scripts), "pyproject.toml": "[tool.pytest.ini_options]\n[tool.mypy]\n"},
    )

    assert declared_changes(root, load_config(root), base) == ()


def test_a_script_the_declared_command_runs_is_named_when_it_differs_from_the_bases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", with_git(programs(tmp_path / "bin", "python")))
    files = {"setup.py": "", "Makefile": "test:\n\tpython ci/runtests.py\n", "ci/runtests.py": "run_all()\n"}
    root = init_repo(tmp_path / "repo", files)
    base = git(root, "rev-parse", "HEAD").strip()
    config = load_config(root)
    assert declared_changes(root, config, base) == ()

    write(root, {"ci/runtests.py": "run_one()\n"})

    assert declared_changes(root, config, base) == (
        "the declared command of check `tests` runs `ci/runtests.py`, which differs from the base's: the "
        "gate runs it as the workspace has it, and the tests it leaves out are told by their outcomes at "
        "the base",
    )


@pytest.mark.parametrize(
    ("command", "script"),
    [
        ("./run_tests.sh", "run_tests.sh"),
        ("cd sub && ./t.sh -v", "sub/t.sh"),
        ("python3 runtests.py --fast", "runtests.py"),
        ("bash ci/test.sh", "ci/test.sh"),
        ("python -m pytest -q", None),
        ("pytest tests", None),
        ("/usr/bin/env-test", None),
        ("sh ../outside.sh", None),
    ],
)
def test_the_file_a_command_runs_as_its_program(command: str, script: str | None) -> None:
    assert script_of(command) == script
