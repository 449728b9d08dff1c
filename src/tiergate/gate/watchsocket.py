"""The watch's socket: what each check's processes tell it (reads, writes, addresses; the launcher's for
the kernel), kept per check, and the outcomes each pytest run streams there as its tests run (from
tiergate's pytest plugin: docs/judging.md, "Each test's outcome"): what the tests' process sends there is
out of its reach once sent, where the report file it writes at the end is not."""

# os.path on purpose: paths stay strings from the processes' messages to the reasons.
# ruff: noqa: PTH120
from __future__ import annotations

import contextlib
import json
import os
import socketserver
import threading
import time
from collections.abc import Mapping
from typing import TypeGuard

from tiergate.gate.pertest.streamed import Streamed
from tiergate.gate.untouched import Stamp

# How long the gate waits, once a check has ended, for the streams of its runs to be heard to their end.
STREAM_WAIT = 5.0
# What the gate answers a stream's first line with: the plugin writes its report file only once the
# gate has heard of it, so that no report the gate reads is one whose stream it has not begun to hear.
HEARD = b"heard\n"


class Listener(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
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
    server: Listener

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
                        _kept(self.server.told.setdefault(key, empty()), message, kernel=kernel)
        finally:
            if stream is not None:
                stream.closed.set()


# The sockets of this process's watches, by the name their checks are given (`Watch.name`): where
# `streams` finds what a check's runs streamed from the variables the check ran with.
HEARING: dict[str, Listener] = {}


def streams(address: str, folder: str, wait: float = STREAM_WAIT) -> tuple[Streamed, ...] | None:
    """What the pytest runs whose reports are in `folder` (a check's own report folder,
    `tiergate.gate.testreports`) streamed to the watch socket named `address`, each as heard to its
    connection's close (at most `wait` seconds for all: the check's processes have ended, and a process
    left holding the connection open is no reason to wait longer); None when no watch of this process
    listens there (a run without the socket: its reports are read alone, as before)."""
    server = HEARING.get(address)
    if server is None:
        return None
    with server.lock:
        found = [s for s in server.streams if os.path.dirname(s.report) == folder]
    deadline = time.monotonic() + wait
    for stream in found:
        stream.closed.wait(max(0.0, deadline - time.monotonic()))
    with server.lock:
        return tuple(s.heard() for s in found)


def empty() -> dict[str, dict[str, object]]:
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


def merged(kept: dict[str, dict[str, object]], other: dict[str, dict[str, object]]) -> None:
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


def stamps(kept: Mapping[str, object]) -> dict[str, Stamp]:
    found: dict[str, Stamp] = {}
    for path, stamp in kept.items():
        if isinstance(stamp, tuple) and [type(n) for n in stamp] == [int, int]:
            found[path] = (stamp[0], stamp[1])
    return found
