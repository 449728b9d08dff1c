"""Adopting the user's own loop (Anthropic's ralph-loop, an oh-my-claudecode (OMC) ralph / autopilot
mode, Claude Code's `/goal`) as a tiergate loop of the session. A ralph-loop claim is what ralph-loop
accepts; an OMC mode's is the model clearing its state; a goal's every Stop is one. While the foreign
loop is alive it sends the model back itself, so a Stop without a claim is counted, not blocked. How
each behaves: docs/interop.md. Pure: text and parsed JSON in (`tiergate.handlers.adoption` reads them).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import replace
from datetime import datetime
from typing import Any, Literal

from tiergate.frozen import frozen
from tiergate.loop.claims import ClaimCheck
from tiergate.loop.events import Outcome, Stop
from tiergate.loop.messages import DIRTY_BASE
from tiergate.loop.state import LoopState
from tiergate.loop.transitions import halt
from tiergate.text import minutes, plural

Kind = Literal["ralph-loop", "omc-ralph", "omc-autopilot", "goal"]
RALPH_LOOP_COMMAND = "/ralph-loop:ralph-loop"
RALPH_LOOP_STATE = ".claude/ralph-loop.local.md"
OMC_COMMAND = "/oh-my-claudecode:"
OMC_MODES: dict[str, Kind] = {"ralph": "omc-ralph", "autopilot": "omc-autopilot"}
OMC_CANCEL = "/oh-my-claudecode:cancel"
OMC_TOOL_PREFIX = "mcp__plugin_oh-my-claudecode_t__"
# OMC's Stop hook enforces an unconfirmed mode after this long (scripts/persistent-mode.mjs).
OMC_CONFIRMATION_SECONDS = 120.0
# OMC's cancel signal is honoured for 30 s; a signal this recent marks a clearing in this turn.
OMC_SIGNAL_SECONDS = 60.0


@frozen
class Foreign:
    """A foreign loop as tiergate adopts it: the task, the promise (OMC: none), its own iteration cap
    (0: none), the session it belongs to ("": every session, as ralph-loop reads an empty id), when it
    started (seconds since the epoch; None when it does not say), and whether the agent under
    verification set it (a goal the model set itself: its words may not ask for a lighter tier)."""

    kind: Kind
    task: str
    promise: str = ""
    max_iterations: int = 0
    session_id: str = ""
    started_at: float | None = None
    by_agent: bool = False


@frozen
class NotAdopted:
    """Why a foreign loop is not adopted, for the log and `tiergate status`."""

    kind: Kind
    reason: str


@frozen
class OmcCancel:
    """The user's `/oh-my-claudecode:cancel`."""


# ralph-loop -----------------------------------------------------------------------------------------------


def parse_ralph_loop_command(prompt: str) -> Foreign | NotAdopted | None:
    """The loop a `/ralph-loop:ralph-loop ...` prompt starts, parsed as ralph-loop's setup script parses
    its arguments (the shell splits them; every word that is not an option joins the task); None when the
    prompt is not that command, NotAdopted when the setup script would refuse it (or print its help)."""
    text = prompt.strip()
    head, _, arguments = text.partition(" ")
    if head.strip() != RALPH_LOOP_COMMAND:
        return None
    try:
        words = shlex.split(arguments)
    except ValueError as exc:
        return NotAdopted("ralph-loop", f"its arguments do not split as shell words ({exc})")
    task: list[str] = []
    promise: str | None = None
    cap = 0
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("-h", "--help"):
            return NotAdopted("ralph-loop", "it asks for ralph-loop's help: no loop starts")
        if word in ("--max-iterations", "--completion-promise"):
            value = words[i + 1] if i + 1 < len(words) else ""
            if word == "--max-iterations":
                if not value.isdigit():
                    return NotAdopted("ralph-loop", f"--max-iterations needs a whole number, got {value!r}")
                cap = int(value)
            elif not value:
                return NotAdopted("ralph-loop", "--completion-promise needs a text")
            else:
                promise = value
            i += 2
            continue
        task.append(word)
        i += 1
    return _ralph_loop(" ".join(task), promise, cap, "", None)


