"""The hook events' adapters: `handle(event_name, payload, project)` is what `tiergate hook` calls. Each
event of `tiergate.hook.registry` has a module here, named after it, that turns the hook input into a
`tiergate.loop.decision` event, applies the decision to the session's state, logs it and renders the
`HookReply`. Without an active loop `handle` stays cheap (`os` and `json` only), and imports more only
for a loop to serve: its own, one pending, a slash command, a loop file gone, a user's loop to adopt.
"""

from __future__ import annotations

import os

from tiergate import TYPE_CHECKING
from tiergate.hook.registry import EVENTS

if TYPE_CHECKING:
    from typing import Any

    from tiergate.hook.protocol import HookReply
    from tiergate.loop.state import LoopState
    from tiergate.project import Project


def _module_name(event_name: str) -> str:
    """An event's module: the event's name in snake case (`SubagentStop`: `subagent_stop`)."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in event_name).lstrip("_")


# Events and their modules, from the one registry of events.
_MODULES = {event_name: _module_name(event_name) for event_name in EVENTS}
# Events at which a loop started from a shell is bound to the session (not SessionEnd: a session on
# its way out must not take it).
_BINDING_EVENTS = frozenset(_MODULES) - {"SessionEnd"}
COMMAND_PREFIX = "/tiergate:"
# The user's own loops, adopted (`tiergate.loop.adoption`): their commands and their state files. Claude
# Code's /goal, and the prompt it queues for a goal the user approved (`tiergate.loop.goalloop`), are among
# the commands; `/goals` would be another command, but costs only the parse that says so.
GOAL_PROMPTS = ("/goal", "Goal set: ")
FOREIGN_COMMANDS = ("/ralph-loop:ralph-loop", "/oh-my-claudecode:", *GOAL_PROMPTS)
RALPH_LOOP_STATE = os.path.join(".claude", "ralph-loop.local.md")  # noqa: PTH118
OMC_MODE_STATES = ("ralph-state.json", "autopilot-state.json")


def handle(event_name: str, payload: dict[str, Any], project: Project) -> HookReply | None:
    module_name = _MODULES.get(event_name)
    if module_name is None:
        return None
    session_id: str = payload["session_id"]
    state_dir = os.fspath(project.state_dir)
    pending = os.path.join(state_dir, "pending.json")  # noqa: PTH118
    bind = event_name in _BINDING_EVENTS and os.path.exists(pending)  # noqa: PTH110
    # PostToolUse is registered for Claude Code's goal tool alone: a goal the model set, to adopt.
    command = (event_name == "UserPromptSubmit" and _is_command(payload.get("prompt"))) or (
        event_name == "PostToolUse"
    )
    has_loop = _has_loop_to_run(event_name, state_dir, session_id)
    foreign = (
        not has_loop and event_name in _BINDING_EVENTS and _foreign_state(payload, os.fspath(project.root))
    )
    if not bind and not command and not has_loop and not foreign:
        return None
    import importlib

    bound = _bind(project, session_id, event_name) if bind else None
    if foreign and bound is None:
        from tiergate.handlers import adoption

        adoption.adopt_from_files(event_name, payload, project)
    module = importlib.import_module(f"tiergate.handlers.{module_name}")
    reply: HookReply | None = module.handle(payload, project)
    if bound is None:
        return reply
    from tiergate.handlers import common

    return common.with_binding(event_name, reply, bound)


def _bind(project: Project, session_id: str, event_name: str) -> LoopState | None:
    from tiergate.handlers import common

    return common.bind_pending(project, session_id, event_name)


def _is_command(prompt: object) -> bool:
    return isinstance(prompt, str) and prompt.lstrip().startswith((COMMAND_PREFIX, *FOREIGN_COMMANDS))


def _foreign_state(payload: dict[str, Any], root: str) -> bool:
    """Whether the session may have a foreign loop to adopt: its state file exists (`os` checks only)."""
    cwd = payload.get("cwd")
    here = cwd if isinstance(cwd, str) and cwd else root
    if os.path.exists(os.path.join(here, RALPH_LOOP_STATE)):  # noqa: PTH110, PTH118
        return True
    folder = os.path.join(root, ".omc", "state", "sessions", str(payload.get("session_id")))  # noqa: PTH118
    return any(os.path.exists(os.path.join(folder, name)) for name in OMC_MODE_STATES)  # noqa: PTH110, PTH118


def _has_loop_to_run(event_name: str, state_dir: str, session_id: str) -> bool:
    name = f"loops/{session_id}.json"
    try:
        with open(os.path.join(state_dir, name), "rb") as f:  # noqa: PTH118, PTH123
            raw = f.read()
    except FileNotFoundError:
        if event_name != "Stop" or not _named_in_ledger(state_dir, session_id):
            return False
        from tiergate.loop import ledger

        return ledger.lost_loop(state_dir, session_id)
    except OSError:
        return True  # unreadable: the full path reports it (a Stop fails closed)
    import json

    from tiergate import seal

    try:
        data = json.loads(seal.open_file(name, raw))
    except (OSError, ValueError, seal.SealError):
        return True  # not tiergate's writing: the full path reports it (a Stop fails closed)
    return not isinstance(data, dict) or data.get("active") is not False


def _named_in_ledger(state_dir: str, session_id: str) -> bool:
    """Whether the ledger of loop starts (`tiergate.loop.ledger.LEDGER`) mentions the session at all: a
    session that never had a loop pays this one read, and imports nothing more."""
    try:
        with open(os.path.join(state_dir, "loops", "started.log"), "rb") as f:  # noqa: PTH118, PTH123
            return session_id.encode() in f.read()
    except OSError:
        return False
