"""A record of the environment the checks run with: every file and link of its folders with its stamp,
the interpreters' own files, and where PATH finds the programs the checks start. Pure.

A stamp holds the change time, which no unprivileged process can set back: a file edited and then given
its old modification time still reads as changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field

from tiergate import TYPE_CHECKING
from tiergate.frozen import frozen

if TYPE_CHECKING:
    from typing import Any

SCHEMA = 1
# (size, modification time in ns, change time in ns, inode), and for a link its target: the JSON lists
# the record is kept as, made tuples again without a call per file (a large environment has tens of
# thousands).
Stamp = tuple[int, int, int, int] | tuple[int, int, int, int, str]


# What the runners read from the folders above where they run (pytest's configuration and conftests,
# node's modules, npm's and cargo's configuration) and from the user's home: files outside the project and
# the change, which a claim's copy in the temporary folder, or the workspace, would still be shaped by.
WALKED_UP = (
    *("pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "conftest.py", "tox.ini", "setup.cfg"),
    *("pyproject.toml", "package.json", "node_modules", ".npmrc", ".cargo/config.toml", ".cargo/config"),
)
IN_HOME = (".npmrc", ".node_modules", ".node_libraries", ".cargo/config.toml", ".cargo/config")


def read_from_outside(path: str) -> bool:
    """Whether `path` is one of `WALKED_UP` or `IN_HOME` (a runner's, not an interpreter)."""
    return path.endswith(tuple(f"/{name}" for name in (*WALKED_UP, *IN_HOME)))


@frozen
class EnvironmentRecord:
    """The environment as it was at one moment. A folder or file that was not there is None: one that
    appears later is new, not unknown."""

    folders: Mapping[str, Mapping[str, Stamp] | None] = field(default_factory=dict)  # path -> files
    files: Mapping[str, Stamp | None] = field(default_factory=dict)  # an interpreter's binary, by path
    programs: Mapping[str, str] = field(default_factory=dict)  # name -> where PATH finds it ("": nowhere)

    @property
    def size(self) -> int:
        """How many files it holds."""
        return sum(len(files or ()) for files in self.folders.values()) + len(self.files)


def to_dict(record: EnvironmentRecord) -> dict[str, Any]:
    """The record as JSON takes it (its stamps become lists)."""
    return {
        "schema": SCHEMA,
        "folders": dict(record.folders),
        "files": dict(record.files),
        "programs": dict(record.programs),
    }


def from_dict(data: object) -> EnvironmentRecord | None:
    """The record `to_dict` made, read back from JSON; None when `data` is not one (another schema, a
    shape of its own). Only its shape is checked: the caller knows the data is the record it kept
    (`tiergate.gate.environment.keptrecord` checks its digest)."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return None
    try:
        folders = {str(path): _files(files) for path, files in data["folders"].items()}
        files = {str(path): None if s is None else _stamp(s) for path, s in data["files"].items()}
        programs = {str(name): str(where) for name, where in data["programs"].items()}
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return EnvironmentRecord(folders, files, programs)


def _files(files: object) -> dict[str, Stamp] | None:
    if files is None:
        return None
    if not isinstance(files, dict):
        raise TypeError("not a folder's files")
    return dict(zip(files, map(tuple, files.values()), strict=True))


def _stamp(value: object) -> Stamp:
    if not isinstance(value, list) or len(value) not in (4, 5):
        raise TypeError("not a stamp")
    return tuple(value)
