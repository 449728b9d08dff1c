"""Claude Code's /goal adopted (issue 32), through the real hook entry point in real git repositories, with
the session's transcript holding the goal's records as Claude Code writes them: the user's command, an
approved goal and a goal the model set itself adopted (or not, and why), every stop a claim, the
evaluator's answer to a Stop waited for, a goal ended other than met halting the loop."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from testing import runcount
from testing.gitrepo import write
from testing.goaltranscript import GoalTranscript
from testing.hooksession import HookSession
from testing.statefolder import state_dir
from testing.valueproject import CHECK, value_project

SESSION = "60a160a1-2222-3333-4444-555555555555"
CONDITION = "value.txt says good"
COUNTED = runcount.counted("RUNS") + "\n"


class Session(HookSession):
    def __init__(self, root: Path, config: str = "") -> None:
        check = COUNTED + CHECK
        toml = '[checks]\ntests = "sh check.sh"\n' + config
        super().__init__(root, value_project(root, check, config=toml, value="bad\n"), SESSION)
        self.runs = root / "runs"
        self.runs.mkdir()
        self.env["RUNS"] = str(self.runs)
        self.transcript = GoalTranscript(root / "session.jsonl")

    def set_goal(self, condition: str = CONDITION) -> dict[str, Any]:
        """The user types /goal: UserPromptSubmit first, then Claude Code writes the goal's records."""
        answer = self.hook("UserPromptSubmit", prompt=f"/goal {condition}")
        self.transcript.goal_set(condition)
        return answer

    def stop(self, says: str, evaluation: str | None = None) -> dict[str, Any]:
        """A Stop whose final message is `says`, with the evaluator's answer to it already written."""
        self.transcript.says(says)
        if evaluation is not None:
            self.transcript.evaluated(CONDITION, evaluation)
        return self.hook("Stop", last_assistant_message=says)

    def decided(self) -> list[str]:
        return [r["decision"] for r in self.decisions()]

    def check_runs(self) -> int:
        return runcount.runs(self.runs)


def test_the_users_goal_is_adopted_and_its_every_stop_is_judged_with_evidence(tmp_path: Path) -> None:
    s = Session(tmp_path)
    started = s.set_goal()

    assert "tiergate: verifying" in started["systemMessage"]
    assert "each time you stop" in started["hookSpecificOutput"]["additionalContext"]
    loop = s.loop()
    assert (loop.adopted, loop.task, loop.promise) == ("goal", CONDITION, "DONE")
    # A wrong fix the evaluator believed: tiergate's checks refute it, with the failing test named.
    write(s.project, {"value.txt": "worse\n"})
    refuted = s.stop("value.txt is fixed, all tests pass.", evaluation="met")
    assert refuted["decision"] == "block"
    assert "FAIL: test_value (checks.ValueTest)" in refuted["reason"]
    assert "tiergate-spawn" not in refuted["reason"]
    # The real fix, after the goal was cleared as met: still a claim, and it goes to the verifier.
    write(s.project, {"value.txt": "good\n"})
    asked = s.stop("Now it really is fixed.")
    assert "```tiergate-spawn" in asked["reason"]
    assert "decision" not in s.verifier_says("a1", "PASS", "sh check.sh", "test_value ... ok")
    finished = s.stop("The verifier has answered.")
    assert "decision" not in finished
    assert "loop finished" in finished["systemMessage"]
    assert s.decided()[0] == "adopt"
    assert s.decided()[-1] == "finalize"
    assert s.loop().phase == "passed"


