"""Another tool's files are not work, through the real hook entry point in real git repositories: a
tiergate loop beside oh-my-claudecode and ralph-loop, which write their own state in the project on
their own (OMC's `.omc/state/` on every SubagentStart and SubagentStop, ralph-loop's
`.claude/ralph-loop.local.md` on every stop), measures only the user's files, disqualifies no verifier and
keeps its PASS; the project's `.claude/settings.json` edited by the loop stays a THOROUGH security change;
`[workspace] ignore` is honoured as the loop kept it, and an edit of it during the loop is not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from testing.gitrepo import init_repo, write
from testing.hooksession import HookSession

from tiergate.loop.state import Verification

SESSION = "88888888-2222-3333-4444-555555555555"
CLAIM = "value.txt is right now.\n\n<promise>DONE</promise>"
CHECK = 'grep -qx good value.txt && echo "test_value ... ok" || { echo "FAIL: test_value"; exit 1; }\n'


class Loop(HookSession):
    def __init__(self, root: Path, config: str = '[checks]\ntests = "sh check.sh"\n') -> None:
        files = {
            "value.txt": "bad\n",
            "check.sh": CHECK,
            ".tiergate.toml": config,
            ".gitignore": ".tiergate/\n",
        }
        super().__init__(root, init_repo(root / "project", files), SESSION)
        self.rounds = 0

    def start(self) -> None:
        answer = self.hook("UserPromptSubmit", prompt="/tiergate:ralph make value.txt right")
        assert "loop started" in answer["systemMessage"]

    def stop(self, message: str) -> dict[str, Any]:
        return self.hook("Stop", last_assistant_message=message)

    def neighbours_write(self) -> None:
        """One round of what OMC's hooks and ralph-loop's Stop hook write, as they would."""
        self.rounds += 1
        n = self.rounds
        write(
            self.project,
            {
                ".omc/state/subagent-tracking.json": json.dumps({"agents": list(range(n))}) + "\n",
                f".omc/state/agent-replay-{n}.jsonl": '{"event": "start"}\n' * 20,
                f".omc/state/sessions/{SESSION}/session-end-{n}.json": "{}\n",
                ".omc/project-memory.json": json.dumps({"round": n}) + "\n",
                ".claude/ralph-loop.local.md": f"---\nactive: true\niteration: {n}\n---\nanother task\n",
            },
        )

    def verify(self, agent_id: str, meanwhile: bool = True) -> dict[str, Any]:
        """The requested verifier runs the check and passes the claim; the neighbours write between
        its SubagentStart and its SubagentStop when `meanwhile`."""
        during = self.neighbours_write if meanwhile else None
        return self.verifier_says(agent_id, "PASS", "sh check.sh", "test_value ... ok", meanwhile=during)

    def verifier_writes(self, files: dict[str, str]) -> str:
        """The requested verifier writes `files` and stops: the SubagentStop hook's answer, as text."""
        agent = self.claim().agent
        self.hook("SubagentStart", agent_id="a1", agent_type=agent)
        write(self.project, files)
        return json.dumps(
            self.hook("SubagentStop", agent_id="a1", agent_type=agent, last_assistant_message="ok")
        )

    def claim(self) -> Verification:
        """The verification the claim asked for, with the change it measured."""
        verification = self.loop().verification
        assert verification is not None
        return verification


