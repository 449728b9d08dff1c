"""A session transcript with Claude Code's /goal records, written as the CLI 2.1.332 writes them
(docs/interop.md, "Claude Code's /goal"): the hook tests feed it to tiergate as the session's transcript."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class GoalTranscript:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._messages = 0

    def add(self, record: dict[str, Any]) -> GoalTranscript:
        with self.path.open("a") as f:
            f.write(json.dumps(record) + "\n")
        return self

    def goal(self, **fields: Any) -> GoalTranscript:
        return self.add({"type": "attachment", "attachment": {"type": "goal_status", **fields}})

    def goal_set(self, condition: str) -> GoalTranscript:
        """What `/goal <condition>` writes, before the command's own lines."""
        self.goal(met=False, sentinel=True, condition=condition)
        stdout = f"<local-command-stdout>Goal set: {condition}</local-command-stdout>"
        return self.add({"type": "system", "subtype": "local_command", "content": stdout})

    def evaluated(self, condition: str, verdict: str, reason: str = "scripted") -> GoalTranscript:
        """One evaluation at a Stop: `verdict` is met, unmet or impossible."""
        if verdict == "met":
            return self.goal(met=True, condition=condition, reason=reason, iterations=1)
        if verdict == "impossible":
            return self.goal(met=False, failed=True, condition=condition, reason=reason)
        return self.goal(met=False, condition=condition, reason=reason)

    def cleared(self, condition: str) -> GoalTranscript:
        return self.goal(met=True, sentinel=True, condition=condition)

    def says(self, text: str) -> GoalTranscript:
        """The assistant's final message of a turn."""
        self._messages += 1
        message = {
            "id": f"msg_{self._messages}",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
        }
        return self.add({"type": "assistant", "message": message})

    def user(self, text: str) -> GoalTranscript:
        return self.add({"type": "user", "message": {"role": "user", "content": text}})
