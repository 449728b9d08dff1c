"""Where a project is, and where tiergate keeps its state for it.

root = $CLAUDE_PROJECT_DIR if set, else the git top level of the working directory, else the working
directory; state dir = $TIERGATE_STATE_DIR if set (relative to the root), else
`<user state home>/projects/<name>-<key>`, outside the workspace (docs/state.md, "Where the state folder is").
"""
# Every hook imports this module before it knows whether tiergate has anything to do, so its top level
# imports nothing but `os`: no pathlib, no dataclasses, and no git subprocess.

# os.path rather than pathlib on purpose: importing pathlib would cost every hook about 10 ms.
# ruff: noqa: PTH100, PTH101, PTH110, PTH116, PTH117, PTH118, PTH119, PTH120, PTH123

from __future__ import annotations

import os

from tiergate import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import NoReturn

# Where tiergate kept its state before it moved to the user's state home. An older tiergate's folder is
# not read; `tiergate doctor` mentions it, and measuring the workspace still leaves it out.
LEGACY_STATE_DIR = ".tiergate"
PROJECTS_DIR = "projects"
ROOT_FILE = "root"  # in the state folder: the project root it belongs to, for humans and `tiergate doctor`
_NAME_LENGTH = 40
_KEY_BYTES = 8  # 16 hex digits
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
STATE_DIR_MODE = 0o700
STATE_FILE_MODE = 0o600  # state files and the log: only the user may read what a check printed
MAX_SESSION_ID_LENGTH = 128
_SESSION_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


class Project:
    """A project root and its state folder. Immutable.

    Hand-written rather than a frozen dataclass: `dataclasses` pulls in `inspect`, which would add
    about 15 ms to every hook, including the ones with nothing to do.
    """

    __slots__ = ("root", "state_dir")
    root: Path
    state_dir: Path

    def __init__(self, root: Path, state_dir: Path) -> None:
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "state_dir", state_dir)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"Project is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"Project is immutable; cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Project):
            return NotImplemented
        return (self.root, self.state_dir) == (other.root, other.state_dir)

    def __hash__(self) -> int:
        return hash((self.root, self.state_dir))

    def __repr__(self) -> str:
        return f"Project(root={self.root!r}, state_dir={self.state_dir!r})"


def locate(cwd: str | os.PathLike[str], env: Mapping[str, str]) -> Project:
    """The project that `cwd` belongs to (`cwd` must be absolute; env is usually `os.environ`)."""
    from pathlib import Path

    cwd = os.path.abspath(cwd)
    project_dir = env.get("CLAUDE_PROJECT_DIR")
    root = os.path.normpath(os.path.join(cwd, project_dir)) if project_dir else git_top_level(cwd) or cwd
    return Project(Path(root), Path(_state_dir(root, env)))


def state_dir_from_env(env: Mapping[str, str]) -> str | None:
    """The state dir, when the environment alone decides it; None when it depends on the hook's cwd.

    Inside Claude Code, CLAUDE_PROJECT_DIR is always set, so a hook can tell that tiergate is not in use
    here before it reads, let alone parses, its input.
    """
    state_dir = env.get("TIERGATE_STATE_DIR")
    if state_dir and os.path.isabs(state_dir):
        return os.path.normpath(state_dir)
    if env.get("CLAUDE_PROJECT_DIR") and os.path.isabs(env["CLAUDE_PROJECT_DIR"]):
        return _state_dir(env["CLAUDE_PROJECT_DIR"], env)
    return None


def _state_dir(root: str, env: Mapping[str, str]) -> str:
    configured = env.get("TIERGATE_STATE_DIR")
    if configured:
        # A relative TIERGATE_STATE_DIR is read against the project root, not against whichever
        # subdirectory the hook or the command happened to run in.
        return os.path.normpath(os.path.join(root, configured))
    return default_state_dir(root, env)


def default_state_dir(root: str, env: Mapping[str, str]) -> str:
    """`<user state home>/projects/<name>-<key>`, the key 16 hex digits of BLAKE2b over the root's real path.

    One realpath (a few lstat calls) and one digest: tens of microseconds on the hook's fast path.
    `_blake2` rather than hashlib, whose import costs a hook milliseconds (see seal.py).
    """
    from _blake2 import blake2b

    from tiergate.seal import state_home

    real = os.path.realpath(root)
    key = blake2b(os.fsencode(real), digest_size=_KEY_BYTES).hexdigest()
    name = "".join(c if c in _NAME_CHARS else "_" for c in os.path.basename(real)[:_NAME_LENGTH])
    return os.path.join(state_home(env), PROJECTS_DIR, f"{name or 'root'}-{key}")


def legacy_state_dir(project: Project) -> Path | None:
    """`<root>/.tiergate` when an older tiergate left its state folder there (and it is not the state
    folder in use, which TIERGATE_STATE_DIR=.tiergate would make it)."""
    legacy = project.root / LEGACY_STATE_DIR
    if legacy == project.state_dir or not legacy.is_dir():
        return None
    return legacy


