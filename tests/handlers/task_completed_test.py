"""A completed task is a step claim (handlers/task_completed.py), through the real hook entry point on real
git repositories with real pytest and real `node --test`: the calc project, whose `add` works and whose
`mul` and `div` (the loop's task) fail when the loop begins. A task that breaks what worked is refused
(exit 2, the test named on stderr, the task left open); the loop's remaining work, a later step's new test
and a check that did not finish refuse nothing; the gate's kept results are shared with the claims' Stop;
nothing of the loop changes; no loop, bad input or a damaged state: the event passes through."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from testing.gitrepo import init_repo, write
from testing.hooksession import HookSession
from testing.loopproject import a_project, decisions, payload, with_loop
from testing.muldivproject import (
    CALC,
    DIV,
    DONE,
    JS_CALC,
    JS_PARTIAL,
    JS_TESTS,
    OTHER,
    PACKAGE,
    PARTIAL,
    TESTS,
)
from testing.pytestcheck import PYTEST
from testing.statefolder import state_dir
from testing.valueproject import value_project

from tiergate.gate.checks import check_key
from tiergate.handlers import task_completed
from tiergate.loop.features import Feature
from tiergate.loop.state import AttemptRecord

ADD = "tests/test_calc.py::test_add"
MUL = "tests/test_calc.py::test_mul"
BROKEN_ADD = PARTIAL.replace("return a + b", "return a - b")  # mul done, add broken on the way
MUL_WRONG = CALC.replace("def mul(a, b):\n    raise NotImplementedError", "def mul(a, b):\n    return a + b")
CLAIM = "mul and div are done.\n\n<promise>DONE</promise>"


SESSION = "10571057-2222-3333-4444-555555555555"
PYTHON = {"calc.py": CALC, "tests/test_calc.py": TESTS, "tests/test_other.py": OTHER}
NODE = {"calc.js": JS_CALC, "test/calc.test.js": JS_TESTS, "package.json": PACKAGE}
START = "/tiergate:ralph implement mul and div in calc"


class TaskLoop(HookSession):
    """A loop on the calc project whose agent marks tasks of Claude Code's task list completed."""

    def complete(
        self, files: dict[str, str] | None = None, delete: tuple[str, ...] = (), **fields: Any
    ) -> subprocess.CompletedProcess[str]:
        """The agent's edits, then TaskUpdate setting task #1 completed: the hook's process, as it ended."""
        write(self.project, files or {})
        for path in delete:
            (self.project / path).unlink()
        task = {"task_id": "1", "task_subject": "Implement mul", "task_description": "make mul() correct"}
        return self.send(self.payload("TaskCompleted", **(task | fields)))

    def send(self, payload: dict[str, Any] | str) -> subprocess.CompletedProcess[str]:
        sent = payload if isinstance(payload, str) else json.dumps(payload)
        return self.run("hook", "TaskCompleted", stdin=sent)

    def last(self) -> dict[str, Any]:
        return self.decisions()[-1]


def task_loop(
    root: Path,
    check: str = PYTEST,
    config: str = "",
    files: dict[str, str] | None = None,
    start: str = START,
) -> TaskLoop:
    """The calc project (in Python unless `files` say otherwise) with `[checks] tests = check` and
    `config` after it, and a loop begun on it by the prompt `start`."""
    toml = f"[checks]\ntests = {json.dumps(check)}\n{config}"
    setup = {".tiergate.toml": toml, ".gitignore": "__pycache__/\n"}
    loop = TaskLoop(root, init_repo(root / "project", {**(files or PYTHON), **setup}), SESSION)
    loop.env["TIERGATE_BASELINE_AT_START"] = "1"  # as a user's loops do
    loop.hook("UserPromptSubmit", prompt=start)
    assert loop.loop().active
    loop.settle()  # the loop's baseline, begun in the background at its start
    return loop


