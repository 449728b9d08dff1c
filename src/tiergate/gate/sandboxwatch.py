"""The files a sandboxed check opened that changed since the loop began, told to the gate's watch.

Run by root only, in the launcher (`sandboxinit.py`), outside the check's namespaces, which imports it only
when it watches (standard library only): fanotify marks each mount of the check's own mount namespace (only
opens through them are told, so no other process's), and once the check has ended, each file and folder it
opened is judged by its times. See docs/judging.md, "Isolated checks".
"""

# The watch inside the check's processes (`checksite/sitecustomize.py`) misses what C code reads (libc's own
# files, a program that is not Python); the kernel misses nothing opened. A stat alone (a size, a time) is
# no open.

# os and open on purpose, as in the launcher.
# ruff: noqa: PTH115, PTH118, PTH123
from __future__ import annotations

import ctypes
import os
import stat
import struct
import sys

FAN_CLOEXEC = 0x1
FAN_NONBLOCK = 0x2
FAN_UNLIMITED_QUEUE = 0x10
FAN_MARK_ADD = 0x1
FAN_MARK_MOUNT = 0x10
FAN_CLOSE_WRITE = 0x8
FAN_OPEN = 0x20
FAN_ONDIR = 0x40000000
FAN_Q_OVERFLOW = 0x4000
AT_FDCWD = -100
AT_EMPTY_PATH = 0x1000
STATX_BTIME = 0x800
EVENT = struct.Struct("IBBHQii")
# File systems that are the kernel's (what they show is no file anyone wrote), never marked.
KERNEL_TYPES = frozenset(
    {"proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "debugfs", "tracefs", "securityfs", "bpf",
     "pstore", "configfs", "fusectl", "binfmt_misc", "autofs", "nsfs", "hugetlbfs", "efivarfs", "devtmpfs"}
)  # fmt: skip
TOLD_AT_MOST = 200
CLOCK_REALTIME_COARSE = 5  # Linux's; Python names no constant for it

_libc = ctypes.CDLL(None, use_errno=True)


