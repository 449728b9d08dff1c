"""A loop's rules are the ones it started with, through the real hook entry point in real git
repositories: the agent's edit of `.tiergate.toml` during the loop (a check switched off, a keyword that
asks for LIGHT, higher LIGHT thresholds) is a change to verify, THOROUGH as a security path, and never a
change of the gate: the loop's own failing check still runs and refutes. The rules it runs with are
shown by `tiergate status --json`."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from testing import runcount
from testing.gitrepo import init_repo, write
from testing.hooksession import HookSession

SESSION = "77777777-2222-3333-4444-555555555555"
CLAIM = "the value is right now.\n\n<promise>DONE</promise>"
CONFIG = '[checks]\ntests = "sh check.sh"\n'
CHECK = """\
mktemp "$RUNS_LOG/run-XXXXXX" > /dev/null
if grep -qx good value.txt; then echo "test_value ... ok"; exit 0; fi
echo "FAIL: test_value (checks.ValueTest)"
exit 1
"""
# What the agent writes into the workspace's configuration during the loop.
GATE_OFF = '[checks]\ntests = "true"\n'
LIGHTER = (
    '[checks]\ntests = "sh check.sh"\n\n[keywords]\nlight = ["the"]\n\n'
    "[tiers]\nlight_files_below = 1000\nlight_lines_below = 100000\nthorough_files_above = 1000\n\n"
    "[patterns]\nsecurity = []\n"
)


class Loop(HookSession):
    def __init__(self, root: Path, config: str = CONFIG) -> None:
        files = {
            "value.txt": "good\n",
            "check.sh": CHECK,
            ".tiergate.toml": config,
            ".gitignore": ".tiergate/\n",
        }
        super().__init__(root, init_repo(root / "project", files), SESSION)
        self.runs = root / "runs"
        self.runs.mkdir()
        self.env["RUNS_LOG"] = str(self.runs)

    def start(self) -> None:
        answer = self.hook("UserPromptSubmit", prompt="/tiergate:ralph make the value right")
        assert "loop started" in answer["systemMessage"]

    def stop(self, message: str) -> dict[str, Any]:
        return self.hook("Stop", last_assistant_message=message)

    def checks_run(self) -> int:
        return runcount.runs(self.runs)

    def last_claim(self) -> dict[str, Any]:
        return [r for r in self.decisions() if r.get("event") == "Stop"][-1]


def test_a_check_switched_off_in_the_workspace_still_runs_and_refutes(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {".tiergate.toml": GATE_OFF, "value.txt": "bad\n"})  # and the value broken

    answer = loop.stop(CLAIM)

    assert answer["decision"] == "block" and "tiergate-spawn" not in answer["reason"]
    assert "FAIL: test_value" in answer["reason"]
    assert loop.checks_run() == 2  # the loop's `sh check.sh` (here and at the base), not `true`
    assert loop.loop().verification is None


def test_the_edited_configuration_is_a_security_change_verified_thoroughly(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {".tiergate.toml": GATE_OFF, "notes.txt": "done\n"})

    answer = loop.stop(CLAIM)

    assert "```tiergate-spawn" in answer["reason"]
    assert loop.checks_run() == 2  # the loop's check, on the claim and at the base (its baseline)
    assert loop.loop().tier == "THOROUGH"
    reasons = " ".join(loop.last_claim()["reasons"])
    assert ".tiergate.toml" in reasons and "security" in reasons


def test_a_light_keyword_and_higher_thresholds_added_during_the_loop_change_no_tier(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {".tiergate.toml": LIGHTER, "notes.txt": "done\n"})

    loop.stop(CLAIM)

    current = loop.loop()
    assert current.tier == "THOROUGH" and current.verification is not None
    assert current.verification.model != "haiku"
    reasons = " ".join(loop.last_claim()["reasons"])
    assert "keyword" not in reasons and ".tiergate.toml" in reasons


def test_status_shows_the_rules_the_loop_runs_with_not_the_files(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {".tiergate.toml": LIGHTER})

    shown = json.loads(loop.run("status", "--json").stdout)

    assert [(s["config_source"], s["config"]["checks"]) for s in shown] == [
        (".tiergate.toml", {"tests": "sh check.sh"})
    ]
    assert "the" not in shown[0]["config"]["keywords"]["light"]
    assert shown[0]["config"]["tiers"]["light_files_below"] == 5
    [start] = [r for r in loop.decisions() if r["decision"] == "start"]
    assert "rules: the configuration from .tiergate.toml, kept for the loop's life" in start["reasons"]


def test_the_user_reloads_the_rules_from_a_shell_and_the_next_claim_uses_them(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.env["TIERGATE_BASELINE_AT_START"] = "1"  # as a user's loops do
    loop.start()
    loop.settle()
    write(loop.project, {".tiergate.toml": '[checks]\ntests = "true"\n', "value.txt": "bad\n"})

    reloaded = loop.run("ralph", "reload")

    assert reloaded.returncode == 0 and "1 active loop(s)" in reloaded.stdout
    assert loop.loop().config_source == ".tiergate.toml" and loop.loop().config["checks"] == {"tests": "true"}  # type: ignore[index]
    record = [r for r in loop.decisions() if r.get("decision") == "reload"][-1]
    assert "sections changed: checks" in record["reasons"]
    assert "```tiergate-spawn" in loop.stop(CLAIM)["reason"]  # the user's rules now: no check fails
    assert loop.checks_run() == 1  # at the loop's start, at its base, by the rules it began with


def test_a_broken_configuration_reloads_nothing(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    before = loop.loop()
    write(loop.project, {".tiergate.toml": "[tiers]\nno_such_key = 1\n"})

    reloaded = loop.run("ralph", "reload")

    assert reloaded.returncode != 0 and reloaded.stdout == ""
    assert reloaded.stderr == "tiergate: .tiergate.toml: tiers.no_such_key: unknown key\n"
    assert loop.loop() == before


def rules(limit: int, alert: Path) -> str:
    """The loop's check, intervention limits at `limit`, and an alert command writing to `alert`."""
    policy = f"[interventions]\nattempt_limit = {limit}\nskip_limit = {limit}\n"
    return f"{CONFIG}\n{policy}\n[alerts]\ncommand = {json.dumps(f'cat > {shlex.quote(str(alert))}')}\n"


def test_the_policies_and_the_alert_command_are_the_loops_not_the_edited_files(tmp_path: Path) -> None:
    kept, edited = tmp_path / "kept-alert.txt", tmp_path / "agent-alert.txt"

    loop = Loop(tmp_path, rules(1, kept))
    loop.start()
    write(loop.project, {".tiergate.toml": rules(5, edited), "value.txt": "bad\n"})

    answer = loop.stop(CLAIM)

    assert "loop halted: skip-limit: 1 item given up" in answer["systemMessage"]
    assert loop.loop().phase == "halted"
    assert "skip-limit" in kept.read_text() and not edited.exists()


def test_a_verifiers_fail_is_judged_with_the_loops_policies(tmp_path: Path) -> None:
    kept, edited = tmp_path / "kept-alert.txt", tmp_path / "agent-alert.txt"
    loop = Loop(tmp_path, rules(1, kept))
    loop.start()
    write(loop.project, {".tiergate.toml": rules(5, edited), "notes.txt": "done\n"})
    assert "```tiergate-spawn" in loop.stop(CLAIM)["reason"]

    loop.verifier_fails("a1", "not done", "cat notes.txt", "done")

    assert loop.loop().phase == "halted" and "skip-limit" in (loop.loop().end_reason or "")
    assert "skip-limit" in kept.read_text() and not edited.exists()
