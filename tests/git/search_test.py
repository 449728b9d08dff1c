"""`git grep` for whole words in tracked and untracked files."""

from __future__ import annotations

from pathlib import Path

from testing.gitrepo import init_repo, write

from tiergate.git import search


def test_grep_files_finds_whole_words_in_tracked_and_untracked_files(tmp_path: Path) -> None:
    repo = init_repo(
        tmp_path / "r",
        {".gitignore": "ignored/\n", "tests/t1.py": "import parser\n", "tests/t2.py": "import parsers\n"},
    )
    write(repo, {"tests/t3.py": "from x import parser\n", "ignored/t4.py": "import parser\n"})
    write(repo, {"src/app.py": "import parser\n"})
    assert sorted(search.grep_files(repo, ["parser"], ["tests"])) == ["tests/t1.py", "tests/t3.py"]
    assert search.grep_files(repo, ["nothing_like_it"], ["tests"]) == []
    assert search.grep_files(repo, [], ["tests"]) == []
