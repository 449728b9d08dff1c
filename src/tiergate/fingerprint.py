"""A fingerprint of the workspace: equal fingerprints mean nobody changed a file in between.

It digests HEAD, every path that differs from HEAD (staged or not, deleted, renamed) with its status and
the content now on disk, and every untracked file git does not ignore, with its content. Comparing the
fingerprint taken when a verifier starts with the one taken when it stops tells whether the verifier
touched the workspace; comparing it across Stops tells whether Claude made any progress.

Generated output that running tests or a build leaves behind is left out (`GENERATED`), or a verifier
doing exactly what it was asked (run the tests, run the build) in a project whose .gitignore forgot
`__pycache__/` would be disqualified. Content is hashed from the disk, not asked from git, so an edit
that leaves size and timestamp alone still shows.

None outside a git work tree: without git there is no cheap, reliable picture of the workspace.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from tiergate import git
from tiergate.errors import UserError

# Path segments (directories) and file name suffixes of generated output.
GENERATED_DIRS = frozenset(
    {
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".hypothesis",
        ".tox",
        ".nox",
        "htmlcov",
        "node_modules",
        ".tiergate",
        ".gradle",
        ".next",
    }
)
GENERATED_SUFFIXES = (".pyc", ".pyo", ".coverage", ".egg-info")
GENERATED_NAMES = frozenset({".coverage", "coverage.xml", ".DS_Store"})
_CHUNK = 1 << 20


def fingerprint(root: Path) -> str | None:
    """The workspace's fingerprint (hex), or None when `root` is not in a git work tree."""
    try:
        top = git.repo_root(root)
        head = git.head_sha(top)
        entries = git.diff_entries(top, head or git.empty_tree(top))
        untracked = git.untracked_files(top)
    except UserError:
        return None
    digest = hashlib.sha256(f"head {head}\n".encode())
    changed = {e.path: e.status for e in entries}
    changed.update({e.old_path: "D" for e in entries if e.old_path and e.old_path not in changed})
    changed.update(dict.fromkeys(untracked, "?"))
    for path in sorted(changed):
        if is_generated(path):
            continue
        digest.update(
            f"{changed[path]} {path}\0{_content_digest(top / path)}\n".encode("utf-8", "surrogateescape")
        )
    return digest.hexdigest()


def is_generated(path: str) -> bool:
    parts = path.rstrip("/").split("/")
    name = parts[-1]
    return (
        any(part in GENERATED_DIRS or part.endswith(".egg-info") for part in parts[:-1])
        or name in GENERATED_DIRS
        or name in GENERATED_NAMES
        or name.endswith(GENERATED_SUFFIXES)
        or name.startswith(".coverage.")
    )


def _content_digest(path: Path) -> str:
    """The file's content digest; a symlink's target; a marker for what is missing or not a file."""
    try:
        if path.is_symlink():
            return "link:" + str(path.readlink())
        if not path.is_file():
            return "absent" if not path.exists() else "other"
        digest = hashlib.sha256()
        with path.open("rb") as f:
            while chunk := f.read(_CHUNK):
                digest.update(chunk)
        return digest.hexdigest()
    except OSError as exc:
        return f"unreadable:{exc.errno}"
