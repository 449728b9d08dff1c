"""A night of two loops in one project, driven through tiergate's real hooks (HookSession), so that the
report is tested on what tiergate really logs.

The first loop ends well after some trouble: a claim the checks refute (a retry), a THOROUGH claim (it
touches a security file) whose first verifier is disqualified (it wrote a file) and whose second FAILs
at the attempt limit (a rollback, its work kept as a backup), then a LIGHT claim whose verifier's hedged
PASS is sent back once (a redo) before its real PASS, and the loop finishes. The second loop is refuted
twice and halts on the skip limit.

What the agent wrote is hostile where the page could be hurt: the task carries a <script>, and the file
the first claim touches is named like an <img> with an onerror.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from testing.gitrepo import git, write
from testing.hooksession import HookSession, verifier_transcript
from testing.valueproject import CHECK, CLAIM, value_project

SCRIPT = "<script>document.title='PWNED'</script>"
TASK = f"make value.txt right {SCRIPT}"
# A security path (the `auth/` directory), named to break out of an element and run a handler.
HOSTILE_FILE = "auth/<img src=x onerror=document.title='PWNED'>.py"
FIRST = "aaaaaaaa-1111-2222-3333-444444444444"
SECOND = "bbbbbbbb-1111-2222-3333-444444444444"
CRITIQUE = "the auth module has no test"
SCRATCH = {"scratch.txt": "the verifier's notes\n"}


# A second check that fails as it did when the loop began (never held against a claim), its name and its
# output written to break out of the page's markup.
HOSTILE_CHECK = f"lint {SCRIPT}"
HOSTILE_OUTPUT = "<img src=x onerror=document.title='PWNED'> is not linted"


def config(attempt_limit: int, skip_limit: int | None = None) -> str:
    limits = f"attempt_limit = {attempt_limit}\n" + (f"skip_limit = {skip_limit}\n" if skip_limit else "")
    lint = json.dumps(f"echo {json.dumps(HOSTILE_OUTPUT)}; exit 1")
    checks = f'[checks]\ntests = "sh check.sh"\n{json.dumps(HOSTILE_CHECK)} = {lint}\n'
    return f"{checks}\n[interventions]\n{limits}"


@dataclass
class Night:
    project: Path
    first: HookSession
    second: HookSession

    def decisions(self) -> list[dict[str, Any]]:
        return self.first.decisions() + self.second.decisions()


def night(root: Path) -> Night:
    project = value_project(root, CHECK, config=config(attempt_limit=2))
    first = HookSession(root, project, FIRST)
    _first_loop(first)
    write(project, {".tiergate.toml": config(attempt_limit=1, skip_limit=2)})
    git(project, "add", "-A")
    git(project, "commit", "-qm", "the first loop's work; stricter limits")
    second = HookSession(root, project, SECOND)
    _second_loop(second)
    return Night(project, first, second)


def _first_loop(s: HookSession) -> None:
    _start(s, TASK, 8)
    write(s.project, {"value.txt": "bad\n"})
    assert s.hook("Stop", last_assistant_message=CLAIM)["decision"] == "block"  # refuted: a retry
    write(s.project, {"value.txt": "good\n", HOSTILE_FILE: "TOKEN = 'x'\n"})
    assert "Tier THOROUGH" in s.hook("Stop", last_assistant_message=CLAIM)["reason"]
    # Its first verifier writes a file while it verifies: disqualified, and another is requested at once.
    said = s.verifier_says(
        "v-writes", "PASS", "sh check.sh", "ok", meanwhile=lambda: write(s.project, SCRATCH)
    )
    assert "disqualified" in said["systemMessage"]
    assert "requested again" in s.hook("Stop", last_assistant_message=CLAIM)["reason"]
    s.verifier_fails("v-thorough", CRITIQUE, "sh check.sh", "test_value ... ok")  # attempt limit: rollback
    s.hook("Stop", last_assistant_message="Looking at the critique.")
    write(s.project, {"value.txt": "good\n"})
    assert "Tier STANDARD" in s.hook("Stop", last_assistant_message=CLAIM)["reason"]

    def hedged_pass() -> None:
        verification = s.loop().verification
        assert verification is not None
        criteria = [
            {"criterion": c, "status": "VERIFIED", "evidence": "read the diff"} for c in verification.evidence
        ]
        block = json.dumps({"verdict": "PASS", "criteria": criteria, "critique": ""})
        sent_back = s.run(
            "hook",
            "SubagentStop",
            stdin=json.dumps(
                s.payload(
                    "SubagentStop",
                    agent_id="v-light",
                    agent_type=verification.agent,
                    agent_transcript_path=str(verifier_transcript(s.root / "hedged.jsonl", "true", "")),
                    last_assistant_message=f"The tests should pass now.\n\n```tiergate-verdict\n{block}\n```",
                )
            ),
        )
        assert sent_back.returncode == 2, sent_back.stderr  # a redo

    passed = s.verifier_says("v-light", "PASS", "sh check.sh", "test_value ... ok", meanwhile=hedged_pass)
    assert "returned PASS" in passed["systemMessage"]
    assert "loop finished" in s.hook("Stop", last_assistant_message="Done.")["systemMessage"]


def _second_loop(s: HookSession) -> None:
    _start(s, "make value.txt say bad", 6)
    write(s.project, {"value.txt": "bad\n"})
    assert s.hook("Stop", last_assistant_message=CLAIM)["decision"] == "block"  # rollback
    write(s.project, {"value.txt": "worse\n"})
    assert "loop halted" in s.hook("Stop", last_assistant_message=CLAIM)["systemMessage"]


def _start(s: HookSession, task: str, iterations: int) -> None:
    answer = s.hook("UserPromptSubmit", prompt=f"/tiergate:ralph {task} --max-iterations {iterations}")
    assert "loop started" in answer["systemMessage"], answer
