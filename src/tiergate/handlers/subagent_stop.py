"""SubagentStop: a verifier stops. Only a run recorded at SubagentStart is read: its workspace
fingerprint is compared, its verdict judged, and the commands it ran counted from its own transcript."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from tiergate import loop, state, transcript
from tiergate.fingerprint import fingerprint
from tiergate.handlers import common
from tiergate.verdict import judge

if TYPE_CHECKING:
    from tiergate.project import Project
    from tiergate.protocol import HookReply

# A verifier's first tool call comes after the SubagentStart hook recorded its start; the margin only
# absorbs the clock's granularity.
START_MARGIN_SECONDS = 5.0
# How far back from the end of a verifier's transcript its commands are looked for.
TRANSCRIPT_TAIL_BYTES = 8 * 1024 * 1024
COMMAND_TOOLS = frozenset({"Bash"})


def handle(payload: dict[str, Any], project: Project) -> HookReply | None:
    from tiergate.protocol import parse_input

    stop = parse_input("SubagentStop", payload)
    if stop.is_phantom:
        return None
    current = state.read(project, stop.session_id)
    if current is None or not current.active:
        return None
    run = loop.run_for(current, stop.agent_id)
    event = loop.SubagentStop(agent_id=stop.agent_id, agent_type=stop.agent_type)
    if run is not None and current.verification is not None:
        message = stop.last_assistant_message
        if message is None:
            message = transcript.last_assistant_text(stop.agent_transcript_path)
        judgement = judge(
            message,
            required=current.verification.evidence,
            commands_run=commands_run(stop.agent_transcript_path, run.started_at),
            verification_id=current.verification.id,
        )
        event = loop.SubagentStop(stop.agent_id, stop.agent_type, judgement, fingerprint(project.root))
    return common.reply(common.apply(project, "SubagentStop", stop.session_id, event))


def commands_run(agent_transcript: str | None, started_at: float) -> int:
    """How many commands the verifier ran, and got the result of, since it started."""
    since = datetime.fromtimestamp(started_at - START_MARGIN_SECONDS, UTC)
    runs = transcript.tool_runs_since(agent_transcript, since, max_bytes=TRANSCRIPT_TAIL_BYTES) or []
    return sum(1 for run in runs if run.name in COMMAND_TOOLS and run.finished)
