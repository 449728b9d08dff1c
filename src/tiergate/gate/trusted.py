"""Which files a check opened in the folders the gate wrote (the claim's copy, tiergate's own, `.git`) are as
the gate or a check left them. Pure.

Each file is trusted, not a folder: the kernel's watch (`sandboxwatch`) gives each opened file's stamp
(inode, change time in ns). It is the gate's when the gate noted that stamp as it wrote it, a check's when
one made it and left it so, git's when one of git's own files in `.git`. Any other read there is named.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from tiergate.gate.untouched import Stamp

# git's own files in a `.git` folder (and in a worktree's or a submodule's folder inside it): the
# repository's state, which git reads and shows anyway. Not its hooks (code git runs) nor a file of
# another name left there.
_STATE = r"(HEAD|ORIG_HEAD|FETCH_HEAD|MERGE_HEAD|MERGE_MSG|MERGE_MODE|CHERRY_PICK_HEAD|REVERT_HEAD|AUTO_MERGE"
_STATE += r"|BISECT_[A-Z_]+|COMMIT_EDITMSG|index|packed-refs|shallow|config|config\.worktree|commondir"
_STATE += r"|gitdir|locked|info/(exclude|attributes|sparse-checkout|grafts))"
_OBJECT = (
    r"objects/([0-9a-f]{2}/[0-9a-f]{38}([0-9a-f]{24})?|pack/pack-[0-9a-f]+\.(pack|idx|rev|bitmap|mtimes|keep"
)
_OBJECT += r"|promisor)|info/(packs|alternates|commit-graph|commit-graphs/.+)|commit-graph|multi-pack-index)"
_KEPT = r"(refs|logs|rr-cache|sequencer|rebase-merge|rebase-apply|lfs/objects)/.+"
_IN_GIT = re.compile(rf"((worktrees|modules)/[^/]+/)*({_STATE}|{_OBJECT}|{_KEPT})")
# What git writes in a ref (a name, a HEAD) and in a reflog's lines: a file of such a name that holds
# anything else is no ref, whatever its name.
_REF = re.compile(r"([0-9a-f]{40}([0-9a-f]{24})?|ref: [^\s]+)\n?")
_LOG_LINE = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})? [0-9a-f]{40}([0-9a-f]{24})? .*")
_REF_NAMED = re.compile(r"((worktrees|modules)/[^/]+/)*(refs/.+|[A-Z_]*HEAD)")
_LOG_NAMED = re.compile(r"((worktrees|modules)/[^/]+/)*logs/.+")


def git_owns(path: str, gits: Iterable[str], text: Callable[[str], str | None]) -> bool:
    """Whether `path` is one of git's own files in one of the `.git` folders `gits`: a file of git's layout
    that holds what git writes there (a ref, a reflog, as `text` reads it)."""
    inside = next((path[len(g) + 1 :] for g in gits if path.startswith(g.rstrip("/") + "/")), None)
    if inside is None or _IN_GIT.fullmatch(inside) is None:
        return False
    if _REF_NAMED.fullmatch(inside):
        return _REF.fullmatch(text(path) or "") is not None
    if _LOG_NAMED.fullmatch(inside):
        return all(_LOG_LINE.fullmatch(line) for line in (text(path) or "").splitlines())
    return True


def foreign(
    read: Mapping[str, Stamp],
    known: Mapping[str, Stamp],
    made: Mapping[str, Stamp],
    *,
    gits: Iterable[str] = (),
    text: Callable[[str], str | None] = lambda _: None,
) -> list[str]:
    """The files of `read` (each as a check opened it) that are neither the gate's as it wrote them
    (`known`), nor a check's as it made them (`made`), nor git's own in the `.git` folders `gits`."""
    gits = tuple(gits)
    return sorted(
        path
        for path, stamp in read.items()
        if known.get(path) != stamp and made.get(path) != stamp and not git_owns(path, gits, text)
    )
