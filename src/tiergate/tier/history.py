"""A repository's past commits, each as the change it made: what `tiergate replay` tiers.

Which commits: `git rev-list` of a range (default: the last 200 commits of HEAD). Merges are skipped by
default: a clean merge's own change is empty, and its branch's commits are in the range already. With
`first_parent`, the walk follows first parents only and a merge counts as its pull request: its change
against its first parent. A root commit's change is measured from the empty tree. A shallow clone's
boundary commit has parents git does not have: its own change is unknown, and replaying it is an error.

How a commit's change is measured: one `git log` for the whole range streams, per commit, its raw and
numstat records (`-z`, rename detection as the claim's `-M`) and its `-U0` patch; each commit's records
become the `ChangeMeasurement` the claim measures of a working tree (`change.measure_commit`: files,
additions and deletions, renames, binary files, submodule pointers, other tools' paths set aside), and
its patch is what the content rules read. The repository is untrusted, as everywhere: git runs through
`tiergate.git` (no hooks, fsmonitor, external diff or text conversion).

The output, per commit: `\\x01<id>\\x02<parents>\\x02<subject>\\0`; then, when the commit changed
anything, `\\n`, its raw and numstat records (no empty field among them), one empty field, and its patch
text. Every patch line starts with a character git chooses (`+ - @ \\ d i n o s r c B` ...; paths with
control characters are quoted), so a line starting with `\\x01` is always the next commit.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tiergate import foreign, git, gitformat
from tiergate.errors import UserError
from tiergate.foreign import Exclusions
from tiergate.tier.change import ChangeMeasurement, measure_commit

DEFAULT_COUNT = 200
ROOT_LABEL = "the empty tree"
_HEAD = b"\x01"
_FIELD = b"\x02"
_FORMAT = "--format=%x01%H%x02%P%x02%s"
# The claim's diff options, plus those that keep a history's patch in the one format read here whatever
# the repository's config says (prefixes, submodule logs, merged hunks, a hidden root commit).
LOG_OPTIONS = (
    "-z",
    "--raw",
    "--numstat",
    "-p",
    "-U0",
    "--inter-hunk-context=0",
    "-M",
    "--no-abbrev",
    "--root",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--submodule=short",
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
    _FORMAT,
)


@dataclass(frozen=True)
class Selection:
    """The commits to replay, newest first, each with its parents."""

    commits: tuple[tuple[str, tuple[str, ...]], ...]
    range_label: str
    first_parent: bool


@dataclass(frozen=True)
class PastCommit:
    id: str
    parents: tuple[str, ...]
    subject: str
    change: ChangeMeasurement
    patch: bytes  # `git diff -U0` text of the change, as the content rules read it


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


def select_commits(repo: Path, ids: Sequence[str], label: str = "the given commits") -> Selection:
    """The commits `ids` name, in that order, merges included (each against its first parent)."""
    if any(not i or i.startswith("-") for i in ids):
        raise UserError(f"bad commit id among {label}: give revisions, such as 1a2b3c4")
    commits = _rev_list(repo, label, "--no-walk=unsorted", "--end-of-options", *ids)
    _refuse_shallow(repo, commits)
    return Selection(commits, label, first_parent=True)


def _rev_list(repo: Path, target: str, *args: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    proc = git.run(repo, "rev-list", "--parents", *args, ok=(0, 128))
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
    if target == "HEAD" and git.head_sha(repo) is None:
        return UserError(f"no commits to replay in {repo}: the branch has none yet")
    return UserError(f"bad revision range {target!r}: git knows no such revisions in {repo}")


def _refuse_shallow(repo: Path, commits: Sequence[tuple[str, tuple[str, ...]]]) -> None:
    path = git.run(repo, "rev-parse", "--path-format=absolute", "--git-path", "shallow").stdout
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
    repo: Path, selection: Selection, exclusions: Exclusions = foreign.DEFAULT
) -> Iterator[PastCommit]:
    """Each selected commit's change, in the selection's order, from one streaming `git log`."""
    merges = ("--diff-merges=first-parent",) if selection.first_parent else ()
    wanted = b"".join(c.encode() + b"\n" for c, _ in selection.commits)
    empty = git.empty_tree(repo)
    parents = dict(selection.commits)
    args = ("log", "--no-walk=unsorted", "--stdin", *LOG_OPTIONS, *merges)
    with git.stream(repo, *args, stdin=wanted) as chunks:
        for commit, subject, section, patch in _records(chunks):
            base = parents[commit][0] if parents.get(commit) else empty
            label = base if parents.get(commit) else ROOT_LABEL
            entries = gitformat.parse_raw_numstat(section) if section else []
            change = measure_commit(repo, base, label, entries, exclusions)
            yield PastCommit(commit, parents.get(commit, ()), subject, change, patch)


_Record = tuple[str, str, bytes, bytes]


def _records(chunks: Iterator[bytes]) -> Iterator[_Record]:
    """(commit, subject, raw and numstat records, patch) for each commit of the stream."""
    buffer = b""
    resume = 0  # where the search for the end of a patch cut short by a chunk picks up
    ended = False
    while not ended:
        chunk = next(chunks, b"")
        ended = not chunk
        buffer += chunk
        start = 0
        while start < len(buffer):
            record, end = _one(buffer, start, resume, ended)
            if record is None:
                resume = end
                break
            yield record
            start, resume = end, end
        buffer, resume = buffer[start:], max(resume - start, 0)
    if buffer:
        raise UserError("git log gave output tiergate cannot read (a commit record cut short)")


def _one(buffer: bytes, start: int, resume: int, ended: bool) -> tuple[_Record | None, int]:
    """The commit record at `start` and where the next one begins; or None, with where to resume the
    search for its end, until more of it has arrived."""
    if buffer[start : start + 1] != _HEAD:
        raise UserError("git log gave output tiergate cannot read (no commit header where one belongs)")
    header_end = buffer.find(b"\0", start)
    after = header_end + 1
    if header_end < 0 or (after >= len(buffer) and not ended):
        return None, start
    commit, _, subject = buffer[start + 1 : header_end].split(_FIELD, 2)
    if buffer[after : after + 1] != b"\n":  # nothing changed: the next header, or the end
        return (commit.decode(), _text(subject), b"", b""), after
    section_end = buffer.find(b"\0\0", after)
    if section_end < 0:
        return None, start
    patch_start = section_end + 2
    patch_end = buffer.find(b"\n" + _HEAD, max(patch_start, resume))
    if patch_end < 0:
        if not ended:
            return None, max(len(buffer) - 1, patch_start)
        patch_end = len(buffer) - 1
    record = (
        commit.decode(),
        _text(subject),
        buffer[after + 1 : section_end + 1],
        buffer[patch_start : patch_end + 1],
    )
    return record, patch_end + 1


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")
