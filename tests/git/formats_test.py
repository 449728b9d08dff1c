"""git's formats read and made without git give what git gives: blob ids, unquoted paths, index files."""

from __future__ import annotations

import time
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


def _listed(repo: Path) -> list[tuple[bytes, int, str]]:
    """The stage-0 file entries of the index as `git ls-files -s -z` gives them."""
    found = []
    for record in git(repo, "ls-files", "-s", "-z").encode().split(b"\0"):
        meta, _, path = record.partition(b"\t")
        if path:
            mode, oid, stage = meta.decode().split(" ")
            if stage == "0" and mode != "160000":
                found.append((path, int(mode, 8), oid))
    return found


@pytest.mark.parametrize("version", ["2", "3", "4"])
@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_an_index_file_is_read_as_git_reads_it(tmp_path: Path, version: str, object_format: str) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", f"--object-format={object_format}")
    names = [*ODD_NAMES, "a/deep/er/path.py", "a/deep/er/paths.py", "a/deep/other.py", "b.sh"]
    write(repo, {name: f"{name}\n" for name in names})
    (repo / "b.sh").chmod(0o755)
    (repo / "link").symlink_to("b.sh")
    git(repo, "add", "-A")
    git(repo, "update-index", "--skip-worktree", "b.sh")  # extended flags, from version 3 on
    git(repo, "update-index", "--index-version", version)
    data = (repo / ".git" / "index").read_bytes()
    size = 20 if object_format == "sha1" else 32

    entries = formats.index_entries(data, size)

    assert entries is not None
    assert [(e.path, e.mode, e.oid) for e in entries] == _listed(repo)
    assert formats.index_entries(data, size, since=int(time.time()) + 3600) == []
    first = entries[0]
    assert first.info_line == b"%o %s\t%s\0" % (first.mode, first.oid.encode(), first.path)


def test_what_is_no_plain_index_is_not_read(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"a.txt": "a\n", "b.txt": "b\n"})
    data = (repo / ".git" / "index").read_bytes()
    assert formats.index_entries(data[:-30], 20) is None  # cut short
    assert formats.index_entries(b"not an index", 20) is None
    git(repo, "update-index", "--split-index")
    assert formats.index_entries((repo / ".git" / "index").read_bytes(), 20) is None