def parse_ralph_loop_state(text: str) -> Foreign | NotAdopted:
    """The loop `.claude/ralph-loop.local.md` describes: its frontmatter (between the first two `---`
    lines) and its prompt (after them), as ralph-loop's Stop hook reads them."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---" or "---" not in [line.strip() for line in lines[1:]]:
        return NotAdopted("ralph-loop", "its state file has no frontmatter between two --- lines")
    end = 1 + [line.strip() for line in lines[1:]].index("---")
    fields = dict(_field(line) for line in lines[1:end] if ":" in line)
    prompt = "\n".join(lines[end + 1 :]).strip()
    cap = fields.get("max_iterations", "0")
    if not cap.isdigit() or not fields.get("iteration", "1").isdigit():
        return NotAdopted("ralph-loop", "its state file's iteration or max_iterations is not a number")
    raw = fields.get("completion_promise", "null")
    promise = None if raw == "null" else _unquote(raw)
    return _ralph_loop(
        prompt, promise, int(cap), fields.get("session_id", ""), _epoch(fields.get("started_at"))
    )


def ralph_loop_iteration(text: str) -> tuple[int, int] | None:
    """The state file's (iteration, max_iterations), or None when ralph-loop could not read them (it
    then deletes the file: the loop lets go)."""
    head = text.split("\n---", 1)[0]
    fields = dict(_field(line) for line in head.split("\n") if ":" in line)
    iteration, cap = fields.get("iteration", ""), fields.get("max_iterations", "")
    if not iteration.isdigit() or not cap.isdigit():
        return None
    return int(iteration), int(cap)


def ralph_loop_lets_go(text: str) -> str | None:
    """Why ralph-loop ends its loop at this Stop whatever the model says (its limit, a file it cannot
    read), or None when it will send the model back."""
    numbers = ralph_loop_iteration(text)
    if numbers is None:
        return "ralph-loop cannot read its state file's iteration: it deletes it"
    iteration, cap = numbers
    if cap > 0 and iteration >= cap:
        return f"ralph-loop reached its limit of {plural(cap, 'iteration')}"
    return None


def ralph_loop_claim(message: str | None, promise: str) -> ClaimCheck:
    """Whether ralph-loop would take `message` as its promise (and tiergate therefore as a claim)."""
    text = message or ""
    tag = re.search(r"<promise>(.*?)</promise>", text, re.DOTALL)
    said = tag.group(1) if tag else text
    if " ".join(said.split()) != " ".join(promise.split()):
        return ClaimCheck(claimed=False)
    if tag is None:
        note = f"the final message is the bare promise {promise!r}, which ralph-loop accepts as its promise"
        return ClaimCheck(claimed=True, notes=(note,))
    return ClaimCheck(claimed=True)


def _ralph_loop(
    task: str, promise: str | None, cap: int, session_id: str, started_at: float | None
) -> Foreign | NotAdopted:
    if not task:
        return NotAdopted("ralph-loop", "it has no task (ralph-loop refuses an empty prompt)")
    if promise is None or not promise.strip():
        return NotAdopted(
            "ralph-loop",
            "it has no --completion-promise, so no claim of it can be verified (it ends only at its limit)",
        )
    return Foreign("ralph-loop", task, " ".join(promise.split()), cap, session_id, started_at)


def _field(line: str) -> tuple[str, str]:
    key, _, value = line.partition(":")
    return key.strip(), value.strip()


def _unquote(value: str) -> str:
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value


def _epoch(value: object) -> float | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(_unquote(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


# oh-my-claudecode -----------------------------------------------------------------------------------------


def parse_omc_command(prompt: str) -> Foreign | NotAdopted | OmcCancel | None:
    """`/oh-my-claudecode:ralph <task>` or `/oh-my-claudecode:autopilot <task>` (a mode to adopt), or
    `/oh-my-claudecode:cancel`; None for any other prompt."""
    text = prompt.strip()
    head, _, task = text.partition(" ")
    if head == OMC_CANCEL:
        return OmcCancel()
    if not head.startswith(OMC_COMMAND) or head[len(OMC_COMMAND) :] not in OMC_MODES:
        return None
    kind = OMC_MODES[head[len(OMC_COMMAND) :]]
    task = " ".join(task.split())
    if not task:
        return NotAdopted(kind, "the command names no task")
    return Foreign(kind, task)


def parse_omc_state(mode: str, data: Any, session_id: str, project: str, now: float) -> Foreign | NotAdopted:
    """The mode OMC's session-scoped `<mode>-state.json` describes, if OMC's Stop hook would enforce it:
    active, this session's and this project's, and confirmed (not awaiting confirmation, or left unconfirmed
    longer than OMC waits)."""
    kind = OMC_MODES[mode]
    problem = _omc_unenforced(mode, data, session_id, project, now)
    if problem is not None:
        return NotAdopted(kind, problem)
    task = data.get("prompt") if mode == "ralph" else data.get("original_prompt")
    if not isinstance(task, str) or not task.strip():
        return NotAdopted(kind, "its state names no task (prompt / original_prompt)")
    started = _epoch(data.get("started_at"))
    return Foreign(kind, " ".join(task.split()), session_id=session_id, started_at=started)


def _omc_unenforced(mode: str, data: Any, session_id: str, project: str, now: float) -> str | None:
    """Why OMC's Stop hook would not enforce this mode state (None: it would)."""
    if not isinstance(data, dict):
        return "its state is not a JSON object"
    problems = (
        (data.get("active") is not True, "its state is not active"),
        (data.get("session_id") not in (None, session_id), "its state belongs to another session"),
        (
            isinstance(data.get("project_path"), str) and data["project_path"] != project,
            "its state belongs to another project",
        ),
        (mode == "autopilot" and data.get("phase") == "complete", "its state is already complete"),
    )
    for failed, why in problems:
        if failed:
            return why
    if data.get("awaiting_confirmation") is True:
        asked = _epoch(data.get("awaiting_confirmation_set_at"))
        if asked is None or now - asked < OMC_CONFIRMATION_SECONDS:
            return "OMC is still waiting for the mode to be confirmed (its skill has not run yet)"
    return None


