"""Where the environment the checks run with is: the project's environment folders (a virtualenv,
node_modules, a tox env), the interpreters the checks start, their site folders, and the programs PATH
finds. An adapter: it reads folders and first lines, and asks a Python that is no virtualenv for its site
folders (a virtualenv's come from its layout). Only what git does not track is the environment: a folder
the base commit holds, or the change covers, is code, measured as the change.
"""

# os.path on purpose: the folders and names here are strings all the way to the record.
# ruff: noqa: PTH100, PTH110, PTH112, PTH113, PTH114, PTH117, PTH118, PTH119, PTH120, PTH123, PTH207
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Collection, Iterable, Mapping, Sequence

from tiergate.frozen import frozen
from tiergate.gate.detection.program import program_of
from tiergate.gate.environment.envrecord import IN_HOME, WALKED_UP, EnvironmentRecord

# Folders of a project that hold its environment rather than its code (what `tiergate.gate.scratch` links
# into its copies), and any folder holding a `pyvenv.cfg`.
ENVIRONMENTS = frozenset({".venv", "venv", ".virtualenv", "env", "node_modules", ".tox", ".nox", "vendor"})
# Always looked up on PATH: a check that starts `make` or `npm` may run whichever Python is found there.
PYTHONS = ("python3", "python")
_PYTHON = re.compile(r"(?:python|pypy)[0-9.]*")
_NODE = "node"
ASK_TIMEOUT = 10.0
# Where the `.pth` files of a site folder, a virtualenv, or a folder of them (a tox env's) are.
_PTH_PLACES = (
    "*.pth",
    "lib/python*/site-packages/*.pth",
    "Lib/site-packages/*.pth",
    "*/lib/python*/site-packages/*.pth",
)
# What a Python that is no virtualenv answers: its site folders, the system's, then the user's ("" when it
# reads none), and the interpreter it is. `-S`: its site module imported, not run: no `.pth` runs for it.
_ASK = (
    "import json, site, sys; print(json.dumps([site.getsitepackages(), "
    "site.getusersitepackages() if site.check_enableusersite() else '', sys.executable]))"
)


@frozen
class Places:
    """The environment's folders (none inside another), the interpreters' files, and the program names
    looked up on PATH."""

    folders: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    programs: tuple[str, ...] = ()


def at_start(root: str, top: str, base: str | None, commands: Sequence[str]) -> Places:
    """Where the environment is as a loop begins in the project at `root` (in the work tree at `top`, its
    base commit `base`) whose checks run `commands`."""
    folders = project_folders(root, top, base)
    files: list[str] = []
    programs = list(PYTHONS)
    interpreters: list[str] = []
    untold = False
    for command in commands:
        found, name = _program(command, root)
        if name and name not in programs:
            programs.append(name)
        if found:
            files.append(os.path.realpath(found))
        runs = _interpreters(found, 2) if found else []
        interpreters += runs
        untold = untold or not runs
    if untold:
        # Which Python a `make test` or `sh check.sh` starts cannot be told: the ones PATH finds, as the
        # checks would. A shim (pyenv's) is a script: which Python it runs is its own choice at each run.
        interpreters += [p for name in PYTHONS if (p := shutil.which(name)) and not _shebang(p)]
    for interpreter in dict.fromkeys(interpreters):
        files.append(os.path.realpath(interpreter))
        if _PYTHON.fullmatch(os.path.basename(interpreter)):
            reads, runs = _python_places(interpreter)
            folders += reads
            files += runs
    folders += _added_by_pth(folders, top)
    outside = outside_configs(top)
    files += outside
    # A folder a runner reads from above the copy (node_modules) is read file by file: an edit in place
    # moves no stamp of the folder's own.
    folders += [f for f in outside if os.path.isdir(f) and not os.path.islink(f)]
    folders += path_folders(top)
    # One no one here can write is no one's to change in a loop; one not there yet can be made.
    writable = [f for f in folders if not os.path.exists(f) or os.access(f, os.W_OK)]
    return Places(_outermost(writable, top, root), tuple(dict.fromkeys(files)), tuple(programs))


def outside_configs(top: str) -> list[str]:
    """The paths of `WALKED_UP` in every folder above the work tree at `top` and above the temporary folder
    (where the claim's copy is made), and of `IN_HOME` in the user's home, there or not: one that appears or
    changes during the loop is named."""
    above = [*_parents(os.path.dirname(os.path.abspath(top))), *_parents(tempfile.gettempdir())]
    found = [os.path.join(folder, name) for folder in dict.fromkeys(above) for name in WALKED_UP]
    home = os.path.expanduser("~")  # noqa: PTH111
    return [*found, *(os.path.join(home, name) for name in IN_HOME)]


