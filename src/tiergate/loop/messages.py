"""Everything the loop says: to Claude in block reasons, to a verifier in redo feedback, to the user.

Block reasons stay well under Claude Code's 10,000-character limit (the task and critiques are cut; the
evidence packet goes to the verifier instead). What the agent could have written is quoted
(`tiergate.text`), so that it cannot read as tiergate's own line, and a spawn directive holds exactly one
`tiergate-spawn` block whatever the task says. Pure text; the decisions are in `tiergate.loop.decision`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from tiergate import TYPE_CHECKING
from tiergate.loop.claims import promise_tag
from tiergate.text import (
    AND_MORE,
    PAREN_AND_MORE,
    minutes,
    more_than,
    plural,
    quote_block,
    quote_inline,
    quote_path,
)
from tiergate.text import cut as cut  # noqa: PLC0414 (re-exported: refutation, verifiers call messages.cut)
from tiergate.text import fit as fit  # noqa: PLC0414 (re-exported: refutation, verifiers call messages.fit)

if TYPE_CHECKING:
    from tiergate.loop.state import LoopState, RefutedWorkspace, Verification, VerifierRun
    from tiergate.loop.verdict import Judgement
    from tiergate.workspace.manifest import Changes

SPAWN_INFO = "tiergate-spawn"
MAX_REASON = 9000
TASK_IN_REASON = 2500
FEEDBACK_IN_REASON = 3500
REASONS_SHOWN = 4
FILES_NAMED = 10  # files a disqualification names; the rest are counted
GATE_REFUTED = (
    "tiergate ran the project's checks on your claim and they refute it, so no verifier was spawned."
)

UNREQUESTED = (
    "tiergate: no verification is pending for you in this session, so no verdict you give will count. "
    "Answer what you were asked, without a tiergate-verdict block."
)


def tag(state: LoopState) -> str:
    return promise_tag(state.promise)


def claim_how(state: LoopState) -> str:
    """How Claude claims the loop done, as an instruction: the promise at the end of its final message,
    or, under Claude Code's /goal, any stop (`tiergate.loop.goalloop`)."""
    if state.adopted == "goal":
        return "stop (end your turn): under the /goal every stop is a completion claim"
    return f"end your final message with {tag(state)} on its last line"


def checks_running(state: LoopState, where: str) -> str:
    """The block while the claim's checks run in the background: where they stand, and how to claim
    once they are done."""
    return _fit(f"{where} To claim again, {claim_how(state)}.")


def claim_reason(state: LoopState) -> str:
    """The decision log's line for what made this Stop a claim."""
    if state.adopted == "goal":
        return "claim: every stop under Claude Code's /goal is a completion claim"
    return f"claim: the final message ends with {tag(state)}"


def _fit(text: str) -> str:
    return fit(text, MAX_REASON)


def back_to_work(state: LoopState, feedback: str | None, notes: Sequence[str]) -> str:
    """Block reason: the task is not done; keep going (iteration n/max)."""
    parts = [f"tiergate loop, iteration {state.iteration}/{state.max_iterations}: keep working on the task."]
    if feedback:
        parts.append(fit(feedback, FEEDBACK_IN_REASON))
    parts.append(_task(state))
    parts.append(
        f"When the task is completely done and your own checks pass, {claim_how(state)}. An independent "
        "verifier then checks the claim; only its verdict can end the loop."
    )
    parts += [f"Note: {note}." for note in notes]
    return _fit("\n\n".join(parts))


def spawn_directive(state: LoopState, verification: Verification, notes: Sequence[str]) -> str:
    """Block reason for a claim: prose plus exactly one `tiergate-spawn` block naming the verifier."""
    why = "; ".join(quote_inline(cut(r, 300)) for r in verification.reasons[:REASONS_SHOWN])
    why += more_than(len(verification.reasons), REASONS_SHOWN, PAREN_AND_MORE)
    parts = [
        f"tiergate: completion claim received (iteration {state.iteration}/{state.max_iterations}). "
        "Before the loop can end, an independent verifier must check it.",
        f"Tier {verification.tier}: {plural(verification.files_changed, 'file')}, "
        f"{plural(verification.lines_changed, 'line')} "
        f"changed since the loop began. Why: {why}",
    ]
    if verification.note:
        parts.append(f"This is verification {verification.id}, requested again: {verification.note}.")
    parts += [f"Note: {note}." for note in notes]
    parts.append(
        "Spawn this verifier now with the Agent tool, with exactly these parameters. Launch it in the "
        'foreground ("run_in_background": false, as below) and wait for its result in this turn. Do not '
        "verify the work yourself and do not write a verdict: only this verifier's verdict counts. Do not "
        "change any file while it runs."
    )
    parts.append(_spawn_block(state, verification))
    return _fit("\n\n".join(parts))