class Opened:
    """One check's watch: `mark` its mounts before it starts, `read` the events once it has ended, `tell`
    what it opened that changed since the loop began."""

    def __init__(self, since: float, covers: list[str], quiet: list[str], trusted: list[str]) -> None:
        self.since = since
        self.covers = covers  # the plan's covers: the check's own empty folders
        self.quiet = quiet  # the check's own files (its blanks): never told
        # The copy, tiergate's folders, `.git`: what the gate wrote there changed since the loop began,
        # so each file opened there is told with its stamp, for the gate to hold against what it wrote.
        self.trusted = trusted
        self.opened: dict[tuple[int, int], tuple[str, int, int, float]] = {}
        self.started = 0.0
        self.root = -1  # the check's root, held: its mounts stay while the events are read
        self.mounts: dict[int, str] = {}
        self.written: set[tuple[int, int]] = set()
        self.found: dict[tuple[int, int], tuple[str, float, bool, float]] = {}
        flags = FAN_CLOEXEC | FAN_NONBLOCK | FAN_UNLIMITED_QUEUE
        self.fd = _libc.fanotify_init(flags, os.O_RDONLY | os.O_CLOEXEC | os.O_LARGEFILE)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "fanotify_init")

    def mark(self, pid: int, now: float) -> None:
        """Each mount of the process `pid`'s namespace the check reads through: not the kernel's, not a
        cover, not a quiet folder."""
        self.started = now
        self.root = os.open(f"/proc/{pid}/root", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        with open(f"/proc/{pid}/mountinfo", "rb") as f:
            lines = f.read().decode("utf-8", "surrogateescape").splitlines()
        for line in lines:
            fields = line.split(" ")
            point, kind = _unescaped(fields[4]), fields[fields.index("-") + 1]
            self.mounts[int(fields[0])] = point
            if kind in KERNEL_TYPES or point in self.covers or point == "/dev" or _under(point, self.quiet):
                continue
            mask = ctypes.c_uint64(FAN_OPEN | FAN_CLOSE_WRITE | FAN_ONDIR)
            path = f"/proc/{pid}/root{point}".encode("utf-8", "surrogateescape")
            if _libc.fanotify_mark(self.fd, FAN_MARK_ADD | FAN_MARK_MOUNT, mask, AT_FDCWD, path):
                raise OSError(ctypes.get_errno(), f"fanotify_mark {point}")

    def read(self) -> None:
        """Every event queued, each file judged as it is now (the queue holds each file opened)."""
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            at = 0
            while at + EVENT.size <= len(chunk):
                length, _, _, _, mask, fd, _ = EVENT.unpack_from(chunk, at)
                at += length
                if fd >= 0:
                    try:
                        self._judged(mask, fd)
                    finally:
                        os.close(fd)

    def _judged(self, mask: int, fd: int) -> None:
        found = os.fstat(fd)
        key = (found.st_dev, found.st_ino)
        if mask & FAN_CLOSE_WRITE:
            self.written.add(key)
        folder = stat.S_ISDIR(found.st_mode)
        if not mask & FAN_OPEN or key in self.found or key in self.opened:
            return
        if not (folder or stat.S_ISREG(found.st_mode)) or found.st_ctime < self.since:
            return
        path = self._path(fd, found)
        if path is None or _under(path, self.quiet):
            return
        if not _under(path, self.trusted):
            self.found[key] = (path, found.st_ctime, folder, _born(fd, found.st_ctime))
        elif not folder:
            self.opened[key] = (path, found.st_ino, found.st_ctime_ns, _born(fd, found.st_ctime))

    def changed(self) -> list[tuple[str, float]]:
        """The files and folders the check opened that changed since the loop began and that it did not
        make: whatever the open's mode (a memory map reads a file opened to write, and tells no read). A
        file the check wrote and that was born after it started is its own, a folder born after it
        started too; a birth time no one can set back, unlike a change time (a folder the check touches
        before it lists it, a file it reads and then writes, keep theirs, and are named)."""
        found = self.found.items()
        named = [
            (path, changed)
            for key, (path, changed, folder, born) in found
            if not self._made(key, born, folder=folder)
        ]
        return sorted(named)[:TOLD_AT_MOST]

    def stamped(self) -> tuple[list[tuple[str, int, int]], list[tuple[str, int, int]]]:
        """The files opened in the trusted folders that the check did not make, each with its stamp
        (inode, change time in ns) when opened; and those it made, each with its stamp as it left them."""
        read, made = [], []
        for key, (path, inode, changed, born) in self.opened.items():
            if self._made(key, born):
                try:
                    now = os.stat(path.lstrip("/"), dir_fd=self.root, follow_symlinks=False)
                except OSError:
                    continue
                made.append((path, now.st_ino, now.st_ctime_ns))
            else:
                read.append((path, inode, changed))
        return sorted(read), sorted(made)

    def _made(self, key: tuple[int, int], born: float, *, folder: bool = False) -> bool:
        """Whether the check made the file or folder: born after it started, and, a file, written by it."""
        return born >= self.started and (folder or key in self.written)

    def tell(self, where: str, key: str, secret: str) -> None:
        """What `changed` names, told to the gate's watch at `where` (`@name`: an abstract name) as the
        check `key`, in the watch's own lines (`tiergate.gate.imported`), as the kernel (`secret`)."""
        import _socket
        import json

        read, made = self.stamped()
        lines: list[dict[str, object]] = [
            {"key": key, "kernel": secret},
            *({"r": path, "c": when} for path, when in self.changed()),
        ]
        lines += [{"t": path, "s": [inode, changed]} for path, inode, changed in read]
        lines += [{"m": path, "s": [inode, changed]} for path, inode, changed in made]
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            conn.connect("\0" + where[1:] if where.startswith("@") else where)
            told = "".join(json.dumps(line) + "\n" for line in lines)
            conn.sendall(told.encode("utf-8", "surrogateescape"))
        finally:
            conn.close()

    def close(self) -> None:
        for fd in (self.fd, self.root):
            if fd >= 0:
                os.close(fd)

    def marked(self, mounted: int, told_marked: int) -> bool:
        """Whether the check's mounts are marked, once its init has made them (told on `mounted`); the
        init let go (on `told_marked`) either way. Closed when not."""
        import time

        told = os.read(mounted, 32)
        os.close(mounted)
        try:
            if told:
                # The kernel stamps a file's birth from its coarse clock, a tick behind `time.time()`: a
                # file the check makes at once would seem born before it started, by the fine clock.
                self.mark(int(told), time.clock_gettime(CLOCK_REALTIME_COARSE))
        except OSError as exc:
            print(f"tiergate could not watch the check's files: {exc}", file=sys.stderr)
            self.close()
            return False
        finally:
            os.write(told_marked, b"1")
            os.close(told_marked)
        return bool(told)

    def read_until(self, inside: int) -> None:
        """The events read as they come until process `inside` ends: the kernel holds each file an event
        names until it is read, and a suite opens hundreds of thousands."""
        import select

        ended = os.pidfd_open(inside)
        try:
            while True:
                ready, _, _ = select.select([self.fd, ended], [], [])
                if self.fd in ready:
                    self.read()
                if ended in ready:
                    return
        except OSError as exc:
            print(f"tiergate could not read the check's files: {exc}", file=sys.stderr)
        finally:
            os.close(ended)

    def tell_and_close(self, asked: tuple[str, str, float, str]) -> None:
        """The last events read, then what changed told to the gate's socket, as the plan's `--watch` asks."""
        try:
            self.read()
            self.tell(asked[0], asked[1], asked[3])
        except OSError as exc:
            print(f"tiergate could not tell what the check opened: {exc}", file=sys.stderr)
        finally:
            self.close()

    def _path(self, fd: int, found: os.stat_result) -> str | None:
        """Where the check saw the file. From outside its namespace the kernel gives the path from the
        check's root, or from the file's mount where the plan made that mount: the one that leads to the
        file from the check's root."""
        try:
            inner = os.readlink(f"/proc/self/fd/{fd}").removesuffix(" (deleted)")
            with open(f"/proc/self/fdinfo/{fd}") as f:
                mount = next(int(line.split()[1]) for line in f if line.startswith("mnt_id:"))
        except (OSError, StopIteration, ValueError):
            return None
        point = self.mounts.get(mount, "/")
        joined = os.path.join(point, inner.lstrip("/")).rstrip("/") or "/"
        for path in (inner, joined):
            try:
                there = os.stat(path.lstrip("/") or ".", dir_fd=self.root, follow_symlinks=False)
            except OSError:
                continue
            if (there.st_dev, there.st_ino) == (found.st_dev, found.st_ino):
                return path
        return joined  # gone since: where its mount is


def _under(path: str, folders: list[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _born(fd: int, otherwise: float) -> float:
    """The file's birth time (statx); `otherwise` where the file system keeps none."""
    buffer = ctypes.create_string_buffer(256)
    if _libc.statx(fd, b"", AT_EMPTY_PATH, STATX_BTIME, buffer) != 0:
        return otherwise
    mask = struct.unpack_from("I", buffer, 0)[0]
    if not mask & STATX_BTIME:
        return otherwise
    seconds, nanoseconds = struct.unpack_from("qI", buffer, 80)
    return float(seconds + nanoseconds / 1e9)


def _unescaped(point: str) -> str:
    """A mount point as mountinfo writes it (space, tab, newline and backslash as octal escapes)."""
    for code in ("040", "011", "012", "134"):
        point = point.replace("\\" + code, chr(int(code, 8)))
    return point