# A folder on PATH with more folders in it than this is no folder of programs (a home, a project): left out.
_PROGRAM_FOLDER_SUBFOLDERS = 8
# The system's own folders of programs, which its package manager writes: only root can, and an agent run
# as root can change anything a record could hold. /usr/local/bin is not among them (pip run as root
# writes there).
_SYSTEMS = ("/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/games", "/snap/bin")


def path_folders(top: str, env: Mapping[str, str] | None = None) -> list[str]:
    """The folders on PATH that anyone here can write, or make, outside the work tree at `top`: a program
    the checks start by name (`make` runs `pytest`, a script runs `node`) may be put first there. Left
    out: relative entries, the home and the temporary folder themselves, the system's folders of
    programs, and folders that hold more than a few folders (no folder of programs)."""
    path = (os.environ if env is None else env).get("PATH", "")
    home = os.path.expanduser("~")  # noqa: PTH111
    aside = {os.path.abspath(home), os.path.abspath(tempfile.gettempdir()), "/", *_SYSTEMS}
    found = []
    for entry in dict.fromkeys(path.split(os.pathsep)):
        if not entry or not os.path.isabs(entry):
            continue
        folder = os.path.abspath(entry)
        if folder in aside or inside(folder, top) or inside(top, folder):
            continue
        if _can_write(folder) and _few_folders(folder):
            found.append(folder)
    return found


def _can_write(folder: str) -> bool:
    """Whether `folder` can be written here, or made: the nearest folder above it that is there can be."""
    while not os.path.exists(folder):
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent
    return os.path.isdir(folder) and os.access(folder, os.W_OK)


def _few_folders(folder: str) -> bool:
    try:
        with os.scandir(folder) as entries:
            inner = sum(1 for e in entries if e.is_dir(follow_symlinks=False))
    except OSError:
        return True  # not there yet: made later, it is named as new
    return inner <= _PROGRAM_FOLDER_SUBFOLDERS


def _parents(folder: str) -> list[str]:
    """`folder` and every folder above it."""
    found = [os.path.abspath(folder)]
    while os.path.dirname(found[-1]) != found[-1]:
        found.append(os.path.dirname(found[-1]))
    return found


def at_claim(
    recorded: EnvironmentRecord, root: str, top: str, base: str | None, covered: Collection[str]
) -> Places:
    """Where to look at a claim: what the loop's start recorded, and the project's environment folders as
    they are now (one made since is new), less those the change covers (`covered`: its paths)."""
    known = recorded.folders.keys()
    made = [f for f in project_folders(root, top, base, known) if f not in known]
    folders = [*known, *(f for f in made if not _covers(covered, os.path.relpath(f, top)))]
    return Places(tuple(folders), tuple(recorded.files), tuple(recorded.programs))


def is_environment(name: str, path: str) -> bool:
    """Whether the folder `name` at `path` holds a project's environment rather than its code: one of
    ENVIRONMENTS' names, or a virtualenv by its `pyvenv.cfg`."""
    return name in ENVIRONMENTS or os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def project_folders(root: str, top: str, base: str | None, known: Collection[str] = ()) -> list[str]:
    """The environment folders in the project's folder and at the top of its work tree that the base
    commit does not hold (git is asked only of those not `known` already)."""
    found = []
    for folder in dict.fromkeys((root, top)):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        found += [e.path for e in entries if e.is_dir() and is_environment(e.name, e.path)]
    asked = [f for f in found if f not in known]
    return [*(f for f in found if f in known), *(_untracked(asked, top, base) if asked and base else asked)]


def _untracked(folders: list[str], top: str, base: str) -> list[str]:
    """Those of `folders` the commit `base` holds nothing in: one it does is the project's code."""
    from pathlib import Path

    from tiergate.errors import UserError
    from tiergate.git import runner

    names = [os.path.relpath(f, top) for f in folders]
    try:
        out = runner.run(Path(top), "ls-tree", "-z", "--name-only", base, "--", *names).stdout
    except UserError:
        return folders
    tracked = {os.fsdecode(n) for n in out.split(b"\0") if n}
    return [f for f, n in zip(folders, names, strict=True) if n not in tracked]


def _covers(covered: Collection[str], folder: str) -> bool:
    prefix = folder + "/"
    return any(p.startswith(prefix) for p in covered)


