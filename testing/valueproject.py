"""The small project the loop's hook tests verify: `value.txt` must say good, and `check.sh`, the
project's one check (`[checks] tests`), says whether it does. `CHECK` is the usual wording and `Loop` a
ralph loop on the project through the real hooks; a test module asserting on other wording brings its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from testing.gitrepo import init_repo
from testing.hooksession import HookSession

CONFIG = '[checks]\ntests = "sh check.sh"\n'
SESSION = "11111111-2222-3333-4444-555555555555"
CLAIM = "value.txt is right now.\n\n<promise>DONE</promise>"
CHECK = """\
if grep -qx good value.txt; then echo "test_value ... ok"; exit 0; fi
echo "FAIL: test_value (checks.ValueTest)"
echo "AssertionError: value.txt says $(cat value.txt), expected good"
exit 1
"""


def value_project(
    root: Path, check: str, *, config: str = CONFIG, value: str = "good\n", gitignore: bool = True
) -> Path:
    """A git repository at `root / "project"` with value.txt, check.sh and .tiergate.toml committed (and,
    with `gitignore`, the `.tiergate/` ignore line projects of the old layout carried)."""
    files = {"value.txt": value, "check.sh": check, ".tiergate.toml": config}
    if gitignore:
        files[".gitignore"] = ".tiergate/\n"
    return init_repo(root / "project", files)


class Loop(HookSession):
    """A ralph loop on the value project (with `CHECK` and `config`) in session SESSION."""

    def __init__(self, root: Path, config: str) -> None:
        project = value_project(root, CHECK, config=config)
        super().__init__(root, project, SESSION)

    def start(self) -> None:
        answer = self.hook(
            "UserPromptSubmit", prompt="/tiergate:ralph make value.txt right --max-iterations 6"
        )
        assert "loop started" in answer["systemMessage"]

    def stop(self, message: str) -> dict[str, Any]:
        return self.hook("Stop", last_assistant_message=message)
