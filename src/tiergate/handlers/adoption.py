"""Adopting the user's own loop: the files around the pure `tiergate.loop.adoption`: ralph-loop's
`.claude/ralph-loop.local.md` in the session's working directory, OMC's
`.omc/state/sessions/<session_id>/<mode>-state.json` under the project (docs/interop.md). All Stop hooks
run in parallel and ralph-loop deletes its file on seeing its promise, so the loop is adopted at the
first hook that sees it, and every later decision rests on tiergate's own state.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from tiergate import TYPE_CHECKING
from tiergate.loop import adoption
from tiergate.loop.adoption import Foreign, NotAdopted
from tiergate.loop.claims import ClaimCheck
from tiergate.loop.events import Outcome
from tiergate.text import plural

if TYPE_CHECKING:
    from typing import Any

    from tiergate.hook.protocol import HookReply
    from tiergate.loop.state import LoopState
    from tiergate.project import Project

# The interop setting that governs each kind.
SETTING = {"ralph-loop": "ralph_loop", "omc-ralph": "omc", "omc-autopilot": "omc", "goal": "goal"}
CANCEL_SIGNAL = "cancel-signal-state.json"


def ralph_loop_file(payload: dict[str, Any], project: Project) -> Path:
    """ralph-loop's state file: in the session's working directory, as ralph-loop's scripts have it."""
    cwd = payload.get("cwd")
    base = Path(cwd) if isinstance(cwd, str) and cwd else project.root
    return base / adoption.RALPH_LOOP_STATE


def omc_sessions_dir(project: Project) -> Path:
    """OMC's session-scoped state folders, one per session id."""
    return project.root / ".omc" / "state" / "sessions"


def omc_state_file(project: Project, session_id: str, mode: str) -> Path:
    return omc_sessions_dir(project) / session_id / f"{mode}-state.json"


def from_files(payload: dict[str, Any], project: Project) -> list[Foreign | NotAdopted]:
    """The foreign loops this session's files show (ralph-loop's, then OMC's modes)."""
    session_id: str = payload["session_id"]
    found: list[Foreign | NotAdopted] = []
    text = read_text(ralph_loop_file(payload, project))
    if text is not None:
        found.append(adoption.parse_ralph_loop_state(text))
    for mode in adoption.OMC_MODES:
        data = read_json(omc_state_file(project, session_id, mode))
        if data is not None:
            found.append(adoption.parse_omc_state(mode, data, session_id, str(project.root), time.time()))
    return found


def adopt_from_files(event_name: str, payload: dict[str, Any], project: Project) -> LoopState | None:
    """Adopt the first foreign loop this session's files show, if one may be adopted."""
    for found in from_files(payload, project):
        if isinstance(found, Foreign) and found.session_id not in ("", payload["session_id"]):
            continue  # another session's loop: not this session's business, and not worth a log line
        adopted = adopt(project, payload["session_id"], event_name, found)
        if adopted is not None:
            return adopted
    return None


def adopt(
    project: Project,
    session_id: str,
    event_name: str,
    found: Foreign | NotAdopted,
    *,
    by_command: bool = False,
) -> LoopState | None:
    """Adopt `found` as this session's loop (None when it is not, with the reason logged). A command the
    user just typed replaces an adopted loop of the session; a file never replaces anything."""
    adopted = adopt_or_why(project, session_id, event_name, found, by_command=by_command)
    return adopted if not isinstance(adopted, str) else None


def adopt_or_why(
    project: Project,
    session_id: str,
    event_name: str,
    found: Foreign | NotAdopted,
    *,
    by_command: bool = False,
) -> LoopState | str:
    """`adopt`, saying why not: what a user who typed the command is to be told."""
    from tiergate.errors import UserError

    if isinstance(found, NotAdopted):
        declined(project, event_name, session_id, found.kind, found.reason)
        return found.reason
    from tiergate.loop import store as state

    # Asked before the costly part (the configuration, git), then again under the session's lock.
    refusal = adoption.adoption_refused(
        state.read(project, session_id), found, session_id, by_command=by_command
    )
    if refusal is not None:
        _refused(project, event_name, session_id, found, refusal)
        return refusal.reason
    try:
        begun = _new_loop(project, session_id, found)
    except UserError as exc:
        declined(project, event_name, session_id, found.kind, str(exc))
        return str(exc)
    if begun is None:
        ignored = f'[interop] {SETTING[found.kind]} is "ignore"'
        declined(project, event_name, session_id, found.kind, ignored)
        return ignored
    new, differs = begun
    refusal = state.update(project, session_id, lambda current: _take(current, new, found, by_command))
    if refusal is not None:
        _refused(project, event_name, session_id, found, refusal)
        return refusal.reason
    _adopted(project, event_name, new, found, differs)
    return new


def adopted_reply(loop: LoopState) -> HookReply:
    """What Claude and the user are told when tiergate adopts their loop."""
    from tiergate.hook.protocol import HookReply

    return HookReply(
        additional_context=adoption.adopted_context(loop), system_message=adoption.adopted_message(loop)
    )


