"""What a claim's checks read, and whom they talk to: the claim's copy and the environment recorded as the
loop began, and nothing else counted as the change's.

The copy (`tiergate.gate.cleancopy`) holds only what the change and the base put there, but a process can
still read from elsewhere: an editable install names a folder of the workspace (where git-ignored files sit
beside the change's), code can read a path of the workspace or of a folder it wrote, or ask a server it left
running. So that the copy's code is what runs, the folders of the workspace that the environment's editable
installs (and the user's PYTHONPATH) name are named again, in the copy, first on PYTHONPATH. And every
Python process of a check tells a socket of the gate's (one with no file: nothing beside the copy to
rewrite or erase) each file it opens, resolved, with its change time as it opens it, and each address it
connects to or binds (`checksite/sitecustomize.py`). Named, THOROUGH, with the check's result:
- a file of the workspace it read (its environment folders aside);
- a file elsewhere it read that was changed since the loop began, unless a process of the check made it;
  what the copy, tiergate's site script and empty pytest configuration beside it, and the environment's
  recorded folders hold is not named (the environment is compared apart), nor the kernel's (`/proc`,
  `/sys`, `/dev`, but `/dev/shm` and another process's `/proc/PID`); a hard link is judged wherever it is;
- a server on this machine that is not the check's own: listening before the checks began, or a Unix
  socket none of their processes bound.
Files older than the loop are the machine's, not the loop's. See docs/judging.md, "The claim's copy".

The same socket hears each pytest run's outcomes as its tests run (`streams`, from tiergate's pytest
plugin: docs/judging.md, "Each test's outcome"): what the tests' process sends there is out of its reach
once sent, where the report file it writes at the end is not.
"""

# os.path on purpose: paths stay strings from the processes' messages to the reasons.
# ruff: noqa: PTH100, PTH112, PTH117, PTH118, PTH120, PTH123, PTH207
from __future__ import annotations

import ast
import contextlib
import glob
import json
import os
import shutil
import socketserver
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field, replace
from pathlib import Path
from typing import TypeGuard

from tiergate.frozen import frozen
from tiergate.gate import ownfiles, trusted
from tiergate.gate.checks import CheckResult
from tiergate.gate.environment.places import inside
from tiergate.gate.environment.walk import BYTECODE, SKIPPED_IN
from tiergate.gate.pertest.streamed import Streamed
from tiergate.gate.request import Seed
from tiergate.gate.untouched import Stamp, stamp_of
from tiergate.text import listed, quote_inline

OUT_VARIABLE = "TIERGATE_IMPORTED"
KEY_VARIABLE = "TIERGATE_IMPORTED_KEY"
SITECUSTOMIZE = Path(__file__).with_name("checksite") / "sitecustomize.py"
SHOWN = 5
KERNEL = ("/proc", "/sys", "/dev")
SHARED_MEMORY = ("/dev/shm", "/run/shm")
# Names of this machine that are no address (an address is read as one: `_loopback`).
_LOCAL = frozenset({"localhost", ""})
# Folders of an environment the record leaves out (`tiergate.gate.environment.walk`): what is read there is
# judged by its time, as a file outside.
_UNRECORDED = frozenset({BYTECODE, *(name for names in SKIPPED_IN.values() for name in names)})
# Where a site folder's `.pth` files and setuptools' editable finders are, under an environment folder.
_SITE_FILES = ("", "lib/python*/site-packages/", "Lib/site-packages/", "*/lib/python*/site-packages/")
# How long the gate waits, once a check has ended, for the streams of its runs to be heard to their end.
STREAM_WAIT = 5.0
# What the gate answers a stream's first line with: the plugin writes its report file only once the
# gate has heard of it, so that no report the gate reads is one whose stream it has not begun to hear.
HEARD = b"heard\n"


@frozen
class Bounds:
    """What a check may read without a word: the copy (`copy`: its top), tiergate's folders beside it
    (`own`), the environment (`environment`: folders and standard libraries); the workspace (`workspace`:
    its top) is named whenever it is read; `before`: the loop's start (None: not known). Resolved paths."""

    copy: str
    workspace: str
    own: tuple[str, ...] = ()
    environment: tuple[str, ...] = ()
    before: float | None = None


