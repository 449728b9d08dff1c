"""git's formats read and made without git give what git gives: blob ids, unquoted paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.gitrepo import ODD_NAMES, git, init_repo, write

from tiergate.git import formats


@pytest.mark.parametrize("content", [b"", b"hello\n", b"\0binary\xff", b"x" * 100_000])
def test_blob_id_is_gits(tmp_path: Path, content: bytes) -> None:
    repo = init_repo(tmp_path / "r")
    (repo / "f").write_bytes(content)
    assert formats.blob_id(content) == git(repo, "hash-object", "f").strip()


def test_unquote_path_reverses_gits_quoting(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    write(repo, dict.fromkeys([*ODD_NAMES, "back\\slash.txt"], "x\n"))
    git(repo, "add", "-A")
    # With quotepath on, git escapes every non-ASCII byte as octal too.
    listed = git(repo, "-c", "core.quotepath=on", "ls-files").splitlines()
    assert sorted(formats.unquote_path(name) for name in listed) == sorted([*ODD_NAMES, "back\\slash.txt"])
