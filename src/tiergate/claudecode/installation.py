"""The user's Claude Code installation, read for `doctor`, `status` and `demo`: its program, its config
folder (`CLAUDE_CONFIG_DIR`, else `~/.claude`), the plugins installed there, whether one is enabled, and
the folder Claude Code reads one from."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tiergate.frozen import frozen

# How a user without Claude Code gets it (install.sh says the same).
GET_CLAUDE = "npm install -g @anthropic-ai/claude-code"


@frozen
class Installed:
    name: str  # the plugin's own name: "tiergate", "ralph-loop"
    id: str  # `<name>@<marketplace>`, as Claude Code names it
    version: str  # "?" when its record has none


def claude_program(env: Mapping[str, str]) -> tuple[str, str | None]:
    """The claude program asked for (`CLAUDE_BIN`, else claude), and where PATH has it (None: nowhere)."""
    wanted = env.get("CLAUDE_BIN") or "claude"
    return wanted, shutil.which(wanted, path=env.get("PATH"))


def claude_config_dir(env: Mapping[str, str]) -> Path:
    configured = env.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else Path(env.get("HOME") or Path.home()) / ".claude"


def enabled(config_dir: Path, project_root: Path, plugin_id: str) -> bool:
    # Claude Code's precedence: user settings, then the project's shared, then its local settings.
    on = False
    for settings in (
        config_dir / "settings.json",
        project_root / ".claude" / "settings.json",
        project_root / ".claude" / "settings.local.json",
    ):
        plugins = read_json(settings).get("enabledPlugins")
        if isinstance(plugins, dict) and plugin_id in plugins:
            on = plugins[plugin_id] is True
    return on


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in `path`; empty when it is missing or unreadable (doctor reports, never crashes)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def installed_plugins(config_dir: Path) -> dict[str, Any]:
    """installed_plugins.json's `plugins` (plugin id -> install records); empty when there are none."""
    plugins = read_json(config_dir / "plugins" / "installed_plugins.json").get("plugins")
    return plugins if isinstance(plugins, dict) else {}


def installed(config_dir: Path) -> list[Installed]:
    """Every installed plugin with the version of its first install record, by id."""
    found = []
    for plugin_id, records in sorted(installed_plugins(config_dir).items()):
        record = records[0] if isinstance(records, list) and records else {}
        version = record.get("version") if isinstance(record, dict) else None
        found.append(Installed(plugin_id.partition("@")[0], plugin_id, str(version or "?")))
    return found


def installed_as(config_dir: Path, name: str) -> Installed | None:
    """The plugin installed under `name` (from the first marketplace by id), if there is one."""
    return next((plugin for plugin in installed(config_dir) if plugin.name == name), None)


def plugin_folder(config_dir: Path, plugin: Installed) -> Path | None:
    """The folder a directory marketplace serves `plugin` from (Claude Code reads it there, in place)."""
    marketplace = plugin.id.partition("@")[2]
    known = read_json(config_dir / "plugins" / "known_marketplaces.json").get(marketplace)
    location = known.get("installLocation") if isinstance(known, dict) else None
    if not isinstance(location, str):
        return None
    catalog = read_json(Path(location) / ".claude-plugin" / "marketplace.json").get("plugins")
    for entry in catalog if isinstance(catalog, list) else []:
        source = entry.get("source") if isinstance(entry, dict) else None
        if isinstance(source, str) and entry.get("name") == plugin.name:
            return (Path(location) / source).resolve()
    return Path(location)
