"""The user's other loop plugins (`tiergate.claudecode.loopplugins`), read from a real Claude Code config
folder and project: which are installed and enabled, which have a loop running, and the status lines."""

from __future__ import annotations

import json
from pathlib import Path

from testing.gitrepo import write

from tiergate.claudecode import loopplugins
from tiergate.project import Project

RECORDS = {
    "ralph-loop@official": [{"version": "1.0.0"}],
    "oh-my-claudecode@omc": [{}],
    "some-other-plugin@market": [{"version": "2.0.0"}],
}
RALPH_LOOP = (
    "---\nactive: true\niteration: 1\nmax_iterations: 6\ncompletion_promise: {promise}\n---\n\nfix it\n"
)


def claude_home(config: Path, user: dict[str, bool]) -> None:
    write(
        config,
        {
            "plugins/installed_plugins.json": json.dumps({"version": 2, "plugins": RECORDS}),
            "settings.json": json.dumps({"enabledPlugins": user}),
        },
    )


def test_only_loop_plugins_are_listed_enabled_as_the_projects_local_settings_last_say(tmp_path: Path) -> None:
    config, root = tmp_path / "claude", tmp_path / "project"
    claude_home(config, {"ralph-loop@official": True, "oh-my-claudecode@omc": True})
    local = {"enabledPlugins": {"ralph-loop@official": False}}
    write(root, {".claude/settings.local.json": json.dumps(local)})

    found = loopplugins.installed(config, root)

    assert found == [
        {"plugin": "oh-my-claudecode", "id": "oh-my-claudecode@omc", "version": "?", "enabled": True},
        {"plugin": "ralph-loop", "id": "ralph-loop@official", "version": "1.0.0", "enabled": False},
    ]


def test_a_ralph_loop_with_a_promise_is_adoptable_and_one_without_says_why_not(tmp_path: Path) -> None:
    project = Project(tmp_path / "project", tmp_path / "state")
    state = project.root / ".claude" / "ralph-loop.local.md"
    write(project.root, {".claude/ralph-loop.local.md": RALPH_LOOP.format(promise='"DONE"')})

    [adoptable] = loopplugins.running(project)
    state.write_text(RALPH_LOOP.format(promise="null"), encoding="utf-8")
    [refused] = loopplugins.running(project)

    assert adoptable == {
        "kind": "ralph-loop",
        "session_id": "(any session)",
        "task": "fix it",
        "adoptable": True,
        "why_not": None,
    }
    assert refused["adoptable"] is False
    assert "it has no --completion-promise" in refused["why_not"]


def test_status_lines_name_each_plugin_its_interop_setting_and_each_running_loop(tmp_path: Path) -> None:
    config = tmp_path / "claude"
    claude_home(config, {"oh-my-claudecode@omc": True})
    project = Project(tmp_path / "project", tmp_path / "state")
    files = {
        ".tiergate.toml": '[interop]\nomc = "ignore"\n',
        ".claude/ralph-loop.local.md": RALPH_LOOP.format(promise='"DONE"'),
    }
    write(project.root, files)

    printed = loopplugins.lines(project, {"CLAUDE_CONFIG_DIR": str(config)})

    assert printed == [
        "oh-my-claudecode: installed (oh-my-claudecode@omc ?, enabled); [interop] omc = ignore",
        "ralph-loop: installed (ralph-loop@official 1.0.0, disabled); [interop] ralph_loop = verify",
        "ralph-loop loop running for session (any session): tiergate adopts it at its session's next hook",
    ]


def test_a_configuration_that_does_not_load_gives_no_interop_settings(tmp_path: Path) -> None:
    project = Project(tmp_path / "project", tmp_path / "state")
    write(project.root, {".tiergate.toml": "[interop\n"})

    assert loopplugins.interop(project) is None
    write(project.root, {".tiergate.toml": '[interop]\nralph_loop = "ignore"\n'})
    assert loopplugins.interop(project) == {"ralph_loop": "ignore", "omc": "verify", "goal": "verify"}
