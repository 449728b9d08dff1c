"""`tiergate doctor` as a user runs it: a real git project, a throw-away HOME, the pinned Claude Code CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from testing import tiergatecli
from testing.claude.cli import claude_bin
from testing.gitrepo import init_repo, write
from testing.statefolder import state_dir

CHECKOUT = Path(__file__).resolve().parents[2]
PLUGIN_PARTS = (".claude-plugin", "hooks", "agents", "commands")
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    pyproject = '[project]\nname = "demo"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    return init_repo(tmp_path / "demo", {"pyproject.toml": pyproject, "demo.py": "VALUE = 1\n"})


@pytest.fixture
def claude_on_path(tmp_path: Path) -> str:
    """A PATH on which `claude` is the pinned CLI."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(claude_bin())
    return f"{bin_dir}:{SYSTEM_PATH}"


def doctor(
    project: Path, home: Path, *args: str, path: str = SYSTEM_PATH, **env: str
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("TIERGATE_", "CLAUDE", "ANTHROPIC"))}
    return tiergatecli.tiergate(
        project, "doctor", *args, environ={**clean, "HOME": str(home), "PATH": path, **env}
    )


def findings(result: subprocess.CompletedProcess[str]) -> dict[str, tuple[str, str]]:
    """name -> (status, detail), from the one-line-per-finding output."""
    parsed: dict[str, tuple[str, str]] = {}
    for line in result.stdout.splitlines():
        status, _, rest = line.partition(" ")
        name, _, detail = rest.strip().partition(": ")
        assert status in {"ok", "warn", "fail"}, line
        parsed[name] = (status, detail)
    return parsed


