"""What a claim's checks read, and whom they talk to: the claim's copy and the environment recorded as the
loop began, and nothing else counted as the change's.

Every Python process of a check tells the gate's socket (`watchsocket`) each file it opens and each address
it connects to or binds (`checksite/sitecustomize.py`); what it should not have is named, THOROUGH, with the
check's result (`read_outside`, `servers_asked`). See docs/judging.md, "The claim's copy"."""

# os.path on purpose: paths stay strings from the processes' messages to the reasons.
# ruff: noqa: PTH112, PTH118, PTH123
from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field, replace
from pathlib import Path

from tiergate.frozen import frozen
from tiergate.gate import editables, ownfiles, trusted, watchsocket
from tiergate.gate.checks import CheckResult
from tiergate.gate.environment.places import inside
from tiergate.gate.environment.walk import BYTECODE, SKIPPED_IN
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


# The copy (`tiergate.gate.cleancopy`) holds only what the change and the base put there, but a process can
# still read from elsewhere: an editable install names a folder of the workspace (`editables`), code can
# read a path of the workspace or of a folder it wrote, or ask a server it left running. The socket has no
# file: nothing beside the copy to rewrite or erase. Named, THOROUGH, with the check's result:
# - a file of the workspace it read (its environment folders aside);
# - a file elsewhere it read that was changed since the loop began, unless a process of the check made it;
#   what the copy, tiergate's site script and empty pytest configuration beside it, and the environment's
#   recorded folders hold is not named (the environment is compared apart), nor the kernel's (`/proc`,
#   `/sys`, `/dev`, but `/dev/shm` and another process's `/proc/PID`); a hard link is judged wherever it is;
# - a server on this machine that is not the check's own: listening before the checks began, or a Unix
#   socket none of their processes bound.
# Files older than the loop are the machine's, not the loop's.
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
        self._server: watchsocket.Listener | None = None
        self._path: str | None = None
        self._kept: dict[str, Stamp | None] = {}
        self._known: dict[str, Stamp] = {}

    def __enter__(self) -> Watch:
        with contextlib.suppress(OSError):  # no abstract names outside Linux: no watch
            if self.name.startswith("@"):
                self._server = watchsocket.Listener("\0" + self.name[1:])
            else:
                self.folder.mkdir(mode=0o700, exist_ok=True)
                self._server = watchsocket.Listener(self.name)
            self._server.secret = self.secret
            # Polled often: closing the copy waits for the loop to see it is asked to end.
            serve = lambda: self._server.serve_forever(poll_interval=0.02)  # noqa: E731
            threading.Thread(target=serve, daemon=True).start()
            watchsocket.HEARING[self.name] = self._server
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            watchsocket.HEARING.pop(self.name, None)
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
            found = editables.search_path(self.seed, self.bounds.workspace, self.bounds.copy)
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
            kept = watchsocket.empty()
            # A process that told no check (its variables dropped) told every one.
            for told in (self._server.told.get(key), self._server.told.get("")):
                watchsocket.merged(kept, told or watchsocket.empty())
            reads = {p: float(c) for p, c in kept["r"].items() if isinstance(c, (int, float))}
            writes = {p: bool(c) for p, c in kept["w"].items()}
            connects, binds = (frozenset(filter(None, map(_address, map(json.loads, kept[k])))) for k in "nb")
            # What any check of the claim made is trusted as it left it: one check builds, another reads.
            made = {p: s for told in self._server.told.values() for p, s in told["m"].items()}
            kernel = {p: float(c) for p, c in kept["k"].items() if isinstance(c, (int, float))}
        stamped = watchsocket.stamps(kept["t"]), watchsocket.stamps(made)
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
