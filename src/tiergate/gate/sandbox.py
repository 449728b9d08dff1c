"""Each check the gate runs in a copy or a worktree runs isolated: what the agent shaped is out of its reach.

Started in namespaces of its own (`sandboxinit.py`, Linux): the workspace and temporary folders covered,
only what it needs shown again (its copy, the environment folders, `.git` read-only, HOME and PATH), its
own processes, IPC and `/dev/shm`, and unless configured otherwise a network with only loopback. Where the
kernel refuses, checks run watched only, and the gate says so (`unavailable`): docs/judging.md.
"""

# os.path on purpose: the plan is strings from end to end.
# ruff: noqa: PTH112, PTH113, PTH114, PTH117, PTH118, PTH119, PTH120
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from tiergate import seal
from tiergate.frozen import frozen
from tiergate.gate import imported
from tiergate.gate.environment.places import inside
from tiergate.gate.environment.walk import SKIPPED_IN
from tiergate.gate.request import RunStart

VARIABLE = "TIERGATE_SANDBOX"  # the plan, in a check's added variables: the runner takes it out
LAUNCHER = Path(__file__).with_name("sandboxinit.py")
TEMPORARY = ("/tmp", "/var/tmp", "/dev/shm")
KERNEL_WRITABLE = ("/sys/fs/cgroup",)
_SEPARATOR = "\0"
_probed: list[tuple[str | None, str | None]] = []


@frozen
class Isolation:
    """How a check run in the copy or worktree under `holder` is isolated: `workspace` (the work tree's top)
    is covered, but for `shown` (its environment folders); `readonly` shown unwritable (`.git`, the watch's
    socket folder); `network`: a network of its own."""

    workspace: str
    holder: str
    shown: tuple[str, ...] = ()
    readonly: tuple[str, ...] = ()
    network: bool = False
    before: float | None = None  # the loop's start: HOME's files changed since are not shown
    # What the launcher's report to the gate's watch starts with: in no check's environment, so no
    # check (nor a process it tells) can speak as the kernel.
    secret: str = ""

    def variable(self) -> dict[str, str]:
        """The check's added variable that carries this plan to the runner."""
        flags = ["1" if self.network else "0", "" if self.before is None else repr(self.before)]
        words = [self.workspace, self.holder, *flags, self.secret, *self.shown, "--", *self.readonly]
        return {VARIABLE: _SEPARATOR.join(words)}


def from_variable(value: str) -> Isolation:
    words = value.split(_SEPARATOR)
    split = words.index("--")
    before = float(words[3]) if words[3] else None
    shown, readonly = tuple(words[5:split]), tuple(words[split + 1 :])
    return Isolation(words[0], words[1], shown, readonly, words[2] == "1", before, words[4])


def narrowed(added: Mapping[str, str], holder: Path) -> dict[str, str]:
    """A check's variables `added` for a run that sees, of the folder holding the copy, only `holder` (the
    copy itself) and what its variables name: the gate's own runs after the check, for which nothing the
    check's run left beside the copy (a memo one folder up, its TMPDIR) is there. A variable that names a
    file in that folder (pytest's empty configuration) would show it all: it is left out. Unchanged
    without a plan."""
    if VARIABLE not in added:
        return dict(added)
    plan = from_variable(added[VARIABLE])
    kept = {k: v for k, v in added.items() if k == VARIABLE or plan.holder not in _named([v])}
    return {**kept, **replace(plan, holder=os.path.realpath(holder)).variable()}


