"""No secrets kept, through the real hook entry point on real git: a check that prints credentials
fails a claim, and none of them reaches a file under the state folder or the block reason the model
reads; the state folder and its files are the user's alone (0700, 0600)."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

from testing.gitrepo import write
from testing.hooksession import HookSession
from testing.statefolder import state_dir
from testing.valueproject import value_project

from tiergate.log import log_path
from tiergate.project import Project

SESSION = "77777777-2222-3333-4444-555555555555"
CLAIM = "value.txt is right now.\n\n<promise>DONE</promise>"
# Made-up credentials in the providers' formats, put together by the check so that no file of this
# repository holds one whole.
AWS_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG" + "/bPxRfiCYEXAMPLEKEY"
GHP = "ghp_" + "a1B2c3D4" * 4 + "e5F6"
SECRETS = (AWS_ID, AWS_SECRET, GHP, AWS_SECRET[:20], GHP[4:])
# The check prints the credentials on every run (the baseline's passing run too), and fails on "bad".
CHECK = """\
A=AKIA; S=wJalrXUtnFEMI/K7MDENG; G=ghp_a1B2c3D4a1B2c3D4
echo "environment: AWS_ACCESS_KEY_ID=${A}IOSFODNN7EXAMPLE"
if grep -qx good value.txt; then echo "test_value ... ok"; exit 0; fi
echo "FAIL: test_value (checks.ValueTest)"
echo "AssertionError: value.txt says bad with aws_secret_access_key = $S/bPxRfiCYEXAMPLEKEY" \
  "token ${G}a1B2c3D4a1B2c3D4e5F6"
exit 1
"""


class Loop(HookSession):
    def __init__(self, root: Path) -> None:
        project = value_project(root, CHECK)
        super().__init__(root, project, SESSION)
        self.state_dir = state_dir(project)

    def start(self) -> None:
        answer = self.hook("UserPromptSubmit", prompt="/tiergate:ralph make value.txt right")
        assert "loop started" in answer["systemMessage"]

    def stop(self, message: str) -> dict[str, Any]:
        return self.hook("Stop", last_assistant_message=message)


def test_a_check_printing_credentials_leaves_none_of_them_in_the_state_or_the_block_reason(
    tmp_path: Path,
) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {"value.txt": "bad\n"})

    answer = loop.stop(CLAIM)

    reason = answer["reason"]
    assert answer["decision"] == "block"
    assert "AssertionError: value.txt says bad" in reason  # the failure is shown...
    assert "aws_secret_access_key = [redacted: aws secret]" in reason  # ...with its secrets redacted
    assert "ghp_[redacted: github token]" in reason
    assert not [s for s in SECRETS if s in reason]
    files = [p for p in loop.state_dir.rglob("*") if p.is_file()]
    kept = {p.relative_to(loop.state_dir).parts[0] for p in files}
    assert {"log.jsonl", "evidence", "baseline", "loops"} <= kept  # every place that held them
    leaks = [(str(p), s) for p in files for s in SECRETS if s in p.read_text(errors="replace")]
    assert leaks == []
    log = log_path(Project(loop.project, loop.state_dir)).read_text()
    assert "[redacted: aws secret]" in log
    assert "ghp_[redacted: github token]" in log
    evidence = "".join(p.read_text() for p in (loop.state_dir / "evidence").glob("*.json"))
    assert "AKIA[redacted: aws access key id]" in evidence
    baseline = "".join(p.read_text() for p in (loop.state_dir / "baseline").glob("*.json"))
    assert "AKIA[redacted: aws access key id]" in baseline


def test_the_state_folder_and_its_files_are_the_users_alone(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {"value.txt": "bad\n"})
    loop.stop(CLAIM)

    assert _mode(loop.state_dir) == 0o700
    wide = [(str(p), oct(_mode(p))) for p in loop.state_dir.rglob("*") if p.is_file() and _mode(p) != 0o600]
    assert wide == []
    folders = [(str(p), oct(_mode(p))) for p in loop.state_dir.rglob("*") if p.is_dir() and _mode(p) & 0o077]
    assert folders == []


def test_a_state_folder_and_log_once_readable_by_others_are_tightened_on_the_next_write(
    tmp_path: Path,
) -> None:
    loop = Loop(tmp_path)
    loop.start()
    log = loop.state_dir / "log.jsonl"
    loop_file = loop.state_dir / "loops" / f"{SESSION}.json"
    loop.state_dir.chmod(0o755)
    log.chmod(0o644)
    loop_file.chmod(0o644)
    write(loop.project, {"value.txt": "bad\n"})

    loop.stop(CLAIM)

    assert (_mode(loop.state_dir), _mode(log), _mode(loop_file)) == (0o700, 0o600, 0o600)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)
