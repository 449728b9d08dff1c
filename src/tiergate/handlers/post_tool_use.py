"""PostToolUse: registered for Claude Code's goal tool alone (hooks/hooks.json matches `SetGoal` and its
older name): a goal the model set itself is adopted like the user's `/goal`, within the limits the agent
under verification must keep (`tiergate.handlers.goal.set_by_model`)."""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.loop.goalloop import GOAL_TOOLS

if TYPE_CHECKING:
    from typing import Any

    from tiergate.hook.protocol import HookReply
    from tiergate.project import Project


def handle(payload: dict[str, Any], project: Project) -> HookReply | None:
    from tiergate.hook.inputs import parse_input

    tool = parse_input("PostToolUse", payload)
    if tool.tool_name not in GOAL_TOOLS:
        return None  # another tool, through a matcher widened by hand: nothing of tiergate's
    from tiergate.handlers import goal

    return goal.set_by_model(payload, project)
