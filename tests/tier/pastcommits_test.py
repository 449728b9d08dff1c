"""A past commit's change, read from one `git log` stream, is the change the claim measures of a checkout of
that commit against its parent; and the replay engine tiers it as `tiergate tier --base <parent>` does."""

from __future__ import annotations

import os
import stat
import subprocess
import time
from pathlib import Path

import pytest
from testing.gitrepo import GIT_ENV, commit_all, git, head, init_repo, write
from testing.pastcommits import lines, replayed

from tiergate.errors import UserError
from tiergate.git import formats
from tiergate.tier import pastcommits
from tiergate.tier.assess import Assessment, assess_change
from tiergate.tier.policy import Tier

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def build_shapes(repo: Path) -> dict[str, str]:
    """A history with one commit of each shape; its commits by name."""
    init_repo(repo)
    ids: dict[str, str] = {}
    write(repo, {"src/app.py": lines(30, "app"), "README.md": "hello\n", "moving.txt": lines(40, "m")})
    (repo / "logo.bin").write_bytes(b"\x89PNG\0\0\x01")
    ids["root"] = commit_all(repo, "root")
    git(repo, "mv", "moving.txt", "moved.txt")
    ids["rename"] = commit_all(repo, "pure rename")
    (repo / "moved.txt").unlink()
    write(repo, {"docs/moved-again.txt": lines(40, "m") + "one more\n"})
    ids["rename-edit"] = commit_all(repo, "rename with an edit")
    (repo / "logo.bin").write_bytes(b"\x89PNG\0\0\x02 changed")
    ids["binary"] = commit_all(repo, "binary edit")
    (repo / "README.md").unlink()
    ids["deletion"] = commit_all(repo, "delete the readme")
    script = repo / "run.sh"
    script.write_text("echo hi\n")
    ids["new-script"] = commit_all(repo, "a script")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    ids["mode"] = commit_all(repo, "make it executable")
    write(repo, {"package.json": '{"name": "x"}\n', "src/auth/login.py": "def login():\n    return 1\n"})
    ids["floors"] = commit_all(repo, "manifest and a login")
    write(repo, {"src/app.py": lines(30, "app").replace("app 3\n", "app three\n")})
    write(repo, {"tests/test_app.py": "def test_app():\n    assert True\n"})
    ids["tested"] = commit_all(repo, "edit with a test")
    write(repo, {"we ird\nname.txt": "x\n", "ünïcode.md": "y\n", "-dash.txt": "z\n"})
    ids["names"] = commit_all(repo, "odd names")
    write(repo, {f"many/f{i}.txt": f"{i}\n" for i in range(22)})
    ids["large"] = commit_all(repo, "22 files")
    write(repo, {".omc/state/loop.json": "{}\n", "src/app.py": lines(31, "app")})
    ids["foreign"] = commit_all(repo, "another tool's state beside an edit")
    write(
        repo,
        {"src/fetch.py": "import requests\n\ndef get(url):\n    return requests.get(url, verify=False)\n"},
    )
    ids["content"] = commit_all(repo, "TLS verification off in the changed lines")
    write(repo, {"src/fetch.py": "import requests\n\ndef get(url):\n    return requests.get(url)\n"})
    ids["content-removed"] = commit_all(repo, "and back on: a removed line")
    git(repo, "commit", "-q", "--allow-empty", "-m", "empty")
    ids["empty"] = head(repo)
    git(repo, "checkout", "-q", "-b", "side", ids["names"])
    write(repo, {"side.py": lines(3, "s")})
    ids["side"] = commit_all(repo, "on a branch")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    ids["merge"] = head(repo)
    return ids


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("shapes") / "repo"
    return repo, build_shapes(repo)


def claimed(repo: Path, commit: str, base: str, tmp_path: Path) -> Assessment:
    """`tiergate tier --base <base>`'s assessment, on a checkout of `commit`."""
    checkout = tmp_path / f"checkout-{commit[:8]}"
    git(repo, "worktree", "add", "-q", "--detach", str(checkout), commit)
    try:
        return assess_change(checkout, base=base)
    finally:
        git(repo, "worktree", "remove", "--force", str(checkout))


@pytest.mark.parametrize(
    "shape",
    [
        "root",
        "rename",
        "rename-edit",
        "binary",
        "deletion",
        "mode",
        "floors",
        "tested",
        "names",
        "large",
        "foreign",
        "content",
        "content-removed",
        "empty",
    ],
)
def test_each_commit_is_tiered_as_the_claim_tiers_a_checkout_of_it(
    shapes: tuple[Path, dict[str, str]], shape: str, tmp_path: Path
) -> None:
    repo, ids = shapes
    commit = ids[shape]
    parents = git(repo, "rev-list", "--parents", "-n", "1", commit).split()[1:]
    past = replayed(repo, f"{commit}^!" if parents else commit)[commit]
    claim = claimed(repo, commit, parents[0] if parents else EMPTY_TREE, tmp_path)
    assert past.commit.change.files == claim.change.files
    assert past.commit.change.excluded == claim.change.excluded
    assert past.commit.change.base == claim.change.base
    assert past.decision.tier == claim.decision.tier
    for flag in ("has_security_implications", "has_architectural_changes", "security_evidence"):
        assert getattr(past.decision.facts, flag) == getattr(claim.decision.facts, flag)
    assert past.decision.facts.architecture_evidence == claim.decision.facts.architecture_evidence
    assert past.content == claim.content


