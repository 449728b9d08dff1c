"""A check that cannot run is never evidence, through the real hook entry point in real git repositories:
a claim whose check's program is missing (at the base too) is blocked, saying so to Claude and to the
user, and no verifier is spawned; repeated, the loop's interventions end it with that reason; an empty
check command blocks the claim as a configuration error, and a second one in a row halts the loop."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from testing.gitrepo import init_repo, write
from testing.hooksession import HookSession
from testing.statefolder import state_dir

from tiergate.loop import store as state
from tiergate.project import Project

SESSION = "99999999-2222-3333-4444-555555555555"
CLAIM = "value.txt is right now.\n\n<promise>DONE</promise>"
CHECKS = '[checks]\ntests = "grep -qx good value.txt"\nlint = "no-such-program-xyz ."\n'
MISSING = "could not run: `no-such-program-xyz` is not on PATH"


class Loop(HookSession):
    def __init__(self, root: Path, config: str) -> None:
        files = {"value.txt": "good\n", ".tiergate.toml": config, ".gitignore": ".tiergate/\n"}
        super().__init__(root, init_repo(root / "project", files), SESSION)

    def start(self) -> None:
        answer = self.hook(
            "UserPromptSubmit", prompt="/tiergate:ralph make value.txt right --max-iterations 8"
        )
        assert "loop started" in answer["systemMessage"]

    def stop(self, message: str) -> dict[str, Any]:
        return self.hook("Stop", last_assistant_message=message)


def test_a_claim_whose_check_could_not_run_is_blocked_and_the_user_told_even_if_it_never_ran_at_the_base(
    tmp_path: Path,
) -> None:
    loop = Loop(tmp_path, CHECKS)  # the lint check's program is missing at the base as well
    loop.start()
    write(loop.project, {"value.txt": "good\n", "notes.txt": "the work\n"})

    answer = loop.stop(CLAIM)

    assert answer["decision"] == "block"
    reason = answer["reason"]
    assert "could not run, so no evidence" in reason
    assert f"COULD NOT RUN: lint `no-such-program-xyz .`: {MISSING}" in reason
    assert "Pre-existing" not in reason
    assert "tiergate-spawn" not in reason and "no verifier was spawned" in reason
    assert f"lint (`no-such-program-xyz .`): {MISSING}" in answer["systemMessage"]
    assert "A check that cannot run is no evidence" in answer["systemMessage"]
    current = loop.loop()
    assert current.verification is None and current.phase != "verifying"
    [record] = [r for r in loop.decisions() if r["decision"] == "gate-refuted"]
    lint = next(c for c in record["gate"]["checks"] if c["name"] == "lint")
    tests = next(c for c in record["gate"]["checks"] if c["name"] == "tests")
    assert (lint["status"], lint["standing"]) == ("not_found", "new")
    assert tests["standing"] == "passed"


def test_claiming_again_and_again_with_a_check_that_cannot_run_ends_the_loop_with_that_reason(
    tmp_path: Path,
) -> None:
    loop = Loop(tmp_path, CHECKS)
    loop.start()
    answers = []
    for attempt in range(12):
        write(loop.project, {"value.txt": "good\n", "notes.txt": f"attempt {attempt}\n"})
        answers.append(loop.stop(CLAIM))
        if loop.loop().phase == "halted":
            break
    last = answers[-1]
    assert loop.loop().phase == "halted", [a.get("decision") for a in answers]
    assert all(a.get("decision") == "block" for a in answers[:-1])
    assert "decision" not in last  # the halt lets the stop through; the loop is not finalized
    assert "loop halted" in last["systemMessage"]
    assert MISSING in last["systemMessage"]
    assert not [r for r in loop.decisions() if r["decision"] in ("finalize", "request-verification")]
    assert all("tiergate-spawn" not in a.get("reason", "") for a in answers)


def test_a_check_command_emptied_during_the_loop_is_a_change_the_kept_check_judges(tmp_path: Path) -> None:
    loop = Loop(tmp_path, '[checks]\ntests = "grep -qx good value.txt"\n')
    loop.start()
    write(loop.project, {".tiergate.toml": '[checks]\ntests = "   "\n', "value.txt": "bad\n"})

    answer = loop.stop(CLAIM)

    assert answer["decision"] == "block" and "tiergate-spawn" not in answer["reason"]
    assert "the command is empty" not in answer["reason"]
    assert "grep -qx good value.txt" in answer["reason"]  # the loop's own check ran, and refuted


def test_an_empty_check_command_blocks_the_claim_with_the_configuration_error_then_halts(
    tmp_path: Path,
) -> None:
    loop = Loop(tmp_path, '[checks]\ntests = "grep -qx good value.txt"\n')
    loop.start()
    line = "the loop's kept configuration (from .tiergate.toml): [checks] tests: the command is empty"
    kept = loop.loop()  # damaged on disk, where only tiergate should write
    broken = replace(kept, config={**(kept.config or {}), "checks": {"tests": "   "}})
    state.update(Project(loop.project, state_dir(loop.project)), SESSION, lambda _: (broken, None))

    first = loop.stop(CLAIM)

    assert first["decision"] == "block"
    assert line in first["reason"] and "tiergate-spawn" not in first["reason"]
    assert line in first["systemMessage"]
    assert loop.loop().verification is None
    second = loop.stop(CLAIM)
    assert "decision" not in second
    assert "loop halted" in second["systemMessage"] and line in second["systemMessage"]
    assert loop.loop().phase == "halted"


def test_a_loop_does_not_start_on_an_empty_check_command(tmp_path: Path) -> None:
    loop = Loop(tmp_path, '[checks]\ntests = ""\n')
    started = loop.run("ralph", "start", "make value.txt right")
    assert started.returncode != 0
    assert started.stderr.strip() == "tiergate: .tiergate.toml: [checks] tests: the command is empty"
    answer = loop.hook("UserPromptSubmit", prompt="/tiergate:ralph make value.txt right")
    assert "the command is empty" in answer.get("systemMessage", "") + answer.get("reason", "")
    assert loop.run("status", "--json").stdout.strip() in ("", "[]")
