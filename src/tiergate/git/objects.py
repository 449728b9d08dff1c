"""Object ids and revisions: what a name resolves to, the empty tree, and whether an id is full.

An object id never changes what it names (replace refs are off: `isolation`), so answers about one are
kept for the process.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tiergate.errors import UserError
from tiergate.git import repository, runner


def is_object_id(rev: str) -> bool:
    """Whether `rev` is a full object id (SHA-1 or SHA-256): what it names never changes (replace refs
    are off), so an answer about it can be kept for the process."""
    return len(rev) in (40, 64) and all(c in "0123456789abcdef" for c in rev)


def empty_tree(root: Path) -> str:
    """The id of the empty tree in this repository's object format (SHA-1 or SHA-256)."""
    key = str(root)
    if key not in _empty_trees:
        _empty_trees[key] = runner.text(
            runner.run(root, "hash-object", "-t", "tree", "--no-filters", "--stdin").stdout
        )
    return _empty_trees[key]


_empty_trees: dict[str, str] = {}  # by repository: its object format never changes


# The empty tree's id in each object format (SHA-1, SHA-256): fixed by its content, "tree 0\0".
_EMPTY_TREE_IDS = frozenset(
    {
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
    }
)


def is_empty_tree(oid: str) -> bool:
    """Whether the full id `oid` is the empty tree's (`empty_tree`, in either object format), without
    asking git."""
    return oid in _EMPTY_TREE_IDS


def resolve_rev(root: Path, rev: str) -> str:
    """The full id `rev` names: a commit, or a tree (the empty tree for HEAD before the first commit).
    An object id, once found, is kept for the process: what it names never changes."""
    key = (str(root), rev)
    if key in _resolved:
        return _resolved[key]
    # A revision that starts with a dash would be read as an option.
    if rev and not rev.startswith("-"):
        for peel in ("^{commit}", "^{tree}"):
            proc = runner.run(root, "rev-parse", "--verify", "--quiet", rev + peel, ok=(0, 1, 128))
            if proc.returncode == 0:
                resolved = runner.text(proc.stdout)
                if is_object_id(rev):
                    _resolved[key] = resolved
                return resolved
        if rev == "HEAD" and repository.head_sha(root) is None:
            return empty_tree(root)
    raise UserError(f"unknown revision {rev!r} in {root}")


_resolved: dict[tuple[str, str], str] = {}


def blobs(root: Path, oids: Sequence[str]) -> list[bytes]:
    """The bytes of each object of `oids` (full ids: a name with a space would read as another header), in
    order, as git stores them, in one `git cat-file --batch`; b"" for one that is missing or not a blob."""
    if not oids:
        return []
    out = runner.run(root, "cat-file", "--batch", stdin="".join(f"{oid}\n" for oid in oids).encode()).stdout
    found: list[bytes] = []
    at = 0
    for _ in oids:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if len(header) != 3:  # "<name> missing", "<name> ambiguous"
            found.append(b"")
            continue
        size = int(header[2])
        found.append(out[at : at + size] if header[1] == b"blob" else b"")
        at += size + 1
    return found
