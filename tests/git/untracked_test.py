"""Untracked files by the base's committed ignore rules, without tiergate's own state folders."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.gitrepo import init_repo, write

from tiergate.git import untracked


def test_untracked_files_skip_ignored_ones_and_show_a_nested_repository_once(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {".gitignore": "*.log\nbuild/\n"})
    write(repo, {"a.log": "x\n", "build/out.txt": "x\n", "src/new.py": "x\n"})
    init_repo(repo / "nested", {"inner.txt": "x\n"})
    assert sorted(untracked.untracked_files(repo, "HEAD")) == ["nested/", "src/new.py"]


def test_untracked_files_leave_out_a_state_folder_in_the_work_tree_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = init_repo(tmp_path / "r", {"a.txt": "a\n"})
    write(repo, {"st[1]/log.jsonl": "{}\n", "sub/st[1]/x.py": "x\n", ".tiergate/loops/s1.json": "{}\n"})
    monkeypatch.setenv("TIERGATE_STATE_DIR", "st[1]")
    # That folder only (its name taken literally, at the top); an agent's `.tiergate/` is a new folder.
    assert sorted(untracked.untracked_files(repo, "HEAD")) == [".tiergate/loops/s1.json", "sub/st[1]/x.py"]
    write(repo, {".tiergate/.gitignore": "*\n"})  # an older tiergate's state folder ignored itself
    assert sorted(untracked.untracked_files(repo, "HEAD")) == ["sub/st[1]/x.py"]


def test_code_hidden_in_an_older_tiergates_state_folder_is_still_part_of_the_change(tmp_path: Path) -> None:
    # A `*` .gitignore is easy to write: an agent can make a folder look like an older tiergate's. Its
    # state files are left out, a program put there is not.
    repo = init_repo(tmp_path / "r", {"a.txt": "a\n"})
    write(
        repo,
        {".tiergate/.gitignore": "*\n", ".tiergate/log.jsonl": "{}\n", ".tiergate/loops/s1.json": "{}\n"},
    )
    write(repo, {".tiergate/payload.py": "import os\n", ".tiergate/run": "#!/bin/sh\n", "src/new.txt": "n\n"})
    (repo / ".tiergate" / "run").chmod(0o755)
    assert sorted(untracked.untracked_files(repo, "HEAD")) == [
        ".tiergate/payload.py",
        ".tiergate/run",
        "src/new.txt",
    ]
