"""Line coverage as test tools leave it on disk: which lines of which file are executable, and which ran.

Reads coverage.py's JSON report and data file, Cobertura XML and LCOV, found at a fixed list of
well-known places (`LOCATIONS`), never by walking the tree; paths in the data become repository-relative.
The formats and how paths are matched: docs/coverage.md, "Coverage files read".
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path

from tiergate.frozen import frozen
from tiergate.text import clip
from tiergate.tier.coverage.lines import CoverageData, FileLines, Format

LOCATIONS: tuple[tuple[str, Format], ...] = (
    ("coverage.json", "coverage.py JSON"),
    (".coverage", "coverage.py data"),
    ("coverage.xml", "Cobertura XML"),
    ("cobertura.xml", "Cobertura XML"),
    ("cobertura-coverage.xml", "Cobertura XML"),
    ("lcov.info", "LCOV"),
    ("coverage.lcov", "LCOV"),
    ("coverage/lcov.info", "LCOV"),
    ("coverage/cobertura-coverage.xml", "Cobertura XML"),
    ("coverage/cobertura.xml", "Cobertura XML"),
    ("coverage/coverage.xml", "Cobertura XML"),
    ("build/coverage.xml", "Cobertura XML"),
    ("build/cobertura.xml", "Cobertura XML"),
    ("build/lcov.info", "LCOV"),
    ("build/coverage/lcov.info", "LCOV"),
    ("target/cobertura.xml", "Cobertura XML"),
    ("target/coverage.xml", "Cobertura XML"),
    ("target/site/cobertura/coverage.xml", "Cobertura XML"),
    ("target/tarpaulin/cobertura.xml", "Cobertura XML"),
    ("target/lcov.info", "LCOV"),
    ("target/coverage/lcov.info", "LCOV"),
)


class CoverageDataError(Exception):
    """A coverage file that cannot be used; the message says why, in a few words."""


def present(root: Path) -> list[tuple[str, Format]]:
    """The well-known coverage files that exist in the repository at `root`."""
    return [(name, fmt) for name, fmt in LOCATIONS if (root / name).is_file()]


def load(root: Path, name: str, fmt: Format, wanted: Collection[str]) -> CoverageData:
    """Read the coverage file `name` (repository-relative). `wanted`: the paths whose lines matter."""
    path = root / name
    try:
        if fmt == "coverage.py data":
            records = _coveragepy_data(root, path, wanted)
        else:
            text = path.read_bytes()
            records = {
                "coverage.py JSON": _coveragepy_json,
                "Cobertura XML": _cobertura,
                "LCOV": _lcov,
            }[fmt](text, _PathMap.at(root, path.parent))
        return CoverageData(source=name, format=fmt, files=_collect(records))
    except OSError as e:
        raise CoverageDataError(_one_line(e.strerror or str(e))) from e
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise CoverageDataError(_one_line(f"not valid {fmt}: {e}")) from e


def _one_line(text: str, limit: int = 160) -> str:
    """Evidence is one line: a parser's message may span several, or quote a whole file."""
    return clip(" ".join(text.split()), limit, "...")


_Record = tuple[list[str], FileLines]  # candidate repository paths, lines


def _collect(records: Iterable[_Record]) -> dict[str, FileLines]:
    files: dict[str, FileLines] = {}
    for keys, lines in records:
        for key in keys:
            known = files.get(key)
            files[key] = lines if known is None else known | lines
    return files


@frozen
class _PathMap:
    """Turns a path as coverage data writes it into where it may be in the repository."""

    tops: tuple[str, ...]  # the repository root, as given and with symlinks resolved
    bases: tuple[str, ...]  # the directories a relative path may be relative to

    @classmethod
    def at(cls, root: Path, here: Path) -> _PathMap:
        tops = tuple(dict.fromkeys(posixpath.normpath(p.as_posix()) for p in (root, root.resolve())))
        return cls(tops, (tops[0], posixpath.normpath(here.as_posix())))

    def with_bases(self, extra: Iterable[str]) -> _PathMap:
        """Also relative to `extra` (an absolute directory stays itself, a relative one is under the root)."""
        return _PathMap(self.tops, (*(posixpath.join(self.tops[0], e) for e in extra), *self.bases))

    def keys(self, raw: str) -> list[str]:
        """Repository-relative candidates; when there is none, the path itself, normalised."""
        raw = raw.replace("\\", "/").removeprefix("file://")
        joined = [raw] if raw.startswith("/") else [posixpath.join(b, raw) for b in self.bases]
        keys: list[str] = []
        for candidate in map(posixpath.normpath, joined):
            for top in self.tops:
                if candidate.startswith(top + "/") and (key := candidate[len(top) + 1 :]) not in keys:
                    keys.append(key)
        return keys or [posixpath.normpath(raw).lstrip("/")]


