"""The client project of the content-rule scenarios: `app/client.py`, a module no path rule flags, the one
risky line an agent writes into it (`INSECURE`: TLS verification switched off), the configurations that
turn the content rules off or add one of the project's own, and `Loop`, a ralph loop on it through the real
hooks."""

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