def _spawn_block(state: LoopState, verification: Verification) -> str:
    # In print mode the CLI runs an Agent call in the background unless told otherwise: the turn would
    # end (Stop) before the verifier does. In the foreground the whole verification stays in one turn.
    directive = {
        "subagent_type": verification.agent,
        "model": verification.model,
        "description": f"Verify claim {verification.id} ({verification.tier})",
        "prompt": verifier_prompt(state, verification),
        "run_in_background": False,
    }
    return f"```{SPAWN_INFO}\n{_json_line(directive)}\n```"


def _json_line(value: object) -> str:
    """`value` as JSON on one line with no backtick in it (a backtick is only ever inside a JSON
    string, where \\u0060 means the same), nor a character a reader takes for a line break: nothing in
    it can close the block or open another."""
    text = json.dumps(value, ensure_ascii=False)
    for char in ("`", "\u2028", "\u2029", "\x85"):
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


def _task(state: LoopState) -> str:
    """The task as a block reason or a prompt shows it: each of its lines quoted."""
    return f"Task:\n{quote_block(cut(state.task, TASK_IN_REASON))}"


def verifier_prompt(state: LoopState, verification: Verification) -> str:
    return (
        f"tiergate verification {verification.id} (session {state.session_id}): find out, with evidence you "
        f"produce yourself, whether the task below is done. tiergate hands you the evidence packet when you "
        f'start. End with a tiergate-verdict block whose verification_id is "{verification.id}".\n\n'
        + _task(state)
    )


def reminder(state: LoopState, limit: int) -> str:
    verification = state.verification
    assert verification is not None
    parts = [
        f"tiergate: verification {verification.id} is still pending and no verifier has started "
        f"(reminder {verification.reminders}/{limit}; after that the loop halts). The loop cannot end "
        "without it. Spawn it now with the Agent tool, exactly as below (in the foreground), and wait for "
        "its result.",
        _spawn_block(state, verification),
    ]
    return _fit("\n\n".join(parts))


def claim_error(state: LoopState, error: str) -> str:
    return _fit(
        "tiergate could not check your completion claim because of an internal error "
        f"({quote_inline(cut(error, 500))}). "
        f"The claim was not verified. Check your work once more, then {claim_how(state)} again."
    )


def claim_error_message(error: str, log: str | None = None) -> str:
    return (
        f"tiergate: internal error while checking the completion claim ({cut(error, 300)}); this stop was "
        "blocked once, because the loop is active (a second error in a row halts the loop); details in the "
        f"log ({log or 'tiergate history'})"
    )


def lost_note(verification: Verification, agent_ids: str) -> str:
    return f"the verifier of {verification.id} ({agent_ids}) stopped without a verdict reaching tiergate"


def disqualified_note(run: VerifierRun, changes: Changes | None = None) -> str:
    """Why a verifier was disqualified, naming what changed while it ran when that is known."""
    note = f"the verifier {run.agent_id} changed the workspace while verifying and was disqualified"
    if changes is None or changes.empty:
        return f"{note} (which files changed is not known)"
    return f"{note}: {changed_files(changes)}"


def moved_note(run: VerifierRun, changes: Changes | None) -> str:
    """A workspace that changed while a verifier that ran no command was running: not its doing."""
    what = "" if changes is None or changes.empty else f" ({changed_files(changes)})"
    return (
        f"the workspace changed while the verifier {run.agent_id} ran{what}, but it ran no command, so "
        "someone else changed it and it is not disqualified"
    )


def changed_files(changes: Changes, limit: int = FILES_NAMED) -> str:
    """The files that changed and how, the first `limit` of them named: "added a.py; modified b.py;
    deleted c.md and 2 more"."""
    kinds = (("added", changes.added), ("modified", changes.modified), ("deleted", changes.deleted))
    parts: list[str] = []
    left = limit
    for kind, paths in kinds:
        if paths and left > 0:
            parts.append(f"{kind} {', '.join(quote_path(path) for path in paths[:left])}")
            left -= len(paths[:left])
    if changes.head is not None:
        before, after = (sha[:12] if sha else "none" for sha in changes.head)
        parts.append(f"HEAD moved from {before} to {after}")
    return "; ".join(parts) + more_than(sum(len(paths) for _, paths in kinds), limit, AND_MORE)