def _lines(executable: Iterable[int], hit: Iterable[int]) -> FileLines:
    hits = frozenset(int(n) for n in hit)
    return FileLines(frozenset(int(n) for n in executable) | hits, hits)


def _coveragepy_json(text: bytes, paths: _PathMap) -> Iterator[_Record]:
    import json

    report = json.loads(text)
    if not isinstance(report, dict) or not isinstance(report.get("files"), dict):
        raise ValueError("no 'files' object")
    for name, entry in report["files"].items():
        executed = entry["executed_lines"]
        yield paths.keys(name), _lines(entry["missing_lines"], executed)


def _cobertura(text: bytes, paths: _PathMap) -> Iterator[_Record]:
    import xml.etree.ElementTree as ET

    try:
        top = ET.fromstring(text)
    except ET.ParseError as e:
        raise ValueError(str(e)) from e
    if top.tag != "coverage":
        raise ValueError(f"root element is <{top.tag}>, not <coverage>")
    paths = paths.with_bases(s.text.strip() for s in top.iter("source") if s.text and s.text.strip())
    for cls in top.iter("class"):
        executable: set[int] = set()
        hit: set[int] = set()
        for line in cls.iterfind("lines/line"):
            number = int(line.get("number", ""))
            executable.add(number)
            if float(line.get("hits", "0")) > 0:
                hit.add(number)
        yield paths.keys(cls.get("filename", "")), _lines(executable, hit)


def _lcov(text: bytes, paths: _PathMap) -> Iterator[_Record]:
    name: str | None = None
    executable: set[int] = set()
    hit: set[int] = set()
    for line in text.decode(errors="surrogateescape").splitlines():
        if line.startswith("SF:"):
            name, executable, hit = line[3:].strip(), set(), set()
        elif line.startswith("DA:") and name is not None:
            number, count = line[3:].split(",")[:2]
            executable.add(int(number))
            if float(count) > 0:
                hit.add(int(number))
        elif line.strip() == "end_of_record" and name is not None:
            yield paths.keys(name), _lines(executable, hit)
            name = None


def _coveragepy_data(root: Path, path: Path, wanted: Collection[str]) -> Iterator[_Record]:
    try:
        import coverage
        from coverage.exceptions import CoverageException
    except ImportError as e:
        raise ValueError("the coverage package is not installed to read it") from e
    cov = coverage.Coverage(data_file=str(path), config_file=_coveragepy_config(root))
    try:
        cov.load()
        measured = sorted(cov.get_data().measured_files())
    except CoverageException as e:
        raise ValueError(str(e)) from e
    records: list[_Record] = []
    mapping = _PathMap.at(root, path.parent)
    for filename in measured:
        keys = mapping.keys(filename)
        if not any(key in wanted for key in keys):
            continue  # analysing a file means parsing it: only for the files that matter
        try:
            _, statements, _, missing, _ = cov.analysis2(filename)
        except CoverageException:
            continue  # source gone or not Python: the file stays unknown to the data
        records.append((keys, _lines(statements, set(statements) - set(missing))))
    return iter(records)


def _coveragepy_config(root: Path) -> str | bool:
    """coverage.py's settings for this project; it would look in the current directory, not the root."""
    rc, pyproject = root / ".coveragerc", root / "pyproject.toml"
    if rc.is_file():
        return str(rc)
    try:
        if "[tool.coverage" in pyproject.read_text(errors="replace"):
            return str(pyproject)
    except OSError:
        pass
    return False
