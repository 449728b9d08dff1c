"""Where a loop's state lives, through the real hook entry point in real git repositories: in the user's
state home, keyed by the repository, not in the workspace the agent works in. The same repository through a
symlink is the same loop, another repository another; TIERGATE_STATE_DIR still decides when set; and what
the agent does to a `.tiergate/` folder in the workspace (delete it, forge a loop file there, as it could
when the state was kept there) changes nothing for the running loop: its claim is still gated."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from testing.gitrepo import git, init_repo, write
from testing.hooksession import HookSession
from testing.statefolder import state_dir

from tiergate.project import ROOT_FILE

SESSION = "66666666-2222-3333-4444-555555555555"
CLAIM = "value.txt is right now.\n\n<promise>DONE</promise>"
CHECK = 'grep -qx good value.txt || { echo "FAIL: test_value"; exit 1; }\n'
FILES = {"value.txt": "good\n", "check.sh": CHECK, ".tiergate.toml": '[checks]\ntests = "sh check.sh"\n'}


def started(root: Path, project: Path | None = None) -> HookSession:
    session = HookSession(root, project or init_repo(root / "project", FILES), SESSION)
    answer = session.hook("UserPromptSubmit", prompt="/tiergate:ralph make value.txt right")
    assert "loop started" in answer["systemMessage"]
    return session


def refuted(answer: dict[str, Any]) -> bool:
    """The claim was gated: blocked on the failing check, no verifier asked for."""
    return answer.get("decision") == "block" and "FAIL: test_value" in answer["reason"]


def test_a_loop_keeps_its_state_outside_the_project_for_the_user_alone(tmp_path: Path) -> None:
    session = started(tmp_path)

    folder = state_dir(session.project)
    assert (folder / "loops" / f"{SESSION}.json").is_file()
    assert not folder.is_relative_to(session.project)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert (folder / ROOT_FILE).read_text() == f"{os.path.realpath(session.project)}\n"
    # Nothing of tiergate's in the workspace: no `.tiergate/`, nothing new for git either.
    assert not (session.project / ".tiergate").exists()
    assert git(session.project, "status", "--porcelain", "--untracked-files=all") == ""


def test_through_a_symlinked_path_the_hooks_find_the_same_loop(tmp_path: Path) -> None:
    session = started(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(session.project)
    write(session.project, {"value.txt": "bad\n"})

    through_link = HookSession(tmp_path, link, SESSION)

    assert refuted(through_link.hook("Stop", last_assistant_message=CLAIM))
    assert through_link.loop().iteration == session.loop().iteration == 2


def test_another_repository_is_another_project_with_no_loop(tmp_path: Path) -> None:
    started(tmp_path)
    other = HookSession(tmp_path, init_repo(tmp_path / "other", FILES), SESSION)
    write(other.project, {"value.txt": "bad\n"})

    assert other.hook("Stop", last_assistant_message=CLAIM) == {}  # no state there: silence
    assert not state_dir(other.project).exists()


def test_tiergate_state_dir_decides_where_the_state_is(tmp_path: Path) -> None:
    project = init_repo(tmp_path / "project", FILES)
    session = HookSession(tmp_path, project, SESSION)
    chosen = tmp_path / "chosen"
    session.env["TIERGATE_STATE_DIR"] = str(chosen)
    session.hook("UserPromptSubmit", prompt="/tiergate:ralph make value.txt right")
    write(project, {"value.txt": "bad\n"})

    assert refuted(session.hook("Stop", last_assistant_message=CLAIM))
    assert (chosen / "loops" / f"{SESSION}.json").is_file()
    assert not state_dir(project).exists()


def forge_a_passed_loop(project: Path) -> None:
    """What an agent could do when the state was in the workspace: a loop file that says it passed."""
    forged = {"session_id": SESSION, "active": False, "phase": "passed", "task": "make value.txt right"}
    write(project, {f".tiergate/loops/{SESSION}.json": json.dumps(forged), ".tiergate/.gitignore": "*\n"})


def delete_the_tiergate_folder(project: Path) -> None:
    shutil.rmtree(project / ".tiergate", ignore_errors=True)


@pytest.mark.parametrize("tamper", [forge_a_passed_loop, delete_the_tiergate_folder])
@pytest.mark.parametrize("started_from", ["claude code", "shell"])
def test_what_the_agent_does_to_a_tiergate_folder_in_the_workspace_changes_nothing(
    tmp_path: Path, tamper: Any, started_from: str
) -> None:
    project = init_repo(tmp_path / "project", FILES)
    # An older tiergate's folder, as a repository that used one has it: not read, left alone.
    write(project, {".tiergate/.gitignore": "*\n", ".tiergate/log.jsonl": "{}\n"})
    if started_from == "shell":
        session = HookSession(tmp_path, project, SESSION)
        assert session.run("ralph", "start", "make value.txt right").returncode == 0
        assert session.hook("SessionStart", source="startup") is not None  # binds the loop
    else:
        session = started(tmp_path, project)
    write(project, {"value.txt": "bad\n"})

    tamper(project)
    answer = session.hook("Stop", last_assistant_message=CLAIM)

    assert refuted(answer), answer
    assert session.loop().active and session.loop().phase == "working"