def isolation(
    top: Path,
    holder: Path,
    links: Iterable[Path],
    start: RunStart | None = None,
    *,
    readonly: Iterable[Path] = (),
    secret: str = "",
) -> Isolation:
    """The isolation of checks run under `holder` for the work tree at `top`, started as `start` says:
    the folders `links` (the copy's links to the environment) and its seed's (the environment's record as
    the loop began) resolve to are shown, HOME's files older than the loop too; `.git` and `readonly`
    read-only."""
    seed, network = (None, False) if start is None else (start.seed, start.own_network)
    real = os.path.realpath
    git = real(top / ".git")
    unwritable = (*((git,) if os.path.isdir(git) else ()), *(real(p) for p in readonly))
    shown = [*links, *(Path(f) for f in (seed.folders if seed else ()))]
    folders = tuple(dict.fromkeys(real(p) for p in shown if os.path.isdir(p)))
    before = seed.before if seed else None
    return Isolation(real(top), real(holder), folders, unwritable, network, before, secret)


def unavailable() -> str | None:
    """Why checks cannot be isolated on this machine (None: they can), asked of the kernel once."""
    if not _probed:
        _probed.append(_probe())
    return _probed[0][0]


def unwatched() -> str | None:
    """Run by root, why the kernel cannot watch what isolated checks open (None: it can, or not root)."""
    unavailable()
    return _probed[0][1]


