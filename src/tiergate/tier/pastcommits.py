"""A repository's past commits, each as the change it made: what `tiergate replay` tiers.

Which commits: `git rev-list` of a range (default: HEAD's last 200), merges skipped, or with
`first_parent` each merge against its first parent; a root commit against the empty tree; a shallow
clone's boundary commit is an error. One `git log` streams every commit's records (and `-U0` patch).
"""
# Each commit is measured as a claim measures a working tree (`change.measure_commit`). The repository is
# untrusted: git runs through `tiergate.git`.

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

from tiergate import foreign
from tiergate.errors import UserError
from tiergate.foreign import Exclusions
from tiergate.frozen import frozen
from tiergate.git import attributes, formats, objects, repository, runner
from tiergate.tier.change import ChangeMeasurement, measure_commit

DEFAULT_COUNT = 200
ROOT_LABEL = "the empty tree"
# Each commit's record starts with a header, `\x01<id>\x02<parents>\x02<subject>\0`; when the commit
# changed anything, a newline and its NUL-terminated raw and numstat fields follow, then (with the patch)
# one empty field and the patch text. The counts are git's at -U0, as the claim's are: git can align a
# diff with no context differently (ripgrep's 241b87b33771 counts 61+27 lines at -U0, 62+28 by default).
_HEAD = b"\x01"
_FIELD = b"\x02"
# The claim's measurement, `git diff --raw --numstat -z -M --no-abbrev`, for the commits given on stdin in
# that order, each after a header of this format.
MEASURE_OPTIONS = (
    "--no-walk=unsorted",
    "--stdin",
    "-z",
    "--format=%x01%H%x02%P%x02%s",
    "--root",
    "-M",
    "--raw",
    "--numstat",
    "--no-abbrev",
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
)
# With the content rules on, the claim's `-U0` patch from the same run (`git.changes.ChangeDiff`),
# with what keeps it in the one format read here whatever the repository's config says (prefixes,
# submodule logs, merged hunks).
PATCH_OPTIONS = (
    "-p",
    "-U0",
    "--inter-hunk-context=0",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--submodule=short",
)


@frozen
class Selection:
    """The commits to replay, newest first, each with its parents."""

    commits: tuple[tuple[str, tuple[str, ...]], ...]
    range_label: str
    first_parent: bool


@frozen
class PastCommit:
    id: str
    parents: tuple[str, ...]
    subject: str
    change: ChangeMeasurement  # with its `-U0` patch when asked for (`change.patch`)


def select(
    repo: Path, rev_range: str | None = None, limit: int | None = None, first_parent: bool = False
) -> Selection:
    """The commits `rev_range` names (HEAD's last `DEFAULT_COUNT` when None), at most `limit`.

    Raises UserError, one line, for a bad or empty range and for a shallow clone's boundary commit."""
    if rev_range is not None and (not rev_range or rev_range.startswith("-")):
        raise UserError(f"bad revision range {rev_range!r}: give revisions, such as main~50..main")
    if rev_range is None and limit is None:
        limit = DEFAULT_COUNT
    walk = ["--first-parent"] if first_parent else ["--no-merges"]
    count = [f"--max-count={limit}"] if limit is not None else []
    target = rev_range or "HEAD"
    commits = _rev_list(repo, target, *walk, *count, "--end-of-options", target)
    if not commits:
        raise UserError(f"no commits to replay in {target!r}" + ("" if first_parent else " (merges skipped)"))
    _refuse_shallow(repo, commits)
    return Selection(commits, target, first_parent)


