"""Claude Code's own loop, `/goal`, verified by tiergate in the real CLI (issue 32). The scripted Messages
API also answers the goal evaluator's tool-less request, as the judge it is: one that reads the transcript
alone and believes the agent (testing/claude/goal_judge.py). tiergate adopts the goal as a loop, treats
every stop under it as a claim, and lets the session end only on its verifier's PASS."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.claude.cli import RunClaude, run_tiergate
from testing.claude.gated_loop import commit_checked_project, script_refuted_then_verified
from testing.claude.goal_judge import believing_judge, evaluations
from testing.claude.scripted_api import Reply, ScriptedApi, bash, stop_feedback, text, tool_use, write_file
from testing.claude.tiergate_model import ANSWERED, follow_tiergate, verify_by_running
from testing.pytestcheck import PYTEST
from testing.statefolder import state_dir
from testing.tiergatecli import decisions, loop_status, tiergate

pytestmark = pytest.mark.e2e

GOAL = "/goal every test in test_calc.py passes"
CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
WRONG = CALC.replace("return a - b", "return a * b", 1)
FIXED = CALC.replace("return a - b", "return a + b", 1)
TESTS = """\
import calc


def test_add():
    assert calc.add(2, 3) == 5


def test_sub():
    assert calc.sub(5, 3) == 2
