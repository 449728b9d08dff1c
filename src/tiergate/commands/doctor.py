"""`tiergate doctor [--json]`: is tiergate installed and wired into Claude Code, and is this project ready?

One finding per line, each `ok`, `warn` or `fail`; the exit code is 1 if anything failed. A missing Claude
Code, plugin or configuration is a finding, never a crash. Nothing is left behind: the state folder's
write test removes what it created.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import tiergate
from tiergate import __version__
from tiergate.claudecode import loopplugins
from tiergate.claudecode.installation import GET_CLAUDE, claude_config_dir, installed_plugins
from tiergate.claudecode.installation import enabled as _enabled
from tiergate.claudecode.installation import read_json as _read_json
from tiergate.config.settings import load_config
from tiergate.errors import UserError
from tiergate.frozen import frozen
from tiergate.gate import sandbox
from tiergate.gate.coverage.measuring import describe_plan, project_plan
from tiergate.gate.detection.declared.declaration import Declared
from tiergate.gate.detection.projectchecks import detected_checks, locate_program, project_checks
from tiergate.gate.detection.rules import DetectedCheck, Detection
from tiergate.project import ROOT_FILE, Project, git_top_level, legacy_state_dir, locate

PLUGIN_NAME = "tiergate"
CLAUDE_TIMEOUT = 10.0
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


@frozen
class Finding:
    status: str  # ok, warn or fail
    name: str
    detail: str
    check: dict[str, Any] | None = None  # a check's facts, for --json

    def to_dict(self) -> dict[str, str]:
        return {"status": self.status, "name": self.name, "detail": self.detail}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the findings as one JSON object")


def run(args: argparse.Namespace) -> int:
    findings = diagnose(Path.cwd(), os.environ)
    failed = any(f.status == "fail" for f in findings)
    if args.json:
        report = {
            "ok": not failed,
            "state_dir": str(locate(Path.cwd(), os.environ).state_dir.absolute()),
            "findings": [f.to_dict() for f in findings],
            "checks": [f.check for f in findings if f.check is not None],
            "problems": [f"{f.name}: {f.detail}" for f in findings if f.status == "fail"],
        }
        print(json.dumps(report, indent=2))
    else:
        for finding in findings:
            print(f"{finding.status:<4}  {finding.name}: {finding.detail}")
    return 1 if failed else 0


def diagnose(cwd: Path, env: Mapping[str, str]) -> list[Finding]:
    project = locate(cwd, env)
    route = install_route(env)
    plugin, plugin_root = plugin_finding(claude_config_dir(env), project.root, route, _has_claude(env))
    # Without an installed plugin, the likeliest setup is this checkout used with --plugin-dir.
    launcher_root = plugin_root or this_checkout()
    return [
        package_finding(route),
        plugin,
        hook_python_finding(env, launcher_root, plugin_installed=plugin.status != "warn"),
        claude_finding(env),
        git_finding(project),
        isolation_finding(),
        *check_findings(project, env.get("PATH")),
        *coverage_finding(project),
        state_finding(project),
        *claude_loop_findings(project),
        *neighbour_findings(project, env),
        *legacy_state_finding(project),
    ]


# tiergate itself -------------------------------------------------------------------------------------------


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


def _has_claude(env: Mapping[str, str]) -> bool:
    return shutil.which(env.get("CLAUDE_BIN") or "claude", path=env.get("PATH")) is not None


def package_finding(route: Route = "other") -> Finding:
    for module in RUNTIME_MODULES:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            return Finding("fail", "tiergate", f"{__version__} cannot import {module}: {exc}")
    python = f"Python {platform.python_version()} ({sys.executable})"
    return Finding("ok", "tiergate", f"{__version__} on {python}, {ROUTES[route]}")


# The Claude Code plugin ------------------------------------------------------------------------------------


def plugin_finding(
    config_dir: Path, project_root: Path, route: Route = "checkout", has_claude: bool = True
) -> tuple[Finding, Path | None]:
    """Whether Claude Code has the plugin installed and enabled, and the folder it reads it from; the
    advice for a plugin that is not there fits the route tiergate was installed by (`install_route`)."""
    installed = _installed(config_dir)
    if installed is None:
        return Finding(
            "warn", "plugin", f"not installed in Claude Code: {_install_hint(route, has_claude)}"
        ), None
    plugin_id, version = installed
    root = _plugin_folder(config_dir, plugin_id)
    described = f"{plugin_id} {version}" + (f", read from {root}" if root else "")
    if root is not None and not (root / ".claude-plugin" / "plugin.json").is_file():
        return Finding("fail", "plugin", f"{described}, but that folder is gone: rerun install.sh"), None
    if not _enabled(config_dir, project_root, plugin_id):
        return Finding("warn", "plugin", f"{described} is disabled: claude plugin enable {plugin_id}"), root
    return Finding("ok", "plugin", f"{described}, enabled"), root


def _install_hint(route: Route, has_claude: bool) -> str:
    if route == "install.sh":
        if not has_claude:
            return "Claude Code is not on PATH; get it, then run install.sh again to register the plugin"
        return "run install.sh again to register it"
    if route == "plugin":
        return "install it again with /plugin install tiergate@<marketplace> in Claude Code"
    return "run install.sh (or start claude with --plugin-dir <checkout>)"


def _installed(config_dir: Path) -> tuple[str, str] | None:
    """The plugin's id (`tiergate@<marketplace>`) and version in installed_plugins.json, if it is there."""
    plugins = installed_plugins(config_dir)
    for plugin_id in sorted(plugins):
        if plugin_id.partition("@")[0] == PLUGIN_NAME:
            records = plugins[plugin_id]
            record = records[0] if isinstance(records, list) and records else {}
            version = record.get("version") if isinstance(record, dict) else None
            return plugin_id, str(version or "?")
    return None


