"""SubagentStart: a verifier starts. The requested one is recorded with the workspace's fingerprint (and
its manifest is kept beside the state, `tiergate.workspace.manifeststore`) and handed the evidence packet; any
other is told its verdict will not count."""

from __future__ import annotations

from tiergate import TYPE_CHECKING, foreign
from tiergate.handlers import common
from tiergate.loop import store as state
from tiergate.loop.events import SubagentStart
from tiergate.loop.verifiers import run_for, would_record
from tiergate.workspace import loopbase, manifeststore
from tiergate.workspace.fingerprint import manifest

if TYPE_CHECKING:
    from typing import Any

    from tiergate.hook.protocol import HookReply
    from tiergate.project import Project


def handle(payload: dict[str, Any], project: Project) -> HookReply | None:
    from tiergate.hook.inputs import parse_input

    start = parse_input("SubagentStart", payload)
    current = state.read(project, start.session_id)
    if current is None or not current.active:
        return None
    recorded = would_record(current, start.agent_type)
    loopbase.judging(current.started_at)
    base = loopbase.fingerprint_base(project, current.start, current.base) if recorded else None
    taken = manifest(project.root, base, foreign.of_loop(current)) if recorded else None
    event = SubagentStart(
        agent_id=start.agent_id,
        agent_type=start.agent_type,
        fingerprint=None if taken is None else taken.digest,
    )
    outcome = common.apply(project, "SubagentStart", start.session_id, event)
    run = run_for(outcome.state, start.agent_id)
    if taken is not None and run is not None and run.fingerprint == taken.digest:
        # What the fingerprint is made of, so that a disqualification can name the files that changed.
        manifeststore.keep(project, start.session_id, start.agent_id, taken)
    return common.reply(outcome)