def omc_mode(kind: str) -> str:
    """The OMC mode name of an adopted kind ("omc-ralph": "ralph")."""
    return kind.removeprefix("omc-")


def omc_clears(mode: str, name: str, arguments: Any) -> bool:
    """Whether a tool call (its name and input) clears the mode's state or completes it: OMC's
    `state_clear` for the mode, or `state_write` setting `active: false` or autopilot's `phase: complete`."""
    if not isinstance(arguments, dict) or arguments.get("mode") != mode:
        return False
    if name == OMC_TOOL_PREFIX + "state_clear":
        return True
    if name != OMC_TOOL_PREFIX + "state_write":
        return False
    state = arguments.get("state")
    fields: dict[str, Any] = state if isinstance(state, dict) else arguments
    return fields.get("active") is False or fields.get("phase") == "complete"


def omc_claim(kind: str, calls: tuple[tuple[str, Any], ...], gone_with_signal: bool) -> ClaimCheck:
    """The claim of an adopted OMC mode at a Stop: the turn's tool calls clear its state, or the state is
    gone with a fresh cancel signal (a Bash fallback)."""
    mode = omc_mode(kind)
    for name, arguments in calls:
        if omc_clears(mode, name, arguments):
            return ClaimCheck(
                claimed=True, notes=(f"OMC's {mode} declared itself done ({name.rsplit('__', 1)[-1]})",)
            )
    if gone_with_signal:
        return ClaimCheck(claimed=True, notes=(f"OMC's {mode} state was removed with a cancel signal",))
    return ClaimCheck(claimed=False)


# Adopting and stopping ------------------------------------------------------------------------------------


@frozen
class Refusal:
    """Why a foreign loop may not be adopted now; `logged`: worth a line in the decision log (a refusal
    that would repeat at every hook of the session, of a loop already dealt with, is not)."""

    reason: str
    logged: bool = True


def adoption_refused(
    current: LoopState | None, foreign: Foreign, session_id: str, *, by_command: bool = False
) -> Refusal | None:
    """Why this session may not adopt `foreign` now (None: it may): another session's loop, a loop of
    this session already running, or one that was running when the foreign loop started (the foreign loop
    ran beside it, and a halted loop must not come back through its neighbour). A command the user just
    typed (`by_command`) starts a new loop: it replaces an adopted one, and what ended before is no matter."""
    if foreign.session_id not in ("", session_id):
        return Refusal("it belongs to another session", logged=False)
    if current is None:
        return None
    if current.active:
        if current.adopted is None:
            return Refusal("this session runs a tiergate loop of its own; the foreign loop runs beside it")
        return None if by_command else Refusal("this session already runs an adopted loop", logged=False)
    started = foreign.started_at
    if by_command or current.ended_at is None or (started is not None and started > current.ended_at):
        return None
    why = "it was already running while this session's last loop was (that loop ended at its own rules)"
    return Refusal(why, logged=False)


