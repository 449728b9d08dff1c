"""What tiergate does beside the user's other loops, for `tiergate doctor`: Claude Code's /goal and task
list, and the other loop plugins installed or running here."""

from __future__ import annotations

from collections.abc import Mapping

from tiergate.claudecode import loopplugins
from tiergate.claudecode.installation import claude_config_dir
from tiergate.commands.doctor.finding import Finding
from tiergate.project import Project


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
