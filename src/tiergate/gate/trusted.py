"""Which files a check opened in the folders the gate wrote (the claim's copy, tiergate's own, `.git`) are
as the gate or a check left them. Pure.

A process the agent left running can write into those folders too, between the gate's writing and the
checks' reading: a folder is not trusted, each file is. The kernel's watch (`sandboxwatch`) tells each
file opened there with its stamp (inode, change time in ns: a rewrite moves it, even one put back); the
file is the gate's when the stamp is the one the gate noted as it wrote it, a check's when a check of the
claim made it and left it so, and git's when it is one of git's own files in `.git` (what git keeps there
git shows anyway, its objects, refs and logs: see docs/judging.md, "Isolated checks"). Any other file
read there is named.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

Stamp = tuple[int, int]  # (inode, change time in ns), as `tiergate.gate.untouched` takes it

# git's own files in a `.git` folder (and in a worktree's or a submodule's folder inside it): the
# repository's state, which git reads and shows anyway. Not its hooks (code git runs) nor a file of
# another name left there.
_STATE = r"(HEAD|ORIG_HEAD|FETCH_HEAD|MERGE_HEAD|MERGE_MSG|MERGE_MODE|CHERRY_PICK_HEAD|REVERT_HEAD|AUTO_MERGE"
_STATE += r"|BISECT_[A-Z_]+|COMMIT_EDITMSG|index|packed-refs|shallow|config|config\.worktree|commondir"
_STATE += r"|gitdir|locked|description|info/(exclude|attributes|sparse-checkout|refs|grafts))"
_OBJECT = (
    r"objects/([0-9a-f]{2}/[0-9a-f]{38}([0-9a-f]{24})?|pack/pack-[0-9a-f]+\.(pack|idx|rev|bitmap|mtimes|keep"
)
_OBJECT += r"|promisor)|info/(packs|alternates|commit-graph|commit-graphs/.+)|commit-graph|multi-pack-index)"
_KEPT = r"(refs|logs|rr-cache|sequencer|rebase-merge|rebase-apply|lfs/objects)/.+"
_IN_GIT = re.compile(rf"((worktrees|modules)/[^/]+/)*({_STATE}|{_OBJECT}|{_KEPT})")


def git_owns(path: str) -> bool:
    """Whether `path` is one of git's own files: a `.git` link file, or a file of git's layout inside a
    `.git` folder."""
    parts = path.split("/")
    if ".git" not in parts:
        return False
    inside = "/".join(parts[len(parts) - parts[::-1].index(".git") :])
    return inside == "" or _IN_GIT.fullmatch(inside) is not None


def foreign(read: Mapping[str, Stamp], known: Mapping[str, Stamp], made: Mapping[str, Stamp]) -> list[str]:
    """The files of `read` (each as a check opened it) that are neither the gate's as it wrote them
    (`known`), nor a check's as it made them (`made`), nor git's own: sorted."""
    return sorted(
        path
        for path, stamp in read.items()
        if known.get(path) != stamp and made.get(path) != stamp and not git_owns(path)
    )
