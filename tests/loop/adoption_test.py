"""The pure part of adopting the user's loop: ralph-loop's command and state file parsed as ralph-loop
parses them, its promise matched as it matches it, OMC's mode state and completion, which loop may be
adopted, and what an adopted loop does at a Stop without a claim."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from tiergate.loop import adoption
from tiergate.loop.adoption import Foreign, NotAdopted, OmcCancel
from tiergate.loop.claims import ClaimCheck
from tiergate.loop.decision import decide
from tiergate.loop.events import Stop
from tiergate.loop.state import AttemptRecord, LoopState, new_loop

STATE = """\
---
active: true
iteration: 3
session_id: s-1
max_iterations: 5
completion_promise: "ALL DONE"
started_at: "2026-12-01T11:20:29Z"
---

Fix the parser
and the lexer
"""


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        (
            "/ralph-loop:ralph-loop 'Fix the parser' --completion-promise 'ALL DONE' --max-iterations 5",
            Foreign("ralph-loop", "Fix the parser", "ALL DONE", 5),
        ),
        # every word that is no option joins the task, wherever it stands
        (
            "/ralph-loop:ralph-loop fix --max-iterations 0 the  parser --completion-promise DONE now",
            Foreign("ralph-loop", "fix the parser now", "DONE", 0),
        ),
    ],
)
def test_ralph_loops_command_is_parsed_as_its_setup_script_parses_it(prompt: str, expected: Foreign) -> None:
    assert adoption.parse_ralph_loop_command(prompt) == expected


@pytest.mark.parametrize(
    ("prompt", "why"),
    [
        ("/ralph-loop:ralph-loop task --max-iterations 5x --completion-promise D", "needs a whole number"),
        ("/ralph-loop:ralph-loop task --completion-promise", "--completion-promise needs a text"),
        ("/ralph-loop:ralph-loop --completion-promise DONE", "no task"),
        ("/ralph-loop:ralph-loop 'unclosed task --completion-promise DONE", "do not split as shell words"),
        ("/ralph-loop:ralph-loop a task", "no --completion-promise"),
        ("/ralph-loop:ralph-loop --help", "help"),
    ],
)
def test_a_ralph_loop_command_its_setup_would_refuse_is_not_adopted(prompt: str, why: str) -> None:
    found = adoption.parse_ralph_loop_command(prompt)
    assert isinstance(found, NotAdopted)
    assert why in found.reason


def test_other_prompts_are_no_ralph_loop_command() -> None:
    assert adoption.parse_ralph_loop_command("/ralph-loop fix it") is None
    assert adoption.parse_ralph_loop_command("please run /ralph-loop:ralph-loop x") is None


def test_ralph_loops_state_file_is_read_as_its_stop_hook_reads_it() -> None:
    found = adoption.parse_ralph_loop_state(STATE)
    assert isinstance(found, Foreign)
    assert (found.task, found.promise, found.max_iterations, found.session_id) == (
        "Fix the parser\nand the lexer",
        "ALL DONE",
        5,
        "s-1",
    )
    assert found.started_at == datetime(2026, 12, 1, 11, 20, 29, tzinfo=UTC).timestamp()
    assert adoption.ralph_loop_lets_go(STATE) is None
    assert adoption.ralph_loop_lets_go(STATE.replace("iteration: 3", "iteration: 5")) == (
        "ralph-loop reached its limit of 5 iterations"
    )
    unlimited = STATE.replace("max_iterations: 5", "max_iterations: 0").replace(
        "iteration: 3", "iteration: 99"
    )
    assert adoption.ralph_loop_lets_go(unlimited) is None


def test_a_state_file_without_a_promise_cannot_be_verified() -> None:
    found = adoption.parse_ralph_loop_state(STATE.replace('"ALL DONE"', "null"))
    assert isinstance(found, NotAdopted)
    assert "no claim of it can be verified" in found.reason
    assert isinstance(adoption.parse_ralph_loop_state("no frontmatter"), NotAdopted)


@pytest.mark.parametrize(
    ("message", "claimed"),
    [
        ("Done.\n<promise>ALL DONE</promise>", True),
        ("<promise>\n ALL\n  DONE </promise> and more after it", True),  # first tag, anywhere
        ("  ALL   DONE\n", True),  # no tag: the whole text (ralph-loop's quirk)
        ("<promise>ALL</promise> <promise>ALL DONE</promise>", False),  # only the first tag counts
        ("<promise>all done</promise>", False),
        ("I am not ALL DONE yet", False),
        (None, False),
    ],
)
def test_a_ralph_loop_claim_is_what_ralph_loop_accepts(message: str | None, claimed: bool) -> None:
    assert adoption.ralph_loop_claim(message, "ALL DONE").claimed is claimed


NOW = 1_800_000_000.0


def omc(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "active": True,
        "session_id": "s-1",
        "project_path": "/p",
        "prompt": "ralph fix it",
    }
    return {**base, **fields}


def test_an_omc_mode_is_adopted_when_its_stop_hook_would_enforce_it() -> None:
    found = adoption.parse_omc_state("ralph", omc(), "s-1", "/p", NOW)
    assert found == Foreign("omc-ralph", "ralph fix it", session_id="s-1")
    autopilot = adoption.parse_omc_state("autopilot", omc(original_prompt="build it"), "s-1", "/p", NOW)
    assert isinstance(autopilot, Foreign)
    assert autopilot.task == "build it"
    old = "2027-01-15T08:00:00Z"  # asked long before NOW + 3 minutes: OMC enforces it anyway
    late = adoption.parse_omc_state(
        "ralph",
        omc(awaiting_confirmation=True, awaiting_confirmation_set_at=old),
        "s-1",
        "/p",
        1_800_000_000.0 + 10**8,
    )
    assert isinstance(late, Foreign)


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"active": False}, "not active"),
        ({"session_id": "s-2"}, "another session"),
        ({"project_path": "/q"}, "another project"),
        ({"awaiting_confirmation": True}, "waiting for the mode to be confirmed"),
        ({"prompt": ""}, "names no task"),
    ],
)
def test_an_omc_mode_its_stop_hook_ignores_is_not_adopted(fields: dict[str, object], why: str) -> None:
    found = adoption.parse_omc_state("ralph", omc(**fields), "s-1", "/p", NOW)
    assert isinstance(found, NotAdopted)
    assert why in found.reason


def test_omc_commands() -> None:
    assert adoption.parse_omc_command("/oh-my-claudecode:ralph fix  it") == Foreign("omc-ralph", "fix it")
    assert adoption.parse_omc_command("/oh-my-claudecode:autopilot build") == Foreign(
        "omc-autopilot", "build"
    )
    assert adoption.parse_omc_command("/oh-my-claudecode:cancel") == OmcCancel()
    assert isinstance(adoption.parse_omc_command("/oh-my-claudecode:ralph"), NotAdopted)
    assert adoption.parse_omc_command("/oh-my-claudecode:help") is None


CLEAR = adoption.OMC_TOOL_PREFIX + "state_clear"
WRITE = adoption.OMC_TOOL_PREFIX + "state_write"


@pytest.mark.parametrize(
    ("calls", "signal", "claimed"),
    [
        (((CLEAR, {"mode": "ralph", "session_id": "s"}),), False, True),
        (((CLEAR, {"mode": "autopilot"}),), False, False),  # another mode's
        (((WRITE, {"mode": "ralph", "active": False}),), False, True),
        (((WRITE, {"mode": "ralph", "state": {"iteration": 3}}),), False, False),
        (((WRITE, {"mode": "ralph", "state": {"active": False}}),), False, True),
        ((("Bash", {"command": "rm .omc/state/sessions/s/ralph-state.json"}),), True, True),
        ((), False, False),
    ],
)
def test_an_omc_claim_is_the_mode_clearing_its_state(
    calls: tuple[tuple[str, object], ...], signal: bool, claimed: bool
) -> None:
    assert adoption.omc_claim("omc-ralph", calls, signal).claimed is claimed


def test_autopilots_phase_complete_is_its_claim() -> None:
    calls = ((WRITE, {"mode": "autopilot", "state": {"phase": "complete"}}),)
    assert adoption.omc_claim("omc-autopilot", calls, False).claimed


def loop(**changes: Any) -> LoopState:
    base = new_loop("s-1", "t", now=NOW, base="abc", promise="DONE", max_iterations=4)
    return replace(base, adopted="ralph-loop", **changes)


def refusal(current: LoopState | None, foreign: Foreign, by_command: bool = False) -> str:
    refused = adoption.adoption_refused(current, foreign, "s-1", by_command=by_command)
    return "" if refused is None else refused.reason


def test_which_loops_may_be_adopted() -> None:
    ralph = Foreign("ralph-loop", "t", "DONE", session_id="s-1", started_at=NOW)
    assert refusal(None, ralph) == ""
    assert "another session" in refusal(None, replace(ralph, session_id="s-2"))
    own = replace(loop(), adopted=None)
    assert "of its own" in refusal(own, ralph)
    assert "of its own" in refusal(own, ralph, by_command=True)
    # An adopted loop is replaced by the user's new command only, never by a file.
    assert "already runs an adopted loop" in refusal(loop(), ralph)
    assert refusal(loop(), ralph, by_command=True) == ""
    # A loop that ended after the foreign loop started does not come back through it.
    ended = replace(own, phase="halted", ended_at=NOW + 5)
    assert "already running" in refusal(ended, ralph)
    assert refusal(ended, replace(ralph, started_at=NOW + 10)) == ""
    assert refusal(ended, ralph, by_command=True) == ""


def test_an_adopted_loop_takes_the_foreign_task_promise_and_cap() -> None:
    own = new_loop("s-1", "", now=NOW, base="abc", promise="DONE", max_iterations=20)
    adopted = adoption.adopted_loop(own, Foreign("ralph-loop", "fix", "ALL DONE", 5))
    assert (adopted.task, adopted.promise, adopted.max_iterations, adopted.adopted) == (
        "fix",
        "ALL DONE",
        5,
        "ralph-loop",
    )
    uncapped = adoption.adopted_loop(own, Foreign("ralph-loop", "fix", "ALL DONE", 0))
    assert uncapped.max_iterations == 20


NO_CLAIM = ClaimCheck(claimed=False)


def test_an_adopted_loop_counts_but_does_not_block_while_its_plugin_runs() -> None:
    outcome = decide(loop(), Stop("working", NO_CLAIM, fingerprint="f", foreign_alive=True), NOW)
    assert (outcome.decision, outcome.block) == ("adopted-continues", None)
    assert outcome.state is not None
    assert outcome.state.iteration == 2
    capped = decide(loop(iteration=4), Stop("working", NO_CLAIM, foreign_alive=True), NOW)
    assert capped.decision == "halt"


def test_an_adopted_loop_ends_when_its_plugin_lets_go_with_nothing_judged() -> None:
    outcome = decide(loop(), Stop("bye", NO_CLAIM, foreign_gone="its state file is gone"), NOW)
    assert (outcome.decision, outcome.block) == ("adopted-released", None)
    assert outcome.state is not None
    assert not outcome.state.active


def test_after_a_refutation_the_adopted_loop_goes_on_as_tiergates_own() -> None:
    refuted = loop(attempts=(AttemptRecord("t", False, "gate"),))
    outcome = decide(refuted, Stop("thinking", NO_CLAIM, fingerprint="f"), NOW)
    assert outcome.decision == "continue"
    assert outcome.block is not None
    with_feedback = decide(loop(feedback="FAIL: test_x"), Stop("x", NO_CLAIM, foreign_alive=True), NOW)
    assert with_feedback.decision == "feedback"
    assert "FAIL: test_x" in (with_feedback.block or "")