def test_shapes_measure_what_they_are(shapes: tuple[Path, dict[str, str]]) -> None:
    repo, ids = shapes
    past = replayed(repo)
    by = {name: past[ids[name]].commit.change for name in ids if ids[name] in past}
    assert by["root"].base == EMPTY_TREE and by["root"].base_label == pastcommits.ROOT_LABEL
    assert [(f.status, f.old_path, f.lines_changed) for f in by["rename"].files] == [
        ("renamed", "moving.txt", 0)
    ]
    assert [(f.status, f.additions) for f in by["rename-edit"].files] == [("renamed", 1)]
    assert [(f.binary, f.lines_changed) for f in by["binary"].files] == [(True, 0)]
    assert [(f.status, f.deletions) for f in by["deletion"].files] == [("deleted", 1)]
    assert sorted(f.path for f in by["names"].files) == ["-dash.txt", "we ird\nname.txt", "ünïcode.md"]
    assert [f.path for f in by["foreign"].files] == ["src/app.py"]
    assert [v.path for v in by["foreign"].excluded] == [".omc/state/loop.json"]
    assert by["empty"].files == ()
    content = past[ids["content"]]
    assert [(h.path, h.line, h.side, h.construct) for h in content.content] == [
        ("src/fetch.py", 4, "added", "TLS verification switch")
    ]
    assert (content.without_content.tier, content.decision.tier) == (Tier.STANDARD, Tier.THOROUGH)
    assert content.raised_by_content
    assert content.rules == ("security construct: TLS verification switch",)
    assert ids["merge"] not in past, "merges are skipped by default"
    assert ids["side"] in past, "the merged branch's own commits are replayed"


def test_first_parent_counts_a_merge_as_its_change_against_the_first_parent(
    shapes: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, ids = shapes
    past = replayed(repo, first_parent=True)
    assert ids["side"] not in past
    merge = past[ids["merge"]]
    assert [f.path for f in merge.commit.change.files] == ["side.py"]
    claim = claimed(repo, ids["merge"], ids["empty"], tmp_path)
    assert merge.commit.change.files == claim.change.files
    assert merge.decision.tier == claim.decision.tier


def test_the_default_range_is_the_last_200_of_head(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "0\n"})
    empty_commits(repo, 205)
    selection = pastcommits.select(repo)
    assert len(selection.commits) == pastcommits.DEFAULT_COUNT
    assert selection.commits[0][0] == head(repo)
    assert len(pastcommits.select(repo, "HEAD~10..HEAD").commits) == 10
    assert len(pastcommits.select(repo, "HEAD", limit=7).commits) == 7


def empty_commits(repo: Path, count: int) -> None:
    """`count` empty commits on main after HEAD (c0, c1, ...), a second apart, as `git commit --allow-empty`
    makes them, but written by one `git fast-import`: a git process per commit was most of the test's time."""
    who = f"{GIT_ENV['GIT_COMMITTER_NAME']} <{GIT_ENV['GIT_COMMITTER_EMAIL']}>"
    now, parent = int(time.time()), head(repo)
    stream: list[str] = []
    for i in range(count):
        message = f"c{i}\n"
        start = f"from {parent}\n" if i == 0 else ""  # the first follows HEAD, each next one the last
        signed = f"committer {who} {now + i} +0000\n"
        stream.append(f"commit refs/heads/main\n{signed}data {len(message)}\n{message}{start}\n")
    subprocess.run(
        ["git", "fast-import", "--quiet"],
        input="".join(stream),
        text=True,
        cwd=repo,
        env={**os.environ, **GIT_ENV},
        check=True,
    )


@pytest.mark.parametrize(
    ("rev_range", "message"),
    [
        ("nosuchbranch", "bad revision range 'nosuchbranch'"),
        ("--all", "bad revision range '--all'"),
        ("HEAD..HEAD", "no commits to replay in 'HEAD..HEAD'"),
    ],
)
def test_bad_and_empty_ranges_are_one_line_errors(tmp_path: Path, rev_range: str, message: str) -> None:
    repo = init_repo(tmp_path / "repo", {"a.txt": "0\n"})
    with pytest.raises(UserError, match=message):
        pastcommits.select(repo, rev_range)


