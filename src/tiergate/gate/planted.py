"""Files a check's processes write for the gate to read (test reports, coverage, the mutants' reports):
the tests' code can put anything where they go, so each is read as untrusted. A regular file only, opened
without blocking (a named pipe there must not hang the gate) and without following a link, at most
`LIMIT` bytes; JSON that cannot be parsed, nesting too deep for the parser included, is a ValueError.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

LIMIT = 1 << 30  # far above any report or coverage file a real run writes


def read_bytes(path: Path) -> bytes:
    """The bytes of `path`; OSError when it is not a regular file or is over `LIMIT`."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as file:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise OSError(f"{path.name} is not a regular file")
        if found.st_size > LIMIT:
            raise OSError(f"{path.name} is over {LIMIT} bytes")
        return file.read(LIMIT + 1)


def read_text(path: Path) -> str:
    """The text of `path` (UTF-8, as `read_bytes` reads it): a UnicodeDecodeError is a ValueError."""
    return read_bytes(path).decode()


def read_json(path: Path) -> Any:
    """The JSON of `path`, as `read_bytes` reads it."""
    try:
        return json.loads(read_bytes(path))
    except RecursionError as exc:
        raise ValueError(f"{path.name} is nested too deeply") from exc
