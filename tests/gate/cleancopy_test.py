"""The claim's copy on real git: the base with the change put in, byte for byte whatever the repository's
attributes say, nothing of what git ignores, a symlink out of the tree resolved into it and named, the
environment linked, and nothing left behind."""

from __future__ import annotations

from pathlib import Path

from testing.gitrepo import git, init_repo, write

from tiergate.gate.cleancopy import claim_copy, links_out
from tiergate.git.rawtree import leaves_tree

FILES = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    ".gitignore": "__pycache__/\nbuild/\n.venv/\n",
}


def repo_at_base(root: Path) -> tuple[Path, str]:
    repo = init_repo(root / "project", FILES)
    return repo, git(repo, "rev-parse", "HEAD").strip()


def test_the_copy_holds_the_change_and_nothing_git_ignores(tmp_path: Path) -> None:
    repo, base = repo_at_base(tmp_path)
    write(
        repo,
        {
            "calc.py": "def add(a, b):\n    return b + a\n",
            "notes.md": "untracked work\n",
            "__pycache__/calc.cpython-311.pyc": "planted",
            "build/helper.py": "planted = True\n",
            ".venv/marker": "the environment\n",
        },
    )
    (repo / "tests/test_calc.py").unlink()

    with claim_copy(repo, base) as copy:
        assert copy.cwd != repo
        assert (copy.cwd / "calc.py").read_text() == "def add(a, b):\n    return b + a\n"
        assert (copy.cwd / "notes.md").read_text() == "untracked work\n"
        assert not (copy.cwd / "tests/test_calc.py").exists()
        assert not (copy.cwd / "__pycache__").exists() and not (copy.cwd / "build").exists()
        assert (copy.cwd / ".venv").is_symlink() and (copy.cwd / ".venv/marker").exists()
        assert copy.env["PYTHONPYCACHEPREFIX"].startswith(str(copy.cwd.parent))  # the claim's own
        assert git(copy.cwd, "diff", "--name-only") == ""  # its files are its index
        where = copy.cwd

    assert not where.exists()
    assert git(repo, "worktree", "list").count("\n") == 1
    assert (repo / ".venv/marker").exists()  # the link went, not what it reached


def test_attributes_and_filters_of_the_repository_do_not_rewrite_the_copy(tmp_path: Path) -> None:
    repo, base = repo_at_base(tmp_path)
    crlf = b"def add(a, b):\r\n    return a + b  # $Id$\r\n"
    write(repo, {".gitattributes": "*.py text eol=crlf ident filter=rot\n"})
    git(repo, "config", "filter.rot.clean", "tr a-z n-za-m")
    git(repo, "config", "filter.rot.smudge", "tr a-z n-za-m")
    (repo / "calc.py").write_bytes(crlf)
    (repo / "lf.py").write_bytes(b"x = 1\n")

    with claim_copy(repo, base) as copy:
        assert (copy.cwd / "calc.py").read_bytes() == crlf
        assert (copy.cwd / "lf.py").read_bytes() == b"x = 1\n"


def test_a_symlink_into_an_ignored_folder_is_read_into_the_copy_and_named(tmp_path: Path) -> None:
    repo, base = repo_at_base(tmp_path)
    write(repo, {"build/impl.py": "ANSWER = 6\n", "build/pkg/mod.py": "X = 1\n"})
    (repo / "impl.py").symlink_to("build/impl.py")
    (repo / "pkg").symlink_to("build/pkg")
    (repo / "alias.py").symlink_to("calc.py")  # a file of the tree: kept as a link

    with claim_copy(repo, base) as copy:
        assert not (copy.cwd / "impl.py").is_symlink()
        assert (copy.cwd / "impl.py").read_text() == "ANSWER = 6\n"
        assert (copy.cwd / "pkg/mod.py").read_text() == "X = 1\n"
        assert (copy.cwd / "alias.py").is_symlink()
        assert sorted(copy.resolved) == ["impl.py -> build/impl.py", "pkg -> build/pkg"]

    named = links_out(repo, base, ["impl.py", "pkg", "alias.py", "calc.py"])
    assert sorted(named) == ["impl.py -> build/impl.py", "pkg -> build/pkg"]


def test_a_symlink_out_of_the_repository_reaching_too_much_is_left_out(tmp_path: Path) -> None:
    repo, base = repo_at_base(tmp_path)
    (repo / "everything").symlink_to("/")

    with claim_copy(repo, base) as copy:
        assert not (copy.cwd / "everything").exists() and not (copy.cwd / "everything").is_symlink()
        assert copy.resolved == ("everything -> / (left out: nothing there, or too much to copy)",)


def test_which_links_leave_a_tree() -> None:
    files = {"calc.py", "pkg/mod.py"}
    assert not leaves_tree("alias.py", "calc.py", files)
    assert not leaves_tree("sub/alias.py", "../calc.py", files)
    assert not leaves_tree("lib", "pkg", files)
    assert leaves_tree("impl.py", "build/impl.py", files)
    assert leaves_tree("up.py", "../outside.py", files)
    assert leaves_tree("abs.py", "/etc/passwd", files)