def refused(done: subprocess.CompletedProcess[str]) -> str:
    """The refusal the model reads (the hook's stderr on exit 2); nothing on stdout."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == ""
    assert done.stderr.startswith('tiergate refused to mark task #1 ("Implement mul") completed')
    assert "The task stays open: fix what it broke, then mark it completed again." in done.stderr
    return done.stderr


def accepted(done: subprocess.CompletedProcess[str]) -> None:
    assert (done.returncode, done.stderr) == (0, ""), (done.returncode, done.stdout, done.stderr)


# Outside a loop --------------------------------------------------------------------------------------------


def test_without_a_loop_a_completed_task_passes_through_and_no_state_folder_is_made(tmp_path: Path) -> None:
    project = value_project(tmp_path, "exit 1\n")
    session = HookSession(tmp_path, project, "99999999-2222-3333-4444-555555555555")

    done = session.run(
        "hook", "TaskCompleted", stdin=json.dumps(session.payload("TaskCompleted", task_id="1"))
    )

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert not state_dir(project, session.env).exists()


def test_another_sessions_loop_does_not_check_this_sessions_tasks(tmp_path: Path) -> None:
    loop = task_loop(tmp_path)
    other = HookSession(tmp_path, loop.project, "99999999-2222-3333-4444-555555555555")
    write(loop.project, {"calc.py": BROKEN_ADD})

    done = other.run("hook", "TaskCompleted", stdin=json.dumps(other.payload("TaskCompleted", task_id="1")))

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert other.decisions() == [] and [r["decision"] for r in loop.decisions()] == ["start"]


def test_an_ended_loop_checks_no_task_and_logs_nothing(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    with_loop(project, phase="cancelled", ended_at=1.0)

    assert task_completed.handle(payload("TaskCompleted", task_id="1"), project) is None
    assert decisions(project) == []


def test_an_autopilots_done_features_checks_are_held_and_the_current_ones_are_its_work(
    tmp_path: Path,
) -> None:
    features = tuple(Feature(f"F0{n}", "t", "", (("api", f"sh f0{n}.sh"),)) for n in (1, 2, 3))
    done = (AttemptRecord("F01", passed=True),)
    loop = with_loop(a_project(tmp_path), features=features, approach=2, attempts=done)

    held, remaining = task_completed.acceptance_checks(loop)

    assert held == {check_key("F01 api", "sh f01.sh")} and remaining == {check_key("F02 api", "sh f02.sh")}
    assert task_completed.acceptance_checks(with_loop(a_project(tmp_path), "s2")) == (
        frozenset(),
        frozenset(),
    )


# Regressions refuse ----------------------------------------------------------------------------------------


def test_a_task_that_breaks_a_test_that_passed_when_the_loop_began_is_refused_naming_it(
    tmp_path: Path,
) -> None:
    loop = task_loop(tmp_path)
    before = loop.loop()

    text = refused(loop.complete({"calc.py": BROKEN_ADD}))

    assert f"  - check tests: {ADD} passed when the loop began and fails now: assert -1 == 3" in text
    assert DIV not in text  # still failing as it did: the loop's remaining work
    record = loop.last()
    assert (record["event"], record["decision"]) == ("TaskCompleted", "task-refused")
    assert (record["task_id"], record["task_subject"]) == ("1", "Implement mul")
    assert (
        record["reasons"][1]
        == f"regression: check tests: {ADD} passed when the loop began and fails now: assert -1 == 3"
    )
    assert record["gate"]["checks"][0]["failed_tests"] == [ADD, DIV]
    assert (record["phase"], record["iteration"]) == ("working", 1)
    assert loop.loop() == before  # a step claim: no iteration, no attempt, nothing stored


def test_tests_that_failed_when_the_loop_began_still_failing_one_another_way_are_accepted(
    tmp_path: Path,
) -> None:
    loop = task_loop(tmp_path)

    done = loop.complete({"calc.py": MUL_WRONG})  # mul: an assertion now, NotImplementedError then

    accepted(done)
    assert done.stdout == ""
    record = loop.last()
    assert record["decision"] == "task-accepted"
    assert record["gate"]["refuted"] is True  # a claim would be refuted: mul fails otherwise than at the base
    still = "remaining-work: check tests: 2 tests that failed when the loop began fail still"
    assert f"{still} (the same way or not)" in record["reasons"]


def test_a_deleted_test_is_refused_naming_it_whether_it_passed_or_failed_then(tmp_path: Path) -> None:
    loop = task_loop(tmp_path)
    without_add = TESTS.replace("def test_add():\n    assert add(1, 2) == 3\n\n\n", "")

    text = refused(loop.complete({"calc.py": PARTIAL, "tests/test_calc.py": without_add}))
    assert f"{ADD} passed when the loop began, not run now" in text

    without_div = TESTS.split("\n\n\ndef test_div", maxsplit=1)[0] + "\n"
    text = refused(loop.complete({"tests/test_calc.py": without_div}))
    assert f"{DIV} failed when the loop began, not run now" in text and ADD not in text


def test_a_passing_test_skipped_with_a_marker_is_refused_naming_it(tmp_path: Path) -> None:
    loop = task_loop(tmp_path)
    skipped = TESTS.replace("def test_add", "@pytest.mark.skip(reason='later')\ndef test_add")

    text = refused(loop.complete({"calc.py": PARTIAL, "tests/test_calc.py": skipped}))

    assert f"  - check tests: {ADD} passed when the loop began, skipped now" in text


def test_a_new_failing_test_for_a_later_step_is_accepted(tmp_path: Path) -> None:
    loop = task_loop(tmp_path)
    ahead = TESTS.replace("from calc import add, div, mul", "from calc import add, div, mul, pow_") + (
        "\n\ndef test_pow():\n    assert pow_(2, 3) == 8\n"
    )
    accepted(
        loop.complete(
            {
                "calc.py": PARTIAL + "\n\ndef pow_(a, b):\n    raise NotImplementedError\n",
                "tests/test_calc.py": ahead,
            }
        )
    )

    assert loop.last()["decision"] == "task-accepted"
    assert any(
        r.startswith("new-tests: check tests: 1 test new since the loop began fails")
        for r in loop.last()["reasons"]
    )


def test_a_lint_check_that_passed_when_the_loop_began_and_fails_now_is_refused(tmp_path: Path) -> None:
    lint = "if grep -n 'print(' calc.py; then echo 'calc.py: error: a print call'; exit 1; fi\n"
    loop = task_loop(tmp_path, config='lint = "sh lint.sh"\n', files={**PYTHON, "lint.sh": lint})

    text = refused(loop.complete({"calc.py": PARTIAL.replace("return a + b", "print(a)\n    return a + b")}))

    assert "  - check lint: passed when the loop began and fails now" in text
    assert "tests/" not in text.split("The task stays open")[0]  # the tests broke nothing


def test_a_check_that_hangs_now_is_refused_one_that_hung_when_the_loop_began_is_not(tmp_path: Path) -> None:
    # The check finishes at once unless a file says to hang: the change brings the hang, or it was there.
    hang = 'slow = "if [ -f hang.flag ]; then sleep 60; fi"\n\n[gate]\ntimeout_seconds = 2\n'
    brought = task_loop(tmp_path / "brought", config=hang)
    there = task_loop(tmp_path / "there", config=hang, files={**PYTHON, "hang.flag": "hang\n"})

    refusal = brought.complete({"calc.py": PARTIAL, "hang.flag": "hang\n"})
    done = there.complete({"calc.py": PARTIAL})

    assert "check slow: runs past its whole timeout now (a hang or a slowdown the change brought" in (
        refused(refusal)
    )
    accepted(done)
    assert (
        "remaining-work: check slow failed when the loop began and does not finish now"
        in (there.last()["reasons"])
    )


# The gate's kept results -----------------------------------------------------------------------------------


def counting(counter: Path) -> str:
    """The tests check, writing a line to `counter` (outside the repository) each time it runs."""
    return f"echo run >> {counter} && {PYTEST}"


def test_an_unchanged_workspace_reuses_a_tasks_results_at_the_next_task_never_at_a_claim(
    tmp_path: Path,
) -> None:
    counter = tmp_path / "runs.txt"
    loop = task_loop(tmp_path, counting(counter))

    accepted(loop.complete({"calc.py": DONE}))
    ran = counter.read_text().count("run")
    accepted(loop.complete(task_id="2", task_subject="Implement div"))
    assert counter.read_text().count("run") == ran
    assert loop.last()["gate"]["reused"] is True

    answer = loop.hook("Stop", last_assistant_message=CLAIM)

    # A claim runs its own checks: a task may be marked completed again and again until a flaky test
    # passes once, and that run must not stand in for the claim's.
    assert "```tiergate-spawn" in answer["reason"]  # the claim goes on to its verifier
    # Its run, and the task's tests again: each of the two alone, and both in reverse order.
    assert counter.read_text().count("run") == ran + 1 + 3
    assert [r for r in loop.decisions() if r["event"] == "Stop"][-1]["gate"]["reused"] is False
    # In the verifying phase too, a task is a step claim.
    assert loop.loop().phase == "verifying"
    assert "test_add passed when the loop began and fails now" in refused(
        loop.complete({"calc.py": BROKEN_ADD})
    )


def test_a_task_after_a_claim_on_the_same_workspace_reuses_the_claims_results(tmp_path: Path) -> None:
    counter = tmp_path / "runs.txt"
    loop = task_loop(tmp_path, counting(counter))
    write(loop.project, {"calc.py": DONE})
    loop.hook("Stop", last_assistant_message=CLAIM)
    ran = counter.read_text().count("run")

    accepted(loop.complete())

    assert counter.read_text().count("run") == ran
    assert loop.last()["gate"]["reused"] is True


# What is not a task to check --------------------------------------------------------------------------------


def test_bad_input_is_one_line_exit_0_and_changes_nothing(tmp_path: Path) -> None:
    loop = task_loop(tmp_path)
    write(loop.project, {"calc.py": BROKEN_ADD})
    before, logged = loop.loop(), loop.decisions()

    no_id = loop.send({k: v for k, v in loop.payload("TaskCompleted").items() if k != "task_id"})
    not_json = loop.send('{"session_id": "10571057-')

    for done, why in ((no_id, "task_id"), (not_json, "its input is not JSON")):
        assert (done.returncode, done.stderr) == (0, "")
        [line] = done.stdout.splitlines()
        said = json.loads(line)["systemMessage"]
        assert said.startswith("tiergate: ignored the TaskCompleted event: ") and why in said
    assert loop.loop() == before and loop.decisions() == logged


def test_a_damaged_loop_state_lets_the_task_through_saying_so(tmp_path: Path) -> None:
    loop = task_loop(tmp_path)
    (state_dir(loop.project, loop.env) / "loops" / f"{loop.session_id}.json").write_text('{"active": true}')

    done = loop.complete({"calc.py": BROKEN_ADD})

    accepted(done)
    said = json.loads(done.stdout)["systemMessage"]
    assert said.startswith(
        "tiergate: task #1 was marked completed unchecked: the loop's state is not trustworthy"
    )
    assert loop.last()["decision"] == "task-unchecked"


def test_an_adopted_loops_tasks_are_step_claims_too(tmp_path: Path) -> None:
    loop = task_loop(tmp_path, start="/ralph-loop:ralph-loop 'implement mul' --completion-promise DONE")
    assert loop.loop().adopted == "ralph-loop"

    assert f"{ADD} passed when the loop began and fails now" in refused(
        loop.complete({"calc.py": BROKEN_ADD})
    )


# JavaScript (node --test) ----------------------------------------------------------------------------------


def test_a_node_task_that_breaks_a_passing_test_is_refused_naming_it(tmp_path: Path) -> None:
    loop = task_loop(tmp_path, "node --test", files=NODE)

    text = refused(loop.complete({"calc.js": JS_PARTIAL.replace("(a, b) => a + b", "(a, b) => a - b")}))

    assert "  - check tests: test/calc.test.js > calc > adds passed when the loop began and fails now" in text
    assert "divides" not in text


def test_a_node_task_leaving_the_failing_tests_failing_another_way_is_accepted(tmp_path: Path) -> None:
    loop = task_loop(tmp_path, "node --test", files=NODE)
    wrong = JS_CALC.replace(
        "exports.mul = () => { throw new Error('not implemented'); };", "exports.mul = (a, b) => a + b;"
    )

    accepted(loop.complete({"calc.js": wrong}))

    assert loop.last()["decision"] == "task-accepted"