def _adopted(project: Project, event_name: str, new: LoopState, found: Foreign, differs: bool | None) -> None:
    """The adopted loop's first green point (the workspace it finds; `differs`: as its start measured it)
    and its log line."""
    from tiergate.handlers import common, effects
    from tiergate.loop.start import base_text, rules_reason

    effects.mark_start(project, new.session_id, new.base, differs)
    effects.begin_baseline(project, new)
    cap = f"at most {plural(new.max_iterations, 'iteration')}" + (
        " (its own cap)" if found.max_iterations else ""
    )
    promise = (
        f"promise {new.promise!r}"
        if found.promise
        else "every stop is a claim (its evaluator's 'met' is not evidence)"
        if found.kind == "goal"
        else "its completion is OMC clearing its state"
    )
    name = adoption.name_of(found.kind)
    reasons = (
        f"adopt: {name} on {found.task[:200]!r}, {promise}, {cap}, base {base_text(new)}",
        rules_reason(new),
    )
    common.log_outcome(
        project,
        event_name,
        new.session_id,
        Outcome(new, "adopt", reasons, logged=(("task", new.task), ("adopted_from", name))),
    )


def _refused(
    project: Project, event_name: str, session_id: str, found: Foreign, refusal: adoption.Refusal
) -> None:
    if refusal.logged:
        declined(project, event_name, session_id, found.kind, refusal.reason)


def _take(
    current: LoopState | None, new: LoopState, found: Foreign, by_command: bool
) -> tuple[LoopState | None, adoption.Refusal | None]:
    refusal = adoption.adoption_refused(current, found, new.session_id, by_command=by_command)
    return (new, None) if refusal is None else (None, refusal)


def _new_loop(project: Project, session_id: str, found: Foreign) -> tuple[LoopState, bool | None] | None:
    """The adopted loop at HEAD with the configuration as it is now, and whether the workspace differed
    from its base (`measured_at_head`); None when `[interop]` says ignore."""
    from tiergate.config.settings import load_config
    from tiergate.loop.start import measured_at_head
    from tiergate.loop.startrequest import Start

    if getattr(load_config(project.root).interop, SETTING[found.kind]) == "ignore":
        return None
    begun, differs = measured_at_head(project, session_id, Start(found.task))
    return adoption.adopted_loop(begun, found), differs


def declined(project: Project, event_name: str, session_id: str, kind: str, reason: str) -> None:
    """Log that a foreign loop is not adopted, and why."""
    from tiergate.handlers import common
    from tiergate.project import ensure_state_dir

    ensure_state_dir(project)  # the log lives there; a project may meet tiergate through its neighbour first

    outcome = Outcome(None, "not-adopted", (f"not-adopted: {kind}: {reason}",))
    common.log_outcome(project, event_name, session_id, outcome)


# At a Stop of an adopted loop ------------------------------------------------------------------------------


def claim(payload: dict[str, Any], project: Project, loop: LoopState, message: str | None) -> ClaimCheck:
    """Whether this Stop claims the adopted loop done: as its own plugin would take it, or as tiergate's
    own loop would (tiergate's texts to Claude ask for `<promise>...</promise>`, OMC's loops included)."""
    from tiergate import transcript
    from tiergate.loop.claims import ClaimCheck, check_claim

    if loop.adopted == "goal":
        # Claude Code's evaluator judges every stop of a goal from the transcript: tiergate, with evidence.
        return ClaimCheck(claimed=True)
    own = check_claim(message, loop.promise)
    if own.claimed:
        return own
    if loop.adopted == "ralph-loop":
        found = adoption.ralph_loop_claim(message, loop.promise)
        if found.claimed:
            return found
        # ralph-loop reads the transcript's last text block alone: what it accepts there is a claim too.
        last = transcript.last_text_block(payload.get("transcript_path"))
        return adoption.ralph_loop_claim(last, loop.promise) if last is not None else found
    mode = adoption.omc_mode(loop.adopted or "")
    calls = transcript.turn_tool_calls(payload.get("transcript_path"))
    folder = omc_state_file(project, loop.session_id, mode).parent
    gone = not (folder / f"{mode}-state.json").exists()
    return adoption.omc_claim(loop.adopted or "", calls, gone and _fresh(folder / CANCEL_SIGNAL))


def foreign_at_stop(payload: dict[str, Any], project: Project, loop: LoopState) -> tuple[bool, str]:
    """Whether the adopted loop's foreign loop still runs for this session and sends Claude back at this
    stop itself; when it does not, why."""
    if loop.adopted == "ralph-loop":
        text = read_text(ralph_loop_file(payload, project))
        if text is None:
            return False, "its state file is gone"
        found = adoption.parse_ralph_loop_state(text)
        if isinstance(found, Foreign) and found.session_id not in ("", loop.session_id):
            return False, "its state file now belongs to another session"
        lets_go = adoption.ralph_loop_lets_go(text)
        return (False, lets_go) if lets_go else (True, "")
    mode = adoption.omc_mode(loop.adopted or "")
    data = read_json(omc_state_file(project, loop.session_id, mode))
    if data is None:
        return False, f"OMC's {mode} state is gone"
    if not isinstance(data, dict) or data.get("active") is not True:
        return False, f"OMC's {mode} state is no longer active"
    return True, ""


def _fresh(path: Path) -> bool:
    try:
        return time.time() - path.stat().st_mtime < adoption.OMC_SIGNAL_SECONDS
    except OSError:
        return False


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except OSError:
        return None


def read_json(path: Path) -> object | None:
    text = read_text(path)
    if text is None:
        return None
    try:
        data: object = json.loads(text)
    except ValueError:
        return "unreadable"
    return data