"""
EVIDENCE = "ran pytest: 2 passed (test_add, test_sub)"


def calc_project(project: Path) -> None:
    files = {"calc.py": CALC, "test_calc.py": TESTS, ".gitignore": "__pycache__/\n"}
    commit_checked_project(project, files, PYTEST, "calc, add still wrong")


def test_a_wrong_fix_claimed_under_a_goal_is_refuted_then_the_real_fix_is_verified_and_ends_it(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    calc_project(git_project)
    believing_judge(scripted_api)
    script_refuted_then_verified(
        scripted_api,
        first_try=[write_file(git_project / "calc.py", WRONG)],
        fix=[write_file(git_project / "calc.py", FIXED)],
        claim="I fixed add. All tests pass.",
        check=PYTEST,
        evidence=EVIDENCE,
    )

    run = run_tiergate(run_claude, GOAL, timeout=240)

    assert run.returncode == 0, run.describe()
    feedback = [f for f in stop_feedback(scripted_api) if "tiergate" in f]
    # The evaluator believed the wrong fix (it said met, and Claude Code cleared the goal), tiergate's
    # checks refuted it with the failing test named, and no verifier was spent on it.
    assert evaluations(scripted_api), "the goal evaluator was never asked"
    refuted = feedback[0]
    assert "test_calc.py::test_add" in refuted
    assert "```tiergate-spawn" not in refuted
    # The real fix went to the verifier, whose PASS ended the session.
    assert "```tiergate-spawn" in feedback[1]
    assert scripted_api.messages_calls("subagent"), "the verifier was never spawned"
    assert run.result["result"] == ANSWERED
    assert (git_project / "calc.py").read_text() == FIXED
    made = [decision for _, decision in decisions(git_project)]
    assert made[0] == "adopt"
    assert "gate-refuted" in made
    assert made[-1] == "finalize"
    [loop] = loop_status(git_project)
    assert (loop["phase"], loop["verdict"], loop["adopted"]) == ("passed", "PASS", "goal")
    assert "adopted from Claude Code's /goal" in tiergate(git_project, "status").stdout


def test_deleting_the_failing_test_under_a_goal_is_refuted_naming_it(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    calc_project(git_project)
    believing_judge(scripted_api)
    without_add = TESTS[: TESTS.index("def test_add")] + TESTS[TESTS.index("def test_sub") :]
    script_refuted_then_verified(
        scripted_api,
        first_try=[write_file(git_project / "test_calc.py", without_add)],
        fix=[write_file(git_project / "test_calc.py", TESTS), write_file(git_project / "calc.py", FIXED)],
        claim="Every test in test_calc.py passes.",
        check=PYTEST,
        evidence=EVIDENCE,
    )

    run = run_tiergate(run_claude, GOAL, timeout=240)

    assert run.returncode == 0, run.describe()
    refuted = next(f for f in stop_feedback(scripted_api) if "tiergate" in f)
    assert "test_calc.py::test_add: failed when the loop began, not run now" in refuted
    assert "```tiergate-spawn" not in refuted
    assert run.result["result"] == ANSWERED
    [loop] = loop_status(git_project)
    assert (loop["phase"], loop["verdict"]) == ("passed", "PASS")


def test_an_honest_one_line_fix_under_a_goal_goes_to_the_light_verifier_and_ends_in_a_few_turns(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    calc_project(git_project)
    believing_judge(scripted_api)
    follow_tiergate(scripted_api)
    verify_by_running(scripted_api, PYTEST, EVIDENCE)
    scripted_api.sequence(
        write_file(git_project / "calc.py", FIXED), text("add adds now. All tests pass."), thread="main"
    )

    run = run_tiergate(run_claude, GOAL, timeout=240)

    assert run.returncode == 0, run.describe()
    [spawn] = [f for f in stop_feedback(scripted_api) if "tiergate" in f]
    assert '"subagent_type": "tiergate:architect-low"' in spawn
    assert "Tier LIGHT" in spawn
    [verifier_model] = {r.model for r in scripted_api.messages_calls("subagent")}
    assert "haiku" in verifier_model
    # The fix, the claim, the spawn, the answer: four main turns, and the session is over.
    assert len(scripted_api.messages_calls("main")) == 4
    assert run.result["result"] == ANSWERED
    [loop] = loop_status(git_project)
    assert (loop["phase"], loop["verdict"], loop["tier"]) == ("passed", "PASS", "LIGHT")
    status = tiergate(git_project, "status").stdout
    assert "passed (finished)" in status
    assert "adopted from Claude Code's /goal" in status
    page = git_project.parent / "report.html"
    assert tiergate(git_project, "report", "--output", str(page)).returncode == 0
    assert "loop adopted from Claude Code&#x27;s /goal" in page.read_text()


def test_a_session_without_a_goal_passes_through_untouched(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    calc_project(git_project)
    scripted_api.sequence(
        write_file(git_project / "calc.py", WRONG), text("I fixed add. All tests pass."), thread="main"
    )

    run = run_tiergate(run_claude, "fix add in calc.py", timeout=120)

    assert run.returncode == 0, run.describe()
    assert run.result["result"] == "I fixed add. All tests pass."
    assert stop_feedback(scripted_api) == []
    assert evaluations(scripted_api) == []
    assert [h.status for h in run.hook_runs("Stop")] == [0]
    assert not state_dir(git_project).exists()


def test_a_goal_the_evaluator_declares_impossible_ends_the_session(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    calc_project(git_project)
    believing_judge(scripted_api)
    said = "This cannot be done: test_add and the task contradict each other, so the goal is impossible."
    scripted_api.sequence(bash("cat test_calc.py", "Read the tests"), text(said), thread="main")
    scripted_api.on(text("(scripted model: not asked for)"), thread="main")

    run = run_tiergate(run_claude, GOAL, timeout=240)

    assert run.returncode == 0, run.describe()
    assert run.result["result"] == said
    assert len(evaluations(scripted_api)) == 1
    assert [f for f in stop_feedback(scripted_api) if "tiergate" in f] == []
    assert not scripted_api.messages_calls("subagent")
    [loop] = loop_status(git_project)
    assert loop["phase"] == "halted"
    assert "records the goal declared impossible" in loop["end_reason"]
    assert [decision for _, decision in decisions(git_project)][-1] == "halt"


# The task list inside a goal ------------------------------------------------------------------------------

STEPS = CALC + "\n\ndef mul(a, b):\n    raise NotImplementedError\n"
STEP_TESTS = TESTS + "\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n"
ADD_FIXED = STEPS.replace("return a - b", "return a + b", 1)
SUB_BROKEN = ADD_FIXED.replace("def sub(a, b):\n    return a - b", "def sub(a, b):\n    return a + b")
ALL_FIXED = ADD_FIXED.replace("raise NotImplementedError", "return a * b")
TASK_TOOLS = ("Bash", "Read", "Write", "Edit", "Agent", "ToolSearch", "TaskCreate", "TaskUpdate")


def task(subject: str) -> Reply:
    return tool_use("TaskCreate", {"subject": subject, "description": subject, "activeForm": subject})


def completed(task_id: str) -> Reply:
    return tool_use("TaskUpdate", {"taskId": task_id, "status": "completed"})


def test_inside_a_goal_a_task_that_breaks_a_passing_test_is_refused_and_one_leaving_later_steps_is_not(
    scripted_api: ScriptedApi, run_claude: RunClaude, git_project: Path
) -> None:
    files = {"calc.py": STEPS, "test_calc.py": STEP_TESTS, ".gitignore": "__pycache__/\n"}
    commit_checked_project(git_project, files, PYTEST, "calc: add wrong, mul to do")
    believing_judge(scripted_api)
    follow_tiergate(scripted_api)
    verify_by_running(scripted_api, PYTEST, "ran pytest: 3 passed")
    scripted_api.sequence(
        tool_use("ToolSearch", {"query": "select:TaskCreate,TaskUpdate", "max_results": 5}),
        task("Fix add"),
        task("Implement mul"),
        write_file(git_project / "calc.py", SUB_BROKEN),  # add fixed, sub broken on the way
        completed("1"),
        write_file(git_project / "calc.py", ADD_FIXED),  # sub back; mul still fails as it did
        completed("1"),
        write_file(git_project / "calc.py", ALL_FIXED),
        completed("2"),
        text("add and mul are fixed. All tests pass."),
        thread="main",
    )

    run = run_tiergate(run_claude, GOAL, allowed_tools=TASK_TOOLS, timeout=300)

    assert run.returncode == 0, run.describe()
    results = [r.last_user_text() for r in scripted_api.messages_calls("main")]
    refusals = [t for t in results if "TaskCompleted hook feedback:" in t]
    # Breaking test_sub, which passed when the goal was set: refused, the test named, the task kept open.
    [refused] = refusals
    assert "test_calc.py::test_sub" in refused
    assert "passed when the loop began and fails now" in refused
    assert "test_mul" not in refused.split("The task stays open")[0]
    # Completing it again with test_sub back while test_mul still fails as it did, then the second task.
    assert sum(t.strip().endswith("Updated task #1 status") for t in results) == 1
    assert any(t.strip().endswith("Updated task #2 status") for t in results)
    made = [decision for event, decision in decisions(git_project) if event == "TaskCompleted"]
    assert made == ["task-refused", "task-accepted", "task-accepted"]
    # The loop's own claim still ends it: gate, verifier, PASS.
    assert run.result["result"] == ANSWERED
    [loop] = loop_status(git_project)
    assert (loop["phase"], loop["verdict"]) == ("passed", "PASS")