def weaker_model_note(run: VerifierRun, model: str, requested: str) -> str:
    return f"the verifier {run.agent_id} ran on {model}, weaker than the {requested} its tier asks for"


def disqualified_message(run: VerifierRun, note: str) -> str:
    return (
        f"tiergate: {note}; the verdict of {run.agent_type} is thrown away and a new verification is "
        "requested"
    )


def wrong_verifier(verification: Verification, agent_type: str) -> str:
    return (
        f"tiergate: verification {verification.id} asks for {verification.agent} ({verification.tier} tier), "
        f"not {agent_type}: no verdict you give will count. Say so in one line and stop."
    )


def redo(verification: Verification, problems: Sequence[str], attempt: int, limit: int) -> str:
    lines = [
        f"tiergate cannot accept this verdict for verification {verification.id} yet "
        f"(redo {attempt}/{limit}; after that it counts as INCOMPLETE):"
    ]
    lines += [f"- {quote_inline(cut(problem, 600))}" for problem in problems[:12]]
    lines.append(
        "Do what is named above, then end your final message with the whole tiergate-verdict block again "
        f'(with "verification_id": "{verification.id}").'
    )
    return _fit("\n".join(lines))


def verdict_feedback(verification: Verification, judgement: Judgement, forced: bool) -> str:
    """What Claude is told at the next Stop after a FAIL or INCOMPLETE."""
    header = f"Verification {verification.id} by {verification.agent} ({verification.model})"
    verdict = judgement.verdict
    if forced or verdict is None:
        problems = "\n".join(f"- {quote_inline(cut(p, 400))}" for p in judgement.problems[:8])
        return (
            f"{header}: INCOMPLETE. The verifier could not produce a verdict tiergate can accept:\n"
            f"{problems}\n"
            "Make the evidence easy to produce (tests that run, a build that works, clear commands), then "
            "claim again."
        )
    lines = [f"{header}: {verdict.verdict}."]
    if verdict.critique:
        lines.append(_critique(cut(verdict.critique, 2000)))
    missing = verdict.not_verified()
    if missing:
        lines.append("Not verified:" if verdict.verdict == "FAIL" else "Evidence still missing:")
        lines += [
            f"- {quote_inline(c.criterion)} [{c.status}]: "
            + (quote_inline(cut(c.evidence, 300)) or "no evidence")
            for c in missing[:10]
        ]
    lines.append("Fix what it names, check it yourself, then claim again.")
    return "\n".join(lines)


def _critique(critique: str) -> str:
    """A verifier's critique: on the line of its label when it is one line, else each line quoted."""
    if len(critique.splitlines()) <= 1:
        return f"Critique: {quote_inline(critique)}"
    return f"Critique:\n{quote_block(critique)}"


def refuted_again(standing: RefutedWorkspace) -> str:
    """The head of the answer to a claim on a workspace already refuted."""
    return (
        f"tiergate: nothing has changed since {standing.label} refuted this workspace, so your claim is "
        "refuted again at once: no checks were run and no verifier was spawned. A verdict stands for the "
        "workspace it was given for; only a change to the workspace earns a new check and a new verifier. "
        "What it found:"
    )


def empty_turns(reason: str) -> str:
    """The head of the answer to a loop whose turns end without a claim and without any change."""
    return (
        f"tiergate: this approach has stalled ({reason.removeprefix('empty-turns: ')}). Ending turns "
        "without changing anything will not finish the task."
    )


def changed_after_pass(state: LoopState) -> str:
    return (
        "The workspace changed after the verifier passed it, so that PASS no longer covers the work. "
        f"Finish, then {claim_how(state)}, to have the final state verified."
    )


def idle_reason(blocks: int) -> str:
    return (
        f"no progress: {blocks} stops in a row found the workspace unchanged (halted before Claude Code's "
        "own block cap would end the turn silently)"
    )


def budget_reason(state: LoopState, now: float) -> str:
    used = (now - state.started_at) / 60
    return f"the wall-clock budget is spent ({used:.0f} of {minutes(state.budget)})"


def halted_message(state: LoopState, why: str) -> str:
    return (
        f"tiergate: loop halted: {why}. The work so far is in the workspace as it is now. "
        "See `tiergate status` and `tiergate history`; to go on, start a new loop with "
        f"/tiergate:ralph <task> --max-iterations N (this one ran {plural(state.iteration, 'iteration')})."
    )


