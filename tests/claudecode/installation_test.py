"""Claude Code's installation as tiergate reads it (`tiergate.claudecode.installation`): where the config
folder is, which settings file decides whether a plugin is enabled, and JSON that is missing or malformed
read as empty."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testing.gitrepo import write

from tiergate.claudecode.installation import (
    Installed,
    claude_config_dir,
    claude_program,
    enabled,
    installed,
    installed_as,
    installed_plugins,
    read_json,
)

PLUGIN = "ralph-loop@official"


def test_the_config_folder_is_claude_config_dir_else_claude_under_home(tmp_path: Path) -> None:
    assert claude_config_dir({"CLAUDE_CONFIG_DIR": str(tmp_path / "c"), "HOME": "/h"}) == tmp_path / "c"
    assert claude_config_dir({"CLAUDE_CONFIG_DIR": "", "HOME": "/h"}) == Path("/h/.claude")


@pytest.mark.parametrize(
    ("user", "shared", "local", "on"),
    [
        (True, None, None, True),
        (True, False, None, False),
        (False, True, None, True),
        (True, True, False, False),
        (None, None, True, True),
        (None, None, None, False),
        ("yes", None, None, False),
    ],
)
def test_a_plugin_is_enabled_as_the_last_settings_file_naming_it_says(
    tmp_path: Path, user: object, shared: object, local: object, on: bool
) -> None:
    config, root = tmp_path / "claude", tmp_path / "project"
    for path, value in (
        (config / "settings.json", user),
        (root / ".claude" / "settings.json", shared),
        (root / ".claude" / "settings.local.json", local),
    ):
        plugins = {} if value is None else {PLUGIN: value}
        write(path.parent, {path.name: json.dumps({"enabledPlugins": {"other@x": True, **plugins}})})

    assert enabled(config, root, PLUGIN) is on


@pytest.mark.parametrize("text", [None, "{not json", "[1, 2]", '"a string"'])
def test_json_that_is_missing_malformed_or_not_an_object_reads_as_empty(
    tmp_path: Path, text: str | None
) -> None:
    path = tmp_path / "settings.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")

    assert read_json(path) == {}


def test_installed_plugins_are_the_records_by_id_and_none_when_the_file_has_no_table(tmp_path: Path) -> None:
    records = {PLUGIN: [{"version": "1.0.0", "installPath": "/p"}]}
    write(tmp_path / "a", {"plugins/installed_plugins.json": json.dumps({"version": 2, "plugins": records})})
    write(tmp_path / "b", {"plugins/installed_plugins.json": json.dumps({"version": 2, "plugins": [PLUGIN]})})

    assert installed_plugins(tmp_path / "a") == records
    assert installed_plugins(tmp_path / "b") == {}
    assert installed_plugins(tmp_path / "none") == {}


def test_installed_plugins_come_by_id_with_their_first_record_s_version(tmp_path: Path) -> None:
    records = {
        "tiergate@zeta": [{"version": "2.0.0"}],
        "tiergate@alpha": [{"installPath": "/p"}],
        "ralph-loop@alpha": [{"version": "1.0.0"}, {"version": "0.9.0"}],
    }
    write(tmp_path, {"plugins/installed_plugins.json": json.dumps({"version": 2, "plugins": records})})

    assert [(p.name, p.id, p.version) for p in installed(tmp_path)] == [
        ("ralph-loop", "ralph-loop@alpha", "1.0.0"),
        ("tiergate", "tiergate@alpha", "?"),
        ("tiergate", "tiergate@zeta", "2.0.0"),
    ]
    assert installed_as(tmp_path, "tiergate") == Installed("tiergate", "tiergate@alpha", "?")
    assert installed_as(tmp_path, "oh-my-claudecode") is None


def test_the_claude_program_is_claude_bin_else_claude_looked_up_on_path(tmp_path: Path) -> None:
    program = tmp_path / "my-claude"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)

    assert claude_program({"CLAUDE_BIN": "my-claude", "PATH": str(tmp_path)}) == ("my-claude", str(program))
    assert claude_program({"PATH": str(tmp_path)}) == ("claude", None)
