"""tiergate itself, for `tiergate doctor`: how it was installed, and whether it imports every runtime
dependency."""

from __future__ import annotations

import importlib
import platform
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import tiergate
from tiergate import __version__
from tiergate.commands.doctor.finding import Finding

# What importing exercises every runtime dependency: the modules that import one at their top (pydantic
# in the definitions of the hook inputs and of the configuration, anyio for running checks), then the
# libraries tiergate imports only where it uses them (structlog, pathspec).
RUNTIME_MODULES = (
    "tiergate.hook.inputschema",
    "tiergate.config.schema",
    "tiergate.gate.processes",
    "structlog",
    "pathspec",
)


Route = Literal["install.sh", "plugin", "checkout", "other"]
ROUTES: dict[Route, str] = {
    "install.sh": "installed by install.sh",
    "plugin": "the environment the Claude Code plugin prepared for itself",
    "checkout": "a checkout's own environment",
    "other": "installed by hand",
}


def install_route(env: Mapping[str, str]) -> Route:
    """How the tiergate running now was installed, from where its Python environment is."""
    prefix = Path(sys.prefix).resolve()
    home = Path(env.get("TIERGATE_HOME") or f"{env.get('HOME', '')}/.local/share/tiergate")
    if prefix == (home / "venv").resolve():
        return "install.sh"
    if prefix.parent.name.startswith("env-") and prefix.parents[2].name == "data":
        return "plugin"  # <config>/plugins/data/tiergate-<marketplace>/env-<version>/venv
    return "checkout" if this_checkout() is not None else "other"


def package_finding(route: Route = "other") -> Finding:
    for module in RUNTIME_MODULES:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            return Finding("fail", "tiergate", f"{__version__} cannot import {module}: {exc}")
    python = f"Python {platform.python_version()} ({sys.executable})"
    return Finding("ok", "tiergate", f"{__version__} on {python}, {ROUTES[route]}")


def this_checkout() -> Path | None:
    """The plugin checkout this tiergate runs from (an editable install), if it is one."""
    root = Path(tiergate.__file__).resolve().parents[2]
    return root if (root / ".claude-plugin" / "plugin.json").is_file() else None