def finished_message(state: LoopState) -> str:
    return (
        f"tiergate: loop finished: the {state.tier} verifier's PASS stands "
        f"(iteration {state.iteration}/{state.max_iterations}). `tiergate history` shows each verification."
    )


def interrupted_message(state: LoopState, error: str) -> str:
    return (
        f"tiergate: the last turn ended on an API error ({quote_inline(error)}); this stop was not blocked. "
        "The loop is "
        f"still active (iteration {state.iteration}/{state.max_iterations}); /tiergate:cancel ends it."
    )


def verdict_message(verification: Verification, verdict: str, forced: bool) -> str:
    how = " (no acceptable verdict after the redos)" if forced else ""
    return (
        f"tiergate: verification {verification.id}: {verification.agent} ({verification.model}) "
        f"returned {verdict}{how}"
    )


def started_context(state: LoopState) -> str:
    """Additional context when a loop starts (UserPromptSubmit) or the session resumes with one."""
    return _fit(
        f"tiergate loop active (iteration {state.iteration}/{state.max_iterations}). Work on the task until "
        f"it is completely done. When it is, {claim_how(state)}: "
        "tiergate then has the claim checked by an independent verifier, sized to the risk of the change, "
        "and only its verdict ends the loop. Never write a tiergate-verdict block yourself.\n\n"
        + _task(state)
    )


def restated_context(state: LoopState, source: str | None) -> str:
    """Additional context at SessionStart in a session with an active loop: the task, the iteration,
    the phase and the promise again, since compaction (or a resume) may have dropped them."""
    why = {
        "compact": "The conversation was just compacted, so here is the loop again.",
        "resume": "The session resumed with its loop still running.",
    }.get(source or "", "This session has a loop running.")
    parts = [
        f"tiergate loop active (iteration {state.iteration}/{state.max_iterations}, phase {state.phase}). "
        f"{why}",
        _phase_line(state),
        f"When the task is completely done, {claim_how(state)}; "
        "only the verdict of the independent verifier tiergate asks for ends the loop. Never write a "
        "tiergate-verdict block yourself.",
        _task(state),
    ]
    return _fit("\n\n".join(parts))


def _phase_line(state: LoopState) -> str:
    verification = state.verification
    if state.phase == "verifying" and verification is not None:
        return (
            f"Your completion claim is being verified: verification {verification.id} ({verification.tier} "
            f"tier) asks for the verifier {verification.agent} on {verification.model}. If it has not run "
            "yet, tiergate gives you its spawn directive again at your next stop; do not change any file "
            "while it runs."
        )
    if state.phase == "passed":
        return (
            f"The {state.tier} verifier passed your claim; the loop ends at your next stop unless the "
            "workspace changes."
        )
    if state.feedback:
        return "The last verification did not pass; its findings come back to you at your next stop."
    return "You are working on the task; no completion claim is pending."


def started_message(state: LoopState, replaced: LoopState | None) -> str:
    also = (
        "; it replaces the loop that was active in this session"
        if replaced is not None and replaced.active
        else ""
    )
    return (
        f"tiergate: loop started (at most {plural(state.max_iterations, 'iteration')} and "
        f"{minutes(state.budget)}; it ends when a verifier passes a claim ending with {tag(state)}){also}. "
        f"{DIRTY_BASE if state.start else ''}/tiergate:cancel stops it."
    )


# A loop that began on the user's uncommitted work (`LoopState.start`) says so when it starts.
DIRTY_BASE = (
    "It takes the workspace as it is, uncommitted and untracked changes included, as its base: they are "
    "not counted as the loop's work, and a rollback goes back to them. "
)


def bound_message(state: LoopState) -> str:
    return (
        "tiergate: the loop started from the shell now runs in this session: "
        f"{quote_inline(cut(state.task, 120))} "
        f"(at most {plural(state.max_iterations, 'iteration')}). /tiergate:cancel stops it."
    )


def cancelled_message(cancelled: LoopState | None) -> str:
    if cancelled is None:
        return "tiergate: no active loop in this session; nothing to cancel."
    return (
        f"tiergate: loop cancelled at iteration {cancelled.iteration}/{cancelled.max_iterations}; "
        "the next stop goes through. The work so far stays in the workspace."
    )


CANCELLED_CONTEXT = (
    "tiergate: the user cancelled the loop in this session. Stop working on the loop's task; nothing will "
    "send you back to it."
)


def not_started_context(problem: str) -> str:
    return (
        f"tiergate did not start a loop: {quote_inline(problem)}. Tell the user so, in one line, and do "
        "nothing else."
    )
