"""Every git question tiergate asks, in one place.

git runs as a subprocess (no library) with `core.quotepath=off`, `LC_ALL=C` (so that its messages can be
recognised) and NUL-separated output wherever paths are involved, so that names with spaces, newlines,
quotes, leading dashes or any unicode survive. Environment variables that would point git at another
repository (a git hook's `GIT_DIR`, `GIT_INDEX_FILE`, ...) are dropped: the repository is always the one
at the directory asked about. Optional locks are off, so that asking never competes with the user's own
git commands for the index lock.

Every failure a user can act on becomes one `UserError` line naming the culprit.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tiergate.errors import UserError

if TYPE_CHECKING:
    import hashlib

_REDIRECTING_ENV = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
        "GIT_PREFIX",
    }
)
# Options that keep a diff in git's own plain format whatever the user configured (external diff tools,
# text conversion filters, colours, custom prefixes).
_PLAIN_DIFF = ("--no-ext-diff", "--no-textconv", "--no-color")
SUBMODULE_MODE = "160000"


@dataclass(frozen=True)
class DiffEntry:
    """One path of `git diff --raw --numstat` between a base and the working tree."""

    status: str  # git's letter: A, C, D, M, R, T, U or X
    path: str  # the new path (the old one for a deletion)
    old_path: str | None  # set for renames and copies
    old_mode: str
    new_mode: str
    old_id: str  # the blob id in the base (all zeros for an addition)
    additions: int | None  # None when git sees a binary file
    deletions: int | None


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _REDIRECTING_ENV}
    env.update(LC_ALL="C", LANGUAGE="C", GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0")
    return env


def run(
    cwd: Path,
    *args: str,
    ok: Sequence[int] = (0,),
    stdin: bytes = b"",
    env: Mapping[str, str] | None = None,
    index: Path | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`git -c core.quotepath=off ARGS` in `cwd`, in git.py's environment (no redirection, C locale, no
    optional locks) plus `env`, on the index file `index` if given. The one git runner: every module
    asks git through it. A return code not in `ok` raises UserError with git's own one-line reason."""
    environment = {**_env(), **(env or {})}
    if index is not None:
        environment["GIT_INDEX_FILE"] = str(index)
    try:
        proc = subprocess.run(
            ("git", "-c", "core.quotepath=off", *args),
            cwd=cwd,
            env=environment,
            input=stdin,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError as e:
        if not cwd.is_dir():
            raise UserError(f"no such directory: {cwd}") from e
        raise UserError("git not found: install git and put it on PATH") from e
    if proc.returncode not in ok:
        raise _error(cwd, args, proc.stderr)
    return proc


def _error(cwd: Path, args: Sequence[str], stderr: bytes) -> UserError:
    text = stderr.decode(errors="replace")
    if "not a git repository" in text or "must be run in a work tree" in text:
        return UserError(f"not a git repository: {cwd} (run tiergate inside a git work tree)")
    if "dubious ownership" in text:
        return UserError(
            f"git does not trust the repository at {cwd}: dubious ownership (see safe.directory)"
        )
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    detail = next((line for line in lines if line.startswith(("fatal:", "error:"))), None)
    return UserError(f"git {args[0]} failed in {cwd}: {detail or (lines[0] if lines else 'no message')}")


def _lines(out: bytes) -> str:
    return os.fsdecode(out.rstrip(b"\n"))


def repo_root(path: Path) -> Path:
    """The top of the work tree holding `path` (a directory or a file in one)."""
    start = path if path.is_dir() else path.parent
    if not start.is_dir():
        raise UserError(f"no such directory: {path}")
    try:
        out = run(start, "rev-parse", "--show-toplevel").stdout
    except UserError as e:
        if str(e).startswith("not a git repository"):
            raise UserError(f"not a git repository: {path} (run tiergate inside a git work tree)") from e
        raise
    root = _lines(out)
    if not root:  # inside a .git directory, git answers with nothing
        raise UserError(f"not a git repository: {path} (run tiergate inside a git work tree)")
    return Path(root)


def head_sha(repo: Path) -> str | None:
    """The commit HEAD points to; None in a repository with no commits yet."""
    proc = run(repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", ok=(0, 1))
    if proc.returncode != 0:
        return None
    return _lines(proc.stdout) or None


def top_and_head(path: Path) -> tuple[Path, str | None]:
    """`repo_root(path)` and `head_sha` of that repository, asked of git in one call."""
    start = path if path.is_dir() else path.parent
    if not start.is_dir():
        raise UserError(f"no such directory: {path}")
    proc = run(start, "rev-parse", "--show-toplevel", "--verify", "--quiet", "HEAD^{commit}", ok=(0, 1, 128))
    lines = _lines(proc.stdout).splitlines()
    if proc.returncode == 128 or not lines or not lines[0]:
        # Outside a work tree (or inside a .git directory, where git answers nothing).
        raise UserError(f"not a git repository: {path} (run tiergate inside a git work tree)")
    head = lines[1] if proc.returncode == 0 and len(lines) > 1 else None
    return Path(lines[0]), head


def empty_tree(repo: Path) -> str:
    """The id of the empty tree in this repository's object format (SHA-1 or SHA-256)."""
    return _lines(run(repo, "hash-object", "-t", "tree", "--stdin", stdin=b"").stdout)


def resolve_rev(repo: Path, rev: str) -> str:
    """The full id `rev` names: a commit, or a tree (the empty tree for HEAD before the first commit)."""
    # A revision that starts with a dash would be read as an option.
    if rev and not rev.startswith("-"):
        for peel in ("^{commit}", "^{tree}"):
            proc = run(repo, "rev-parse", "--verify", "--quiet", rev + peel, ok=(0, 1, 128))
            if proc.returncode == 0:
                return _lines(proc.stdout)
        if rev == "HEAD" and head_sha(repo) is None:
            return empty_tree(repo)
    raise UserError(f"unknown revision {rev!r} in {repo}")


def diff_entries(repo: Path, base: str) -> list[DiffEntry]:
    """Every tracked path that differs between `base` and the working tree, renames detected."""
    out = run(repo, "diff", "--raw", "--numstat", "-z", "-M", "--no-abbrev", *_PLAIN_DIFF, base, "--").stdout
    return parse_raw_numstat(out)


def changed_paths(repo: Path, base: str) -> list[str]:
    """Every tracked path that differs between `base` and the working tree of `repo` (its top): a
    rename is its old and its new path. Cheaper than `diff_entries` (no line counts, no rename
    detection) for callers that only need the names."""
    out = run(repo, "diff", "--name-only", "-z", "--no-renames", *_PLAIN_DIFF, base, "--").stdout
    return [os.fsdecode(p) for p in out.split(b"\0") if p]


def changed_statuses(repo: Path, base: str) -> list[tuple[str, str]]:
    """`changed_paths` with git's status letter of each (A: not in `base`; D, M, T, U: in it)."""
    out = run(repo, "diff", "--name-status", "-z", "--no-renames", *_PLAIN_DIFF, base, "--").stdout
    fields = out.split(b"\0")
    return [(fields[i].decode()[:1], os.fsdecode(fields[i + 1])) for i in range(0, len(fields) - 1, 2)]


def parse_raw_numstat(out: bytes) -> list[DiffEntry]:
    """Parse `git diff --raw --numstat -z`: all raw records come first, then all numstat records."""
    fields = out.split(b"\0")
    raws: list[tuple[list[str], str, str | None]] = []
    i = 0
    while i < len(fields) and fields[i].startswith(b":"):
        meta = fields[i][1:].decode().split(" ")
        if meta[4][0] in "RC":
            raws.append((meta, os.fsdecode(fields[i + 2]), os.fsdecode(fields[i + 1])))
            i += 3
        else:
            raws.append((meta, os.fsdecode(fields[i + 1]), None))
            i += 2
    counts: dict[str, tuple[int | None, int | None]] = {}
    while i < len(fields) and fields[i]:
        added, deleted, path = fields[i].split(b"\t", 2)
        if path:
            i += 1
        else:  # a rename or copy: the old and the new path follow
            path = fields[i + 2]
            i += 3
        counts[os.fsdecode(path)] = (_count(added), _count(deleted))
    return [
        DiffEntry(
            status=meta[4][0],
            path=path,
            old_path=old_path,
            old_mode=meta[0],
            new_mode=meta[1],
            old_id=meta[2],
            additions=counts.get(path, (0, 0))[0],
            deletions=counts.get(path, (0, 0))[1],
        )
        for meta, path, old_path in raws
    ]


def _count(field: bytes) -> int | None:
    return None if field == b"-" else int(field)


def untracked_files(repo: Path) -> list[str]:
    """Untracked paths git does not ignore; a nested repository is one entry ending in '/'."""
    out = run(repo, "ls-files", "-z", "--others", "--exclude-standard").stdout
    return [os.fsdecode(p) for p in out.split(b"\0") if p]


def diff_patch(repo: Path, base: str, paths: Iterable[str] = (), context: int = 0) -> bytes:
    """The unified diff between `base` and the working tree, limited to `paths` (taken literally) if any."""
    return run(
        repo,
        "--literal-pathspecs",
        "diff",
        f"-U{context}",
        "-M",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        *_PLAIN_DIFF,
        base,
        "--",
        *paths,
    ).stdout


def grep_files(repo: Path, words: Iterable[str], pathspecs: Iterable[str]) -> list[str]:
    """Files, tracked or untracked (not ignored), that hold one of `words` as a whole word."""
    patterns = [arg for word in words for arg in ("-e", word)]
    if not patterns:
        return []
    proc = run(
        repo,
        "grep",
        "-l",
        "-z",
        "-I",
        "-w",
        "-F",
        "--untracked",
        "--no-recurse-submodules",
        *patterns,
        "--",
        *pathspecs,
        ok=(0, 1),
    )
    return [os.fsdecode(p) for p in proc.stdout.split(b"\0") if p]


def blob_hasher(size: int, hex_length: int = 40) -> hashlib._Hash:
    """A hash that, fed `size` bytes of content, gives the id git gives that content as a blob.

    SHA-1, or SHA-256 in a repository whose ids are 64 hex digits long.
    """
    import hashlib

    digest = hashlib.sha256() if hex_length == 64 else hashlib.sha1(usedforsecurity=False)
    digest.update(b"blob %d\0" % size)
    return digest


def blob_id(content: bytes, hex_length: int = 40) -> str:
    digest = blob_hasher(len(content), hex_length)
    digest.update(content)
    return digest.hexdigest()


_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote_path(name: str) -> str:
    """A path as git prints it in a patch header: C-quoted when it holds quotes, backslashes or controls."""
    if not (len(name) >= 2 and name[0] == name[-1] == '"'):
        return name
    raw = bytearray()
    body, i = name[1:-1], 0
    while i < len(body):
        char = body[i]
        if char != "\\" or i + 1 == len(body):
            raw += os.fsencode(char)
            i += 1
        elif body[i + 1] in _ESCAPES:
            raw.append(_ESCAPES[body[i + 1]])
            i += 2
        else:  # three octal digits: one byte of a multi-byte character
            raw.append(int(body[i + 1 : i + 4], 8))
            i += 4
    return os.fsdecode(bytes(raw))
