"""What keeps a git call on the repository asked about, with nothing the repository names run."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.gitrepo import git, init_repo

from tiergate.git import isolation, repository


def test_a_hook_environment_pointing_elsewhere_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours = init_repo(tmp_path / "ours", {"a.txt": "x\n"})
    other = init_repo(tmp_path / "other", {"b.txt": "y\n"})
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    assert repository.repo_root(ours) == ours
    assert (
        repository.head_sha(ours) == git(ours, "--git-dir", str(ours / ".git"), "rev-parse", "HEAD").strip()
    )


def test_a_hash_object_without_filters_reads_no_config_and_one_with_them_does(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    environment = isolation.environment(None)

    git(repo, "config", "filter.x.clean", "false")

    assert "filter.x.clean=" in isolation.command(repo, ("hash-object", "--stdin-paths"), environment)
    assert "filter.x.clean=" not in isolation.command(repo, ("hash-object", "--no-filters"), environment)
