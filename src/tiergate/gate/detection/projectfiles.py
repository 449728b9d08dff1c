"""Where check detection reads a project's files: its folder on disk, or a commit of its repository.

A loop's checks come from the files its base commit holds (`AtCommit`), read from git's objects, never
from the work tree the agent writes; the user's own commands read the folder as it is (`OnDisk`). Both
answer the same questions, for one reader of the facts (`tiergate.gate.detection.projectchecks.
read_facts`). See docs/judging.md, "The checks as declared at the base".
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal, Protocol

from tiergate.git import objects, runner

Kind = Literal["file", "dir", "other"]  # "other": a symbolic link in a commit, a submodule, a socket


class ProjectFiles(Protocol):
    def entries(self, folder: str) -> dict[str, Kind]:
        """The entries of `folder` ("" for the project's own; `/`-separated, relative to it) by name; none
        when it does not exist."""
        ...

    def kinds(self, paths: Sequence[str]) -> dict[str, Kind]:
        """What each of `paths` (relative to the project) is; one that does not exist is left out."""
        ...

    def texts(self, largest: Mapping[str, int]) -> dict[str, str]:
        """The UTF-8 text of each path of `largest` (relative to the project, listed by `entries` or
        `kinds` first) that is a file of at most as many bytes as it says; the others are left out."""
        ...


class OnDisk:
    """The project's folder as it is now."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def entries(self, folder: str) -> dict[str, Kind]:
        try:
            return {entry.name: _kind(entry) for entry in (self.root / folder).iterdir()}
        except OSError:
            return {}

    def kinds(self, paths: Sequence[str]) -> dict[str, Kind]:
        found: dict[str, Kind] = {}
        for path in paths:
            with contextlib.suppress(OSError):
                if (self.root / path).exists():
                    found[path] = _kind(self.root / path)
        return found

    def texts(self, largest: Mapping[str, int]) -> dict[str, str]:
        texts: dict[str, str] = {}
        for path, most in largest.items():
            with contextlib.suppress(OSError, UnicodeDecodeError):
                file = self.root / path
                if file.is_file() and file.stat().st_size <= most:
                    texts[path] = file.read_text(encoding="utf-8")
        return texts


def _kind(path: Path) -> Kind:
    return "dir" if path.is_dir() else "file" if path.is_file() else "other"


class AtCommit:
    """The project folder `inside` (relative to the repository's top, "" for the top) as `commit` holds it,
    read with `ls-tree` and `cat-file`, which run no filter. A symbolic link is no file here: where it
    points is the work tree's."""

    def __init__(self, top: Path, commit: str, inside: str = "") -> None:
        self.top, self.commit = top, commit
        self.prefix = f"{inside.strip('/')}/" if inside.strip("/") else ""
        self._blobs: dict[str, tuple[str, int]] = {}  # by path from the project: its blob and size

    def entries(self, folder: str) -> dict[str, Kind]:
        inner = f"{self.prefix}{folder.strip('/')}".strip("/")
        listed = self._listed([f"{inner}/" if inner else "."])
        return {
            path.rpartition("/")[2]: kind for path, kind in listed.items() if path.rpartition("/")[0] == inner
        }

    def kinds(self, paths: Sequence[str]) -> dict[str, Kind]:
        if not paths:
            return {}
        listed = self._listed([f"{self.prefix}{path.strip('/')}" for path in paths])
        return {path.removeprefix(self.prefix): kind for path, kind in listed.items()}

    def _listed(self, specs: Sequence[str]) -> dict[str, Kind]:
        """What `ls-tree` lists for `specs` (literal pathspecs: a folder named `[ab]` is no pattern), by
        path from the top; each file's blob is kept for `texts`."""
        out = runner.run(
            self.top,
            *("ls-tree", "-z", "-l", "--full-tree", self.commit, "--", *specs),
            env={"GIT_LITERAL_PATHSPECS": "1"},
        ).stdout
        found: dict[str, Kind] = {}
        for record in out.split(b"\0"):
            meta, tab, raw = record.partition(b"\t")
            if not tab:
                continue
            mode, _, oid, size = meta.split()
            path = os.fsdecode(raw)
            kind: Kind = "dir" if mode == b"040000" else "file" if mode in (b"100644", b"100755") else "other"
            found[path] = kind
            if kind == "file" and size.isdigit():
                self._blobs[path.removeprefix(self.prefix)] = (oid.decode(), int(size))
        return found

    def texts(self, largest: Mapping[str, int]) -> dict[str, str]:
        listed = [(path, self._blobs[path]) for path in largest if path in self._blobs]
        read = [(path, oid) for path, (oid, size) in listed if size <= largest[path]]
        texts: dict[str, str] = {}
        for (path, _), data in zip(read, objects.blobs(self.top, [oid for _, oid in read]), strict=True):
            with contextlib.suppress(UnicodeDecodeError):
                texts[path] = data.decode("utf-8")
        return texts