def _rev_list(repo: Path, target: str, *args: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    proc = runner.run(repo, "rev-list", "--parents", *args, ok=(0, 128))
    if proc.returncode != 0:
        raise _range_error(repo, target, proc.stderr)
    return tuple(_parents(line) for line in proc.stdout.decode().splitlines() if line)


def _parents(line: str) -> tuple[str, tuple[str, ...]]:
    commit, *parents = line.split()
    return commit, tuple(parents)


def _range_error(repo: Path, target: str, stderr: bytes) -> UserError:
    text = stderr.decode(errors="replace")
    if "not a git repository" in text:
        return UserError(f"not a git repository: {repo} (run tiergate inside a git work tree)")
    if target == "HEAD" and repository.head_sha(repo) is None:
        return UserError(f"no commits to replay in {repo}: the branch has none yet")
    return UserError(f"bad revision range {target!r}: git knows no such revisions in {repo}")


def _refuse_shallow(repo: Path, commits: Sequence[tuple[str, tuple[str, ...]]]) -> None:
    path = runner.run(repo, "rev-parse", "--path-format=absolute", "--git-path", "shallow").stdout
    try:
        boundary = set(Path(os.fsdecode(path.strip())).read_text().split())
    except OSError:  # not shallow
        return
    cut = next((c for c, _ in commits if c in boundary), None)
    if cut is not None:
        raise UserError(
            f"commit {cut[:12]} is at the edge of a shallow clone: its parents are missing, so its own "
            "change is unknown (deepen the clone with git fetch --deepen=N, or replay a shorter range)"
        )


def replay(
    repo: Path, selection: Selection, exclusions: Exclusions = foreign.DEFAULT, patches: bool = True
) -> Iterator[PastCommit]:
    """Each selected commit's change, in the selection's order, from one streaming `git log`; with
    `patches`, each change holds its `-U0` patch, as the claim's measurement does with content rules on."""
    merges = ("--diff-merges=first-parent",) if selection.first_parent else ()
    wanted = b"".join(c.encode() + b"\n" for c, _ in selection.commits)
    empty = objects.empty_tree(repo)
    parents = dict(selection.commits)
    options = (*MEASURE_OPTIONS, *(PATCH_OPTIONS if patches else ()), *merges)
    try:
        # Each commit's files read with tiergate's attributes, not the work tree's (`attributes.own`).
        with (
            attributes.own(repo, empty) as env,
            runner.stream(repo, "log", *options, stdin=wanted, env=env) as chunks,
        ):
            for commit, subject, section, patch in _split(chunks, _reader(patches)):
                base = parents[commit][0] if parents.get(commit) else empty
                label = base if parents.get(commit) else ROOT_LABEL
                entries = formats.parse_raw_numstat(section) if section else []
                change = measure_commit(repo, base, label, entries, exclusions, patch if patches else None)
                yield PastCommit(commit, parents.get(commit, ()), subject, change)
    except UserError as e:
        if "unable to read" not in str(e):
            raise
        # No network is used (protocol.allow=never), so a partial clone's missing objects stay missing.
        raise UserError(
            f"{e} (the clone lacks objects these commits need: fetch them, or replay fewer)"
        ) from e


_T = TypeVar("_T")
# A record at `start` of the buffer (complete, or None until more has arrived), and the offset where
# the next record starts, or where the search for this one's end picks up when more has arrived.
_Parse = Callable[[bytes, int, int, bool], tuple[_T | None, int]]


def _split(chunks: Iterator[bytes], parse: _Parse[_T]) -> Iterator[_T]:
    """The records of a stream of chunks, each read by `parse` once enough of it has arrived."""
    buffer = b""
    resume = 0
    ended = False
    while not ended:
        chunk = next(chunks, b"")
        ended = not chunk
        buffer += chunk
        start = 0
        while start < len(buffer):
            record, end = parse(buffer, start, resume, ended)
            if record is None:
                resume = end
                break
            yield record
            start, resume = end, end
        buffer, resume = buffer[start:], max(resume - start, 0)
    if buffer:
        raise _unreadable("a commit record cut short")


def _header(buffer: bytes, start: int, ended: bool) -> tuple[str, str, int] | None:
    """The commit and subject of the header at `start`, and where the header ends; None if cut short."""
    if buffer[start : start + 1] != _HEAD:
        raise _unreadable("no commit header where one belongs")
    end = buffer.find(b"\0", start)
    if end < 0 or (end + 1 >= len(buffer) and not ended):
        return None
    commit, _, subject = buffer[start + 1 : end].split(_FIELD, 2)
    return commit.decode(), subject.decode("utf-8", "replace"), end + 1


_Record = tuple[str, str, bytes, bytes]  # commit, subject, raw and numstat fields, patch


def _reader(patches: bool) -> _Parse[_Record]:
    def read(buffer: bytes, start: int, resume: int, ended: bool) -> tuple[_Record | None, int]:
        return _record(buffer, start, resume, ended, patches)

    return read


def _record(buffer: bytes, start: int, resume: int, ended: bool, patches: bool) -> tuple[_Record | None, int]:
    """A commit's header; then, when it changed anything, a newline and its raw and numstat fields; then,
    with `patches`, one empty field and the patch text. Every patch line starts with a character git
    chooses (paths with control characters are quoted), so the patch ends where a line starts with the
    header's mark."""
    header = _header(buffer, start, ended)
    if header is None:
        return None, start
    commit, subject, at = header
    if buffer[at : at + 1] != b"\n":  # nothing changed: the next header, or the end
        return (commit, subject, b"", b""), at
    fields_end = _section_end(buffer, at + 1, ended)
    if fields_end < 0:
        return None, start
    section = buffer[at + 1 : fields_end]
    if not patches:
        return (commit, subject, section, b""), fields_end
    end, resume = _patch_end(buffer, fields_end, resume, ended)
    if end < 0:
        return None, resume
    return (commit, subject, section, buffer[fields_end + 1 : end]), end


def _patch_end(buffer: bytes, at: int, resume: int, ended: bool) -> tuple[int, int]:
    """Where the patch after the empty field at `at` ends (the next header, or the end); -1 until it
    has all arrived, with where the search picks up then."""
    if at >= len(buffer) and not ended:
        return -1, 0
    if buffer[at : at + 1] != b"\0":
        raise _unreadable("no patch after a commit's file list")
    found = buffer.find(b"\n" + _HEAD, max(at + 1, resume))
    if found >= 0:
        return found + 1, 0
    if ended:
        return len(buffer), 0
    return -1, max(len(buffer) - 1, at + 1)


def _section_end(buffer: bytes, position: int, ended: bool) -> int:
    """Where the NUL-terminated raw and numstat fields from `position` end: one raw record (2 fields, 3
    for a rename or copy) and one numstat record (1 field, 3 for a rename or copy) per file. Paths may
    hold any byte but NUL, so the fields are counted. -1 when they have not all arrived."""
    files = 0
    while position < len(buffer) and buffer[position : position + 1] == b":":
        status = buffer[position : buffer.find(b"\0", position)].rsplit(b" ", 1)[-1][:1]
        position = _fields(buffer, position, 3 if status in (b"R", b"C") else 2)
        if position < 0:
            return -1
        files += 1
    if position >= len(buffer) and not ended:  # more raw records may be on their way
        return -1
    if not files:
        raise _unreadable("a commit's file list is missing")
    for _ in range(files):
        end = buffer.find(b"\0", position)
        if end < 0:
            return -1
        # "added TAB deleted TAB path"; a rename's path field is empty, its two paths follow.
        record = buffer[position:end]
        renamed = record.count(b"\t") == 2 and record.endswith(b"\t")
        position = _fields(buffer, position, 3 if renamed else 1)
        if position < 0:
            return -1
    return position


def _fields(buffer: bytes, position: int, count: int) -> int:
    """Where `count` NUL-terminated fields from `position` end; -1 if they have not all arrived."""
    for _ in range(count):
        end = buffer.find(b"\0", position)
        if end < 0:
            return -1
        position = end + 1
    return position


def _unreadable(what: str) -> UserError:
    return UserError(f"git log gave output tiergate cannot read ({what})")