def test_a_shallow_clones_boundary_is_refused(tmp_path: Path) -> None:
    origin = init_repo(tmp_path / "origin", {"a.txt": "0\n"})
    for i in range(3):
        write(origin, {"a.txt": f"{i + 1}\n"})
        commit_all(origin, f"c{i}")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth=2", f"file://{origin}", str(clone))
    assert len(pastcommits.select(clone, "HEAD~1..HEAD").commits) == 1  # above the boundary: fine
    with pytest.raises(UserError, match="edge of a shallow clone"):
        pastcommits.select(clone)


A, B, C = (ch * 40 for ch in "abc")
MEASURED = (
    f"\x01{A}\x02{B}\x02subject\0\n".encode()
    + b":100644 100644 "
    + b"1" * 40
    + b" "
    + b"2" * 40
    + b" M\0\x01odd\tname\0"
    + b":100644 100644 "
    + b"1" * 40
    + b" "
    + b"1" * 40
    + b" R100\0old\0\x01new\0"
    + b"1\t1\t\x01odd\tname\0"
    + b"0\t0\t\0old\0\x01new\0"
    + f"\x01{B}\x02\x02empty\0".encode()
    + f"\x01{C}\x02\x02last\0\n".encode()
    + b":000000 100644 "
    + b"0" * 40
    + b" "
    + b"3" * 40
    + b" A\0f\t\0"
    + b"1\t0\tf\t\0"
)
PATCHED = (
    f"\x01{A}\x02{B}\x02subject\0\n".encode()
    + MEASURED[MEASURED.index(b"\n") + 1 : MEASURED.index(f"\x01{B}".encode())]
    + b'\0diff --git "a/\\001odd\\tname" "b/\\001odd\\tname"\n@@ -1 +1 @@\n-x\n+y\n'
    + b"diff --git a/old b/\\001new\nsimilarity index 100%\n"
    + MEASURED[MEASURED.index(f"\x01{B}".encode()) :]
    + b"\0diff --git a/f b/f\n+z\n"
)


def chunked(stream: bytes, size: int) -> list[bytes]:
    return [stream[i : i + size] for i in range(0, len(stream), size)]


def test_records_are_read_whole_however_the_stream_is_cut() -> None:
    fields_only, with_patch = pastcommits._reader(patches=False), pastcommits._reader(patches=True)
    measured = list(pastcommits._split(iter([MEASURED]), fields_only))
    assert [(c, s, p) for c, s, _, p in measured] == [
        (A, "subject", b""),
        (B, "empty", b""),
        (C, "last", b""),
    ]
    entries = formats.parse_raw_numstat(measured[0][2])
    assert [(e.path, e.old_path, e.additions) for e in entries] == [
        ("\x01odd\tname", None, 1),
        ("\x01new", "old", 0),
    ]
    assert [e.path for e in formats.parse_raw_numstat(measured[2][2])] == ["f\t"]
    patched = list(pastcommits._split(iter([PATCHED]), with_patch))
    assert [(c, s, f) for c, s, f, _ in patched] == [(c, s, f) for c, s, f, _ in measured]
    assert patched[0][3].startswith(b'diff --git "a/') and patched[0][3].endswith(b"similarity index 100%\n")
    assert patched[1][3] == b""
    assert patched[2][3] == b"diff --git a/f b/f\n+z\n"
    for stream, parse, whole in ((MEASURED, fields_only, measured), (PATCHED, with_patch, patched)):
        for size in (1, 2, 3, 7, 40, 97):
            assert list(pastcommits._split(iter(chunked(stream, size)), parse)) == whole, size
        for cut in range(1, len(stream)):
            assert list(pastcommits._split(iter([stream[:cut], stream[cut:]]), parse)) == whole, cut


def test_a_stream_cut_short_is_an_error() -> None:
    for stream, patches in ((MEASURED[:-3], False), (b"garbage", True), (MEASURED, True)):
        with pytest.raises(UserError, match="git log gave output tiergate cannot read"):
            list(pastcommits._split(iter([stream]), pastcommits._reader(patches)))


def test_nothing_runs_from_the_repositorys_config(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    marker = tmp_path / "ran"
    tool = tmp_path / "tool.sh"
    tool.write_text(f'#!/bin/sh\ntouch {marker}\ncat "$1" 2>/dev/null\n')
    tool.chmod(0o755)
    write(repo, {".gitattributes": "*.py diff=py\n", "a.py": "x = 2\n"})
    commit_all(repo, "edit")
    # Set after the commits: the test's own git commands would run them.
    for key in ("diff.external", "diff.py.textconv", "diff.py.command", "core.fsmonitor"):
        git(repo, "config", key, str(tool))
    git(repo, "config", "log.showRoot", "false")
    git(repo, "config", "diff.noprefix", "true")
    past = list(pastcommits.replay(repo, pastcommits.select(repo)))
    assert not marker.exists()
    assert [f.path for c in past for f in c.change.files] == [".gitattributes", "a.py", "a.py"]
    assert b"+x = 2" in (past[0].change.patch or b"")
    assert b"+++ b/a.py" in (past[0].change.patch or b"")
