"""A ralph loop in the real CLI whose first claim the project's configured check refutes and whose fixed
claim passes the gate and goes to the verifier: the project committed with its check, the scripted
session, and what tiergate records of it."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from testing.claude.scripted_api import Reply, ScriptedApi, stop_feedback, text
from testing.claude.tiergate_model import follow_tiergate, verify_by_running
from testing.gitrepo import commit_all, write
from testing.tiergatecli import decisions, loop_status

# What tiergate decides in such a session, started with `tiergate ralph start`.
REFUTED_THEN_VERIFIED = [
    ("ralph start", "pending"),
    ("SessionStart", "bind"),
    ("UserPromptSubmit", "user-prompt"),
    ("Stop", "gate-refuted"),
    ("Stop", "spawn"),
    ("SubagentStart", "verifier-started"),
    ("SubagentStop", "verdict"),
    ("Stop", "finalize"),
]


def commit_checked_project(
    project: Path, files: Mapping[str, str], check: str, message: str, *, config: str = ""
) -> None:
    """`files`, and a `.tiergate.toml` whose `[checks] tests` runs `check` (then `config`), committed."""
    toml = f"[checks]\ntests = {json.dumps(check)}\n{config}"
    write(project, {**files, ".tiergate.toml": toml})
    commit_all(project, message)


def script_refuted_then_verified(
    api: ScriptedApi,
    *,
    first_try: Sequence[Reply],
    fix: Sequence[Reply],
    claim: str,
    check: str,
    evidence: str,
) -> None:
    """The model does `first_try` and claims, does `fix` and claims again, and spawns the verifier tiergate
    asks for, which runs `check` and passes every required label with `evidence`."""
    follow_tiergate(api)
    api.sequence(*first_try, text(claim), *fix, text(claim), thread="main")
    verify_by_running(api, check, evidence)


def refuted_then_verified(api: ScriptedApi, project: Path) -> tuple[str, str]:
    """Assert that the first claim was refuted without a verifier, the second met with one, and the loop
    passed; return the two Stop feedbacks, the refutation and the one asking for the verifier."""
    refuted, spawn = stop_feedback(api)[:2]
    assert "```tiergate-spawn" not in refuted
    assert spawn.count("```tiergate-spawn") == 1
    assert decisions(project) == REFUTED_THEN_VERIFIED
    [status] = loop_status(project)
    assert (status["phase"], status["verdict"]) == ("passed", "PASS")
    return refuted, spawn
