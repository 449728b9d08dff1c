"""What the workspace fingerprint is made of, path by path, and what changed between two of them.

A manifest is HEAD and a short digest of each path that differs from the loop's base ("absent" when
deleted since), with which of them exist in the base; its `digest` is the fingerprint. `changes` names
the files added, modified or deleted between two. Pure: `fingerprint` and `manifeststore` read and keep.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field

from tiergate import TYPE_CHECKING
from tiergate.frozen import frozen

if TYPE_CHECKING:
    from typing import Any

ABSENT = "absent"
SCHEMA = 1


@frozen
class Manifest:
    digest: str  # the workspace fingerprint
    head: str | None
    files: Mapping[str, str] = field(default_factory=dict)  # path -> short content digest or ABSENT
    at_base: frozenset[str] = frozenset()  # those of `files` that exist in the base


@frozen
class Changes:
    """How the workspace moved from one manifest to the next."""

    added: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    head: tuple[str | None, str | None] | None = None  # (from, to) when HEAD moved

    @property
    def empty(self) -> bool:
        return not (self.added or self.modified or self.deleted or self.head)


def changes(before: Manifest, after: Manifest) -> Changes:
    """What changed from `before` to `after` (both taken against the same base)."""
    added: list[str] = []
    modified: list[str] = []
    deleted: list[str] = []
    # Both manifests share the base; a path listed in either one is known to be in the base or not.
    in_base = before.at_base | after.at_base
    for path in sorted(set(before.files) | set(after.files)):
        was = _state(before, path, in_base)
        now = _state(after, path, in_base)
        if was == now:
            continue
        if was == ABSENT:
            added.append(path)
        elif now == ABSENT:
            deleted.append(path)
        else:
            modified.append(path)
    head = (before.head, after.head) if before.head != after.head else None
    return Changes(tuple(added), tuple(modified), tuple(deleted), head)


# What a path holds when a manifest does not list it: its base content, or nothing.
_AS_IN_BASE = "as in the base"


def _state(manifest: Manifest, path: str, in_base: frozenset[str]) -> str:
    if path in manifest.files:
        return manifest.files[path]
    # Not listed: the path is as the base has it, a file if the base has one, else nothing.
    return _AS_IN_BASE if path in in_base else ABSENT


def to_dict(manifest: Manifest) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "digest": manifest.digest,
        "head": manifest.head,
        "files": dict(sorted(manifest.files.items())),
        "at_base": sorted(manifest.at_base),
    }


def from_dict(data: object) -> Manifest | None:
    """The manifest `data` holds, or None when it is not one (a damaged or foreign file)."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return None
    digest, head = data.get("digest"), data.get("head")
    files, at_base = data.get("files"), data.get("at_base")
    if not isinstance(digest, str) or not (head is None or isinstance(head, str)):
        return None
    if not isinstance(files, dict) or not all(_strings(item) for item in files.items()):
        return None
    if not isinstance(at_base, list) or not _strings(at_base):
        return None
    return Manifest(digest, head, files, frozenset(at_base))


def _strings(values: object) -> bool:
    return isinstance(values, (list, tuple)) and all(isinstance(v, str) for v in values)
