"""The user's other loop plugins, for `tiergate status` and `tiergate doctor` (not a command of its own):
which are installed in Claude Code (`~/.claude/plugins/installed_plugins.json`, enabled in the settings'
`enabledPlugins`), which have a loop running in this project (ralph-loop's state file, OMC's mode states),
what `[interop]` says of them, and whether tiergate can adopt them (and if not, why).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tiergate.claudecode import installation
from tiergate.config.settings import load_config
from tiergate.errors import UserError
from tiergate.handlers import adoption as files
from tiergate.loop import adoption
from tiergate.loop.adoption import Foreign
from tiergate.project import Project

# Plugin name in Claude Code -> what tiergate calls it and the [interop] key that governs it.
PLUGINS = {"ralph-loop": ("ralph-loop", "ralph_loop"), "oh-my-claudecode": ("oh-my-claudecode", "omc")}

# What tiergate cannot verify reliably of OMC (docs/interop.md, "What tiergate cannot reliably observe").
OMC_LIMITS = (
    "OMC has no promise: its completion is the model clearing the mode's state (state_clear, state_write "
    "active false / phase complete, or a Bash rm leaving a cancel signal), seen only in the turn's "
    "transcript or by the state's absence at a Stop; a cancel meant as 'stop' looks the same as 'done'; "
    "a mode that simply stops (OMC never blocks a stop with stop_hook_active) makes no claim at all; "
    "the architect's verdict, the PRD criteria and named-workflow stages are OMC's own and not read; "
    "a mode confirmed and cleared between two of tiergate's hooks is never seen"
)


def installed(config_dir: Path, project_root: Path) -> list[dict[str, Any]]:
    """The loop plugins Claude Code has installed, with their id, version and whether they are enabled."""
    return [
        {
            "plugin": plugin.name,
            "id": plugin.id,
            "version": plugin.version,
            "enabled": installation.enabled(config_dir, project_root, plugin.id),
        }
        for plugin in installation.installed(config_dir)
        if plugin.name in PLUGINS
    ]


def running(project: Project) -> list[dict[str, Any]]:
    """The loops of other plugins this project's files show, each with whether tiergate can adopt it."""
    loops: list[dict[str, Any]] = []
    text = files.read_text(project.root / adoption.RALPH_LOOP_STATE)
    if text is not None:
        found = adoption.parse_ralph_loop_state(text)
        session = found.session_id if isinstance(found, Foreign) else None
        loops.append(_entry("ralph-loop", session or "(any session)", found))
    sessions = files.omc_sessions_dir(project)
    for state in sorted(sessions.glob("*/*-state.json")) if sessions.is_dir() else []:
        mode = state.name.removesuffix("-state.json")
        if mode in adoption.OMC_MODES:
            data = files.read_json(state)
            sid = state.parent.name
            found = adoption.parse_omc_state(mode, data, sid, str(project.root), time.time())
            loops.append(_entry(adoption.OMC_MODES[mode], sid, found))
    return loops


def _entry(kind: str, session_id: str, found: object) -> dict[str, Any]:
    if isinstance(found, Foreign):
        return {
            "kind": kind,
            "session_id": session_id,
            "task": found.task,
            "adoptable": True,
            "why_not": None,
        }
    return {
        "kind": kind,
        "session_id": session_id,
        "adoptable": False,
        "why_not": getattr(found, "reason", ""),
    }


def interop(project: Project) -> dict[str, str] | None:
    """The `[interop]` settings, or None when the configuration does not load (reported elsewhere)."""
    try:
        settings = load_config(project.root).interop
    except UserError:
        return None
    return {"ralph_loop": settings.ralph_loop, "omc": settings.omc, "goal": settings.goal}


# What tiergate does with Claude Code's own loops (docs/interop.md, "Claude Code's /goal and task list").
GOAL_ADOPTED = (
    "a goal set with /goal, approved from the model's proposal, or set by the model itself is adopted as a "
    "loop whose every stop is a claim, judged by the gate and the tier's verifier; the goal evaluator's "
    "'met' (it reads only the transcript) is not evidence, and a goal it declares impossible halts the loop"
)
GOAL_IGNORED = "/goal is left alone: its evaluator alone decides when it is met, unverified"
TASKS_CHECKED = (
    "a task marked completed inside any tiergate loop is a step claim: a test that passed when the loop "
    "began and fails now, or a test lost since, refuses the completion (no verifier per task)"
)


def lines(project: Project, env: Mapping[str, str]) -> list[str]:
    """What `tiergate status` prints of the neighbours: installed plugins, running loops, settings."""
    out = []
    settings = interop(project) or {}
    for plugin in installed(installation.claude_config_dir(env), project.root):
        key = PLUGINS[plugin["plugin"]][1]
        state = "enabled" if plugin["enabled"] else "disabled"
        out.append(
            f"{plugin['plugin']}: installed ({plugin['id']} {plugin['version']}, {state}); "
            f"[interop] {key} = {settings.get(key, '?')}"
        )
    for loop in running(project):
        where = f"{loop['kind']} loop running for session {loop['session_id']}"
        if loop["adoptable"]:
            out.append(f"{where}: tiergate adopts it at its session's next hook")
        else:
            out.append(f"{where}: not adopted: {loop['why_not']}")
    return out