def claude(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC"))}
    return subprocess.run(
        [str(claude_bin()), *args],
        env={**env, "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def install_plugin_copy(home: Path, folder: Path) -> None:
    """The plugin's files copied to `folder`, installed through the real CLI as a local marketplace."""
    folder.mkdir()
    for part in PLUGIN_PARTS:
        shutil.copytree(CHECKOUT / part, folder / part)
    claude(home, "plugin", "marketplace", "add", str(folder))
    claude(home, "plugin", "install", "tiergate@tiergate-local")


def test_a_machine_without_claude_code_or_the_plugin_gets_warnings_and_exit_0(
    project: Path, home: Path
) -> None:
    result = doctor(project, home)
    found = findings(result)
    assert result.returncode == 0, result.stdout + result.stderr
    assert found["tiergate"][0] == "ok"
    assert found["tiergate"][1].startswith("0.1.0 on Python 3.")
    assert found["plugin"] == (
        "warn",
        "not installed in Claude Code: run install.sh (or start claude with --plugin-dir <checkout>)",
    )
    assert found["claude"] == (
        "warn",
        "claude not found: tiergate's hooks need Claude Code (npm install -g @anthropic-ai/claude-code)",
    )
    assert found["project"] == ("ok", f"{project} (git)")
    assert result.stderr == ""


def programs(folder: Path, *names: str) -> str:
    """A PATH on which each of `names` is a small executable in `folder`, before the system's."""
    folder.mkdir(exist_ok=True)
    for name in names:
        (folder / name).write_text("#!/bin/sh\nexit 0\n")
        (folder / name).chmod(0o755)
    return f"{folder}:{SYSTEM_PATH}"


def test_without_a_checks_table_doctor_says_which_checks_it_detected_and_why(
    project: Path, home: Path, tmp_path: Path
) -> None:
    found = findings(doctor(project, home, path=programs(tmp_path / "bin", "pytest")))
    assert found["check tests"] == (
        "ok",
        "pytest -q (detected, not configured: pyproject.toml has [tool.pytest.ini_options])",
    )
    assert "checks" not in found


def test_a_detected_check_whose_program_is_missing_is_skipped_and_doctor_says_why(
    project: Path, home: Path, tmp_path: Path
) -> None:
    (project / "ruff.toml").write_text("")
    result = doctor(project, home, path=programs(tmp_path / "bin", "ruff"))
    found = findings(result)
    assert found["check lint"] == ("ok", "ruff check . (detected, not configured: ruff.toml exists)")
    assert found["check tests"] == (
        "warn",
        "pytest -q skipped: `pytest` is not on PATH "
        "(detected, not configured: pyproject.toml has [tool.pytest.ini_options])",
    )
    assert result.returncode == 0  # a guess that does not apply is no failure
    nothing = findings(doctor(project, home))
    assert nothing["check lint"][0] == nothing["check tests"][0] == "warn"
    assert nothing["checks"] == (
        "warn",
        "none configured and no detected check's program is on PATH: add a [checks] table to "
        '.tiergate.toml (for example tests = "pytest -q")',
    )


def test_a_configured_checks_table_is_listed_with_each_program_found(
    project: Path, home: Path, tmp_path: Path
) -> None:
    (project / "run-tests.sh").write_text("#!/bin/sh\nexit 0\n")
    (project / "run-tests.sh").chmod(0o755)
    (project / ".tiergate.toml").write_text(
        '[checks]\nunit = "cd . && ./run-tests.sh"\nlint = "FOO=1 ruff check ."\nsmoke = "test -f demo.py"\n'
    )
    result = doctor(project, home, path=programs(tmp_path / "bin", "ruff"))
    found = findings(result)
    assert result.returncode == 0, result.stdout
    origin = "configured in .tiergate.toml"
    assert found["check unit"] == (
        "ok",
        f"cd . && ./run-tests.sh ({origin}; ./run-tests.sh is {project / 'run-tests.sh'})",
    )
    assert found["check lint"] == (
        "ok",
        f"FOO=1 ruff check . ({origin}; ruff is {tmp_path / 'bin' / 'ruff'})",
    )
    assert found["check smoke"] == ("ok", f"test -f demo.py ({origin}; test is a shell builtin)")
    assert "check tests" not in found


def test_a_configured_check_whose_program_is_missing_or_not_executable_fails_naming_it(
    project: Path, home: Path
) -> None:
    (project / "check.sh").write_text("#!/bin/sh\nexit 0\n")  # not executable
    (project / ".tiergate.toml").write_text(
        '[checks]\nlint = "no-such-program-xyz ."\nunit = "./check.sh"\nfine = "true"\n'
    )
    result = doctor(project, home)
    found = findings(result)
    assert result.returncode == 1
    assert found["check lint"] == (
        "fail",
        "no-such-program-xyz .: could not run: `no-such-program-xyz` is not on PATH "
        "(configured in .tiergate.toml)",
    )
    assert found["check unit"] == (
        "fail",
        "./check.sh: could not run: `./check.sh` is not an executable file (configured in .tiergate.toml)",
    )
    assert found["check fine"][0] == "ok"


@pytest.mark.parametrize("command", ["", "   "])
def test_an_empty_check_command_fails_as_configuration_naming_the_key(
    project: Path, home: Path, command: str
) -> None:
    (project / ".tiergate.toml").write_text(f'[checks]\nlint = "true"\ntests = "{command}"\n')
    result = doctor(project, home)
    status, detail = findings(result)["config"]
    assert (result.returncode, status) == (1, "fail")
    assert detail.startswith(".tiergate.toml: [checks] tests: the command is empty")
    assert "check lint" not in findings(result)


def test_a_project_with_nothing_to_detect_is_told_how_to_configure_checks(tmp_path: Path, home: Path) -> None:
    bare = init_repo(tmp_path / "bare", {"notes.txt": "hello\n"})
    status, detail = findings(doctor(bare, home))["checks"]
    assert status == "warn"
    assert "add a [checks] table to .tiergate.toml" in detail


def test_a_broken_configuration_is_a_failure_with_exit_1(project: Path, home: Path) -> None:
    (project / ".tiergate.toml").write_text("[tiers]\nlight_files_below = 'five'\n")
    result = doctor(project, home)
    status, detail = findings(result)["config"]
    assert result.returncode == 1
    assert status == "fail"
    assert detail.startswith(".tiergate.toml: tiers.light_files_below")


def test_the_state_folder_write_test_leaves_nothing_behind(project: Path, home: Path) -> None:
    status, detail = findings(doctor(project, home))["state"]
    assert status == "ok"
    assert detail.startswith(f"{state_dir(project)} is writable")
    assert not state_dir(project).is_relative_to(project)
    assert not state_dir(project).parent.exists()  # the state home's projects/ folder too

    nested = findings(doctor(project, home, TIERGATE_STATE_DIR="deep/er/state"))["state"]
    assert nested[0] == "ok"
    assert not (project / "deep").exists()


def test_an_existing_state_folder_is_tested_in_place_and_kept_as_it_was(project: Path, home: Path) -> None:
    state = state_dir(project)
    state.mkdir(parents=True)
    (state / "log.jsonl").write_text("{}\n")
    assert findings(doctor(project, home))["state"] == ("ok", f"{state} is writable")
    assert sorted(p.name for p in state.iterdir()) == ["log.jsonl"]


def test_a_state_folder_whose_root_file_names_another_project_is_a_warning(project: Path, home: Path) -> None:
    state = state_dir(project)
    state.mkdir(parents=True)
    (state / "root").write_text("/somewhere/else\n")
    assert findings(doctor(project, home))["state"] == (
        "warn",
        f"{state} is writable, but its root file names another project: /somewhere/else",
    )


def test_an_older_tiergates_state_folder_in_the_project_is_mentioned_once(project: Path, home: Path) -> None:
    assert "old state" not in findings(doctor(project, home))
    (project / ".tiergate" / "loops").mkdir(parents=True)
    result = doctor(project, home)
    status, detail = findings(result)["old state"]
    assert status == "ok"
    assert detail == (
        f"{project / '.tiergate'} is an older tiergate's state folder, no longer read: "
        "delete it when you like"
    )
    assert [line for line in result.stdout.splitlines() if "older tiergate" in line] == [
        f"ok    old state: {detail}"
    ]
    report = json.loads(doctor(project, home, "--json").stdout)
    assert report["state_dir"] == str(state_dir(project))


def test_a_state_folder_that_cannot_be_created_fails(project: Path, home: Path) -> None:
    # A file where a folder must go defeats even root, who ignores permission bits.
    (project / "taken").write_text("not a folder\n")
    result = doctor(project, home, TIERGATE_STATE_DIR="taken/state")
    status, detail = findings(result)["state"]
    assert result.returncode == 1
    assert status == "fail"
    assert detail.startswith(f"{project / 'taken' / 'state'} is not writable")


@pytest.mark.e2e
def test_the_real_claude_code_version_is_reported(project: Path, home: Path, claude_on_path: str) -> None:
    status, detail = findings(doctor(project, home, path=claude_on_path))["claude"]
    assert status == "ok"
    assert detail.startswith("2.1.332 (Claude Code) (")


@pytest.mark.e2e
def test_claude_bin_names_a_cli_that_is_not_on_path(project: Path, home: Path) -> None:
    found = findings(doctor(project, home, CLAUDE_BIN=str(claude_bin())))
    assert found["claude"][0] == "ok"


@pytest.mark.e2e
def test_a_plugin_installed_through_the_cli_is_found_enabled_then_disabled_then_gone(
    project: Path, home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "plugin copy"
    install_plugin_copy(home, folder)
    python = {"TIERGATE_PYTHON": sys.executable}

    enabled = doctor(project, home, **python)
    assert findings(enabled)["plugin"] == (
        "ok",
        f"tiergate@tiergate-local 0.1.0, read from {folder}, enabled",
    )
    assert findings(enabled)["hooks"] == ("ok", f"run tiergate 0.1.0 with {sys.executable}")
    assert enabled.returncode == 0, enabled.stdout

    claude(home, "plugin", "disable", "tiergate@tiergate-local")
    status, detail = findings(doctor(project, home, **python))["plugin"]
    assert (status, detail.endswith("is disabled: claude plugin enable tiergate@tiergate-local")) == (
        "warn",
        True,
    )

    claude(home, "plugin", "enable", "tiergate@tiergate-local")
    shutil.rmtree(folder)
    gone = doctor(project, home, **python)
    assert findings(gone)["plugin"] == (
        "fail",
        f"tiergate@tiergate-local 0.1.0, read from {folder}, but that folder is gone: rerun install.sh",
    )
    assert gone.returncode == 1


@pytest.mark.e2e
def test_an_installed_plugin_without_a_python_for_its_hooks_fails(
    project: Path, home: Path, tmp_path: Path
) -> None:
    install_plugin_copy(home, tmp_path / "plugin")
    result = doctor(project, home)
    status, detail = findings(result)["hooks"]
    assert result.returncode == 1
    assert status == "fail"
    assert "no Python with tiergate for the hook launcher" in detail


def test_json_output_holds_every_finding_and_the_overall_result(project: Path, home: Path) -> None:
    (project / ".tiergate.toml").write_text("[checks]\ntests = 'true'\n")
    result = doctor(project, home, "--json")
    report: dict[str, Any] = json.loads(result.stdout)
    assert report["ok"] is True
    names = [f["name"] for f in report["findings"]]
    assert names == [
        "tiergate",
        "plugin",
        "hooks",
        "claude",
        "project",
        "isolation",
        "check tests",
        "coverage",
        "state",
        "goal",
        "task list",
    ]
    [coverage] = [f for f in report["findings"] if f["name"] == "coverage"]
    assert (
        coverage["status"] == "warn"
        and "`true` is not a test runner the gate can measure" in coverage["detail"]
    )
    assert {f["status"] for f in report["findings"]} <= {"ok", "warn"}
    assert report["problems"] == []
    assert report["state_dir"] == str(state_dir(project))
    assert result.returncode == 0


def test_json_output_names_each_check_program_and_every_problem(project: Path, home: Path) -> None:
    (project / ".tiergate.toml").write_text("[checks]\nlint = 'ruff check .'\nsmoke = 'true'\n")
    result = doctor(project, home, "--json")
    report: dict[str, Any] = json.loads(result.stdout)
    assert (report["ok"], result.returncode) == (False, 1)
    origin = "configured in .tiergate.toml"
    assert report["checks"] == [
        {
            "name": "lint",
            "command": "ruff check .",
            "source": origin,
            "program": "ruff",
            "location": "",
            "problem": "`ruff` is not on PATH",
        },
        {
            "name": "smoke",
            "command": "true",
            "source": origin,
            "program": "true",
            "location": "shell builtin",
            "problem": "",
        },
    ]
    assert report["problems"] == [
        f"check lint: ruff check .: could not run: `ruff` is not on PATH ({origin})"
    ]


def test_the_runtime_modules_doctor_imports_exercise_every_declared_dependency() -> None:
    import tomllib

    from tiergate.commands.doctor.tiergatepackage import RUNTIME_MODULES

    declared = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {spec.split(">")[0].split("<")[0].split("=")[0].strip() for spec in declared}
    # In a fresh interpreter: which top-level packages importing the modules brings in.
    script = (
        "import importlib, sys\n"
        f"for name in {RUNTIME_MODULES!r}: importlib.import_module(name)\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split()
    assert names == {"pydantic", "anyio", "structlog", "pathspec"}
    assert names <= set(loaded)


def test_the_advice_for_a_missing_plugin_follows_the_route_tiergate_was_installed_by(tmp_path: Path) -> None:
    from tiergate.commands.doctor.claudeplugin import plugin_finding

    def hint(route: Any, has_claude: bool) -> str:
        finding, _ = plugin_finding(tmp_path / "no-claude-config", tmp_path, route, has_claude)
        assert finding.status == "warn"
        return finding.detail

    assert hint("install.sh", False) == (
        "not installed in Claude Code: Claude Code is not on PATH; get it, then run install.sh again to "
        "register the plugin"
    )
    assert hint("install.sh", True) == "not installed in Claude Code: run install.sh again to register it"
    assert "/plugin install tiergate@" in hint("plugin", True)
    assert "run install.sh (or start claude with --plugin-dir <checkout>)" in hint("checkout", False)


def test_doctor_says_what_it_does_with_claude_codes_goal_and_task_list(tmp_path: Path) -> None:
    from tiergate.commands.doctor.neighbours import claude_loop_findings
    from tiergate.project import Project

    project = Project(tmp_path / "project", tmp_path / "state")
    write(project.root, {".tiergate.toml": '[checks]\ntests = "true"\n'})
    verified, tasks = claude_loop_findings(project)
    write(project.root, {".tiergate.toml": '[interop]\ngoal = "ignore"\n'})
    [ignored, _] = claude_loop_findings(project)

    assert verified.detail.startswith("[interop] goal = verify: a goal set with /goal")
    assert "is not evidence" in verified.detail
    assert ignored.detail.startswith("[interop] goal = ignore: /goal is left alone")
    assert "refuses the completion" in tasks.detail


def test_doctor_says_whether_the_gates_checks_are_isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    from tiergate.commands.doctor.projectsetup import isolation_finding
    from tiergate.gate import sandbox

    here = isolation_finding()
    monkeypatch.setattr(sandbox, "_probed", [("unshare: Operation not permitted", None)])
    refused = isolation_finding()
    monkeypatch.setattr(sandbox, "_probed", [(None, "fanotify refused: Operation not permitted")])
    unwatched = isolation_finding()

    assert here.status == ("ok" if sandbox._probe() == (None, None) else "warn")
    assert refused.status == "warn" and "Operation not permitted" in refused.detail
    assert "watched only" in refused.detail
    assert unwatched.status == "warn" and "cannot watch what they open (fanotify refused" in unwatched.detail
