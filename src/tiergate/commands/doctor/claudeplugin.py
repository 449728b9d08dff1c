"""Claude Code and tiergate's plugin in it, for `tiergate doctor`: the plugin installed and enabled, the
Python its hook launcher picks, and the claude program."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from tiergate import __version__
from tiergate.claudecode.installation import (
    GET_CLAUDE,
    claude_config_dir,
    claude_program,
    enabled,
    installed_as,
    plugin_folder,
)
from tiergate.commands.doctor.finding import Finding
from tiergate.commands.doctor.tiergatepackage import Route

PLUGIN_NAME = "tiergate"
CLAUDE_TIMEOUT = 10.0


def plugin_finding(
    config_dir: Path, project_root: Path, route: Route = "checkout", has_claude: bool = True
) -> tuple[Finding, Path | None]:
    """Whether Claude Code has the plugin installed and enabled, and the folder it reads it from; the
    advice for a plugin that is not there fits the route tiergate was installed by (`install_route`)."""
    plugin = installed_as(config_dir, PLUGIN_NAME)
    if plugin is None:
        return Finding(
            "warn", "plugin", f"not installed in Claude Code: {_install_hint(route, has_claude)}"
        ), None
    root = plugin_folder(config_dir, plugin)
    described = f"{plugin.id} {plugin.version}" + (f", read from {root}" if root else "")
    if root is not None and not (root / ".claude-plugin" / "plugin.json").is_file():
        return Finding("fail", "plugin", f"{described}, but that folder is gone: rerun install.sh"), None
    if not enabled(config_dir, project_root, plugin.id):
        return Finding("warn", "plugin", f"{described} is disabled: claude plugin enable {plugin.id}"), root
    return Finding("ok", "plugin", f"{described}, enabled"), root


def _install_hint(route: Route, has_claude: bool) -> str:
    if route == "install.sh":
        if not has_claude:
            return "Claude Code is not on PATH; get it, then run install.sh again to register the plugin"
        return "run install.sh again to register it"
    if route == "plugin":
        return "install it again with /plugin install tiergate@<marketplace> in Claude Code"
    return "run install.sh (or start claude with --plugin-dir <checkout>)"


def hook_python_finding(
    env: Mapping[str, str], plugin_root: Path | None, *, plugin_installed: bool
) -> Finding:
    """The Python the hook launcher (hooks/tiergate-hook) would pick, searched in the launcher's order."""
    python = launcher_python(env, plugin_root)
    if python is None:
        # The route the user took: a plugin that carries tiergate's source prepares its own environment.
        if plugin_root is not None and (plugin_root / "pyproject.toml").is_file():
            advice = (
                "start a Claude Code session: the plugin prepares it (its log: prepare.log in "
                "~/.claude/plugins/data/tiergate-<marketplace>)"
            )
        else:
            advice = "run install.sh"
        return Finding(
            "fail" if plugin_installed else "warn",
            "hooks",
            "no Python with tiergate for the hook launcher (TIERGATE_PYTHON, the plugin's .venv, the "
            f"environment the plugin prepared, TIERGATE_HOME/venv): hooks do nothing; {advice}",
        )
    return _hook_version(python)


def launcher_python(env: Mapping[str, str], plugin_root: Path | None) -> Path | None:
    explicit = env.get("TIERGATE_PYTHON")
    if explicit and os.access(explicit, os.X_OK):
        return Path(explicit)
    home = env.get("TIERGATE_HOME") or f"{env.get('HOME', '')}/.local/share/tiergate"
    venvs = [plugin_root / ".venv"] if plugin_root else []
    # What the plugin prepared for itself (hooks/prepare.py), once its build is complete.
    data = claude_config_dir(env) / "plugins" / "data"
    venvs += sorted(ready.parent / "venv" for ready in data.glob("tiergate-*/env-*/ready"))
    for venv in [*venvs, Path(home) / "venv"]:
        python = venv / "bin" / "python"
        if os.access(python, os.X_OK) and (venv / "bin" / "tiergate").exists():
            return python
    return None


def _hook_version(python: Path) -> Finding:
    probe = "import tiergate.main; print(tiergate.__version__)"
    try:
        result = subprocess.run(
            [str(python), "-c", probe], capture_output=True, text=True, timeout=CLAUDE_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Finding("fail", "hooks", f"{python} does not run: {exc}")
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        return Finding("fail", "hooks", f"{python} cannot import tiergate: {last}")
    version = result.stdout.strip()
    if version != __version__:
        return Finding(
            "warn", "hooks", f"run tiergate {version} ({python}), this is {__version__}: rerun install.sh"
        )
    return Finding("ok", "hooks", f"run tiergate {version} with {python}")


def claude_finding(env: Mapping[str, str]) -> Finding:
    wanted, found = claude_program(env)
    if found is None:
        return Finding(
            "warn", "claude", f"{wanted} not found: tiergate's hooks need Claude Code ({GET_CLAUDE})"
        )
    try:
        result = subprocess.run(
            [found, "--version"], capture_output=True, text=True, timeout=CLAUDE_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        return Finding("warn", "claude", f"{found} --version did not answer within {CLAUDE_TIMEOUT:.0f} s")
    except OSError as exc:
        return Finding("warn", "claude", f"{found} does not run: {exc.strerror}")
    version = result.stdout.strip().splitlines()[0] if result.stdout.strip() else ""
    if result.returncode != 0 or not version:
        return Finding("warn", "claude", f"{found} --version failed (exit {result.returncode})")
    return Finding("ok", "claude", f"{version} ({found})")
