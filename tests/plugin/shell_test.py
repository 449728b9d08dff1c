"""The plugin shell: manifests the real CLI accepts, hooks.json per the shared contract, the verifier agents
and slash commands tiergate's texts name, and the POSIX hook launcher on its own."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from testing.claude.cli import claude_bin
from testing.statefolder import state_dir, state_env

from tiergate.hook import registry
from tiergate.tier.policy import PLUGIN, VERIFIERS, Tier

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "hooks" / "tiergate-hook"
HOOK_COMMAND = "${CLAUDE_PLUGIN_ROOT}/hooks/tiergate-hook"
EVENTS = set(registry.EVENTS)
HEDGES = ("should", "probably", "seems to", "likely", "might")


def claude(home: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC"))}
    return subprocess.run(
        [str(claude_bin()), *args],
        cwd=ROOT,
        env={**env, "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
        check=check,
    )


def frontmatter(path: Path) -> tuple[dict[str, str], str]:
    """The `key: value` lines between the opening `---` fences, and the body after them."""
    text = path.read_text()
    assert text.startswith("---\n"), path
    head, _, body = text[4:].partition("\n---\n")
    fields = dict(line.split(": ", 1) for line in head.splitlines())
    return fields, body


def hooks_json() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "hooks" / "hooks.json").read_text())
    return data


def handlers(event: str) -> list[tuple[str | None, dict[str, Any]]]:
    return [(group.get("matcher"), h) for group in hooks_json()["hooks"][event] for h in group["hooks"]]


# Manifests, through the real CLI -----------------------------------------------------------------------


@pytest.mark.e2e
def test_the_checkout_validates_strictly_as_a_marketplace_and_as_a_plugin(tmp_path: Path) -> None:
    for target in (".", ".claude-plugin/plugin.json", ".claude-plugin/marketplace.json"):
        result = claude(tmp_path, "plugin", "validate", "--strict", target, check=False)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "✔ Validation passed" in result.stdout


@pytest.mark.e2e
def test_the_cli_sees_every_agent_command_and_hook_of_the_plugin(tmp_path: Path) -> None:
    result = claude(tmp_path, "plugin", "validate", "--strict", "--json", ".claude-plugin/plugin.json")
    report = json.loads(result.stdout)
    assert report["manifest"]["errors"] == report["manifest"]["warnings"] == []
    provides = report["provides"]
    assert sorted(provides["agents"]) == [
        "tiergate:architect",
        "tiergate:architect-low",
        "tiergate:architect-medium",
    ]
    assert sorted(provides["commands"]) == [
        "tiergate:autopilot",
        "tiergate:cancel",
        "tiergate:ralph",
        "tiergate:status",
    ]
    assert {h["event"] for h in provides["hooks"]} == EVENTS
    assert all(h["command"] == HOOK_COMMAND and h["args"] == [h["event"]] for h in provides["hooks"])


@pytest.mark.e2e
def test_the_local_marketplace_offers_the_plugin_from_its_own_root(tmp_path: Path) -> None:
    claude(tmp_path, "plugin", "marketplace", "add", str(ROOT))
    listing = json.loads(claude(tmp_path, "plugin", "list", "--available", "--json").stdout)
    offered = {p["pluginId"]: p for p in listing["available"]}
    assert offered["tiergate@tiergate-local"]["source"] == "./"


def test_the_manifest_matches_the_package_and_leaves_hooks_json_to_auto_loading() -> None:
    manifest = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert manifest["name"] == PLUGIN == "tiergate"
    assert manifest["version"] == pyproject["project"]["version"]
    assert isinstance(manifest["author"], dict) and manifest["author"]["name"]
    # Naming the default hooks file again makes Claude Code load every hook twice.
    assert "hooks" not in manifest


# hooks.json ----------------------------------------------------------------------------------------------


def test_every_event_runs_the_launcher_in_exec_form_with_its_own_name() -> None:
    assert set(hooks_json()["hooks"]) == EVENTS
    for event in EVENTS:
        (only,) = handlers(event)
        _, handler = only
        assert handler["type"] == "command"
        assert (handler["command"], handler["args"]) == (HOOK_COMMAND, [event])


def test_timeouts_leave_room_for_the_projects_checks_and_respect_the_cli_budgets() -> None:
    timeout = {event: handlers(event)[0][1].get("timeout") for event in EVENTS}
    assert timeout["Stop"] == timeout["SubagentStop"] == 600
    assert timeout["UserPromptSubmit"] == 30
    # SessionEnd has 1.5 s whatever a plugin asks for; promising more would only mislead.
    assert timeout["SessionEnd"] is None
    assert handlers("Stop")[0][1]["statusMessage"] == "tiergate: checking the completion claim"


def test_only_tiergates_own_verifiers_reach_the_subagent_hooks() -> None:
    for event in ("SubagentStart", "SubagentStop"):
        ((matcher, _),) = handlers(event)
        assert matcher is not None
        pattern = re.compile(matcher)
        for verifier in VERIFIERS.values():
            assert pattern.search(verifier.subagent_type)
        # The CLI's compaction forks stop with an empty agent_type; other agents are not tiergate's.
        for other in ("", "general-purpose", "Explore", "other-plugin:architect"):
            assert not pattern.search(other)


# Verifier agents ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("tier", list(VERIFIERS), ids=str)
def test_each_tiers_verifier_exists_on_its_model_with_read_only_tools(tier: Tier) -> None:
    verifier = VERIFIERS[tier]
    fields, body = frontmatter(ROOT / "agents" / f"{verifier.agent}.md")
    assert fields["name"] == verifier.agent
    assert fields["model"] == verifier.model
    assert [t.strip() for t in fields["tools"].split(",")] == ["Read", "Grep", "Glob", "Bash"]
    assert {"Edit", "Write", "NotebookEdit"} <= {t.strip() for t in fields["disallowedTools"].split(",")}
    assert fields["description"]
    assert f"## Depth: {tier}" in body


def test_the_verifiers_share_one_contract_and_differ_only_in_depth_and_frontmatter() -> None:
    bodies = [frontmatter(ROOT / "agents" / f"{v.agent}.md")[1] for v in VERIFIERS.values()]
    without_depth = {re.sub(r"## Depth.*?(?=## Verdict)", "", b, flags=re.DOTALL) for b in bodies}
    assert len(without_depth) == 1
    (contract,) = without_depth
    for claim in ("Fixed", "Implemented", "Refactored", "Debugged"):
        assert f"- {claim}:" in contract
    for hedge in HEDGES:
        assert f'"{hedge}"' in contract
    for word in ("VERIFIED", "PARTIAL", "MISSING", "PASS", "FAIL", "INCOMPLETE", "disqualified"):
        assert word in contract
    block = re.search(r"```tiergate-verdict\n(?P<json>.*?)\n```", contract, re.DOTALL)
    assert block is not None
    assert set(json.loads(block["json"])) == {"verification_id", "verdict", "criteria", "critique"}


# Slash commands ----------------------------------------------------------------------------------------


def test_the_ralph_command_hands_claude_the_task_and_the_completion_promise() -> None:
    fields, body = frontmatter(ROOT / "commands" / "ralph.md")
    assert fields["argument-hint"].startswith("<task> [--max-iterations N]")
    assert fields["description"]
    assert body.count("$ARGUMENTS") == 1
    assert "<promise>DONE</promise>" in body
    assert "tiergate-verdict" in body


def test_cancel_and_status_describe_themselves_and_status_runs_the_command() -> None:
    cancel, cancel_body = frontmatter(ROOT / "commands" / "cancel.md")
    status, status_body = frontmatter(ROOT / "commands" / "status.md")
    assert cancel["description"] and status["description"]
    assert "cancelled" in cancel_body
    assert "!`tiergate status`" in status_body
    assert status["allowed-tools"] == "Bash(tiergate status:*)"


# The launcher, on its own ------------------------------------------------------------------------------


def launch(event: str, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    clean = {"PATH": "/usr/bin:/bin", **env}
    return subprocess.run(
        [str(LAUNCHER), event],
        input=stdin,
        env=clean,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def venv_link(at: Path) -> Path:
    """A venv at `at` holding tiergate: a link to the one running these tests."""
    at.parent.mkdir(parents=True, exist_ok=True)
    at.symlink_to(Path(sys.prefix), target_is_directory=True)
    return at


def told_by_tiergate(result: subprocess.CompletedProcess[str], event: str) -> bool:
    """Whether tiergate itself (not the launcher's fallback) answered: it names the bad event it got."""
    return f"got '{event}'" in json.loads(result.stdout)["systemMessage"]


def test_without_any_tiergate_python_the_launcher_fails_open_with_one_json_line(tmp_path: Path) -> None:
    result = launch("Stop", {"HOME": str(tmp_path), "CLAUDE_PLUGIN_ROOT": str(tmp_path)})
    assert result.returncode == 0
    assert result.stderr == ""
    (line,) = result.stdout.splitlines()
    message = json.loads(line)
    assert list(message) == ["systemMessage"]
    assert "not installed" in message["systemMessage"]
    assert "run install.sh" in message["systemMessage"]


def test_a_bad_tiergate_python_falls_through_to_the_plugins_venv(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    venv_link(plugin / ".venv")
    env = {
        "HOME": str(tmp_path),
        "TIERGATE_PYTHON": str(tmp_path / "no" / "python"),
        "CLAUDE_PLUGIN_ROOT": str(plugin),
    }
    result = launch("NoSuchEvent", env)
    assert result.returncode == 0
    assert told_by_tiergate(result, "NoSuchEvent")


def test_a_venv_without_tiergate_is_skipped_for_tiergate_home_even_with_spaces_in_paths(
    tmp_path: Path,
) -> None:
    plugin = tmp_path / "my plugins" / "tiergate"
    (plugin / ".venv" / "bin").mkdir(parents=True)
    (plugin / ".venv" / "bin" / "python").symlink_to(sys.executable)
    home = tmp_path / "tiergate home"
    venv_link(home / "venv")
    env = {"HOME": str(tmp_path), "CLAUDE_PLUGIN_ROOT": str(plugin), "TIERGATE_HOME": str(home)}
    assert told_by_tiergate(launch("Elsewhere", env), "Elsewhere")


def test_the_default_tiergate_home_is_under_home(tmp_path: Path) -> None:
    venv_link(tmp_path / "a home" / ".local" / "share" / "tiergate" / "venv")
    assert told_by_tiergate(launch("Default", {"HOME": str(tmp_path / "a home")}), "Default")


def test_tiergate_python_with_spaces_in_its_path_is_used_first(tmp_path: Path) -> None:
    wrapper = tmp_path / "py dir" / "python"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    plugin = tmp_path / "plugin"
    (plugin / ".venv" / "bin").mkdir(parents=True)
    env = {"HOME": str(tmp_path), "TIERGATE_PYTHON": str(wrapper), "CLAUDE_PLUGIN_ROOT": str(plugin)}
    assert told_by_tiergate(launch("Spaced", env), "Spaced")


def test_stdin_reaches_tiergate_through_the_launcher(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    state_dir(project).mkdir(parents=True)
    payload = {"session_id": "not a valid id", "cwd": str(project), "hook_event_name": "SessionStart"}
    env = {
        "HOME": str(tmp_path),
        "TIERGATE_PYTHON": sys.executable,
        "CLAUDE_PROJECT_DIR": str(project),
        **state_env(),
    }
    result = launch("SessionStart", env, stdin=json.dumps(payload))
    assert result.returncode == 0
    assert json.loads(result.stdout) == {
        "systemMessage": "tiergate: ignored the SessionStart event: its session_id is not a plain identifier"
    }


def test_the_exit_code_and_streams_of_the_python_pass_straight_through(tmp_path: Path) -> None:
    # exec, not a subshell: a blocking exit 2 from the hook must reach Claude Code unchanged.
    python = tmp_path / "python"
    python.write_text('#!/bin/sh\necho "$*"\necho "to stderr" >&2\nexit 2\n')
    python.chmod(0o755)
    result = launch("Stop", {"HOME": str(tmp_path), "TIERGATE_PYTHON": str(python)})
    entry = "import sys; from tiergate.hook.entry import main; sys.exit(main(sys.argv[1:]))"
    assert (result.returncode, result.stdout, result.stderr) == (2, f"-I -c {entry} Stop\n", "to stderr\n")


def test_a_project_file_cannot_shadow_a_module_the_hook_imports(tmp_path: Path) -> None:
    # The hook runs in the user's project; its json.py or typing.py must not replace the standard library's.
    project = tmp_path / "project"
    project.mkdir()
    state_dir(project).mkdir(parents=True)
    for module in ("json", "typing", "tiergate"):
        (project / f"{module}.py").write_text('raise SystemExit("shadowed")\n')
    payload = json.dumps({"session_id": "s1", "cwd": str(project), "hook_event_name": "Stop"})
    result = subprocess.run(
        [str(LAUNCHER), "Stop"],
        input=payload,
        cwd=project,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "TIERGATE_PYTHON": sys.executable,
            "CLAUDE_PROJECT_DIR": str(project),
            **state_env(),
        },
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
