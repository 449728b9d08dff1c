"""Seals on what tiergate writes to its state folder, so that an edit it did not make is seen.

A seal is a BLAKE2b tag over a record's name (its path under the state folder) and its exact bytes, keyed
by 32 random bytes in `<user state home>/key` (0600). A whole file ends in `#tiergate-seal <tag>`
(`seal_file`, `open_file`); a line of the log or the notices carries its own (`line_tag`, `line_is_sealed`).
"""
# The key is outside every project. What a seal stops and what it does not: docs/ARCHITECTURE.md, section
# "State the agent can reach is not trusted".

# os.path rather than pathlib: the hooks import this module, and pathlib would cost each about 10 ms.
# ruff: noqa: PTH103, PTH108, PTH111, PTH117, PTH118, PTH123
from __future__ import annotations

import os

from tiergate import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

KEY_NAME = "key"
KEY_BYTES = 32
TAG_BYTES = 16
FILE_MARK = b"#tiergate-seal "
_key_cache: dict[str, bytes] = {}


class SealError(Exception):
    """A record whose seal is missing or does not match: tiergate did not write it as it is."""


def state_home(env: Mapping[str, str]) -> str:
    """Where tiergate keeps what belongs to the user rather than to one project:
    `$XDG_STATE_HOME/tiergate`, else `~/.local/state/tiergate`."""
    base = env.get("XDG_STATE_HOME")
    if not base or not os.path.isabs(base):
        base = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "tiergate")


def key(env: Mapping[str, str] | None = None) -> bytes:
    """The user's sealing key, made (0600, in a 0700 folder) the first time it is needed."""
    home = state_home(os.environ if env is None else env)
    cached = _key_cache.get(home)
    if cached is not None:
        return cached
    path = os.path.join(home, KEY_NAME)
    try:
        value = _read_key(path)
    except FileNotFoundError:
        value = _make_key(home, path)
    _key_cache[home] = value
    return value


def _read_key(path: str) -> bytes:
    with open(path, "rb") as handle:
        value = handle.read(KEY_BYTES + 1)
    if len(value) != KEY_BYTES:
        # A damaged key seals nothing reliably; every sealed record then reads as tampered, which
        # fails closed. Said plainly, so that the user can delete it and start afresh.
        raise SealError(f"tiergate's key {path} is damaged ({len(value)} bytes); delete it")
    return value


def _make_key(home: str, path: str) -> bytes:
    os.makedirs(home, mode=0o700, exist_ok=True)
    value = os.urandom(KEY_BYTES)
    temporary = f"{path}.{os.getpid()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        try:
            if os.write(fd, value) != KEY_BYTES:
                raise OSError(f"could not write all of {path}")  # a short key would seal nothing reliably
            os.fsync(fd)
        finally:
            os.close(fd)
        # link, not rename: when two hooks make a key at once, the first one's stays and both use it.
        os.link(temporary, path)
    except FileExistsError:
        value = _read_key(path)
    finally:
        # Whatever happened (a full disk included), no temporary is left behind.
        os.unlink(temporary)
    return value


def tag(name: str, body: bytes, env: Mapping[str, str] | None = None) -> str:
    """The seal of `body` under `name` (hex), with the key of `env`'s user (None: this process's)."""
    # Not `hmac`: BLAKE2's keyed mode is a MAC by itself, and `_blake2` imports in well under a
    # millisecond where `hmac` pulls in `hashlib` and several milliseconds more.
    from _blake2 import blake2b

    return blake2b(
        name.encode("utf-8", "surrogateescape") + b"\0" + body, key=key(env), digest_size=TAG_BYTES
    ).hexdigest()


def seal_file(name: str, body: bytes) -> bytes:
    """`body` with its seal line appended: what to write to the file `name`."""
    return body + b"\n" + FILE_MARK + tag(name, body).encode() + b"\n"


def open_file(name: str, data: bytes) -> bytes:
    """The body of a sealed file's `data`; SealError when the seal is missing or wrong."""
    cut = data.rfind(b"\n" + FILE_MARK)
    if cut < 0 or not data.endswith(b"\n"):
        raise SealError("it carries no seal")
    body, found = data[:cut], data[cut + 1 + len(FILE_MARK) : -1].decode("ascii", "replace")
    if not _same(found, tag(name, body)):
        raise SealError("its seal does not match its contents")
    return body


def line_tag(name: str, line: str, env: Mapping[str, str] | None = None) -> str:
    """The seal of one line (without its newline) of the line file `name`."""
    return tag(name, line.encode("utf-8", "surrogateescape"), env)


def line_is_sealed(name: str, line: str, found: str, env: Mapping[str, str] | None = None) -> bool:
    return _same(found, line_tag(name, line, env))


def _same(found: str, expected: str) -> bool:
    # Constant time: the tag is a secret's function, and a comparison that stops at the first
    # difference would let a patient forger learn it byte by byte.
    from _operator import _compare_digest

    return _compare_digest(found.encode("ascii", "replace"), expected.encode())