def adopted_loop(loop: LoopState, foreign: Foreign) -> LoopState:
    """A new tiergate loop `loop` (tiergate's budget and rules) turned into the adopted `foreign`: its
    task, its promise, and its iteration cap when it has one. A task the agent wrote itself keeps the
    words that ask for more care and loses those that ask for a lighter tier (`[keywords] light`)."""
    cap = foreign.max_iterations or loop.max_iterations
    config = loop.config
    if foreign.by_agent and config is not None:
        keywords = config.get("keywords")
        config = {**config, "keywords": {**(keywords if isinstance(keywords, dict) else {}), "light": []}}
    return replace(
        loop,
        task=foreign.task,
        promise=foreign.promise or loop.promise,
        max_iterations=cap,
        adopted=foreign.kind,
        config=config,
    )


def adopted_stop(state: LoopState, ev: Stop, now: float) -> Outcome | None:
    """What an adopted loop, working and with nothing pending, does at a Stop without a claim; None when
    it goes on as tiergate's own loop (the foreign loop let go after a claim was judged)."""
    if ev.foreign_alive:
        if state.iteration >= state.max_iterations:
            return halt(
                state, now, f"the iteration cap is reached ({state.iteration}/{state.max_iterations})"
            )
        counted = replace(state, iteration=state.iteration + 1, last_block_fingerprint=ev.fingerprint)
        reasons = (
            f"adopted-continues: {state.adopted} is still running and sends Claude back itself; counted, "
            f"not blocked (iteration {counted.iteration}/{state.max_iterations})",
        )
        return Outcome(counted, "adopted-continues", reasons)
    if state.attempts or state.verifications or state.claim_errors:
        return None
    why = f"{state.adopted} let go without a completion claim ({ev.foreign_gone or 'its state is gone'})"
    ended = replace(state, phase="cancelled", ended_at=now, end_reason=why)
    return Outcome(ended, "adopted-released", (f"adopted-released: {why}; the adopted loop ends with it",))


# What Claude and the user are told ------------------------------------------------------------------------

_NAMES = {
    "ralph-loop": "ralph-loop",
    "omc-ralph": "oh-my-claudecode's ralph",
    "omc-autopilot": "oh-my-claudecode's autopilot",
    "goal": "Claude Code's /goal",
}


def name_of(kind: str | None) -> str:
    """What the user calls the loop an adopted one came from ("Claude Code's /goal")."""
    return _NAMES.get(kind or "", kind or "")


def how_it_ends(loop: LoopState) -> str:
    """How the adopted loop's completion claim is made."""
    if loop.adopted == "goal":
        return "you stop (every stop under the goal is a completion claim)"
    if loop.adopted == "ralph-loop":
        return f"you print <promise>{loop.promise}</promise>"
    mode = omc_mode(loop.adopted or "")
    tag = f"<promise>{loop.promise}</promise>"
    return f"you clear OMC's {mode} state (its state_clear) or end a message with {tag}"


def adopted_context(loop: LoopState) -> str:
    """Additional context for Claude when tiergate adopts the user's loop."""
    if loop.adopted == "goal":
        return _goal_context()
    name = name_of(loop.adopted)
    return (
        f"tiergate verifies the completion of this {name} loop: when {how_it_ends(loop)}, tiergate first "
        "runs the project's checks and has an independent verifier check the claim, sized to the risk of the "
        "change; a claim that does not hold sends you back to work with the reason, and only the verifier's "
        "PASS ends the session. Never write a tiergate-verdict block yourself."
    )


def _goal_context() -> str:
    return (
        "tiergate verifies this /goal: each time you stop, tiergate runs the project's checks on the "
        "workspace and has an independent verifier check the work, sized to the risk of the change. Claude "
        "Code's goal evaluator reads only the conversation, so its saying the condition is met does not end "
        "the session: a stop the checks or the verifier refute sends you back to work with the reason, and "
        "only the verifier's PASS lets the session end. Never write a tiergate-verdict block yourself."
    )


def adopted_message(loop: LoopState) -> str:
    """The user's notice when tiergate adopts their loop."""
    name = name_of(loop.adopted)
    what = "every stop under Claude Code's /goal" if loop.adopted == "goal" else f"{name}'s completion claim"
    return (
        f"tiergate: verifying {what} (at most {plural(loop.max_iterations, 'iteration')}, "
        f"{minutes(loop.budget)}). {DIRTY_BASE if loop.start else ''}[interop] in .tiergate.toml turns this "
        "off; /tiergate:cancel stops it."
    )