def this_checkout() -> Path | None:
    """The plugin checkout this tiergate runs from (an editable install), if it is one."""
    root = Path(tiergate.__file__).resolve().parents[2]
    return root if (root / ".claude-plugin" / "plugin.json").is_file() else None


def _plugin_folder(config_dir: Path, plugin_id: str) -> Path | None:
    """The folder a directory marketplace serves the plugin from (Claude Code reads it there, in place)."""
    marketplace = plugin_id.partition("@")[2]
    known = _read_json(config_dir / "plugins" / "known_marketplaces.json").get(marketplace)
    location = known.get("installLocation") if isinstance(known, dict) else None
    if not isinstance(location, str):
        return None
    catalog = _read_json(Path(location) / ".claude-plugin" / "marketplace.json").get("plugins")
    for entry in catalog if isinstance(catalog, list) else []:
        source = entry.get("source") if isinstance(entry, dict) else None
        if isinstance(source, str) and entry.get("name") == PLUGIN_NAME:
            return (Path(location) / source).resolve()
    return Path(location)


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
    wanted = env.get("CLAUDE_BIN") or "claude"
    found = shutil.which(wanted, path=env.get("PATH"))
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


# This project ----------------------------------------------------------------------------------------------


def git_finding(project: Project) -> Finding:
    if git_top_level(str(project.root)) is None:
        return Finding("warn", "project", f"{project.root} is not in a git repository: loops need one")
    return Finding("ok", "project", f"{project.root} (git)")


def isolation_finding() -> Finding:
    """Whether the checks the gate runs can be isolated here (`tiergate.gate.sandbox`)."""
    why = sandbox.unavailable()
    if why is None and (unwatched := sandbox.unwatched()) is not None:
        return Finding(
            "warn",
            "isolation",
            f"the gate's checks run in namespaces of their own, but the kernel cannot watch what they open "
            f"({unwatched}): run by root, what the agent wrote outside the covers, read by a check other "
            "than through Python, goes unnamed",
        )
    if why is None:
        return Finding("ok", "isolation", "the gate's checks run in namespaces of their own")
    return Finding(
        "warn",
        "isolation",
        f"the gate's checks cannot be isolated here ({why}): they run watched only, and a read the watch "
        "cannot see (a C call, a child that is not Python) goes unnamed",
    )