def test_the_evaluators_answer_written_while_the_stop_runs_is_waited_for(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.set_goal()
    said = "It cannot be done: the check contradicts the task."
    s.transcript.says(said)

    def evaluator_answers_late() -> None:
        time.sleep(1.0)
        s.transcript.evaluated(CONDITION, "impossible", "the agent says the check contradicts the task")

    late = threading.Thread(target=evaluator_answers_late)
    late.start()
    answer = s.hook("Stop", last_assistant_message=said)
    late.join()

    # Without the wait the claim would have gone to a verifier (the check fails as it did at the base).
    assert answer.get("decision") is None
    assert "loop halted" in answer["systemMessage"]
    loop = s.loop()
    assert loop.phase == "halted"
    assert "records the goal declared impossible" in (loop.end_reason or "")
    assert "the check contradicts the task" in (loop.end_reason or "")


def test_a_transcript_that_lags_behind_the_stop_is_waited_for_too(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.set_goal()
    asked = s.stop("First try, all tests pass.", evaluation="unmet")  # the check fails as at the base
    assert "```tiergate-spawn" in asked["reason"]
    said = "This is impossible to do."

    def transcript_catches_up() -> None:
        time.sleep(1.0)
        s.transcript.says(said)
        s.transcript.evaluated(CONDITION, "impossible")

    catching_up = threading.Thread(target=transcript_catches_up)
    catching_up.start()
    answer = s.hook("Stop", last_assistant_message=said)
    catching_up.join()

    # The evaluation of the first Stop, seen before the final message reached the file, was not taken
    # for this one's.
    assert answer.get("decision") is None
    assert s.loop().phase == "halted"


def test_a_goal_that_ended_before_the_stop_halts_the_loop_when_the_checks_find_nothing(
    tmp_path: Path,
) -> None:
    s = Session(tmp_path)
    s.set_goal()
    s.transcript.says("I looked at it.").evaluated(CONDITION, "impossible", "no way")
    s.transcript.user("Stop hook feedback: ...")

    answer = s.stop("Still looking.")  # the check fails as it did at the base: nothing refutes the claim

    assert answer.get("decision") is None
    assert s.loop().phase == "halted"
    assert "no way" in (s.loop().end_reason or "")


def test_the_transcripts_word_that_the_goal_ended_never_outweighs_a_refutation(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.set_goal()
    write(s.project, {"value.txt": "worse\n"})
    # The agent appends a record of its own during the turn: the goal "impossible".
    s.transcript.evaluated(CONDITION, "impossible", "the agent's own words")

    refuted = s.stop("Cannot be done.")

    assert refuted["decision"] == "block"
    assert "FAIL: test_value (checks.ValueTest)" in refuted["reason"]
    assert s.loop().active
    assert any(r.startswith("goal-ended-refuted: ") for r in s.decisions()[-1]["reasons"])


def test_goal_records_claude_code_would_not_write_end_nothing(tmp_path: Path) -> None:
    doubled = Session(tmp_path / "doubled")
    truncated = Session(tmp_path / "truncated")
    for s in (doubled, truncated):
        s.set_goal()
        s.stop("First look.", evaluation="unmet")  # the goal seen running; a verifier asked for
    # Two evaluations for one stop (the real one and a watcher's), and a transcript emptied.
    doubled.transcript.says("Still here.").evaluated(CONDITION, "unmet").evaluated(CONDITION, "impossible")
    truncated.transcript.path.write_text("")
    truncated.transcript.says("Still here.")

    for s in (doubled, truncated):
        answer = s.hook("Stop", last_assistant_message="Still here.")
        assert "decision" in answer  # reminded of the verifier it was asked for: the loop goes on
        assert s.loop().active
        assert any(r.startswith("goal-records-doubted: ") for r in s.decisions()[-1]["reasons"])


def test_a_goal_claude_code_did_not_set_halts_the_loop_at_its_first_stop(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.hook("UserPromptSubmit", prompt=f"/goal {CONDITION}")  # refused by Claude Code: no record follows

    answer = s.stop("Done.")

    assert answer.get("decision") is None
    assert "did not set the goal" in (s.loop().end_reason or "")


def test_goal_clear_ends_the_adopted_loop_at_the_next_prompt_or_stop(tmp_path: Path) -> None:
    at_prompt = Session(tmp_path / "prompt")
    at_stop = Session(tmp_path / "stop")
    for s in (at_prompt, at_stop):
        s.set_goal()
        # Claude Code runs no hook for /goal clear: it only writes its record.
        s.transcript.cleared(CONDITION)

    told = at_prompt.hook("UserPromptSubmit", prompt="Now tidy the README.")
    stopped = at_stop.stop("Stopping here.")

    assert "ended: the session's transcript records the goal cleared" in told["systemMessage"]
    assert stopped.get("decision") is None
    for s in (at_prompt, at_stop):
        assert s.loop().phase == "cancelled"
        assert "cleared (/goal clear)" in (s.loop().end_reason or "")
        assert s.decided()[-1] == "goal-cleared"
    assert at_prompt.stop("Done with the README.") == {}


def test_a_goal_beside_a_tiergate_loop_or_with_interop_ignore_is_not_adopted(tmp_path: Path) -> None:
    beside = Session(tmp_path / "beside")
    beside.hook("UserPromptSubmit", prompt="/tiergate:ralph make value.txt say good")
    ignored = Session(tmp_path / "ignored", config='[interop]\ngoal = "ignore"\n')

    told = beside.set_goal()
    assert ignored.set_goal()["systemMessage"].endswith(
        'not verified by tiergate: [interop] goal is "ignore".'
    )
    assert told["systemMessage"].startswith("tiergate: this /goal is not verified by tiergate: this session")

    assert beside.loop().adopted is None
    [declined] = [r for r in beside.decisions() if r["decision"] == "not-adopted"]
    assert "runs a tiergate loop of its own" in declined["reasons"][0]
    assert ignored.decided() == ["not-adopted"]
    assert '[interop] goal is "ignore"' in ignored.decisions()[0]["reasons"][0]


def test_an_approved_goal_is_adopted_only_when_the_transcript_shows_it_running(tmp_path: Path) -> None:
    typed = Session(tmp_path / "typed")
    approved = Session(tmp_path / "approved")
    approved.transcript.goal_set(CONDITION)

    assert typed.hook("UserPromptSubmit", prompt=f"Goal set: {CONDITION}") == {}
    answer = approved.hook("UserPromptSubmit", prompt=f"Goal set: {CONDITION}")

    assert not state_dir(typed.project).exists()
    assert "tiergate: verifying" in answer["systemMessage"]
    assert approved.loop().adopted == "goal"


def set_goal_tool(s: Session, condition: str, *, ask_user: bool) -> dict[str, Any]:
    """The model's goal tool ran (PostToolUse): asked without the user, Claude Code set it at once."""
    if not ask_user:
        s.transcript.goal_set(condition)
    goal = {"condition": condition}
    return s.hook(
        "PostToolUse",
        tool_name="SetGoal",
        tool_input={**goal, "ask_user": ask_user},
        tool_response={**goal, "askUser": ask_user},
    )


def test_a_goal_the_model_set_is_adopted_but_may_not_move_the_base(tmp_path: Path) -> None:
    s = Session(tmp_path)

    assert set_goal_tool(s, CONDITION, ask_user=True) == {}  # only proposed: nothing is set yet
    assert not state_dir(s.project).exists()
    adopted = set_goal_tool(s, CONDITION, ask_user=False)
    assert "each time you stop" in adopted["hookSpecificOutput"]["additionalContext"]
    base = s.loop().base

    # The agent breaks things, then sets another goal: the loop keeps the task it was given and its base.
    write(s.project, {"value.txt": "worse\n"})
    s.hook("Stop", last_assistant_message="Working.")
    assert set_goal_tool(s, "quick: value.txt says anything", ask_user=False) == {}
    assert (s.loop().task, s.loop().base) == (CONDITION, base)
    assert s.decided()[-1] == "not-adopted"
    assert "keeps its task and its base" in s.decisions()[-1]["reasons"][0]


def test_a_goal_the_model_set_itself_may_not_ask_for_a_lighter_tier(tmp_path: Path) -> None:
    by_model = Session(tmp_path / "model")
    typed = Session(tmp_path / "typed")
    quick = "quick: " + CONDITION
    set_goal_tool(by_model, quick, ask_user=False)
    typed.set_goal(quick)
    asked = []
    for s in (by_model, typed):
        # Six files: STANDARD by the rules, which the word "quick" asks to lower to LIGHT.
        write(s.project, {"value.txt": "good\n", **{f"notes/n{i}.txt": "note\n" for i in range(5)}})
        s.transcript.says("Quick fix done.").evaluated(quick, "unmet")
        asked.append(s.hook("Stop", last_assistant_message="Quick fix done.")["reason"])

    from_model, from_user = asked
    assert '"model": "sonnet"' in from_model  # the agent's own word asks for nothing
    assert '"model": "haiku"' in from_user  # the user's does, as in any loop
    kept = by_model.loop().config
    assert kept is not None and kept["keywords"]["light"] == []


def test_an_approved_proposal_may_change_the_goal_but_never_the_base(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.set_goal()
    base = s.loop().base
    write(s.project, {"value.txt": "worse\n"})
    refuted = s.stop("Done.", evaluation="unmet")
    assert refuted["decision"] == "block"
    # The agent proposes a goal, the user approves it: Claude Code sets it and queues its prompt.
    s.transcript.goal_set("value.txt says worse")

    answer = s.hook("UserPromptSubmit", prompt="Goal set: value.txt says worse")

    assert "from the same base" in answer["systemMessage"]
    assert (s.loop().task, s.loop().base, s.loop().iteration) == ("value.txt says worse", base, 2)
    assert s.decided()[-1] == "goal-changed"


def test_a_goal_the_model_sets_after_its_loop_ended_starts_no_new_loop(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.set_goal()
    s.transcript.cleared(CONDITION)
    s.hook("UserPromptSubmit", prompt="Something else, please.")

    assert set_goal_tool(s, "value.txt says anything", ask_user=False) == {}

    assert s.loop().phase == "cancelled"
    assert s.decided()[-1] == "not-adopted"
    assert "does not start another" in s.decisions()[-1]["reasons"][0]
