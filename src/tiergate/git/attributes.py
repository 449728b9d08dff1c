"""The attributes tiergate's git reads file content with: tiergate's own, never the repository's.

A read of content runs in a git directory of tiergate's own (`own`) whose `info/attributes` holds
`ATTRIBUTES` and beats every `.gitattributes`; it borrows the repository's objects, names the work tree
and the index explicitly, and reads no repository config. See docs/ARCHITECTURE.md, "git, asked safely".
"""
# Why: git takes a file's attributes from every `.gitattributes` of the work tree and from
# `info/attributes` in the git directory, all of them the agent's to write: `binary` or `-diff` make a
# diff say "Binary files differ" (no line of it read), `working-tree-encoding` re-encodes the file before
# it is read, `ident` folds `$Id: ... $` into `$Id$`, `text` and `eol` rewrite line ends. git 2.39 has no
# option to read attributes from elsewhere (`--attr-source` came in 2.40). The objects are borrowed
# through GIT_OBJECT_DIRECTORY: what the own git dir writes (a tree) goes there.

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tiergate.foreign import SOURCE_NAMES, SOURCE_SUFFIXES
from tiergate.git import isolation, objects, runner

# Every attribute that changes the bytes git reads or whether it reads them as lines, for every path:
# `!diff` leaves git's own binary check (a NUL in the first 8000 bytes), `-text` (which also turns off
# the older `crlf`) and `!eol` keep line ends as they are, `-ident` keeps `$Id$`, `!filter` runs no
# driver, `!working-tree-encoding` reads the bytes as they are (`-` would be an error). Then a file a
# language reads as source is text whatever bytes it holds: node runs a script with a NUL in a comment,
# which git would call binary. A later line of the file beats an earlier one. Each suffix in lower and
# in upper case, as `*.py` and `*.PY`: git matches such a pattern by comparing the name's end, where a
# glob of either case (`*.[pP][yY]`) would be matched character by character, for every path a `git
# grep` reads (twice the CPU of the grep on 5,000 files); `foreign.is_source` reads any case.
ATTRIBUTES = "* !diff -text !eol -ident !filter !working-tree-encoding\n" + "".join(
    f"{pattern} diff\n"
    for pattern in (
        *(f"*{case}" for suffix in sorted(SOURCE_SUFFIXES) for case in sorted({suffix, suffix.upper()})),
        *SOURCE_NAMES,
    )
)


@contextlib.contextmanager
def own(root: Path, object_id: str) -> Iterator[dict[str, str]]:
    """The environment of a git call on the repository at `root` (its top) whose reads of the work tree
    take tiergate's `ATTRIBUTES`: a git directory of its own, removed on exit, in the object format of
    `object_id` (a full id of the repository; anything else costs a git call), on the repository's
    objects, with `root` as its work tree. A call that reads an index names it (`runner.run`'s
    `index`): this directory has none."""
    folder = Path(tempfile.mkdtemp(prefix="tiergate-git-"))
    try:
        (folder / "refs").mkdir()
        (folder / "info").mkdir()
        (folder / "HEAD").write_text("ref: refs/heads/tiergate\n")
        known = object_id if len(object_id) in _CONFIG else objects.empty_tree(root)
        (folder / "config").write_text(_CONFIG[len(known)])
        (folder / "info" / "attributes").write_text(ATTRIBUTES)
        isolation.OWN_GIT_DIRS.add(str(folder))
        yield {
            "GIT_DIR": str(folder),
            "GIT_WORK_TREE": str(root),
            "GIT_OBJECT_DIRECTORY": str(objects_dir(root)),
        }
    finally:
        isolation.OWN_GIT_DIRS.discard(str(folder))
        shutil.rmtree(folder, ignore_errors=True)


# The config of the git directory by the length of the repository's object ids (SHA-1, SHA-256).
_CONFIG = {
    40: "[core]\n\trepositoryformatversion = 0\n",
    64: "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n",
}


def objects_dir(root: Path) -> Path:
    """The object directory of the repository at `root` (its top): `.git/objects` in a plain repository,
    git's answer in a linked worktree or a submodule (kept for the process)."""
    if (root / ".git").is_dir():
        return root / ".git" / "objects"
    key = str(root)
    if key not in _objects:
        out = runner.run(root, "rev-parse", "--path-format=absolute", "--git-path", "objects").stdout
        _objects[key] = Path(os.fsdecode(out.rstrip(b"\n")))
    return _objects[key]


_objects: dict[str, Path] = {}
