"""Each check's result at the loop's base, on a real git repository: where it runs, and that it runs once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from testing.gitrepo import commit_all, git, head, init_repo, repo_fixture, write
from testing.statefolder import state_dir

from tiergate.gate.baseline import base_commit, changed_paths, ensure_baseline, workspace_at, worktree
from tiergate.gate.checks import make_check
from tiergate.project import Project

repo = repo_fixture({"app.py": "VALUE = 1\n"})


def test_the_base_is_the_commit_named_else_head_and_none_before_the_first_commit(
    repo: Path, tmp_path: Path
) -> None:
    first = head(repo)
    write(repo, {"app.py": "VALUE = 2\n"})
    second = commit_all(repo, "two")
    assert (base_commit(repo, None), base_commit(repo, first)) == (second, first)
    assert base_commit(init_repo(tmp_path / "empty"), None) is None


def test_the_workspace_is_the_base_only_when_nothing_differs(repo: Path) -> None:
    base = head(repo)
    assert workspace_at(repo, base)
    assert changed_paths(repo, base) == []
    write(repo, {"new.txt": "untracked\n"})
    assert not workspace_at(repo, base)
    assert changed_paths(repo, base) == ["new.txt"]


def test_a_check_runs_at_the_base_once_in_a_worktree_removed_afterwards(repo: Path, tmp_path: Path) -> None:
    base = head(repo)
    write(repo, {"app.py": "VALUE = 2\n"})  # the workspace is not the base: a worktree of it is
    project = Project(repo, state_dir(repo))
    runs = tmp_path / "runs"
    check = make_check("value", f"pwd >> {runs} && grep -q 'VALUE = 1' app.py", "test")
    (entry,) = ensure_baseline(project, base, [check]).values()
    assert (entry.where, entry.result.status) == ("worktree", "passed")
    (where,) = runs.read_text().split()
    assert Path(where) != repo and not Path(where).exists()
    assert git(repo, "worktree", "list").count("\n") == 1
    # Kept by base commit: a second claim's call runs nothing at the base.
    assert ensure_baseline(project, base, [check])[check.key].result.status == "passed"
    assert runs.read_text().split() == [where]


def test_a_worktree_can_be_left_unchecked_out_for_the_caller_to_fill(repo: Path) -> None:
    with worktree(repo, head(repo), checkout=False) as tree:
        assert tree.is_dir()
        assert not (tree / "app.py").exists()
    assert not tree.exists()


@pytest.mark.parametrize("damage", ["removed", "git file replaced", "git file removed"])
def test_a_worktree_a_check_damaged_is_still_removed_and_unregistered(repo: Path, damage: str) -> None:
    with worktree(repo, head(repo)) as tree:
        if damage == "removed":
            shutil.rmtree(tree)  # a check that cleans up after itself too eagerly
        elif damage == "git file replaced":
            (tree / ".git").write_text("gitdir: /nowhere\n")
        else:
            (tree / ".git").unlink()
    assert git(repo, "worktree", "list").count("\n") == 1
    assert not tree.parent.exists()
