"""Content rules in a real loop, through the real hook entry point: a claim whose only risky thing is a
changed line (TLS verification switched off in a module no path rule flags) goes THOROUGH with the
`file:line` reason; with `[risk] content = false` kept at the loop's start it does not; and the agent
cannot turn the rules off during the loop by editing `.tiergate.toml`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from testing.gitrepo import commit_all, write
from testing.hooksession import HookSession
from testing.valueproject import CONFIG, value_project

SESSION = "c0c0c0c0-1111-2222-3333-444444444444"
CLAIM = "the client is done.\n\n<promise>DONE</promise>"
CHECK = 'if grep -qx good value.txt; then echo "test_value ... ok"; exit 0; fi\necho FAIL; exit 1\n'
CLIENT = "def fetch(session, url):\n    return session.get(url)\n"
# The one risky line: nothing in the path says so (`app/client.py`).
INSECURE = "def fetch(session, url):\n    return session.get(url, verify=False)\n"
CONTENT_OFF = CONFIG + "\n[risk]\ncontent = false\n"
# A rule of the project's own: the claim's early measurement reads the built-in rules only, so a loop
# that keeps one must have its changed lines read again with it.
OWN_RULE = CONFIG + "\n[[risk.rules]]\nconstruct = \"billing API call\"\npattern = 'charge_card\\('\n"
BILLING = "def fetch(session, url):\n    charge_card(session)\n    return session.get(url, verify=False)\n"


class Loop(HookSession):
    def __init__(self, root: Path, config: str = CONFIG) -> None:
        project = value_project(root, CHECK, config=config)
        write(project, {"app/client.py": CLIENT})
        commit_all(project, "the client")
        super().__init__(root, project, SESSION)

    def start(self) -> None:
        answer = self.hook("UserPromptSubmit", prompt="/tiergate:ralph fix the client")
        assert "loop started" in answer["systemMessage"]

    def claim(self) -> dict[str, Any]:
        return self.hook("Stop", last_assistant_message=CLAIM)

    def reasons(self) -> str:
        return " ".join([r for r in self.decisions() if r.get("event") == "Stop"][-1]["reasons"])


def test_a_claim_whose_only_risk_is_a_changed_line_goes_thorough_naming_file_and_line(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {"app/client.py": INSECURE})

    answer = loop.claim()

    assert "```tiergate-spawn" in answer["reason"] and "tiergate:architect" in answer["reason"]
    assert loop.loop().tier == "THOROUGH"
    assert (
        'app/client.py:2 (added line) TLS verification switch: "return session.get(url, verify=False)"'
        in (loop.reasons())
    )


def test_with_content_rules_off_at_the_start_the_same_claim_is_standard(tmp_path: Path) -> None:
    loop = Loop(tmp_path, CONTENT_OFF)
    loop.start()
    write(loop.project, {"app/client.py": INSECURE})

    loop.claim()

    assert loop.loop().tier == "STANDARD"
    assert "verify=False" not in loop.reasons()


def test_the_agent_cannot_turn_content_rules_off_during_the_loop(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {"app/client.py": INSECURE, ".tiergate.toml": CONTENT_OFF})

    loop.claim()

    assert loop.loop().tier == "THOROUGH"
    assert "app/client.py:2 (added line) TLS verification switch" in loop.reasons()


def test_a_rule_the_loop_kept_reads_the_changed_lines_beside_the_built_in_ones(tmp_path: Path) -> None:
    loop = Loop(tmp_path, OWN_RULE)
    loop.start()
    write(loop.project, {"app/client.py": BILLING})

    loop.claim()

    assert loop.loop().tier == "THOROUGH"
    assert 'app/client.py:2 (added line) billing API call: "charge_card(session)"' in loop.reasons()
    assert "app/client.py:3 (added line) TLS verification switch" in loop.reasons()
