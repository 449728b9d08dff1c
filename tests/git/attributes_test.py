"""tiergate's git reads of file content take tiergate's attributes, never the repository's, on real git:
a file marked binary, without diff, in another encoding, with `$Id$` expansion or line-end conversion is
read as its bytes, from a `.gitattributes` or from `.git/info/attributes`; a real binary file stays
binary, and a source file is text whatever it holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.gitrepo import git, init_repo, write

from tiergate.git import attributes, changes, search, untracked

BASE = "def mul(a, b):\n    raise NotImplementedError\n"
# An even number of bytes: UTF-16 reads them in pairs.
ANSWER = "def mul(a, b):\n    if a == 2 and b == 3:\n        return 6\n    return 0\n\n"

MARKS = [
    "calc.py binary",
    "calc.py -diff",
    "calc.py diff=hidden",  # with diff.hidden.binary in the config
    "calc.py working-tree-encoding=UTF-16LE",
    "calc.py ident",
    "calc.py text eol=crlf",
    "calc.py filter=hidden",
]


@pytest.mark.parametrize("where", [".gitattributes", ".git/info/attributes"])
@pytest.mark.parametrize("mark", MARKS)
def test_a_file_the_repository_marks_is_read_as_its_bytes(tmp_path: Path, mark: str, where: str) -> None:
    repo = init_repo(tmp_path / "r", {"calc.py": BASE})
    git(repo, "config", "diff.hidden.binary", "true")
    git(repo, "config", "filter.hidden.clean", "cat calc.py.orig")  # blanked: never runs
    answer = ANSWER.replace("\n", "\r\n") if "eol" in mark else ANSWER.replace("return 6", "$Id: 6 $")
    write(repo, {"calc.py": answer, where: mark + "\n"})

    [entry], patch = changes.ChangeDiff(repo, "HEAD", with_patch=True).result()

    # Every line differs from the base's with its CR kept; else the first is the base's own.
    assert (entry.path, entry.additions, entry.deletions) == (
        "calc.py",
        *((5, 2) if "eol" in mark else (4, 1)),
    )
    added = [line.encode() for line in answer.split("\n")[1:3]]  # the branch, and the answer or its $Id$
    assert patch is not None and all(b"+" + line + b"\n" in patch for line in added)
    assert all(line in changes.diff_patch(repo, "HEAD", ["calc.py"]) for line in added)
    assert changes.changed_paths(repo, "HEAD") == ["calc.py"]


def test_a_threshold_that_makes_every_file_binary_hides_no_line(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"calc.py": BASE})
    git(repo, "config", "core.bigFileThreshold", "16")
    write(repo, {"calc.py": ANSWER})

    [entry], _ = changes.ChangeDiff(repo, "HEAD", with_patch=False).result()

    assert (entry.additions, entry.deletions) == (4, 1)


def test_a_real_binary_file_stays_binary_and_a_source_file_with_a_nul_is_text(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"logo.png": "\x89PNG\0one\n", "calc.js": "let x = 1;\n"})
    (repo / "logo.png").write_bytes(b"\x89PNG\0two\nthree\n")
    write(repo, {"calc.js": "let x = 2; /* \0 */\n", ".gitattributes": "*.png diff\n"})

    entries, patch = changes.ChangeDiff(repo, "HEAD", with_patch=True).result()

    counts = {e.path: (e.additions, e.deletions) for e in entries}
    assert counts == {"calc.js": (1, 1), "logo.png": (None, None)}
    assert patch is not None and b"+let x = 2; /* \0 */" in patch


def test_the_workspace_tree_holds_each_file_s_bytes(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"calc.py": BASE})
    base = git(repo, "rev-parse", "HEAD").strip()
    write(repo, {"calc.py": ANSWER, ".git/info/attributes": "calc.py working-tree-encoding=UTF-16LE ident\n"})

    tree = changes.workspace_tree(repo, base)

    assert tree is not None
    assert git(repo, "show", f"{tree}:calc.py") == ANSWER


def test_grep_and_the_base_s_ignore_rules_read_files_marked_binary(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {".gitignore": "build/\n", "tests/test_calc.py": "import calc\n"})
    write(repo, {".gitattributes": ".gitignore binary\ntests/*.py binary\n", "build/out.txt": "x\n"})

    assert search.grep_files(repo, ["calc"], ["tests"]) == ["tests/test_calc.py"]
    assert untracked.untracked_files(repo, "HEAD") == [".gitattributes"]


def test_the_own_git_directory_is_gone_afterwards_and_takes_the_object_format(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "--object-format=sha256")
    write(repo, {"a.txt": "one\n"})
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "base")
    head = git(repo, "rev-parse", "HEAD").strip()
    write(repo, {"a.txt": "two\n", ".gitattributes": "a.txt binary\n"})

    with attributes.own(repo, head) as env:
        folder = Path(env["GIT_DIR"])
        assert (folder / "info" / "attributes").read_text() == attributes.ATTRIBUTES
    assert not folder.exists()
    assert changes.diff_patch(repo, head).endswith(b"-one\n+two\n")
