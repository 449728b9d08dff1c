"""The hook events' adapters: `handle(event_name, payload, project)` is what `tiergate hook` calls.

Each event of the registry (`tiergate.hook.events`) has one module here, named after it, that turns the
hook input into a `tiergate.loop.decision` event (measuring, fingerprinting and reading transcripts as that
event needs), applies the loop's decision to the session's state, logs it, and renders the `HookReply`.

`handle` itself stays cheap for a session without an active loop: it looks at the state files with
`os` and `json` only (both already imported by the hook) and returns before importing anything else.
There is work to do only when this session's loop file holds an active loop, when a loop started from
a shell waits in `pending.json` (it is bound to this session first), or when the prompt is one of the
loop's slash commands.
"""

from __future__ import annotations

import os

from tiergate.hook.events import EVENTS

# Not `from typing import TYPE_CHECKING`: importing typing alone costs a hook several milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tiergate.hook.protocol import HookReply
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


def handle(event_name: str, payload: dict[str, Any], project: Project) -> HookReply | None:
    module_name = _MODULES.get(event_name)
    if module_name is None:
        return None
    session_id: str = payload["session_id"]
    state_dir = os.fspath(project.state_dir)
    pending = os.path.join(state_dir, "pending.json")  # noqa: PTH118
    bind = event_name in _BINDING_EVENTS and os.path.exists(pending)  # noqa: PTH110
    command = event_name == "UserPromptSubmit" and _is_command(payload.get("prompt"))
    loop_file = os.path.join(state_dir, "loops", session_id + ".json")  # noqa: PTH118
    if not bind and not command and not _holds_active_loop(loop_file):
        return None
    import importlib

    from tiergate.handlers import common

    bound = common.bind_pending(project, session_id, event_name) if bind else None
    module = importlib.import_module(f"tiergate.handlers.{module_name}")
    reply: HookReply | None = module.handle(payload, project)
    return common.with_binding(event_name, reply, bound) if bound is not None else reply


def _is_command(prompt: object) -> bool:
    return isinstance(prompt, str) and prompt.lstrip().startswith(COMMAND_PREFIX)


def _holds_active_loop(path: str) -> bool:
    import json

    try:
        with open(path, "rb") as f:  # noqa: PTH123
            data = json.loads(f.read())
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return True  # unreadable: the full path reports it rather than silently ignore a loop
    return not isinstance(data, dict) or data.get("active") is not False