def _program(command: str, root: str) -> tuple[str | None, str | None]:
    """Where the program `command` starts is (None: unknown, or a shell builtin), and its name when PATH
    finds it."""
    program = program_of(command)
    if program is None or program.builtin:
        return None, None
    if program.is_path:
        found = os.path.normpath(os.path.join(root, program.directory, program.word))
        return (found if os.path.isfile(found) else None), None
    return shutil.which(program.word), program.word


def _interpreters(path: str, depth: int) -> list[str]:
    """The interpreter (Python, node) that the program at `path` is, or that its `#!` line runs."""
    name = os.path.basename(path)
    if _PYTHON.fullmatch(name) or name == _NODE:
        return [path]
    if depth == 0:
        return []
    words = _shebang(path)
    if not words:
        return []
    runs = shutil.which(words[1]) if os.path.basename(words[0]) == "env" and len(words) > 1 else words[0]
    return _interpreters(runs, depth - 1) if runs else []


def _shebang(path: str) -> list[str]:
    try:
        with open(path, "rb") as handle:
            first = handle.read(256)
    except OSError:
        return []
    if not first.startswith(b"#!"):
        return []
    return first[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()


def _python_places(python: str) -> tuple[list[str], list[str]]:
    """The folders a Python reads its packages from, its virtualenv (and the system's site folders when
    it sees them) or the site folders it names when asked, and the interpreter a Python asked names."""
    venv = _venv_of(python)
    if venv is None:
        return _asked(python)
    config = _venv_config(venv)
    if config.get("include-system-site-packages", "").lower() != "true":
        return [venv], []
    base = config.get("executable") or os.path.join(config.get("home", ""), "python3")
    folders, files = _asked(base)
    return [venv, *folders], files


def _venv_of(python: str) -> str | None:
    """The virtualenv a Python runs in: where `pyvenv.cfg` is beside it or one folder up (as Python
    itself looks, from the path it is started by)."""
    here = os.path.dirname(os.path.abspath(python))
    for folder in (here, os.path.dirname(here)):
        if os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
            return folder
    return None


def _venv_config(venv: str) -> dict[str, str]:
    try:
        with open(os.path.join(venv, "pyvenv.cfg"), encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return {}
    pairs = (line.partition("=") for line in lines)
    return {key.strip().lower(): value.strip() for key, eq, value in pairs if eq}


def _asked(python: str) -> tuple[list[str], list[str]]:
    """The site folders a Python that is no virtualenv names: the system's, and the user's, there or not
    (a `pip install --user` makes it); and the interpreter it runs (a shim's own choice)."""
    try:
        out = subprocess.run(
            [python, "-S", "-c", _ASK], capture_output=True, timeout=ASK_TIMEOUT, check=True, text=True
        ).stdout
        system, user, executable = json.loads(out)
    except (OSError, subprocess.SubprocessError, ValueError):
        return [], []
    folders = [*(str(f) for f in system if os.path.isdir(f)), *([str(user)] if user else [])]
    return folders, [os.path.realpath(executable)] if executable else []


def _added_by_pth(folders: Iterable[str], top: str) -> list[str]:
    """The folders that the `.pth` files of the site folders among `folders` put on sys.path, outside the
    work tree (inside it they are the project's code)."""
    added = []
    for folder in folders:
        for pattern in _PTH_PLACES:
            for pth in glob.glob(os.path.join(glob.escape(folder), pattern)):
                added += [d for d in _pth_folders(pth) if not inside(d, top)]
    return added


def _pth_folders(pth: str) -> list[str]:
    site = os.path.dirname(pth)
    try:
        with open(pth, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    named = (
        line.rstrip() for line in lines if line.strip() and not line.startswith(("#", "import ", "import\t"))
    )
    return [d for d in (os.path.normpath(os.path.join(site, n)) for n in named) if os.path.isdir(d)]


def inside(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or lies under it (both resolved, as strings)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _outermost(folders: Iterable[str], top: str, root: str) -> tuple[str, ...]:
    """`folders` once each, none inside another, and none that is the work tree or holds it."""
    kept: list[str] = []
    for folder in sorted({os.path.abspath(f) for f in folders}):
        if inside(top, folder) or inside(root, folder) or any(inside(folder, k) for k in kept):
            continue
        kept.append(folder)
    return tuple(kept)


def programs_on_path(names: Iterable[str], env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Where PATH finds each of `names` ("" where it finds none)."""
    path = (os.environ if env is None else env).get("PATH")
    return {name: shutil.which(name, path=path) or "" for name in names}
