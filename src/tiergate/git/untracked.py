"""Untracked files: those the base's committed .gitignore files do not ignore, or git's own answer.

Only the base's rules count: .git/info/exclude, core.excludesFile and a .gitignore written since are
the agent's to change, and a rule added during the loop must not hide a new file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from tiergate.git import attributes, indexcopy, objects, runner
from tiergate.git.formats import rebase_ignore_rules
from tiergate.project import state_dirs_in_tree


def untracked_files(root: Path, base: str) -> list[str]:
    """Untracked paths that the .gitignore files committed in `base` do not ignore, nor a tiergate state
    folder inside the work tree (`project.state_dirs_in_tree`); a nested repository is one entry ending
    in '/'. Only the base's rules count: a file ignored only locally counts as untracked."""
    # .git/info/exclude, core.excludesFile and a .gitignore written or edited since are all the agent's to
    # change, and a rule added during the loop must not hide a new file. The price is that files the user
    # ignores only locally (info/exclude, a global excludes file) count as untracked: more to verify,
    # never less.
    with tempfile.NamedTemporaryFile(prefix="tiergate-ignore-") as rules:
        rules.write("".join(f"{line}\n" for line in _committed_ignores(root, base)).encode())
        rules.flush()
        in_use, legacy = state_dirs_in_tree(os.fspath(root), os.environ)
        states = [f"--exclude=/{_literal(in_use)}/"] if in_use is not None else []
        with indexcopy.measuring_index(root, base) as index:
            listing = ("ls-files", "-z", "--others", f"--exclude-from={rules.name}", *states)
            out = runner.run(root, *listing, index=index).stdout
    found = [os.fsdecode(p) for p in out.split(b"\0") if p]
    return found if legacy is None else [p for p in found if not _legacy_state(root, legacy, p)]


def _legacy_state(root: Path, legacy: str, path: str) -> bool:
    """Whether `path` is an older tiergate's state file: under its folder, and not code (see
    `project.state_dirs_in_tree`)."""
    if not path.startswith(legacy + "/"):
        return False
    from tiergate import foreign

    try:
        executable = bool((root / path).lstat().st_mode & 0o111)
    except OSError:
        executable = False
    return not foreign.is_code(path, executable)


def _literal(path: str) -> str:
    """`path` as an ignore pattern that matches that path only (wildcards and a leading `!` or `#`
    escaped), anchored by the caller's leading slash."""
    return "".join(f"\\{c}" if c in "*?[\\!#" else c for c in path)


def untracked_by_git_rules(root: Path) -> list[str]:
    """Untracked paths git itself does not ignore (every ignore rule, the agent's included): what `git
    add -A` takes, for saving a workspace as git sees it."""
    out = runner.run(root, "ls-files", "-z", "--others", "--exclude-standard").stdout
    return [os.fsdecode(p) for p in out.split(b"\0") if p]


_ignores: dict[tuple[Path, str], list[str]] = {}


def _committed_ignores(root: Path, base: str) -> list[str]:
    """The patterns of every .gitignore in `base`, as one exclude file (patterns relative to the top),
    deeper files last since a deeper .gitignore overrides a shallower one. One `git grep` of the base
    reads them all, with tiergate's own attributes (`attributes.own`: a `.gitignore` the workspace marks
    binary is still read). A commit never changes (replace refs are off), so the answer is kept for the
    process."""
    key = (root, base)
    if key not in _ignores or not objects.is_object_id(base):
        oid = base if objects.is_object_id(base) else objects.resolve_rev(root, base)
        with attributes.own(root, oid) as env:
            out = _grep_ignores(root, oid, env)
        texts: dict[str, list[str]] = {}
        for record in out.split(b"\n"):  # base:path NUL line
            name, nul, line = record.partition(b"\0")
            if nul:
                texts.setdefault(os.fsdecode(name)[len(oid) + 1 :], []).append(os.fsdecode(line))
        _ignores[key] = [
            rule
            for path in sorted(texts, key=lambda p: p.count("/"))
            for rule in rebase_ignore_rules(path.rpartition("/")[0], texts[path])
        ]
    return _ignores[key]


def _grep_ignores(root: Path, oid: str, env: dict[str, str]) -> bytes:
    """Every line of every .gitignore of the tree `oid`, as `oid:path NUL line` records."""
    return runner.run(
        root,
        "grep",
        "-z",
        "-I",
        "-H",
        "-F",
        "--full-name",
        "--no-line-number",
        "--no-column",
        "--no-textconv",
        "-e",
        "",
        oid,
        "--",
        ":(glob)**/.gitignore",
        ok=(0, 1),
        env=env,
    ).stdout