def check_findings(project: Project, path: str | None = None) -> list[Finding]:
    """The configured checks, else those the simple per-ecosystem rules detect, each with its program
    looked up on `path` (None: this process's PATH): a check that cannot run fails, a detected one
    whose program is missing is skipped, saying why."""
    try:
        config = load_config(project.root)
    except UserError as exc:
        return [Finding("fail", "config", str(exc))]
    if config.checks:
        origin = f"configured in {config.source}"
        return [_configured(project, name, command, origin, path) for name, command in config.checks.items()]
    detection = detected_checks(project.root, path)
    found: list[Finding] = []
    for c in detection.offered:
        passed = _passed_over(detection, c)
        facts = _check_facts(c.name, c.command, f"detected: {c.reason}", skipped=False)
        detail = f"{c.command} (detected, not configured: {c.reason})"
        found += [Finding("ok", f"check {c.name}", detail, {**facts, **_detected_facts(c, passed)})]
        found += _passed_findings(c, passed)
    skipped: list[Finding] = []
    for c, why in detection.skipped:
        passed = _passed_over(detection, c)
        facts = _check_facts(c.name, c.command, f"detected: {c.reason}", skipped=True, problem=why)
        detail = f"{c.command} skipped: {why} (detected, not configured: {c.reason})"
        skipped += [Finding("warn", f"check {c.name}", detail, {**facts, **_detected_facts(c, passed)})]
        skipped += _passed_findings(c, passed)
    if not found:
        some = "and no detected check's program is on PATH" if skipped else "and none detected"
        hint = 'add a [checks] table to .tiergate.toml (for example tests = "pytest -q")'
        return [*skipped, Finding("warn", "checks", f"none configured {some}: {hint}")]
    return [*found, *skipped]


def _passed_over(detection: Detection, check: DetectedCheck) -> list[tuple[DetectedCheck, str]]:
    return [(other, why) for other, why in detection.passed_over if other.name == check.name]


def _passed_findings(check: DetectedCheck, passed: list[tuple[DetectedCheck, str]]) -> list[Finding]:
    """One line per candidate passed over for `check`: what it runs, where from, and why not."""
    name = f"check {check.name} passed over"
    return [Finding("ok", name, f"{other.command} ({_from(other)}): {why}") for other, why in passed]


def _from(check: DetectedCheck) -> str:
    """Where a passed-over candidate comes from, for a person."""
    if not check.declared:
        return f"tiergate's guess: {check.reason}"
    first = check.declared[0]
    return f"{first.origin}, as `{first.written}`" if first.written else first.origin


def _detected_facts(check: DetectedCheck, passed: list[tuple[DetectedCheck, str]]) -> dict[str, Any]:
    """A detected test check's facts for --json: where the project declares it, and the candidates
    passed over with why."""
    if not check.declared and not passed:
        return {}
    return {
        "declared": [_declaration(d) for d in check.declared],
        "passed_over": [
            {"command": other.command, "declared": [_declaration(d) for d in other.declared], "why": why}
            for other, why in passed
        ],
    }


def _declaration(declared: Declared) -> dict[str, Any]:
    return {
        "file": declared.file,
        "line": declared.line or None,
        "where": declared.where,
        "written": declared.written or None,
        "notes": list(declared.notes),
    }


def coverage_finding(project: Project) -> list[Finding]:
    """Whether the gate measures the change's line coverage as it runs the tests, with which check
    and tool, or why none can (then a code change never reaches LIGHT on measured coverage)."""
    try:
        checks = project_checks(project.root, load_config(project.root))
    except UserError:
        return []  # check_findings has said what is wrong with the configuration
    measured, said = describe_plan(project_plan(project.root, checks))
    if measured:
        return [Finding("ok", "coverage", f"measured at the gate as the tests run: {said}")]
    return [
        Finding(
            "warn",
            "coverage",
            f"not measured at the gate ({said}): a code change reaches LIGHT only on coverage data",
        )
    ]


def _configured(project: Project, name: str, command: str, origin: str, path: str | None) -> Finding:
    located = locate_program(command, project.root, path)
    facts = _check_facts(
        name, command, origin, program=located.program, location=located.location, problem=located.problem
    )
    if located.problem:
        return Finding(
            "fail", f"check {name}", f"{command}: could not run: {located.problem} ({origin})", facts
        )
    if located.program is None:
        where = "its program cannot be told before it runs"
    elif located.location == "shell builtin":
        where = f"{located.program} is a shell builtin"
    else:
        where = f"{located.program} is {located.location}"
    return Finding("ok", f"check {name}", f"{command} ({origin}; {where})", facts)


