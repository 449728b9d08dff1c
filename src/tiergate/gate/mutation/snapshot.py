"""The claim's copy as a check found it, put back before each run of a mutant that the gate starts itself
(`nodestep`'s processes): so that no file an earlier run wrote, made or removed (answers written into a
file the claim ships, a folder's name, a database) judges a mutant. The Python plugin keeps its own, in
the tests' process (`pytestmutants._Tree`), since it must stay one file of the standard library.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Collection, Iterator
from pathlib import Path

# The bytes kept at most: a bigger file that a run then changes leaves the runs undecided.
KEPT_BYTES = 64 << 20


class Snapshot:
    """Each file's stamp and bytes under `where` (`.git` and `left` aside), and each folder."""

    def __init__(self, where: Path, left: Collection[str] = ()) -> None:
        self.where, self.left = where, frozenset(left)
        self.files: dict[str, tuple[int, int, int, bytes | None]] = {}
        self.dirs: set[str] = set()
        kept = 0
        for name, st in self._entries():
            if st is None:
                self.dirs.add(name)
                continue
            content = None
            if stat.S_ISREG(st.st_mode) and kept + st.st_size <= KEPT_BYTES:
                content = (where / name).read_bytes()
                kept += len(content)
            self.files[name] = (st.st_mtime_ns, st.st_size, st.st_mode, content)

    def put_back(self) -> str:
        """The copy as it was; why not ("": put back), when a file too big to keep changed."""
        seen: set[str] = set()
        made: list[str] = []
        for name, st in list(self._entries()):
            if st is None:
                if name not in self.dirs:
                    made.append(name)
                continue
            seen.add(name)
            old = self.files.get(name)
            if old is None:
                (self.where / name).unlink(missing_ok=True)
            elif (st.st_mtime_ns, st.st_size, st.st_mode) != old[:3] and not self._write(name, old):
                return f"a run changed {name}, too big to put back before the next"
        for name in self.files.keys() - seen:
            if not self._write(name, self.files[name]):
                return f"a run removed {name}, too big to put back before the next"
        for name in sorted(made, reverse=True):
            shutil.rmtree(self.where / name, ignore_errors=True)
        return ""

    def _write(self, name: str, old: tuple[int, int, int, bytes | None]) -> bool:
        mtime, _, mode, content = old
        if content is None:
            return False
        path = self.where / name
        path.unlink(missing_ok=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        path.chmod(stat.S_IMODE(mode))
        os.utime(path, ns=(mtime, mtime))
        return True

    def _entries(self) -> Iterator[tuple[str, os.stat_result | None]]:
        """Each entry, relative to `where`: a folder with None, anything else (a link too) with its
        stamp; symbolic links are not followed."""
        for folder, dirs, names in os.walk(self.where):
            top = Path(folder)
            dirs[:] = [d for d in dirs if not (top == self.where and d == ".git")]
            for name in dirs:
                if not (top / name).is_symlink():
                    yield str((top / name).relative_to(self.where)), None
            for name in [*names, *(d for d in dirs if (top / d).is_symlink())]:
                relative = str((top / name).relative_to(self.where))
                if relative not in self.left:
                    try:
                        yield relative, (top / name).lstat()
                    except OSError:
                        continue
