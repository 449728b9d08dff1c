"""SubagentStop: a verifier stops. Only a run recorded at SubagentStart is read: its workspace
fingerprint compared (the start's manifest, `tiergate.workspace.manifeststore`, names what changed), its
verdict judged, its own transcript searched for a command it ran. A verdict that may refute also needs
dirtiness and the intervention rules (`refutation_facts`). Every verifier run ends here, so the path is
lean: input checked by hand (no pydantic), the plain log writer (no structlog), six git calls.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from tiergate import TYPE_CHECKING, foreign, transcript
from tiergate.handlers import common
from tiergate.hook.inputs import parse_input
from tiergate.loop import store as state
from tiergate.loop.events import Outcome, SubagentStop
from tiergate.loop.state import POLICIES, LoopState, VerifierRun
from tiergate.loop.verdict import judge
from tiergate.loop.verifiers import run_for
from tiergate.workspace import loopbase, manifeststore
from tiergate.workspace.fingerprint import manifest
from tiergate.workspace.manifest import changes

if TYPE_CHECKING:
    from typing import Any

    from tiergate.hook.protocol import HookReply
    from tiergate.project import Project
    from tiergate.workspace.manifest import Changes, Manifest

# A verifier's first tool call comes after the SubagentStart hook recorded its start; the margin only
# absorbs the clock's granularity.
START_MARGIN_SECONDS = 5.0


def handle(payload: dict[str, Any], project: Project) -> HookReply | None:
    stop = parse_input("SubagentStop", payload)  # read by hand: tiergate.hook.inputs
    if stop.is_phantom:
        return None
    current = state.read(project, stop.session_id)
    if current is None or not current.active:
        return None
    run = run_for(current, stop.agent_id)
    event = SubagentStop(agent_id=stop.agent_id, agent_type=stop.agent_type)
    workspace: Manifest | None = None
    if run is not None and current.verification is not None:
        message = stop.last_assistant_message
        if message is None:
            message = transcript.last_assistant_text(stop.agent_transcript_path)
        since = datetime.fromtimestamp(run.started_at - START_MARGIN_SECONDS, UTC)
        judgement = judge(
            message,
            required=current.verification.evidence,
            commands_run=1 if transcript.ran_a_command(stop.agent_transcript_path, since) else 0,
            verification_id=current.verification.id,
        )
        loopbase.judging(current.started_at)
        base = loopbase.fingerprint_base(project, current.start, current.base)
        workspace = manifest(project.root, base, foreign.of_loop(current))
        digest = None if workspace is None else workspace.digest
        model = transcript.agent_model(stop.agent_transcript_path)
        event = SubagentStop(stop.agent_id, stop.agent_type, judgement, digest, model)
        if workspace is not None and run.fingerprint not in (None, digest):
            event = replace(
                event,
                changes=changes_since_start(project, stop.session_id, run, workspace),
                # Its only tool that can change a file is Bash: without one, the change was not its.
                ran_nothing=transcript.ran_no_command(stop.agent_transcript_path),
            )
        if judgement.verdict is None or judgement.verdict.verdict != "PASS":
            event = refutation_facts(project, current, event)
    outcome = common.apply(project, "SubagentStop", stop.session_id, event)
    if run is not None:
        keep_or_drop(project, stop.session_id, outcome, run, workspace)
    return common.reply(outcome)


def keep_or_drop(
    project: Project, session_id: str, outcome: Outcome, run: VerifierRun, now: Manifest | None
) -> None:
    """The run's manifest goes when the run is over; a run sent back to redo its verdict on a workspace
    others changed is now measured from here (its fingerprint moved with it), so this one is kept."""
    again = run_for(outcome.state, run.agent_id) if outcome.decision == "redo" else None
    if again is None:
        manifeststore.drop(project, session_id, run.agent_id)
    elif now is not None and again.fingerprint == now.digest != run.fingerprint:
        manifeststore.drop(project, session_id, run.agent_id)
        manifeststore.keep(project, session_id, run.agent_id, now)


def changes_since_start(project: Project, session_id: str, run: VerifierRun, now: Manifest) -> Changes | None:
    """Which files changed since the verifier started, from the manifest kept at its start (None when
    that is missing or is not the one its recorded fingerprint was taken from)."""
    started = manifeststore.load(project, session_id, run.agent_id)
    if started is None or started.digest != run.fingerprint:
        return None
    return changes(started, now)


def refutation_facts(project: Project, current: LoopState, event: SubagentStop) -> SubagentStop:
    """What a verdict that may refute the claim needs for the intervention: whether the workspace is
    dirty against the last green point, and the loop's rules (those it started with). Only then is the
    config validated (the common path of this hook stays lean)."""
    from tiergate.handlers import effects, looprules

    try:
        rules = looprules.policies(looprules.loop_config(project, current))
    except Exception:
        rules = POLICIES  # a broken config is reported by the Stop that follows; defaults meanwhile
    return replace(event, dirty=effects.dirty(project, current), policies=rules)
