"""Where Claude Code keeps its configuration and installed plugins, read for `doctor` and `status`: the
config folder (`CLAUDE_CONFIG_DIR`, else `~/.claude`), its JSON files, and whether a plugin is enabled."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# How a user without Claude Code gets it (install.sh says the same).
GET_CLAUDE = "npm install -g @anthropic-ai/claude-code"


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