def test_a_loop_beside_omc_and_ralph_loop_measures_the_users_files_and_keeps_its_pass(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    loop.neighbours_write()
    write(loop.project, {"value.txt": "good\n"})

    spawn = loop.stop(CLAIM)

    assert "```tiergate-spawn" in spawn["reason"]
    claim = loop.claim()
    assert (claim.files_changed, claim.lines_changed, claim.paths) == (1, 2, ("value.txt",))
    assert loop.loop().tier == "LIGHT"

    loop.verify("a1")  # OMC tracks the verifier, ralph-loop rewrites its file, meanwhile
    assert loop.loop().verdict == "PASS"
    assert not [r for r in loop.decisions() if r.get("decision") == "disqualified"]

    loop.neighbours_write()  # ralph-loop's Stop hook runs beside tiergate's
    final = loop.stop(CLAIM)

    assert final.get("decision") != "block"
    assert loop.loop().phase == "passed" and loop.loop().verifications == 1


def test_the_loops_edit_of_claude_settings_is_still_a_thorough_security_change(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    loop.neighbours_write()
    write(
        loop.project,
        {
            "value.txt": "good\n",
            ".claude/settings.json": '{"hooks": {"Stop": []}}\n',
            ".claude/settings.local.json": '{"permissions": {"allow": ["Bash(sh check.sh)"]}}\n',
        },
    )

    loop.stop(CLAIM)

    claim = loop.claim()
    assert claim.paths == (".claude/settings.json", "value.txt")
    assert loop.loop().tier == "THOROUGH"
    assert any(".claude/settings.json" in reason and "security" in reason for reason in claim.reasons)


def test_a_verifier_that_writes_code_under_a_tools_folder_is_disqualified(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {"value.txt": "good\n"})
    loop.stop(CLAIM)

    answer = loop.verifier_writes({".omc/state/patch.py": "VALUE = 'good'\n"})  # code, which OMC never writes

    assert "disqualified" in answer and ".omc/state/patch.py" in answer
    assert loop.loop().verdict != "PASS"


def test_the_users_workspace_ignore_is_honoured(tmp_path: Path) -> None:
    loop = Loop(tmp_path, '[checks]\ntests = "sh check.sh"\n\n[workspace]\nignore = ["build/"]\n')
    loop.start()
    write(loop.project, {"value.txt": "good\n", "build/bundle.js": "x\n" * 900})

    loop.stop(CLAIM)

    assert loop.claim().paths == ("value.txt",) and loop.loop().tier == "LIGHT"
    write(loop.project, {"build/bundle.js": "y\n"})  # a watcher rebuilds while the verifier runs
    loop.verify("a1", meanwhile=False)
    assert loop.loop().verdict == "PASS"


def test_an_edit_of_workspace_ignore_during_the_loop_hides_nothing(tmp_path: Path) -> None:
    loop = Loop(tmp_path, '[checks]\ntests = "sh check.sh"\n\n[workspace]\nignore = ["build/"]\n')
    loop.start()
    widened = '[checks]\ntests = "sh check.sh"\n\n[workspace]\nignore = ["build/", "src/", "value.txt"]\n'
    write(
        loop.project, {".tiergate.toml": widened, "value.txt": "good\n", "src/backdoor.py": "OPEN = True\n"}
    )

    loop.stop(CLAIM)

    assert loop.claim().paths == (".tiergate.toml", "src/backdoor.py", "value.txt")
    assert loop.loop().tier == "THOROUGH"  # the configuration's edit is a security change
    answer = loop.verifier_writes(
        {"src/backdoor.py": "OPEN = 'wide'\n"}
    )  # under the widened pattern: still seen
    assert "disqualified" in answer and "src/backdoor.py" in answer
    assert loop.loop().verdict != "PASS"


def test_tier_explain_lists_every_path_set_aside_with_its_reason(tmp_path: Path) -> None:
    loop = Loop(tmp_path, '[checks]\ntests = "sh check.sh"\n\n[workspace]\nignore = ["build/"]\n')
    loop.start()
    loop.neighbours_write()
    # The agent widens the file's list: `tier --explain` shows the loop's rules, not the file's.
    write(loop.project, {".tiergate.toml": '[workspace]\nignore = ["build/", "src/"]\n'})
    write(loop.project, {"value.txt": "good\n", "build/a.js": "x\n", "src/b.py": "y\n", ".omc/x.py": "z\n"})

    shown = loop.run("tier", "--explain").stdout

    assert "Not counted: 6 paths of other tools' state or output" in shown
    assert "    .omc/state/subagent-tracking.json  oh-my-claudecode's state (.omc/)\n" in shown
    assert (
        "    .claude/ralph-loop.local.md  a Claude Code plugin's per-project state (.claude/*.local.md)\n"
        in shown
    )
    assert "    build/a.js  [workspace] ignore in .tiergate.toml (build/)\n" in shown
    assert "Counted though under another tool's folder: 1 path of code:\n" in shown
    assert "    .omc/x.py  under oh-my-claudecode's .omc/, but code, which it does not write\n" in shown
    assert "? src/b.py" in shown
    record = json.loads(loop.run("tier", "--json").stdout)
    assert "src/b.py" in [f["path"] for f in record["files"]]
    assert {"path": "build/a.js", "reason": "[workspace] ignore in .tiergate.toml (build/)"} in record[
        "excluded"
    ]
