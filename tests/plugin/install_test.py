"""install.sh on a fresh machine: a throw-away HOME, a fresh copy of the repository, the pinned Claude Code
CLI on PATH as `claude` (or no Claude Code at all), and a real session through the installed plugin."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from testing.claude.cli import claude_bin, run_claude
from testing.claude.scripted_api import Rule, ScriptedApi, bash, text, tool_use
from testing.claude.tiergate_model import follow_spawn_directive, passing_verdict
from testing.gitrepo import init_repo
from testing.installmachine import CHECKOUT, Machine, new_machine
from testing.statefolder import state_dir

# install.sh on a throw-away HOME.
pytestmark = pytest.mark.install

USER_SETTINGS = {"theme": "dark", "cleanupPeriodDays": 30}
CLAUDES_OWN_RECORDS = (".claude.json", ".claude/backups", ".claude/telemetry")


def lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.splitlines()


def tree(*roots: Path) -> dict[str, tuple[int, int, str]]:
    """Every file and link under `roots`: modification time, size and link target."""
    found: dict[str, tuple[int, int, str]] = {}
    for root in roots:
        for path in [root, *root.rglob("*")] if root.exists() or root.is_symlink() else []:
            info = path.lstat()
            target = str(path.readlink()) if path.is_symlink() else ""
            found[str(path)] = (info.st_mtime_ns, info.st_size, target)
    return found


@dataclass(frozen=True)
class Installed:
    machine: Machine
    output: list[str]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """One install shared by the module: Claude Code on PATH, the user's own settings already there."""
    machine = new_machine(tmp_path_factory.mktemp("installed"), with_claude=True, settings=USER_SETTINGS)
    return Installed(machine, lines(machine.install()))


@pytest.fixture
def machine(installed: Installed) -> Machine:
    return installed.machine