@frozen
class Told:
    """What one check's processes told: each file read with its change time then, each file written with
    whether it was there before, each address connected to."""

    reads: Mapping[str, float] = field(default_factory=dict)
    writes: Mapping[str, bool] = field(default_factory=dict)
    connects: frozenset[str] = frozenset()
    binds: frozenset[str] = frozenset()
    linked: frozenset[str] = frozenset()  # files read that another name links to
    # Files opened in the folders the gate wrote, and those the check made there, with their stamps.
    trusted: Mapping[str, Stamp] = field(default_factory=dict)
    made: Mapping[str, Stamp] = field(default_factory=dict)
    kernel: Mapping[str, float] = field(default_factory=dict)  # the kernel's reads, with change times


def read_outside(
    told: Told, bounds: Bounds, noted: Mapping[str, float] | None = None
) -> tuple[list[str], list[str]]:
    """The files of the workspace the check read, and those elsewhere changed since the loop began that
    none of its processes made (sorted); `noted`: tiergate's own files for the checks with their change
    times as written (`tiergate.gate.ownfiles`), let be while read as written. The kernel's reads are
    never excused by what a check's process said it wrote. Pure."""
    workspace, elsewhere = [], []
    noted = noted or {}
    reads = [*((p, c, True) for p, c in told.reads.items()), *((p, c, False) for p, c in told.kernel.items())]
    for path, changed, said in reads:
        # A hard link is judged by its times wherever it is: its other name may be anywhere.
        placed = path not in told.linked
        made = said and told.writes.get(path) is False
        if placed and (made or _under(path, (bounds.copy, *bounds.own))):
            continue  # made by the check itself, or the copy's or tiergate's
        if _kernels(path) or (placed and noted.get(path) == changed):
            continue  # the kernel's, or tiergate's as it wrote it
        inside = _under(path, bounds.environment)
        if inside and not _unrecorded(path):
            continue  # the environment's record holds it: compared apart
        if not inside and _under(path, (bounds.workspace,)):
            workspace.append(path)
        elif bounds.before is not None and changed >= bounds.before:
            elsewhere.append(path)  # the environment's unrecorded folders (its bytecode) too
    return sorted(workspace), sorted(elsewhere)


def servers_asked(told: Told, listening: frozenset[str]) -> list[str]:
    """The servers on this machine the check asked that are not its own: one listening before it began
    (`listening`, as `listeners` gives them), and a Unix socket none of its processes bound (a port bound
    as 0 is told only by the kernel, so a port is judged by the first rule alone). Pure."""
    return sorted(
        a for a in told.connects if a in listening or (not a.startswith("localhost:") and a not in told.binds)
    )


def _kernels(path: str) -> bool:
    """Whether `path` is the kernel's (`/proc`, `/sys`, `/dev`): not a folder of files anyone can write
    (`/dev/shm`), nor what another process shows of itself (`/proc/PID/`: its environment, its open
    files; a process's own is `/proc/self/`)."""
    if not _under(path, KERNEL) or _under(path, SHARED_MEMORY):
        return False
    return not path.split("/")[2:3] or not path.split("/")[2].isdigit()


def _under(path: str, folders: Iterable[str]) -> bool:
    return any(inside(path, f) for f in folders)


def _unrecorded(path: str) -> bool:
    return any(part in _UNRECORDED for part in path.split("/"))


def listeners(net: str = "/proc/net") -> frozenset[str]:
    """The sockets listening on this machine now: Unix socket paths and abstract names (`@name`), and
    `localhost:PORT` for each TCP port listened on and each UDP port bound with no peer (Linux's
    /proc/net; empty elsewhere)."""
    found: set[str] = set()
    for line in _table(net, "unix"):
        fields = line.split(None, 7)
        if len(fields) == 8 and int(fields[3], 16) & 0x10000:  # __SO_ACCEPTCON: listening
            found.add(fields[7])
    for line in (*_table(net, "tcp"), *_table(net, "tcp6")):
        fields = line.split()
        if len(fields) > 3 and fields[3] == "0A":  # LISTEN
            found.add(f"localhost:{int(fields[1].rsplit(':', 1)[1], 16)}")
    for line in (*_table(net, "udp"), *_table(net, "udp6")):
        fields = line.split()
        if len(fields) > 3 and fields[3] == "07":  # bound, no peer: a datagram server
            found.add(f"localhost:{int(fields[1].rsplit(':', 1)[1], 16)}")
    return frozenset(found)


