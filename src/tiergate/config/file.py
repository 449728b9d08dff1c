"""Finding and reading the configuration file, without pydantic or the settings.

Apart from `tiergate.config.settings` so that a command can tell whether a project has configuration
at all before it pays for more: `tiergate tier --batch` on a project without one never does.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from tiergate.errors import UserError

CONFIG_FILE = ".tiergate.toml"
PYPROJECT = "pyproject.toml"


def read_table(root: Path) -> tuple[str, dict[str, Any]] | None:
    """The project's tiergate table and where it came from, or None when the project has none."""
    dedicated = root / CONFIG_FILE
    if dedicated.is_file():
        return CONFIG_FILE, _parse(dedicated, CONFIG_FILE)
    pyproject = root / PYPROJECT
    if pyproject.is_file():
        data = _parse(pyproject, PYPROJECT)
        tool = data.get("tool", {})
        section = tool.get("tiergate") if isinstance(tool, dict) else None
        if section is None:
            return None
        if not isinstance(section, dict):
            raise UserError(f"{PYPROJECT}: tool.tiergate: must be a table")
        return f"{PYPROJECT} [tool.tiergate]", section
    return None


def _parse(path: Path, label: str) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{label}: invalid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{label}: cannot read: {exc}") from None
