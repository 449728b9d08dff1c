"""The command line's own surface, as a new user meets it: `-V`, `--help` listing every command without
importing one, and a mistyped option answered by the command that was given, with that command's usage."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testing import tiergatecli

from tiergate import __version__
from tiergate.commands import COMMANDS


def tiergate(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m tiergate ARGS` in this process's environment, as is: what argparse answers is the same in
    a warm fork (`testing.warmstart`) as in a cold start, for a fraction of the CPU."""
    return tiergatecli.tiergate(cwd, *args, environ=dict(os.environ), timeout=60)


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_the_short_and_long_version_flags_print_the_version(tmp_path: Path, flag: str) -> None:
    run = tiergate(tmp_path, flag)
    assert (run.returncode, run.stdout, run.stderr) == (0, f"tiergate {__version__}\n", "")


# What a command is typed with so that only the option is wrong: its action, or a positional argument.
TYPED = {
    "ralph": ("ralph start", ("a task",)),
    "autopilot": ("autopilot start", ("features.json",)),
    "restore": ("restore", ("some-backup",)),
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_an_unknown_option_is_refused_by_the_command_with_its_own_usage(tmp_path: Path, name: str) -> None:
    prog, positional = TYPED.get(name, (name, ()))
    run = tiergate(tmp_path, *prog.split(), *positional, "--bogus")
    assert run.returncode == 2
    lines = run.stderr.splitlines()
    assert lines[0].startswith(f"usage: tiergate {prog} [-h]"), run.stderr
    assert lines[-1] == f"tiergate {prog}: error: unrecognized arguments: --bogus"
    assert run.stdout == ""


def test_an_unknown_action_is_refused_by_its_command(tmp_path: Path) -> None:
    run = tiergate(tmp_path, "ralph", "bogus")
    assert run.returncode == 2
    assert run.stderr.startswith("usage: tiergate ralph [-h] ACTION ...")
    assert "tiergate ralph: error: argument ACTION: invalid choice: 'bogus'" in run.stderr


def test_an_unknown_option_before_any_command_gets_the_top_level_usage(tmp_path: Path) -> None:
    run = tiergate(tmp_path, "--bogus", "status")
    assert run.returncode == 2
    assert run.stderr.startswith("usage: tiergate [-h] [-V] COMMAND ...")
    assert run.stderr.splitlines()[-1] == "tiergate: error: unrecognized arguments: --bogus"


def cold_modules(tmp_path: Path, *args: str, prefix: str) -> subprocess.CompletedProcess[str]:
    """`tiergate ARGS` in a fresh interpreter (a warm fork has every module imported already), with the
    names of the modules it imported that begin with `prefix` printed on stderr."""
    script = (
        "import sys\n"
        "from tiergate.main import main\n"
        "try:\n"
        f"    main({list(args)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(*sorted(m for m in sys.modules if m.startswith({prefix!r})), file=sys.stderr)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )


def test_help_lists_every_command_with_its_help_and_imports_none_of_them(tmp_path: Path) -> None:
    run = cold_modules(tmp_path, "--help", prefix="tiergate.command")
    assert run.stderr.split() == ["tiergate.commands"]
    said = " ".join(run.stdout.split())
    for name, command in COMMANDS.items():
        assert f"{name} {command.help}" in said


def test_a_command_imports_only_its_own_module_and_its_help_shows_its_arguments(tmp_path: Path) -> None:
    run = cold_modules(tmp_path, "wait", "--help", prefix="tiergate.commands.")
    assert run.stderr.split() == ["tiergate.commands.wait"]
    assert run.stdout.startswith("usage: tiergate wait [-h] [--timeout SECONDS]")
    assert COMMANDS["wait"].help in " ".join(run.stdout.split())