def _check_facts(name: str, command: str, source: str, **facts: object) -> dict[str, Any]:
    return {"name": name, "command": command, "source": source, **facts}


def claude_loop_findings(project: Project) -> list[Finding]:
    """What tiergate does with Claude Code's own loops, /goal and the task list, here (`[interop] goal`)."""
    settings = loopplugins.interop(project)
    if settings is None:
        return []  # the configuration does not load: its own finding says why
    mode = settings["goal"]
    adopted = loopplugins.GOAL_ADOPTED if mode == "verify" else loopplugins.GOAL_IGNORED
    return [
        Finding("ok", "goal", f"[interop] goal = {mode}: {adopted}"),
        Finding("ok", "task list", loopplugins.TASKS_CHECKED),
    ]


def neighbour_findings(project: Project, env: Mapping[str, str]) -> list[Finding]:
    """The user's other loop plugins installed (none: no finding), their loops running here, and what
    tiergate verifies of them; OMC's limits are a warning, since they are what tiergate cannot check."""
    found = loopplugins.installed(claude_config_dir(env), project.root)
    running = loopplugins.running(project)
    if not found and not running:
        return []
    settings = loopplugins.interop(project) or {}
    findings = []
    for plugin in found:
        name, key = loopplugins.PLUGINS[plugin["plugin"]]
        mode = settings.get(key, "verify")
        enabled = "enabled" if plugin["enabled"] else "disabled"
        detail = f"{plugin['id']} {plugin['version']}, {enabled}; [interop] {key} = {mode}"
        if mode == "ignore":
            findings.append(Finding("ok", name, f"{detail}: its loops are left alone, unverified"))
        elif name == "oh-my-claudecode":
            findings.append(
                Finding("warn", name, f"{detail}; not verified reliably: {loopplugins.OMC_LIMITS}")
            )
        else:
            findings.append(Finding("ok", name, f"{detail}: its completion promise is verified"))
    for loop in running:
        why = "adoptable" if loop["adoptable"] else f"not adoptable: {loop['why_not']}"
        findings.append(
            Finding("ok", "other loop", f"{loop['kind']} for session {loop['session_id']}, {why}")
        )
    return findings


def legacy_state_finding(project: Project) -> list[Finding]:
    """One line about an older tiergate's `<root>/.tiergate/`: no longer read, so no problem."""
    legacy = legacy_state_dir(project)
    if legacy is None:
        return []
    detail = f"{legacy} is an older tiergate's state folder, no longer read: delete it when you like"
    return [Finding("ok", "old state", detail)]


def state_finding(project: Project) -> Finding:
    """Whether tiergate can write its state folder; a folder made for the test is removed again."""
    target = project.state_dir
    created: list[Path] = []
    try:
        missing = [target, *(p for p in target.parents if not p.exists())] if not target.exists() else []
        for folder in sorted(missing, key=lambda p: len(p.parts)):
            folder.mkdir()
            created.append(folder)
        handle, probe = tempfile.mkstemp(dir=target, prefix=".doctor-")
        os.close(handle)
        Path(probe).unlink()
    except OSError as exc:
        return Finding("fail", "state", f"{target} is not writable: {exc.strerror or exc}")
    finally:
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                folder.rmdir()
    made = " (it does not exist yet; created and removed again for this test)" if created else ""
    owner = _state_owner(target)
    if owner is not None and owner != os.path.realpath(project.root):
        detail = f"{target} is writable, but its root file names another project: {owner}"
        return Finding("warn", "state", detail)
    return Finding("ok", "state", f"{target} is writable{made}")


def _state_owner(state_dir: Path) -> str | None:
    """The project root the state folder's `root` file names, if it has one."""
    try:
        return (state_dir / ROOT_FILE).read_text(encoding="utf-8", errors="surrogateescape").rstrip("\n")
    except OSError:
        return None
