"""How long Claude Code lets a tiergate hook run: the `timeout` of its entry in the hooks.json that
registered it (the plugin's own, under CLAUDE_PLUGIN_ROOT), 600 s where none is set, as the protocol's
default for command hooks. A hook killed at its limit decides nothing, so what the Stop waits for is
bounded by this, not by a constant that an edited hooks.json would make wrong.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

DEFAULT = 600.0
# What a hook keeps of its limit for measuring the change, judging and answering, beyond what it waits
# for (the checks, the goal's evaluator).
MARGIN = 120.0
LAUNCHER = "tiergate-hook"


def time_for_waiting(event: str, spent: float = 0.0, env: Mapping[str, str] | None = None) -> float:
    """What a hook for `event` may still spend waiting, `spent` seconds into it."""
    return max(0.0, hook_limit(event, env) - MARGIN - spent)


def hook_limit(event: str, env: Mapping[str, str] | None = None) -> float:
    """The time limit, in seconds, of tiergate's hook for `event`."""
    root = (os.environ if env is None else env).get("CLAUDE_PLUGIN_ROOT", "")
    if not root:
        return DEFAULT
    try:
        registered = json.loads((Path(root) / "hooks" / "hooks.json").read_text())
        groups = registered["hooks"][event]
    except (OSError, ValueError, KeyError, TypeError):
        return DEFAULT
    found = [
        hook.get("timeout")
        for group in groups
        if isinstance(group, dict)
        for hook in group.get("hooks", ())
        if isinstance(hook, dict) and LAUNCHER in str(hook.get("command", ""))
    ]
    limits = [float(t) for t in found if isinstance(t, int | float) and not isinstance(t, bool) and t > 0]
    if limits:
        return min(limits)
    return DEFAULT
