"""A fingerprint of the workspace: equal fingerprints mean nobody changed a file in between.

It digests HEAD and every path that differs from the loop's base, with the content now on disk and its
executable bit, other tools' state left out. The same digest comes from git (`fingerprint`) or from a
change already measured for a claim (`of_change`); `manifest` gives it path by path. None outside a git
work tree. See docs/ARCHITECTURE.md, section "Who changed the workspace while a verifier ran".
"""

from __future__ import annotations

import hashlib
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from tiergate import foreign
from tiergate.errors import UserError
from tiergate.git import changes, objects, repository, untracked
from tiergate.tier.change import work_paths
from tiergate.workspace.manifest import ABSENT, Manifest

if TYPE_CHECKING:
    from tiergate.foreign import Exclusions
    from tiergate.tier.change import ChangeMeasurement

_CHUNK = 1 << 20
SHORT_DIGEST = 16  # hex digits of a file's content hash kept in a manifest: enough to tell edits apart


def fingerprint(root: Path, base: str | None, exclusions: Exclusions = foreign.DEFAULT) -> str | None:
    """The workspace's fingerprint relative to `base` (HEAD if None), other tools' state (`exclusions`)
    left out, or None outside a git work tree.

    Six git calls (the top and HEAD; the index flags, the filters to blank and the changed names; the
    base's ignore rules and the untracked files): a verifier's start and its stop each pay them."""
    taken = manifest(root, base, exclusions)
    return None if taken is None else taken.digest


def manifest(root: Path, base: str | None, exclusions: Exclusions = foreign.DEFAULT) -> Manifest | None:
    """The fingerprint with what it is made of: each path's short digest, and which are in the base;
    what a verifier is blamed for when it differs. Other tools' state (`exclusions`) is not in it."""
    try:
        top, head = repository.top_and_head(root)
        since = base or head or objects.empty_tree(top)
        statuses = changes.changed_statuses(top, since)
        new = untracked.untracked_files(top, since)
    except UserError:
        return None
    paths = work_paths(top, {path for _, path in statuses} | set(new), exclusions)
    at_base = frozenset(path for status, path in statuses if status != "A")
    digest, files = _scan(top, head, paths)
    return Manifest(digest, head, files, at_base & files.keys())


def of_change(change: ChangeMeasurement, *, just_measured: bool = False) -> str | None:
    """The same fingerprint, from a change measured from the base with `tiergate.tier.change` (with the
    exclusions it was measured with). `just_measured`: nothing ran since the change was measured (no
    check, no agent code), so that a change measured from HEAD tells HEAD without asking git."""
    try:
        head = measured_head(change) if just_measured else repository.head_sha(change.root)
    except UserError:
        return None
    paths = {f.path for f in change.files} | {f.old_path for f in change.files if f.old_path}
    # A rename still counted may have one side in a tool's folder: that side is left out here too.
    return _scan(change.root, head, work_paths(change.root, paths, change.exclusions))[0]


def measured_head(change: ChangeMeasurement) -> str | None:
    """HEAD as it was when `change` was measured: its base when measured from HEAD (None before the
    first commit, whose base is the empty tree), else asked of git now."""
    if change.base_label == "HEAD":
        return change.base_commit
    return repository.head_sha(change.root)


def _scan(top: Path, head: str | None, paths: Iterable[str]) -> tuple[str, dict[str, str]]:
    """The fingerprint of `paths` at HEAD `head`, and each path's short
    digest. The fingerprint hashes the full content digests, the manifest keeps SHORT_DIGEST of them."""
    digest = hashlib.sha256(f"head {head}\n".encode())
    files: dict[str, str] = {}
    for path in sorted(paths):
        content = _content_digest(top / path)
        digest.update(f"{path}\0{content}\n".encode("utf-8", "surrogateescape"))
        files[path] = _short(content)
    return digest.hexdigest(), files


def _short(content: str) -> str:
    if len(content) == 65 and content[0] in "x-":  # the executable bit and a SHA-256
        return content[: 1 + SHORT_DIGEST]
    return content[:200]  # a marker, a link's target, an unreadable file's errno


def _content_digest(path: Path) -> str:
    """The file's content digest and executable bit; a symlink's target; a marker for anything else."""
    try:
        status = path.lstat()
        if stat.S_ISLNK(status.st_mode):
            return f"link:{path.readlink()}"
        if not stat.S_ISREG(status.st_mode):
            return "directory" if stat.S_ISDIR(status.st_mode) else "other"
        digest = hashlib.sha256()
        with path.open("rb") as f:
            while chunk := f.read(_CHUNK):
                digest.update(chunk)
        executable = "x" if status.st_mode & stat.S_IXUSR else "-"
        return f"{executable}{digest.hexdigest()}"
    except FileNotFoundError:
        return ABSENT
    except OSError as exc:
        return f"unreadable:{exc.errno}"
