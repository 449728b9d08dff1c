"""`tiergate demo`: the whole loop told on the embedded example, through the real hook entry points."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from testing.tiergatecli import demo, demo_steps, tiergate
from testing.warmdemo import demo_in_process

from tiergate.commands.demo import next_step, wants_color
from tiergate.demo import example, story


def test_the_demo_tells_the_loop_step_by_step_and_exits_0(tmp_path: Path) -> None:
    result = demo(tmp_path / "tmp")

    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""
    out = result.stdout
    assert "\033[" not in out  # not a terminal: no colour
    for alarming in ("Traceback", "internal error", "ignored the", "FAILED at"):
        assert alarming not in out
    told = demo_steps(out)
    assert sorted(told) == list(range(1, 13))
    assert "/tiergate:ralph Fix statkit's bug" in told[1]
    assert "tiergate (UserPromptSubmit, exit 0): loop started (at most 10 iterations" in told[1]
    assert 'blocks the stop: "tiergate loop, iteration 2/10: keep working on the task."' in told[2]
    # The first attempt breaks a test that passed when the loop began: the gate refutes it at once.
    assert "tiergate (Stop, exit 0): blocks the stop at once, no verifier spawned" in told[3]
    assert (
        "new failures in 1 check of 1, with failing tests that did not fail when the loop began (the check "
        "failed then too)" in " ".join(told[3].split())
    )
    assert "new failing tests: tests.test_median.MedianTest.test_input_is_left_unchanged" in told[3]
    assert "tiergate-spawn" not in told[3]
    # The second one fails only what failed before the loop: the gate lets a verifier judge it, but not
    # as if the claim were green: small and fully covered, it is STANDARD, not LIGHT.
    assert (
        "tiergate (Stop, exit 0): tier STANDARD for 1 file, 5 lines changed since the loop began" in told[4]
    )
    why = " ".join(told[4].split())
    assert "why: pre-existing-failures: check tests (failing tests: tests.test_median.MedianTest." in why
    assert (
        "small-and-tested otherwise (1 file, 5 lines, test coverage full), but not LIGHT -> STANDARD" in why
    )
    assert "subagent_type tiergate:architect-medium, model sonnet" in told[4]
    assert "The packet leads with the gate's one failure" in told[5]
    assert "tiergate (SubagentStart, exit 0): hands it the evidence packet for verification v1" in told[5]
    assert "tests: exit 1, pre-existing: failed at the baseline too" in told[5]
    # Wrapped, not cut: the line's words are all there (it used to end in "b…").
    assert "baseline run in a worktree of the base); failing tests:" in " ".join(told[5].split())
    assert '"lsp_diagnostics clean", "build pass", "test showing the fix passes now"' in told[5]
    # The verifier's FAIL comes from really running the example's tests on the wrong fix.
    assert "$ python -m unittest -v -> Ran 5 tests: FAILED (failures=1)" in told[6]
    assert "test_even_count_unsorted: AssertionError: 3 != 2.5" in told[6]
    assert (
        "(SubagentStop, exit 0): verification v1: tiergate:architect-medium (sonnet) returned FAIL" in told[6]
    )
    # Its critique reaches Claude at the next Stop, with the intervention: a retry with the reason.
    assert 'blocks the stop: "tiergate loop, iteration 4/10' in told[7]
    assert "Attempt 2 of 3 at Fix statkit's bug" in told[7]  # the gate's refutation was attempt 1
    assert "Critique: test_even_count_unsorted fails: AssertionError: 3 != 2.5" in told[7]
    assert "subagent_type tiergate:architect-low" in told[8]
    assert "evidence packet for verification v2" in told[9]
    assert (
        'tiergate (SubagentStop, exit 2): refuses it; exit code 2 sends the verifier back: hedging ("should")'
        in told[9]
    )
    assert "Ran 5 tests: OK" in told[10]
    assert "(SubagentStop, exit 0): verification v2: tiergate:architect-low (haiku) returned PASS" in told[10]
    assert "tiergate (Stop, exit 0): no block: loop finished" in told[11]
    assert re.search(
        r"session demo-\w+ +passed \(finished\) +iteration 4/10 +tier LIGHT +verdict PASS", told[11]
    )
    assert re.search(r"v1 +STANDARD +tiergate:architect-medium \(sonnet\) +FAIL +1 file, 5 lines", told[12])
    assert re.search(r"v2 +LIGHT +tiergate:architect-low \(haiku\) +PASS +1 file, 5 lines", told[12])
    assert (
        "total: 2 verifiers ran, cost 6x; always THOROUGH: 40x (85% less), in [costs] weights, not money"
        in told[12]
    )
    assert "To look at the loop as a page, run `tiergate demo --keep`: it keeps the example and writes" in out
    assert list((tmp_path / "tmp").iterdir()) == []
    # Nothing of the demo in the user's state home: its state and sealing key were in its own folder.
    assert not (Path(os.environ["XDG_STATE_HOME"]) / "tiergate").exists()  # nothing left, no key either


def test_keep_leaves_the_example_with_its_finished_loop_and_transcripts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The demo's own processes are the test above's: this one is about what --keep leaves.
    result = demo_in_process(tmp_path / "tmp", "--keep", monkeypatch=monkeypatch, capsys=capsys)

    assert result.returncode == 0, result.stdout + result.stderr
    [kept] = (tmp_path / "tmp").iterdir()
    assert f"Kept: {kept}:" in result.stdout
    repo = kept / example.NAME
    assert (repo / example.MODULE).read_text() == example.RIGHT_FIX
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout
    assert status == f" M {example.MODULE}\n"
    assert (repo / ".tiergate.toml").is_file()
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "TIERGATE_STATE_DIR")}
    status_json = tiergate(repo, "status", "--json", environ=env)
    assert status_json.returncode == 0, status_json.stderr
    loops = json.loads(status_json.stdout)
    assert [(entry["phase"], entry["verdict"], entry["tier"]) for entry in loops] == [
        ("passed", "PASS", "LIGHT")
    ]
    verifiers = sorted(kept.glob(f"claude/projects/*/{loops[0]['session_id']}/subagents/agent-*.jsonl"))
    assert len(verifiers) == 2
    for transcript in verifiers:
        commands = [
            block["input"]["command"]
            for record in map(json.loads, transcript.read_text().splitlines())
            if record["type"] == "assistant"
            for block in record["message"]["content"]
            if block["type"] == "tool_use" and block["name"] == "Bash"
        ]
        assert commands == ["python -m unittest -v", "python -m compileall -q statkit tests"]


def test_colour_only_on_a_terminal_without_no_color(tmp_path: Path) -> None:
    main, other = os.openpty()
    with os.fdopen(other, "w") as terminal, (tmp_path / "file").open("w") as file:
        assert wants_color(terminal, {})
        assert wants_color(terminal, {"NO_COLOR": ""})
        assert not wants_color(terminal, {"NO_COLOR": "1"})
        assert not wants_color(file, {})
    os.close(main)


def fake_claude(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "claude").write_text("#!/bin/sh\nexit 0\n")
    (folder / "claude").chmod(0o755)
    return folder


def test_without_claude_code_the_demo_ends_with_how_to_get_it_not_a_slash_command(tmp_path: Path) -> None:
    line = next_step({"HOME": str(tmp_path), "PATH": str(tmp_path / "empty")})
    assert "`claude` is not on PATH" in line
    assert "npm install -g @anthropic-ai/claude-code" in line
    assert line.index("install.sh") < line.index("/tiergate:ralph")


def test_without_the_plugin_registered_the_demo_ends_with_registering_it(tmp_path: Path) -> None:
    tools = fake_claude(tmp_path / "tools")
    line = next_step({"HOME": str(tmp_path / "home"), "PATH": str(tools)})
    assert line.startswith("Next: the tiergate plugin is not registered in Claude Code: run install.sh again")


def test_with_the_plugin_installed_the_demo_ends_with_the_slash_command(tmp_path: Path) -> None:
    tools = fake_claude(tmp_path / "tools")
    plugins = tmp_path / "config" / "plugins"
    plugins.mkdir(parents=True)
    record = {"version": 2, "plugins": {"tiergate@tiergate-local": [{"version": "0.1.0"}]}}
    (plugins / "installed_plugins.json").write_text(json.dumps(record))
    line = next_step({"CLAUDE_CONFIG_DIR": str(tmp_path / "config"), "PATH": str(tools)})
    assert line == story.NEXT_STEP