def state_dirs_in_tree(top: str, env: Mapping[str, str]) -> tuple[str | None, str | None]:
    """The state folders inside the work tree `top` that measuring the workspace leaves out, relative to
    it: (the folder in use, when TIERGATE_STATE_DIR puts it there; an older tiergate's `.tiergate/` that
    still carries the `*` .gitignore tiergate wrote), each None when not inside. Any other `.tiergate/`
    is the workspace's like any folder."""
    # The older folder's files are left out of the change as another tool's state is, code excepted:
    # nothing reads that folder any more, and an agent can make one (a `*` .gitignore is easy to write),
    # so a program hidden there still counts (`tiergate.git.untracked_files`).
    root = env.get("CLAUDE_PROJECT_DIR")
    root = os.path.normpath(os.path.join(top, root)) if root else top
    in_use = _state_dir(root, env)
    legacy = os.path.join(root, LEGACY_STATE_DIR)
    in_use_inside = _inside(top, in_use)
    legacy_inside = _inside(top, legacy) if legacy != in_use and _ignores_itself(legacy) else None
    return in_use_inside, legacy_inside


def _inside(top: str, folder: str) -> str | None:
    relative = os.path.relpath(folder, top)
    return None if relative in {".", ".."} or relative.startswith("../") else relative


def _ignores_itself(folder: str) -> bool:
    try:
        with open(os.path.join(folder, ".gitignore"), "rb") as handle:
            return handle.read(3) == b"*\n"
    except OSError:
        return False


def git_top_level(start: str) -> str | None:
    """The nearest directory at or above `start` holding a `.git` (a directory, or a worktree's file).

    What `git rev-parse --show-toplevel` answers in ordinary repositories, for a few stat calls instead of
    a subprocess; GIT_DIR and GIT_WORK_TREE overrides are not honoured.
    """
    current = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def ensure_state_dir(project: Project) -> Path:
    """Create the state folder if needed, with a `root` file naming the project it belongs to and a
    `.gitignore` that makes git ignore all of it (for a TIERGATE_STATE_DIR inside the workspace).

    The folder is the user's alone (0700, tightened if it was wider): what a check printed is kept in it.
    """
    _make_folder(project.state_dir)
    tighten(str(project.state_dir), STATE_DIR_MODE)
    _write_once(project.state_dir / ".gitignore", b"*\n")
    _write_once(project.state_dir / ROOT_FILE, os.fsencode(os.path.realpath(project.root)) + b"\n")
    return project.state_dir


def _make_folder(folder: Path) -> None:
    # The folders above it too are made 0700 when tiergate makes them (pathlib's parents=True would
    # leave them to the umask): the state home holds every project's state.
    try:
        folder.mkdir(mode=STATE_DIR_MODE, exist_ok=True)
    except FileNotFoundError:
        _make_folder(folder.parent)
        folder.mkdir(mode=STATE_DIR_MODE, exist_ok=True)


def _write_once(path: Path, data: bytes) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, STATE_FILE_MODE)
    except FileExistsError:
        return
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def tighten(path: str | int, mode: int) -> None:
    """Take from `path` (a name or an open descriptor) every permission `mode` does not give."""
    current = os.stat(path).st_mode & 0o777
    if not current & ~mode:
        return
    # Best effort: a folder or log someone else owns (a shared TIERGATE_STATE_DIR) is still written.
    try:
        if isinstance(path, int):
            os.fchmod(path, current & mode)
        else:
            os.chmod(path, current & mode)
    except PermissionError:
        pass


def state_name(project: Project, path: Path) -> str:
    """The name a state file is sealed under (`tiergate.seal`): its path relative to the state folder, so
    that one session's file copied over another's does not pass."""
    return path.relative_to(project.state_dir).as_posix()


def write_sealed(project: Project, path: Path, body: bytes) -> None:
    """`write_atomic` of `body` with its seal, for the state file `path`."""
    from tiergate import seal

    write_atomic(path, seal.seal_file(state_name(project, path), body))


def open_sealed(project: Project, path: Path, data: bytes) -> bytes:
    """The body of the state file `path` whose bytes are `data`; `seal.SealError` when tiergate did not
    write it as it is."""
    from tiergate import seal

    return seal.open_file(state_name(project, path), data)


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` all at once: a reader sees the old file or the new one, never a part.

    A temporary file beside it is written, fsynced, then renamed over it (the name is unique per process
    and instant, so concurrent writers never share one). When anything fails (a full disk or a file-size
    limit at the write or the fsync, a rename refused), the temporary is removed, the old file is left as
    it was, and the error goes on.
    """
    import time

    path.parent.mkdir(mode=STATE_DIR_MODE, parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    # 0600: the new file replaces the old one, so a file once 0644 is 0600 from its next write on.
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, STATE_FILE_MODE)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        temporary.replace(path)
    except BaseException:
        remove_quietly(temporary)
        raise


def keep_newest(folder: Path, keep: int) -> None:
    """Remove all but the `keep` newest (last written) JSON files of the state folder `folder`: records
    of a session or a workspace long gone. Best effort: one that cannot be removed stays."""
    try:
        files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in files[keep:]:
        remove_quietly(old)


def remove_quietly(path: Path) -> None:
    """Remove `path` if it is there; an error removing it must not hide the one being handled."""
    import contextlib

    with contextlib.suppress(OSError):
        path.unlink()


def is_valid_session_id(value: object) -> bool:
    """Whether `value` may name files under the state folder: `^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`.

    Checked by hand rather than with `re`, whose import alone would cost every hook several
    milliseconds. Nothing else can ever become `..`, a separator or an absolute path.
    """
    return (
        isinstance(value, str)
        and 0 < len(value) <= MAX_SESSION_ID_LENGTH
        and value[0] not in "_-"
        and _SESSION_ID_CHARS.issuperset(value)
    )
