"""A folder as a run found it, put back before each run of a mutant: so that no file an earlier run wrote,
made or removed (answers written into a file the claim ships, a folder's name, a database written from C)
judges a mutant. The gate keeps the claim's copy so for the mutants' own processes (`nodestep`); the
pytest plugin (`pytestmutants`), in the tests' process, keeps the check's folder as collection left it,
from a copy of this file beside its own: the standard library only.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Collection, Iterator
from pathlib import Path

# The bytes kept at most: a bigger file that a run then changes leaves the runs undecided.
KEPT_BYTES = 64 << 20


class Snapshot:
    """Each file's stamp and bytes under `where`, each folder, and the times of both (`where` itself
    too): `.git`, the names `left` (relative to `where`) and what is under the folders `kept` (absolute,
    each ending in `/`) aside."""

    def __init__(self, where: Path, left: Collection[str] = (), kept: Collection[str] = ()) -> None:
        self.where, self.left, self.kept = where, frozenset(left), tuple(kept)
        self.files: dict[str, tuple[int, int, int, bytes | None]] = {}
        self.dirs: set[str] = set()
        # Each file's and folder's access, modification and change times, by its name ("." for `where`).
        self.times: dict[str, tuple[int, int, int]] = {}
        self._keep_times(".")
        held = 0
        for name, st in self._entries():
            if st is None:
                self.dirs.add(name)
                self._keep_times(name)
                continue
            content = None
            if stat.S_ISREG(st.st_mode) and held + st.st_size <= KEPT_BYTES:
                try:
                    content = (where / name).read_bytes()
                except OSError:  # unread: changed, it cannot be put back, and the run says so
                    content = None
                held += len(content or b"")
                self.times[name] = (st.st_atime_ns, st.st_mtime_ns, st.st_ctime_ns)
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
        self._times()
        return ""

    def _keep_times(self, name: str) -> None:
        with contextlib.suppress(OSError):
            found = (self.where / name).lstat()
            self.times[name] = (found.st_atime_ns, found.st_mtime_ns, found.st_ctime_ns)

    def _times(self) -> None:
        """The times of each file and folder as they were (answers kept in a time by `utime`, `touch -a`),
        once what is in them is put back, which moves them. Only where its change time moved: a read alone
        moves a file's access time, not its change time, and a file's times put back move its change time
        (which the claim's copy's check takes for a rewrite of a file of code: one whose change time a run
        moved is refuted already)."""
        for name, (atime, mtime, ctime) in list(self.times.items()):
            path = self.where / name
            with contextlib.suppress(OSError):
                found = path.lstat()
                if found.st_ctime_ns == ctime or not (
                    stat.S_ISREG(found.st_mode) or stat.S_ISDIR(found.st_mode)
                ):
                    continue
                if (found.st_atime_ns, found.st_mtime_ns) != (atime, mtime):
                    os.utime(path, ns=(atime, mtime), follow_symlinks=False)
                self.times[name] = (atime, mtime, path.lstat().st_ctime_ns)

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

    def _kept(self, path: Path) -> bool:
        return f"{path}/".startswith(self.kept)

    def _entries(self) -> Iterator[tuple[str, os.stat_result | None]]:
        """Each entry, relative to `where`: a folder with None, anything else (a link too) with its
        stamp; symbolic links are not followed."""
        for folder, dirs, names in os.walk(self.where):
            top = Path(folder)
            dirs[:] = [d for d in dirs if not (top == self.where and d == ".git") and not self._kept(top / d)]
            for name in dirs:
                if not (top / name).is_symlink():
                    yield str((top / name).relative_to(self.where)), None
            for name in [*names, *(d for d in dirs if (top / d).is_symlink())]:
                relative = str((top / name).relative_to(self.where))
                if relative not in self.left and not self._kept(top / name):
                    try:
                        yield relative, (top / name).lstat()
                    except OSError:
                        continue