def _probe() -> tuple[str | None, str | None]:
    if not sys.platform.startswith("linux"):
        return "namespaces are Linux's", None
    try:
        done = subprocess.run(
            [sys.executable, "-S", "-I", "-B", str(LAUNCHER), "--probe"],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"the probe could not run: {exc}", None
    said = done.stderr.decode(errors="replace").strip().splitlines()
    watch = done.stdout.decode(errors="replace").strip() or None
    if done.returncode != 0:
        return (said[-1] if said else f"exit {done.returncode}"), watch
    return None, (f"{watch}: {said[-1]}" if watch and said else watch)


def wrapped(argv: list[str], cwd: Path, added: Mapping[str, str]) -> tuple[list[str], dict[str, str]]:
    """`argv` to start in its sandbox when `added` carries a plan and the kernel allows one, and `added`
    without the plan: the check's own variables."""
    rest = {k: v for k, v in added.items() if k != VARIABLE}
    if VARIABLE not in added or unavailable() is not None:
        return argv, rest
    plan = plan_words(from_variable(added[VARIABLE]), str(cwd), rest, os.environ)
    return [sys.executable, "-S", "-I", "-B", str(LAUNCHER), *plan, "--", *argv], rest


def plan_words(iso: Isolation, cwd: str, added: Mapping[str, str], environ: Mapping[str, str]) -> list[str]:
    """The launcher's plan (`sandboxinit.Plan`) for a check started in `cwd`, `added` (tiergate's variables
    for it) to the gate's environment `environ` (Claude Code's, never a folder the agent names). It asks
    only which paths exist, resolve where, and are writable. Covered (`_covers`): the temporary folders,
    HOME, tiergate's state, the workspace, the kernel's writable folders and, for a user other than root,
    every folder that user can write; shown again where covered (`_shown`)."""
    on_purpose = _covers(iso, environ)
    # Where the agent is not root, what it can write is what its user can: each such folder is covered.
    hidden = on_purpose | (set(writable_roots()) if os.geteuid() != 0 else set())
    mode = _shown(iso, added, environ, on_purpose)
    covered = [p for p, m in mode.items() if p not in hidden and any(inside(p, h) for h in hidden)]
    own = [("/dev", "dev"), *([("/sys", "sys")] if iso.network else [])]
    own += [(p, "blank") for p in _bookkeeping(mode)]
    steps = [(p, "hide") for p in hidden] + [(p, mode[p]) for p in covered] + own
    # Outer first, a cover before what is shown in it: a folder shown inside another shown one keeps its
    # own mode, and a workspace inside HOME is covered after what of HOME is shown.
    steps.sort(key=lambda s: (s[0].rstrip("/").count("/"), s[1] != "hide"))
    words = [w for path, step in steps for w in (f"--{step}", path)]
    return [*words, *(["--net"] if iso.network else []), *_watched(iso, added), "--cwd", cwd]


def _watched(iso: Isolation, added: Mapping[str, str]) -> list[str]:
    """Run by root, what the check opens is watched by the kernel (`sandboxwatch`) and told to the gate's
    watch, when the check has one and the loop's start is known: there root can have written anywhere.
    In the copy, tiergate's folders and `.git`, which the gate wrote since the loop began, each file is
    told with its stamp, for the gate to hold against what it wrote (`imported.Watch.reasons`)."""
    where = added.get(imported.OUT_VARIABLE)
    if os.geteuid() != 0 or iso.before is None or not where:
        return []
    git = [p for p in iso.readonly if os.path.basename(p) == ".git"]
    trusted = [iso.holder, *git, *_tiergates(iso, added)]
    key = added.get(imported.KEY_VARIABLE, "")
    words = ["--watch", where, key, repr(iso.before), iso.secret]
    return [*words, *(w for t in trusted for w in ("--trusted", t))]


def _covers(iso: Isolation, environ: Mapping[str, str]) -> set[str]:
    real = os.path.realpath
    temporary = {real(p) for p in (*TEMPORARY, environ.get("TMPDIR", "")) if p and os.path.isdir(p)}
    home = _home(environ)
    # tiergate's own state (its evidence, its baselines, the user's sealing key): never a check's to read.
    state = [seal.state_home(environ), environ.get("TIERGATE_STATE_DIR", "")]
    states = {real(p) for p in state if os.path.isabs(p) and os.path.isdir(p)}
    # The kernel's folders where root can still write (a plain file in /dev, a folder in the cgroups), the
    # user's runtime folder (its services' sockets), and /run with a network of the check's own.
    runtime = [environ.get("XDG_RUNTIME_DIR", ""), *KERNEL_WRITABLE, *(["/run"] if iso.network else [])]
    kernel = {real(p) for p in runtime if os.path.isabs(p) and os.path.isdir(p)}
    hidden = {p for p in (*temporary, home, *states, *kernel) if p != "/"} | {iso.workspace}
    # What the environment's record leaves out of a shown folder (node's tool caches) is not shown either.
    return hidden | {c for folder in iso.shown for c in _unrecorded_in(folder)}


def _shown(
    iso: Isolation, added: Mapping[str, str], environ: Mapping[str, str], on_purpose: set[str]
) -> dict[str, str]:
    mode = dict.fromkeys(_tiergates(iso, added), "rw")
    programs = _named([environ.get("PATH", ""), sys.prefix, sys.base_prefix])
    # A prefix's `bin` on PATH (a virtualenv's) runs nothing without the prefix's `lib` beside it.
    mode |= dict.fromkeys([*programs, *(os.path.dirname(p) for p in programs if p.endswith("/bin"))], "ro")
    # A folder the gate's own environment names (a toolchain's home, JAVA_HOME), read-only: not one of
    # the places covered on purpose (HOME, the temporary folders, the workspace) nor inside one.
    named = [p for p in _named(environ.values()) if not any(inside(p, h) for h in on_purpose)]
    mode |= {p: "ro" for p in named if p not in mode}
    home = _home(environ)
    if home != "/":
        mode |= _home_shown(home, programs, environ, iso.before)
    mode |= {iso.holder: "rw", **dict.fromkeys(iso.shown, "rw"), **dict.fromkeys(iso.readonly, "ro")}
    return mode


# Files a tool rewrites at each run whatever it builds (cargo's last-use database and its locks): the
# agent's tools rewrite them all along, and a check gets empty ones of its own.
BOOKKEEPING = (".global-cache", ".package-cache", ".package-cache-mutate")


def _bookkeeping(mode: Mapping[str, str]) -> list[str]:
    """The tools' bookkeeping files in the folders shown read-only."""
    found = (os.path.join(p, name) for p, m in mode.items() if m == "ro" for name in BOOKKEEPING)
    return [f for f in found if os.path.isfile(f) and not os.path.islink(f)]


def _tiergates(iso: Isolation, added: Mapping[str, str]) -> list[str]:
    """The folders tiergate's variables for the check name (its plugins, reports, selections, the user's
    own search path): never one in the workspace but the copy's."""
    return [p for p in _named(added.values()) if not inside(p, iso.workspace) or inside(p, iso.holder)]


def _home(environ: Mapping[str, str]) -> str:
    home = os.path.realpath(environ.get("HOME", "") or "/")
    return home if os.path.isdir(home) else "/"


SYSTEM = frozenset({"proc", "sys", "dev", "run", "tmp", "var", "usr", "etc", "bin", "sbin", "lib", "lib64"})
_writable: list[tuple[str, ...]] = []


def writable_roots(root: str = "/", can_write: Callable[[str], bool] | None = None) -> tuple[str, ...]:
    """The folders under `root` this user can write, found among its folders and theirs (a folder the user
    can write is taken whole): where an agent run as this user leaves what it wants read. The system's
    own are left to their owners. Asked once per process for `/`."""
    if root == "/" and can_write is None and _writable:
        return _writable[0]
    allowed = can_write or (lambda p: os.access(p, os.W_OK))
    found = []
    for top in _folders(root):
        if os.path.basename(top) in SYSTEM and root == "/":
            continue
        if allowed(top):
            found.append(top)
        else:
            found += [child for child in _folders(top)[:FOLDERS_LOOKED_AT] if allowed(child)]
    if root == "/" and can_write is None:
        _writable.append(tuple(found))
    return tuple(found)


FOLDERS_LOOKED_AT = 500


def _folders(folder: str) -> list[str]:
    try:
        with os.scandir(folder) as entries:
            return sorted(e.path for e in entries if e.is_dir(follow_symlinks=False))
    except OSError:
        return []


TOOL_HOMES = (".cargo", ".rustup", ".pyenv", ".nvm", ".config/git")


def _home_shown(
    home: str, programs: Iterable[str], environ: Mapping[str, str], before: float | None
) -> dict[str, str]:
    """What of HOME a check is shown, read-only: the tools it runs (each folder of HOME that holds a folder
    on PATH, the toolchains' homes) and HOME's own files (`.gitconfig`, `.npmrc`) unchanged since the loop
    began (`before`). Not its caches and data: there the agent writes, so the check gets an empty HOME
    otherwise, and writes its own caches there."""
    shown = {}
    for program in programs:
        if inside(program, home) and program != home:
            top = program[len(home.rstrip("/")) + 1 :].split("/", 1)[0]
            shown[os.path.join(home, top)] = "ro"
    named = [environ.get("CARGO_HOME", ""), environ.get("RUSTUP_HOME", "")]
    for folder in [*(os.path.join(home, t) for t in TOOL_HOMES), *filter(None, named)]:
        if os.path.isdir(folder):
            shown[os.path.realpath(folder)] = "ro"
    try:
        entries = list(os.scandir(home))
    except OSError:
        return shown
    for entry in entries:
        with contextlib.suppress(OSError):
            if entry.is_file() and (before is None or entry.stat().st_ctime < before):
                shown[entry.path] = "file"
    return shown


def _unrecorded_in(folder: str) -> list[str]:
    """The folders under the environment folder `folder` that its record leaves out (`SKIPPED_IN`)."""
    inside = [folder, os.path.join(folder, "node_modules")]
    return [
        os.path.join(f, c)
        for f in inside
        for c in SKIPPED_IN.get(os.path.basename(f), ())
        if os.path.isdir(os.path.join(f, c))
    ]


def _named(values: Iterable[str]) -> list[str]:
    """The existing folders `values` name (a file's folder for a file): search paths, report files,
    options with a path (`--import=/x`). Resolved; never the root."""
    found = []
    for value in values:
        for part in value.replace("=", ":").replace(",", ":").replace(" ", ":").split(":"):
            if part.startswith("/") and len(part) < 4096:
                path = os.path.realpath(part)
                folder = path if os.path.isdir(path) else os.path.dirname(path)
                if folder != "/" and os.path.isdir(folder):
                    found.append(folder)
    return list(dict.fromkeys(found))