def test_install_creates_the_venv_the_link_and_an_enabled_plugin_and_says_so(installed: Installed) -> None:
    machine, output = installed.machine, installed.output
    venv = machine.tiergate_home / "venv"
    copy = machine.tiergate_home / "plugin"
    link = machine.home / ".local" / "bin" / "tiergate"
    expected = [
        f"created the virtualenv {venv}",
        f"installed tiergate 0.1.0 from {machine.checkout} into {venv}",
        f"copied the plugin files in {copy}",
        f"linked {link} -> {venv / 'bin' / 'tiergate'}",
        f"note: {link.parent} is not on your PATH; "
        f'add it (export PATH="{link.parent}:$PATH") to run tiergate',
        f"added the marketplace tiergate-local ({copy}) to Claude Code",
        "installed the plugin tiergate@tiergate-local in Claude Code "
        "(user scope; active from the next session)",
    ]
    assert [line for line in output if "backed up" not in line] == [f"tiergate: {e}" for e in expected]
    version = subprocess.run([str(link), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout == "tiergate 0.1.0\n"
    plugins = {p["id"]: p for p in machine.claude("plugin", "list", "--json")}
    assert plugins["tiergate@tiergate-local"]["enabled"] is True
    assert plugins["tiergate@tiergate-local"]["readFromFolder"] == str(copy)


def test_the_venv_holds_a_regular_install_that_survives_the_checkout(machine: Machine) -> None:
    python = machine.tiergate_home / "venv" / "bin" / "python"
    where = subprocess.run(
        [str(python), "-c", "import tiergate; print(tiergate.__file__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.startswith(str(machine.tiergate_home / "venv" / "lib"))


def test_existing_user_settings_are_backed_up_before_claude_code_edits_them(installed: Installed) -> None:
    machine = installed.machine
    backups = sorted(machine.settings.parent.glob("settings.json.tiergate-backup*"))
    assert backups == [machine.settings.parent / "settings.json.tiergate-backup"]
    assert json.loads(backups[0].read_text()) == USER_SETTINGS
    assert f"tiergate: backed up {machine.settings} to {backups[0]}" in installed.output
    settings = json.loads(machine.settings.read_text())
    assert {k: settings[k] for k in USER_SETTINGS} == USER_SETTINGS
    assert settings["enabledPlugins"] == {"tiergate@tiergate-local": True}


def test_claude_codes_cached_copy_holds_the_plugin_and_nothing_else(machine: Machine) -> None:
    cache = machine.home / ".claude" / "plugins" / "cache" / "tiergate-local"
    files = [p.relative_to(cache) for p in cache.rglob("*") if p.is_file()]
    assert sum((cache / f).stat().st_size for f in files) < 200_000
    assert {f.parts[2] for f in files} >= {".claude-plugin", "hooks", "agents", "commands"}
    assert not {".venv", ".cache", "src", "node_modules"} & {f.parts[2] for f in files}


def test_the_copied_plugin_provides_what_the_checkout_provides(machine: Machine) -> None:
    def provides(manifest: Path) -> dict[str, Any]:
        report = machine.claude("plugin", "validate", "--strict", "--json", str(manifest))
        assert report["success"] is True
        return {k: report["provides"][k] for k in ("agents", "commands", "hooks")}

    copied = provides(machine.tiergate_home / "plugin" / ".claude-plugin" / "plugin.json")
    assert copied == provides(CHECKOUT / ".claude-plugin" / "plugin.json")


def test_a_second_run_changes_nothing_and_says_so(machine: Machine) -> None:
    watched = (
        machine.tiergate_home,
        machine.home / ".local" / "bin",
        machine.settings.parent,
        machine.home / ".claude" / "plugins" / "installed_plugins.json",
        machine.home / ".claude" / "plugins" / "known_marketplaces.json",
        machine.home / ".claude" / "plugins" / "cache",
    )
    before = tree(*watched)
    output = lines(machine.install())
    assert output[-1] == "tiergate: nothing changed: tiergate is installed and up to date"
    assert all(line.startswith(("tiergate: unchanged: ", "tiergate: note: ")) for line in output[:-1]), output
    # The settings folder also holds Claude Code's own churn (session files); compare what install touches.
    after = tree(*watched)
    assert {k: v for k, v in after.items() if "settings.json" in k or "/.claude/" not in k} == {
        k: v for k, v in before.items() if "settings.json" in k or "/.claude/" not in k
    }
    assert {k: v for k, v in after.items() if "/plugins/" in k} == {
        k: v for k, v in before.items() if "/plugins/" in k
    }


def test_installed_doctor_finds_everything_in_order(machine: Machine, tmp_path: Path) -> None:
    # A configured check that the machine has (a detected pytest would be skipped, and warned about, on
    # this machine's PATH, which has no pytest) and whose coverage the gate can measure.
    project = init_repo(tmp_path / "project", {".tiergate.toml": '[checks]\ntests = "python3 -m unittest"\n'})
    result = subprocess.run(
        [str(machine.home / ".local" / "bin" / "tiergate"), "doctor"],
        cwd=project,
        env=machine.env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout
    python = machine.tiergate_home / "venv" / "bin" / "python"
    assert f"ok    hooks: run tiergate 0.1.0 with {python}" in result.stdout.splitlines()
    assert (
        f"ok    plugin: tiergate@tiergate-local 0.1.0, read from {machine.tiergate_home / 'plugin'}, enabled"
        in result.stdout.splitlines()
    )
    assert any(line.startswith("ok    coverage: ") for line in result.stdout.splitlines()), result.stdout
    assert all(line.startswith("ok ") for line in result.stdout.splitlines()), result.stdout


@pytest.mark.e2e
def test_a_session_in_the_installed_home_runs_a_loop_through_the_installed_plugin(
    machine: Machine, tmp_path: Path
) -> None:
    """No --plugin-dir: the hooks, the ralph command and the verifier all come from the installed copy."""
    project = init_repo(tmp_path / "project", {"README.md": "A project.\n"})
    task = "add hello.py printing hello"
    with ScriptedApi(log_path=tmp_path / "requests.jsonl") as api:
        # The implementer, turn by turn: write, stop, claim when sent back, spawn the verifier when asked.
        write = tool_use("Write", {"file_path": str(project / "hello.py"), "content": "print('hello')\n"})
        turns = (
            write,
            text("I wrote hello.py."),
            text("hello.py prints hello.\n<promise>DONE</promise>"),
            follow_spawn_directive,
            text("The verifier has answered."),
        )
        api.script(*(Rule(turn, thread="main", times=1) for turn in turns))
        api.on(bash("python3 hello.py"), thread="subagent", after_tool_result=False)
        api.on(passing_verdict("$ python3 hello.py\nhello"), thread="subagent", after_tool_result=True)
        run = run_claude(
            f"/tiergate:ralph {task} --max-iterations 5",
            plugin_dir=None,
            cwd=project,
            home=machine.home,
            api_url=api.url,
            env={"PATH": machine.path},
            output_format="stream-json",
            timeout=120,
        )
        main_calls, verifier_calls = api.messages_calls("main"), api.messages_calls("subagent")

    assert run.returncode == 0, run.describe()
    launcher = machine.tiergate_home / "plugin" / "hooks" / "tiergate-hook"
    # (The debug log names the plugin and the expanded command on all but the end-of-session events.)
    runs = [r for r in run.hook_runs() if r.plugin is not None]
    assert {r.plugin for r in runs} == {"tiergate@tiergate-local"}
    assert all(r.command == f"{launcher} {r.event}" for r in runs)
    assert {r.event for r in runs} >= {"UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop"}
    # The installed /tiergate:ralph expanded into its body, with the task.
    assert "The user asked tiergate to start a loop" in main_calls[0].last_user_text()
    assert "tiergate loop active" in main_calls[0].conversation_text()
    assert task in main_calls[0].last_user_text()
    # The verifier is the installed agent: its instructions are the agent file's body.
    assert "You verify a completion claim for tiergate" in verifier_calls[0].system
    log = [json.loads(line) for line in (state_dir(project) / "log.jsonl").read_text().splitlines()]
    assert [(r["event"], r["decision"]) for r in log] == [
        ("UserPromptSubmit", "start"),
        ("Stop", "continue"),
        ("Stop", "spawn"),
        ("SubagentStart", "verifier-started"),
        ("SubagentStop", "verdict"),
        ("Stop", "finalize"),
    ]
    status = subprocess.run(
        [str(machine.home / ".local" / "bin" / "tiergate"), "status", "--json"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    [loop] = json.loads(status.stdout)
    assert (loop["phase"], loop["verdict"], loop["session_id"]) == ("passed", "PASS", run.session_id)


NOT_REGISTERED = [
    "tiergate: Claude Code (claude) not found: the plugin is not registered, "
    "so no session runs tiergate's hooks",
    "tiergate: get Claude Code with: npm install -g @anthropic-ai/claude-code; "
    "then run install.sh again to register the plugin",
]


def test_a_second_run_without_claude_code_does_not_call_itself_up_to_date(tmp_path: Path) -> None:
    machine = new_machine(tmp_path, with_claude=False)
    lines(machine.install())
    output = lines(machine.install())
    assert not any("nothing changed" in line or "up to date" in line for line in output), output
    assert output[-2:] == NOT_REGISTERED
    # The demo, then, does not end with a slash command this machine cannot run.
    tiergate = machine.home / ".local" / "bin" / "tiergate"
    demo = subprocess.run(
        [str(tiergate), "demo"],
        cwd=machine.home,
        env=machine.env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
    closing = " ".join(demo.stdout[demo.stdout.rindex("Next: ") :].split())
    assert closing.startswith("Next: tiergate runs inside Claude Code, and `claude` is not on PATH")
    # Uninstalling takes away what install.sh and the demo made: the HOME is empty again.
    lines(machine.install("--uninstall"))
    assert list(machine.home.iterdir()) == []


def test_an_old_python_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    machine = new_machine(tmp_path, with_claude=False)
    old = tmp_path / "python3.9"
    # Stands in for an interpreter older than 3.11: fails the version test, reports its version.
    old.write_text('#!/bin/sh\n[ "$1" = "-V" ] && echo "Python 3.9.18"\nexit 1\n')
    old.chmod(0o755)
    result = machine.install(PYTHON=str(old))
    assert result.returncode == 1
    assert result.stderr == f"tiergate: error: tiergate needs Python 3.11 or newer; {old} is Python 3.9.18\n"
    assert list(machine.home.iterdir()) == []


def test_updates_redo_only_what_changed_and_uninstall_leaves_no_trace(tmp_path: Path) -> None:
    machine = new_machine(tmp_path, with_claude=True, settings=USER_SETTINGS)
    lines(machine.install())

    # A change to the Python package reinstalls it and leaves the plugin files alone ...
    with (machine.checkout / "src" / "tiergate" / "errors.py").open("a") as source:
        source.write("\n# a local change\n")
    output = lines(machine.install())
    venv = machine.tiergate_home / "venv"
    assert f"tiergate: installed tiergate 0.1.0 from {machine.checkout} into {venv}" in output
    assert f"tiergate: unchanged: plugin files in {machine.tiergate_home / 'plugin'}" in output
    # ... and a change to the plugin updates its files, which Claude Code reads in place.
    with (machine.checkout / "commands" / "status.md").open("a") as command:
        command.write("\nA local addition.\n")
    output = lines(machine.install())
    assert f"tiergate: updated the plugin files in {machine.tiergate_home / 'plugin'}" in output
    assert "A local addition." in (machine.tiergate_home / "plugin" / "commands" / "status.md").read_text()
    assert "tiergate: unchanged: plugin tiergate@tiergate-local is installed and enabled" in output

    output = lines(machine.install("--uninstall"))
    local, claude_dir = machine.home / ".local", machine.home / ".claude"
    assert output == [
        "tiergate: uninstalled the plugin tiergate@tiergate-local from Claude Code",
        "tiergate: removed the marketplace tiergate-local from Claude Code",
        f"tiergate: removed {machine.settings}.tiergate-backup: "
        "the settings are as they were before tiergate",
        "tiergate: removed Claude Code's cached copy of the plugin "
        f"({claude_dir / 'plugins' / 'cache' / 'tiergate-local'})",
        f"tiergate: removed the link {local / 'bin' / 'tiergate'}",
        f"tiergate: removed the virtualenv ({venv})",
        f"tiergate: removed the plugin files ({machine.tiergate_home / 'plugin'})",
        f"tiergate: removed {machine.tiergate_home}",
        f"tiergate: removed {claude_dir / 'plugins'} "
        "(Claude Code made it for tiergate, and it lists no plugin now)",
        f"tiergate: removed the empty folder {local / 'share'} (it was not there before install.sh)",
        f"tiergate: removed the empty folder {local / 'bin'} (it was not there before install.sh)",
        f"tiergate: removed the empty folder {local} (it was not there before install.sh)",
    ]
    assert machine.claude("plugin", "marketplace", "list", "--json") == []
    assert "tiergate@tiergate-local" not in {p["id"] for p in machine.claude("plugin", "list", "--json")}
    # HOME as it was: the user's settings, exactly (Claude Code's emptied entries gone, no backup left),
    # and beside them only what Claude Code records for itself (its state file, backups, telemetry).
    assert json.loads(machine.settings.read_text()) == USER_SETTINGS
    left = {str(p.relative_to(machine.home)) for p in machine.home.rglob("*")}
    assert {p for p in left if not p.startswith(CLAUDES_OWN_RECORDS)} == {".claude", ".claude/settings.json"}
    assert_no_trace(machine.home)
    assert lines(machine.install("--uninstall")) == ["tiergate: nothing to remove: tiergate is not installed"]


def assert_no_trace(home: Path) -> None:
    """Nothing in `home` is named after tiergate or mentions it, but what Claude Code records for itself."""
    for path in home.rglob("*"):
        relative = str(path.relative_to(home))
        if relative.startswith(CLAUDES_OWN_RECORDS):
            continue
        assert "tiergate" not in relative
        if path.is_file():
            assert "tiergate" not in path.read_text(errors="replace"), relative


def test_on_a_home_without_claude_settings_uninstall_leaves_only_claude_codes_own_records(
    tmp_path: Path,
) -> None:
    machine = new_machine(tmp_path, with_claude=True)
    output = lines(machine.install())
    assert not any("backed up" in line for line in output)  # no settings of the user's to back up
    assert machine.settings.is_file()  # Claude Code made them, for the plugin
    lines(machine.install("--uninstall"))
    left = {str(p.relative_to(machine.home)) for p in machine.home.rglob("*")}
    assert {p for p in left if not p.startswith(CLAUDES_OWN_RECORDS)} == {".claude"}
    assert_no_trace(machine.home)
    assert lines(machine.install("--uninstall")) == ["tiergate: nothing to remove: tiergate is not installed"]


def test_the_readmes_claude_code_plugin_commands_install_the_plugin_from_a_checkout(tmp_path: Path) -> None:
    """What the README tells a user to type, run as typed, with the checkout's path for /path/to/tiergate."""
    readme = (CHECKOUT / "README.md").read_text()
    typed = re.findall(r"`claude (plugin [^`]+)`", readme)
    assert typed[:2] == ["plugin marketplace add /path/to/tiergate", "plugin install tiergate@tiergate-local"]
    assert "/plugin marketplace add /path/to/tiergate\n/plugin install tiergate@tiergate-local" in readme
    machine = new_machine(tmp_path, with_claude=True)
    for command in typed[:2]:
        argv = [str(machine.checkout) if a == "/path/to/tiergate" else a for a in command.split()]
        subprocess.run(
            [str(claude_bin()), *argv], env=machine.env(), capture_output=True, timeout=60, check=True
        )
    plugins = {p["id"]: p for p in machine.claude("plugin", "list", "--json")}
    assert plugins["tiergate@tiergate-local"]["enabled"] is True
    assert plugins["tiergate@tiergate-local"]["readFromFolder"] == str(machine.checkout)


def test_help_prints_the_whole_header_and_nothing_of_the_script(tmp_path: Path) -> None:
    machine = new_machine(tmp_path, with_claude=False)
    shown = lines(machine.install("--help"))
    assert shown[0] == "Installs tiergate for this user, from this checkout:"
    assert shown[-1].startswith("CLAUDE_BIN (default: claude on PATH)")
    assert any("settings.json.tiergate-backup" in line for line in shown)
    assert not any(line.startswith(("set -", "#")) for line in shown)
    assert list(machine.home.iterdir()) == []


def default_state_home(machine: Machine) -> dict[str, str]:
    """The machine's environment with no XDG folder set: tiergate's state under ~/.local/state."""
    return {k: v for k, v in machine.env().items() if not k.startswith("XDG_")}


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_the_demo_and_uninstall_leave_home_as_they_found_it(tmp_path: Path) -> None:
    """The state home is the default one here (~/.local/state): the demo keeps its state in its temporary
    folder, and uninstall removes tiergate's state folder when it holds no loop's log and no backup (a
    report page of no loop is not worth keeping), the state home with it when that was all it held."""
    machine = new_machine(tmp_path, with_claude=False)
    env = default_state_home(machine)
    before = tree(machine.home)
    lines(machine.install())
    tiergate = str(machine.home / ".local" / "bin" / "tiergate")
    installed = tree(machine.home)

    demo = run([tiergate, "demo"], machine.home, env)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert tree(machine.home) == installed

    project = init_repo(tmp_path / "project", {"a.txt": "a\n"})
    assert "report of 0 loops written to" in run([tiergate, "report"], project, env).stdout
    removed = lines(run([str(machine.checkout / "install.sh"), "--uninstall"], machine.home, env))
    state = machine.home / ".local" / "state" / "tiergate"
    assert f"tiergate: removed tiergate's state folder {state} (no loop's log and no backup in it)" in removed
    # The same files and folders, each as it was (HOME's own mtime aside: entries came and went in it).
    assert {k: v for k, v in tree(machine.home).items() if k != str(machine.home)} == {
        k: v for k, v in before.items() if k != str(machine.home)
    }


def test_without_claude_code_an_install_in_chosen_folders_works_and_uninstall_keeps_a_loops_log(
    tmp_path: Path,
) -> None:
    """One fresh install for two things: what install.sh left (read first, before anything changes it),
    then a loop started and --uninstall keeping its log."""
    machine = new_machine(tmp_path, with_claude=False)
    home_dir, bin_dir = tmp_path / "tiergate home", tmp_path / "bin dir"
    chosen = {"TIERGATE_HOME": str(home_dir), "TIERGATE_BIN_DIR": str(bin_dir)}
    output = lines(machine.install(**chosen))
    assert output[-2:] == NOT_REGISTERED
    # The link's folder is not on PATH: say so; a folder that is on PATH needs no note.
    assert any(line.startswith(f"tiergate: note: {bin_dir} is not on your PATH") for line in output)
    version = subprocess.run(
        [str(bin_dir / "tiergate"), "--version"], capture_output=True, text=True, check=True
    )
    assert version.stdout == "tiergate 0.1.0\n"
    assert (home_dir / "plugin" / "hooks" / "tiergate-hook").is_file()
    assert not (machine.home / ".claude").exists()
    assert not (machine.home / ".local").exists()

    env = {**default_state_home(machine), **chosen}
    project = init_repo(tmp_path / "project", {"a.txt": "a\n"})
    tiergate = str(bin_dir / "tiergate")
    started = run([tiergate, "ralph", "start", "a task"], project, env)
    assert started.returncode == 0, started.stderr
    # doctor right after install.sh with no Claude Code: advice for this route, not "run install.sh".
    doctor = run([tiergate, "doctor"], project, env).stdout.splitlines()
    assert any(line.startswith("ok    tiergate: 0.1.0 on Python") for line in doctor)
    assert any(line.endswith(", installed by install.sh") for line in doctor)
    assert (
        "warn  plugin: not installed in Claude Code: Claude Code is not on PATH; get it, then run install.sh "
        "again to register the plugin"
    ) in doctor

    output = lines(run([str(machine.checkout / "install.sh"), "--uninstall"], machine.home, env))

    state = machine.home / ".local" / "state" / "tiergate"
    assert (
        f"tiergate: kept tiergate's state in {state}: it holds 1 loop log file(s) "
        "(remove it when you no longer need them)"
    ) in output
    assert any(state.rglob("log.jsonl"))
