"""Which lines of a change the content rules read (`tiergate.tier.changedlines`), through `assess_change`
on real git repositories: untracked files whole, renamed files for their edits only, and never another
tool's state."""

from __future__ import annotations

from pathlib import Path

from testing.gitrepo import git, init_repo, repo_fixture, write

from tiergate.tier.assess import assess_change

BASE = {"app/client.py": "def fetch(s, url):\n    return s.get(url)\n", "README.md": "hi\n"}


repo = repo_fixture(BASE)


def test_an_untracked_file_is_read_whole_and_a_renamed_file_only_for_its_edits(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"old.py": "import os\nos.system(cmd)\n" + "x = 1\n" * 20})
    git(root, "mv", "old.py", "new.py")
    write(root, {"tool.py": "import subprocess\n\nsubprocess.run(args)\n"})

    result = assess_change(root)

    assert [(h.path, h.line) for h in result.content] == [("tool.py", 3)]


def test_other_tools_state_is_not_read(repo: Path) -> None:
    root = repo
    # A tool's state file holding what the common rules would flag in any file of the change.
    write(root, {".omc/state/ralph.json": '{"password": "hunter22x"}\n', "app/extra.py": "y = 1\n"})

    result = assess_change(root)

    assert result.content == () and result.decision.tier == "STANDARD"
