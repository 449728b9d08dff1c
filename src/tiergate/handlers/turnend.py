"""How the turn a Stop ends ended, from its raw input: background work still in flight, an API error;
and whether the Stop measures its claim."""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.loop.decision import wants_claim_facts

if TYPE_CHECKING:
    from typing import Any

    from tiergate.loop.claims import ClaimCheck
    from tiergate.loop.state import LoopState

# stop_reason values of a turn that ended normally; any other one (an API error, a context or output
# limit, a refusal) is a stop tiergate never blocks.
NORMAL_STOP_REASONS = frozenset({"end_turn", "stop_sequence", "tool_use", "pause_turn"})


def measures(current: LoopState, claim: ClaimCheck, quiet: bool, workspace: str | None = None) -> bool:
    """Whether a Stop measures its claim (unless a refutation of the same workspace stands): the loop
    wants its facts (`workspace`: the fingerprint, when already taken) and the turn ended `quiet`
    (nothing in flight, no API error). `earlymeasure.measure_early` asks it too, of the raw input."""
    return wants_claim_facts(current, claim, workspace) and quiet


def settled(payload: dict[str, Any]) -> bool:
    """Whether the turn ended with nothing in flight and on no API error."""
    return not background_work(payload) and api_error(payload) is None


def background_work(payload: dict[str, Any]) -> tuple[str, ...] | None:
    """What Claude Code reports in flight ("Empty array when nothing is in flight"); None if not reported."""
    tasks = payload.get("background_tasks")
    if not isinstance(tasks, list):
        return None
    return tuple(_describe(task) for task in tasks)


def _describe(task: object) -> str:
    if not isinstance(task, dict):
        return str(task)[:100]
    for key in ("description", "command", "agent_type", "type", "id"):
        if isinstance(task.get(key), str) and task[key]:
            return str(task[key])[:100]
    return "unnamed task"


def api_error(payload: dict[str, Any]) -> str | None:
    """The API error the input reports as ending the turn, if any."""
    error = payload.get("error")
    if isinstance(error, str) and error:
        return error
    reason = payload.get("stop_reason")
    if isinstance(reason, str) and reason and reason not in NORMAL_STOP_REASONS:
        return reason
    return None
