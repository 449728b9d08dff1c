"""Claude Code's `/goal` adopted as a tiergate loop: the command as Claude Code reads it, and what the
loop decides when its goal ends other than met. Claude Code's evaluator reads the transcript alone, so
its "met" is what the agent wrote, never evidence: every Stop of the goal is a claim, and the transcript
(`tiergate.loop.goal`) only ends the loop (declared impossible, cleared, never set) or keeps a passed one
waiting for a goal still running (by Claude Code's hook). See docs/interop.md, "Claude Code's /goal".
"""

from __future__ import annotations

from dataclasses import replace

from tiergate.loop.adoption import Foreign, Kind, NotAdopted
from tiergate.loop.events import Outcome
from tiergate.loop.goal import Goal, GoalAtStop
from tiergate.loop.logfields import snapshot
from tiergate.loop.state import LoopState
from tiergate.loop.transitions import halt
from tiergate.text import clip, quote_inline

KIND: Kind = "goal"
COMMAND = "/goal"
# The arguments that clear the goal instead of setting one (Claude Code 2.1.332), in any case.
CLEAR_WORDS = frozenset({"clear", "stop", "off", "reset", "none", "cancel"})
# Claude Code refuses a longer condition typed after /goal ("Goal condition is limited to 4000 characters").
MAX_CONDITION = 4000
# What Claude Code queues as the next prompt when the user approves a goal the model proposed.
APPROVED_PREFIX = "Goal set: "
# The goal's tool (its older name too), the one tool tiergate's PostToolUse hook is registered for.
GOAL_TOOLS = frozenset({"SetGoal", "ProposeGoal"})


def parse_goal_command(prompt: str) -> Foreign | NotAdopted | None:
    """The goal a prompt sets, as Claude Code reads `/goal <condition>` (a foreign loop to adopt), or None:
    `/goal` alone shows the goal, `/goal clear` clears it (Claude Code runs no prompt hook for either:
    a clear is seen in the transcript, `goal_ended`), any other prompt is not the goal's."""
    text = prompt.strip()
    if text != COMMAND and not text.startswith((COMMAND + " ", COMMAND + "\t", COMMAND + "\n")):
        return None
    condition = text[len(COMMAND) :].strip()
    if not condition:
        return None
    if condition.lower() in CLEAR_WORDS:
        return None
    if len(condition) > MAX_CONDITION:
        return NotAdopted(KIND, f"Claude Code refuses a condition over {MAX_CONDITION:,} characters")
    return Foreign(KIND, condition)


def approved_condition(prompt: str) -> str | None:
    """The condition of the prompt Claude Code queues when the user approves a proposed goal; the
    transcript must still confirm it (`goal_of`): anyone can type those words."""
    text = prompt.strip()
    if not text.startswith(APPROVED_PREFIX):
        return None
    return text[len(APPROVED_PREFIX) :].strip() or None


# When the goal ends ---------------------------------------------------------------------------------


def goal_ended(state: LoopState, goal: GoalAtStop, now: float) -> Outcome | None:
    """What an adopted goal loop does at a Stop, or at the user's next prompt, when its goal ended other
    than met, or never was; None when the loop goes on (a Stop is then judged as any claim is). Declared
    impossible or never set: the loop halts (the stop goes through), so that nothing traps the user;
    cleared (`/goal clear`, or Claude Code after an unrecoverable error): it ends too; the user is told
    and alerted. A passed loop keeps its PASS; a Stop tiergate's own checks refute is not asked here."""
    current = goal.now
    # The transcript is a file the agent can write: its word that the goal ended never passes a claim nor
    # ends a loop unseen, and records Claude Code would not have written (`doubt`; a goal that vanishes
    # after the loop saw it running) end nothing.
    if state.phase == "passed" or goal.doubt:
        return None
    if current.status == "impossible":
        why = f"the session's transcript records the goal declared impossible: {_reason(current)}"
        return halt(state, now, why)
    if current.status == "none" and not state.goal_seen:
        return halt(state, now, "Claude Code did not set the goal: the session's transcript records none")
    if current.status == "cleared":
        return _cleared(state, now)
    return None


def goal_notes(state: LoopState, goal: GoalAtStop, ended: Outcome | None) -> tuple[str, ...]:
    """The decision log's word on a Stop judged as a claim whatever the transcript says of the goal: that
    its word that the goal ended gave way to a refutation (`ended`: what it would have done), or why its
    records were not taken."""
    if ended is not None:
        return (
            f"goal-ended-refuted: the transcript says {ended.reasons[0]}; tiergate's checks refute this "
            "claim, so the refutation stands (the loop's caps end it)",
        )
    if goal.doubt:
        return (f"goal-records-doubted: {goal.doubt}",)
    if goal.now.status == "none" and state.goal_seen:
        why = "the transcript no longer records the goal this loop saw running: it was rewritten"
        return (f"goal-records-doubted: {why}",)
    return ()


def seen(state: LoopState, goal: GoalAtStop) -> LoopState:
    """The loop, knowing it saw its goal running in the transcript (never forgotten)."""
    running = goal.before.running or goal.now.running
    return replace(state, goal_seen=True) if running and not state.goal_seen else state


def _cleared(state: LoopState, now: float) -> Outcome:
    why = "the goal was cleared (/goal clear), as the session's transcript records"
    ended = replace(state, phase="cancelled", ended_at=now, end_reason=why, verification=None)
    open_ = () if state.verification is None else (snapshot(state.verification, "VOID", why=why),)
    message = (
        "tiergate: the adopted /goal loop ended: the session's transcript records the goal cleared "
        f"(iteration {state.iteration}/{state.max_iterations}). The work so far stays in the workspace."
    )
    reasons = (f"goal-cleared: {why}; the adopted loop ends with it",)
    return Outcome(ended, "goal-cleared", reasons, message=message, verifications=open_, alert=message)


def pending_reason(goal: GoalAtStop) -> str:
    heard = f"its evaluator says not yet: {_reason(goal.now)}" if goal.evaluated else "no evaluation in time"
    return (
        f"goal-pending: the verifier's PASS stands for this workspace; Claude Code's goal still runs "
        f"({heard}), so the session goes on by its hook: the loop finishes when the goal does, and a "
        "change reopens it"
    )


def _reason(goal: Goal) -> str:
    return quote_inline(clip(goal.reason, 300, "...")) if goal.reason else "(no reason given)"
