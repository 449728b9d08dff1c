"""A record of the environment the checks run with: every file and link of its folders with its stamp,
the interpreters' own files, and where PATH finds the programs the checks start. Pure.

A stamp holds the change time, which no unprivileged process can set back: a file edited and then given
its old modification time still reads as changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field

from tiergate.frozen import frozen

# Not `from typing import TYPE_CHECKING`: importing typing alone costs a hook several milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SCHEMA = 1
# (size, modification time in ns, change time in ns, inode, a link's target: "" for a file)
Stamp = tuple[int, int, int, int, str]


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
    return {
        "schema": SCHEMA,
        "folders": {path: _files_out(files) for path, files in record.folders.items()},
        "files": {path: _stamp_out(stamp) for path, stamp in record.files.items()},
        "programs": dict(record.programs),
    }


def from_dict(data: object) -> EnvironmentRecord | None:
    """The record `to_dict` made; None when `data` is not one (another schema, damaged)."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return None
    try:
        folders = {str(path): _files_in(files) for path, files in data["folders"].items()}
        files = {str(path): _stamp_in(stamp) for path, stamp in data["files"].items()}
        programs = {str(name): str(where) for name, where in data["programs"].items()}
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return EnvironmentRecord(folders, files, programs)


def _files_out(files: Mapping[str, Stamp] | None) -> dict[str, list[int | str]] | None:
    return None if files is None else {path: _list(stamp) for path, stamp in files.items()}


def _stamp_out(stamp: Stamp | None) -> list[int | str] | None:
    return None if stamp is None else _list(stamp)


def _list(stamp: Stamp) -> list[int | str]:
    # A file's stamp without its empty link target: the record of a large environment is mostly files.
    return list(stamp) if stamp[4] else list(stamp[:4])


def _files_in(files: object) -> dict[str, Stamp] | None:
    if files is None:
        return None
    if not isinstance(files, dict):
        raise TypeError("not a folder's files")
    return {str(path): _stamp(stamp) for path, stamp in files.items()}


def _stamp_in(stamp: object) -> Stamp | None:
    return None if stamp is None else _stamp(stamp)


def _stamp(value: object) -> Stamp:
    if not isinstance(value, list) or len(value) not in (4, 5):
        raise TypeError("not a stamp")
    size, mtime, ctime, inode = (int(v) for v in value[:4])
    return (size, mtime, ctime, inode, str(value[4]) if len(value) == 5 else "")