def _table(net: str, name: str) -> list[str]:
    """The rows of a /proc/net table, its heading left out; none where it cannot be read."""
    try:
        with open(os.path.join(net, name), encoding="utf-8", errors="replace") as handle:
            return handle.read().splitlines()[1:]
    except OSError:
        return []


def _address(value: object) -> str | None:
    """A connect's address as `listeners` names it: a Unix path or `@name`, or `localhost:PORT` for a host
    of this machine, however written (`::ffff:127.0.0.1`, `2130706433`); None for another host."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and len(value) == 2:
        host, port = str(value[0]), value[1]
        if host in _LOCAL or _loopback(host):
            return f"localhost:{port}"
    return None


def _loopback(host: str) -> bool:
    """Whether `host`, an address in any of the forms the C library takes, is this machine's."""
    import ipaddress

    try:
        address = ipaddress.ip_address(int(host) if host.isdigit() else host.split("%", maxsplit=1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def search_path(seed: Seed | None, workspace: str, copy: str) -> list[str]:
    """The PYTHONPATH of a check run in the copy at `copy` (or a worktree) of the workspace at
    `workspace`: the copy's folders standing in for those of the workspace that the environment's
    editable installs or the user's PYTHONPATH name, then the user's PYTHONPATH."""
    own = os.environ.get("PYTHONPATH", "")
    named = editable_folders(seed.folders if seed else ())
    named += [os.path.abspath(p) for p in own.split(os.pathsep) if p and os.path.isabs(p)]
    return [*stand_ins(named, workspace, copy), *([own] if own else [])]


def stand_ins(named: Iterable[str], workspace: str, copy: str) -> list[str]:
    """For each folder of `named` inside the workspace at `workspace`, the same folder in the copy at
    `copy` (where it is there), in order, once. Pure but for asking whether each is a folder."""
    found = []
    for folder in named:
        normal = os.path.normpath(folder)
        if _under(normal, (workspace,)):
            here = os.path.join(copy, os.path.relpath(normal, workspace))
            if os.path.isdir(here) and here not in found:
                found.append(here)
    return found


def editable_folders(environment: Iterable[str]) -> list[str]:
    """The folders the environment's `.pth` files put on sys.path, and the folders that hold the packages
    setuptools' editable finders map (their MAPPING), in the site folders under `environment`."""
    found: list[str] = []
    for folder in environment:
        for place in _SITE_FILES:
            site = os.path.join(glob.escape(folder), place)
            for pth in glob.glob(site + "*.pth"):
                found += _pth_lines(pth)
            for finder in glob.glob(site + "__editable___*_finder.py"):
                found += [os.path.dirname(p) for p in _mapping(finder).values()]
    return found


def _pth_lines(pth: str) -> list[str]:
    try:
        with open(pth, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    site = os.path.dirname(pth)
    named = (line.strip() for line in lines if not line.startswith(("#", "import")))
    return [os.path.join(site, line) for line in named if line]


def _mapping(finder: str) -> Mapping[str, str]:
    """The MAPPING (package -> folder) an editable finder of setuptools' holds; {} when it holds none."""
    try:
        with open(finder, encoding="utf-8", errors="replace") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return {}
    for node in tree.body:
        target: ast.expr
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "MAPPING":
            try:
                found = ast.literal_eval(value)
            except ValueError:
                return {}
            return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}
    return {}


class _Listener(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: str) -> None:
        super().__init__(address, _Handler)
        self.told: dict[str, dict[str, dict[str, object]]] = {}
        self.streams: list[_Stream] = []
        self.lock = threading.Lock()
        self.secret = ""  # what the launcher's report starts with (`Watch.secret`)


class _Stream:
    """One connection's stream of a pytest run's outcomes, as heard so far (`Streamed` once read): the run's
    own (`worker` ""), or one of its xdist workers'."""

    def __init__(self, report: str, worker: str = "") -> None:
        self.report = report
        self.worker = worker
        self.outcomes: list[tuple[str, str]] = []
        self.patched: list[str] = []
        self.workers: list[str] = []
        self.down: list[tuple[str, str]] = []
        self.crashes: list[tuple[str, str]] = []
        self.ended = False
        self.garbled = False
        self.closed = threading.Event()

    def add(self, message: dict[str, object]) -> None:
        """One line of the plugin's: an outcome (`o`: test, outcome), the runner's parts found replaced
        (`p`), an xdist worker the run started (`w`), one gone down (`d`: worker, "crashed" or "done"),
        the test a worker crashed in (`c`: worker, test), or the end mark (`end`); anything else spoils
        the stream (a line written into the plugin's own connection by someone else, say)."""
        said, patched, worker = message.get("o"), message.get("p"), message.get("w")
        down, crash = message.get("d"), message.get("c")
        if len(message) != 1:
            self.garbled = True
        elif _pair(said):
            self.outcomes.append((said[0], said[1]))
        elif _pair(down) and down[1] in ("crashed", "done"):
            self.down.append((down[0], down[1]))
        elif _pair(crash):
            self.crashes.append((crash[0], crash[1]))
        elif isinstance(patched, list) and all(isinstance(part, str) for part in patched):
            self.patched.extend(patched)
        elif isinstance(worker, str):
            self.workers.append(worker)
        elif message.get("end") is True:
            self.ended = True
        else:
            self.garbled = True

    def heard(self) -> Streamed:
        return Streamed(
            self.report,
            tuple(self.outcomes),
            tuple(self.patched),
            self.ended,
            self.garbled,
            worker=self.worker,
            workers=tuple(self.workers),
            down=tuple(self.down),
            crashes=tuple(self.crashes),
        )


def _pair(said: object) -> TypeGuard[list[str]]:
    return isinstance(said, list) and len(said) == 2 and all(isinstance(part, str) for part in said)


class _Handler(socketserver.StreamRequestHandler):
    server: _Listener

    def handle(self) -> None:
        key: str | None = None
        kernel = False  # the launcher speaking for the kernel: it alone tells stamps and the kernel's reads
        stream: _Stream | None = None
        first = False  # the line after the key: where a stream says which report it is for
        try:
            for raw in self.rfile:
                try:
                    message = json.loads(raw)
                except ValueError:
                    message = None
                if not isinstance(message, dict):
                    if stream is not None:
                        stream.garbled = True
                    continue
                if key is None:
                    key, first = str(message.get("key", "")), True
                    kernel = bool(self.server.secret) and message.get("kernel") == self.server.secret
                    continue
                report, worker = message.get("report"), message.get("worker", "")
                if first and isinstance(report, str) and isinstance(worker, str):
                    # An xdist worker's stream names its run's report, and itself.
                    stream = _Stream(report, worker)
                    with self.server.lock:
                        self.server.streams.append(stream)
                    with contextlib.suppress(OSError):  # gone already: what it sent still counts
                        self.wfile.write(HEARD)
                    first = False
                    continue
                first = False
                with self.server.lock:
                    if stream is not None:
                        stream.add(message)
                    else:
                        _kept(self.server.told.setdefault(key, _empty()), message, kernel=kernel)
        finally:
            if stream is not None:
                stream.closed.set()


# The sockets of this process's watches, by the name their checks are given (`Watch.name`): where
# `streams` finds what a check's runs streamed from the variables the check ran with.
_HEARING: dict[str, _Listener] = {}


def streams(address: str, folder: str, wait: float = STREAM_WAIT) -> tuple[Streamed, ...] | None:
    """What the pytest runs whose reports are in `folder` (a check's own report folder,
    `tiergate.gate.testreports`) streamed to the watch socket named `address`, each as heard to its
    connection's close (at most `wait` seconds for all: the check's processes have ended, and a process
    left holding the connection open is no reason to wait longer); None when no watch of this process
    listens there (a run without the socket: its reports are read alone, as before)."""
    server = _HEARING.get(address)
    if server is None:
        return None
    with server.lock:
        found = [s for s in server.streams if os.path.dirname(s.report) == folder]
    deadline = time.monotonic() + wait
    for stream in found:
        stream.closed.wait(max(0.0, deadline - time.monotonic()))
    with server.lock:
        return tuple(s.heard() for s in found)


def _empty() -> dict[str, dict[str, object]]:
    return {"r": {}, "w": {}, "n": {}, "b": {}, "l": {}, "t": {}, "m": {}, "k": {}}


def _kept(kept: dict[str, dict[str, object]], message: dict[str, object], *, kernel: bool = False) -> None:
    """One process's message added to what a check's processes told (`_told`); the kernel's (`kernel`: the
    launcher's report) apart, a read as `k`, and its stamps: no check process can tell those."""
    if kernel and isinstance(message.get("r"), str) and isinstance(message.get("c"), (int, float)):
        kept["k"][str(message["r"])] = message["c"]
        return
    for kind in ("r", "w", "n", "b"):
        if kind in message:
            named = json.dumps(message[kind]) if kind in "nb" else str(message[kind])
            _told(kept, kind, named, message.get("c"), linked=message.get("l") is True)
    for kind in ("t", "m") if kernel else ():  # a file in the folders the gate wrote, with its stamp
        stamp = message.get("s")
        if kind in message and isinstance(stamp, list) and [type(n) for n in stamp] == [int, int]:
            kept[kind].setdefault(str(message[kind]), (stamp[0], stamp[1]))


def _merged(kept: dict[str, dict[str, object]], other: dict[str, dict[str, object]]) -> None:
    """What another record (`_kept`'s) holds, added to `kept` as its messages would be."""
    for kind in ("r", "w", "n", "b"):
        for named, changed in other[kind].items():
            _told(kept, kind, named, changed, linked=named in other["l"])
    for kind in ("t", "m", "k"):
        for named, stamp in other[kind].items():
            kept[kind].setdefault(named, stamp)


def _told(
    kept: dict[str, dict[str, object]], kind: str, named: str, changed: object, *, linked: bool
) -> None:
    """One thing told, kept: a read's latest change time and whether it was ever a hard link, a write's
    first word on whether the file was there, each address."""
    if kind == "r" and isinstance(changed, (int, float)):
        was = kept["r"].get(named)
        kept["r"][named] = max(changed, was) if isinstance(was, (int, float)) else changed
        if linked:
            kept["l"][named] = True
    else:
        kept[kind].setdefault(named, changed)


def _stamps(kept: Mapping[str, object]) -> dict[str, Stamp]:
    found: dict[str, Stamp] = {}
    for path, stamp in kept.items():
        if isinstance(stamp, tuple) and [type(n) for n in stamp] == [int, int]:
            found[path] = (stamp[0], stamp[1])
    return found


class Watch:
    """The watch on one claim's copy: the variables the checks run there get, then, check by check, what
    they read and whom they talked to outside it. A context manager: its socket listens while it is open."""

    def __init__(self, holder: Path, bounds: Bounds, seed: Seed | None, *, isolated: bool = False) -> None:
        self.bounds = bounds
        self.secret = os.urandom(16).hex()  # the launcher's, in its plan: never in a check's variables
        self.seed = seed
        self.site = holder / "site"
        self.temporary = holder / "tmp"
        # Checks in a network of their own (`tiergate.gate.sandbox`) reach no abstract name of the gate's:
        # they tell a socket file, in a folder they are shown unwritable.
        self.folder = holder / "watch"
        abstract = f"@tiergate-watch-{os.urandom(8).hex()}"
        self.name = str(self.folder / "told") if isolated else abstract
        self.listening = listeners()
        self._server: _Listener | None = None
        self._path: str | None = None
        self._kept: dict[str, Stamp | None] = {}
        self._known: dict[str, Stamp] = {}

    def __enter__(self) -> Watch:
        with contextlib.suppress(OSError):  # no abstract names outside Linux: no watch
            if self.name.startswith("@"):
                self._server = _Listener("\0" + self.name[1:])
            else:
                self.folder.mkdir(mode=0o700, exist_ok=True)
                self._server = _Listener(self.name)
            self._server.secret = self.secret
            # Polled often: closing the copy waits for the loop to see it is asked to end.
            serve = lambda: self._server.serve_forever(poll_interval=0.02)  # noqa: E731
            threading.Thread(target=serve, daemon=True).start()
            _HEARING[self.name] = self._server
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            _HEARING.pop(self.name, None)
            self._server.shutdown()
            self._server.server_close()

    def env(self, key: str | None = None) -> dict[str, str]:
        """What a check run in the copy adds to its environment: PYTHONPATH (the site folder, the copy's
        stand-ins for the workspace's folders, the user's own), a temporary folder of its own, and where to
        tell what it reads, as the check `key` (None: a run whose reads are not asked for)."""
        if self._path is None:
            self.site.mkdir(mode=0o700, exist_ok=True)
            self.temporary.mkdir(mode=0o700, exist_ok=True)
            shutil.copyfile(SITECUSTOMIZE, self.site / "sitecustomize.py")
            self.keep(self.site / "sitecustomize.py")
            found = search_path(self.seed, self.bounds.workspace, self.bounds.copy)
            self._path = os.pathsep.join([str(self.site), *found])
        added = {"PYTHONPATH": self._path, "TMPDIR": str(self.temporary)}
        if self._server is not None:
            added |= {OUT_VARIABLE: self.name, KEY_VARIABLE: key or ""}
        return added

    def unwritable(self) -> tuple[Path, ...]:
        """The folders a sandbox shows its checks unwritable: the socket's, where it is a file."""
        return () if self.name.startswith("@") else (self.folder,)

    def keep(self, path: Path) -> None:
        """Note `path`, a file of tiergate's the checks read, as it is now (`moved` compares)."""
        self._kept[str(path)] = stamp_of(path)

    def know(self, written: Mapping[str, Stamp]) -> None:
        """Note files the gate wrote for the checks (the copy's, by resolved path) with their stamps as
        written: a check may open them as they are (`trusted.foreign`)."""
        self._known.update(written)

    def moved(self) -> list[str]:
        """tiergate's own files beside the copy that changed since they were noted (rewritten, even put
        back: the change time moves). A `.pyc` planted in the bytecode folder is no such file: the checks
        write none there, so one read there is named by `read_outside`."""
        return [p for p, stamp in self._kept.items() if stamp_of(Path(p)) != stamp]

    def told(self, results: Sequence[CheckResult]) -> tuple[CheckResult, ...]:
        """`results` each with what its check read outside the copy (`CheckResult.read_outside`)."""
        return tuple(replace(r, read_outside=self.reasons(r.key)) for r in results)

    def told_by(self, key: str) -> Told:
        """What the processes of the check `key` told."""
        if self._server is None:
            return Told()
        with self._server.lock:
            kept = _empty()
            # A process that told no check (its variables dropped) told every one.
            for told in (self._server.told.get(key), self._server.told.get("")):
                _merged(kept, told or _empty())
            reads = {p: float(c) for p, c in kept["r"].items() if isinstance(c, (int, float))}
            writes = {p: bool(c) for p, c in kept["w"].items()}
            connects, binds = (frozenset(filter(None, map(_address, map(json.loads, kept[k])))) for k in "nb")
            # What any check of the claim made is trusted as it left it: one check builds, another reads.
            made = {p: s for told in self._server.told.values() for p, s in told["m"].items()}
            kernel = {p: float(c) for p, c in kept["k"].items() if isinstance(c, (int, float))}
        stamped = _stamps(kept["t"]), _stamps(made)
        return Told(reads, writes, connects, binds, frozenset(kept["l"]), *stamped, kernel)

    def reasons(self, key: str) -> tuple[str, ...]:
        """The THOROUGH reasons for what the check `key` read, or asked, outside the copy."""
        told = self.told_by(key)
        workspace, elsewhere = read_outside(told, self.bounds, ownfiles.noted())
        asked = [a for a in servers_asked(told, self.listening) if a != self.name]
        known = {**self._known, **{p: s for p, s in self._kept.items() if s}, **ownfiles.stamps()}
        gits = [g for g in (os.path.join(self.bounds.workspace, ".git"),) if os.path.isdir(g)]
        planted = trusted.foreign(told.trusted, known, told.made, gits=gits, text=_text)
        found = []
        if workspace:
            found.append(
                f"read-outside: the checks read {_shown(workspace)} from the workspace rather than the "
                "claim's copy: what it holds there is in no change -> THOROUGH"
            )
        if elsewhere:
            found.append(
                f"read-outside: the checks read {_shown(elsewhere)}, outside the claim's copy and the "
                "environment, changed since the loop began -> THOROUGH"
            )
        if planted:
            found.append(
                f"read-outside: the checks read {_shown(planted)} in the claim's copy or tiergate's folders, "
                "a file neither tiergate nor a check wrote as it is (a process left running can write there) "
                "-> THOROUGH"
            )
        if asked:
            found.append(
                f"read-outside: the checks asked {_shown(asked)}, a server none of their processes made: "
                "what it answers is in no change -> THOROUGH"
            )
        return tuple(found)


def _text(path: str) -> str | None:
    """The start of the file at `path` as text (None: unreadable)."""
    try:
        with open(path, "rb") as f:
            return f.read(1 << 16).decode("utf-8", "replace")
    except OSError:
        return None


def _shown(paths: Sequence[str]) -> str:
    # The paths are the agent's to name: a line break or a fence in one must not leave tiergate's line.
    return listed(paths, SHOWN, each=lambda p: f"`{quote_inline(p)}`")
