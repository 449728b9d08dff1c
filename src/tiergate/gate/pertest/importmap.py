"""Which test files import which code, read from the Python files of one commit (the loop's base, never the
workspace): the tests a change affects, for a first pass (`tiergate.gate.testreports`, `select`).

A static graph: imports (nested too), conftests' `pytest_plugins`, package `__init__.py` files and a test's
conftests. What cannot be resolved is left out, so `affected` says None (run everything) where a change
touches what the map cannot place. `build` and `ImportMap` are pure; `at_commit` reads git, keeps the map.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import posixpath
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from tiergate import seal
from tiergate.frozen import frozen
from tiergate.git import objects, runner
from tiergate.project import write_atomic
from tiergate.tier.testnames import named_as_test, names_test_infrastructure

# Where a caller keeps maps, under its state folder; 1: the first form of a kept map (another is a miss).
CACHE_DIR = "importmap"
SCHEMA = 1
# Beyond `names_test_infrastructure`: what decides how the project is installed, hence what it imports.
_INFRASTRUCTURE = frozenset({"setup.py"})
_DOCUMENTATION = (".md", ".rst")
# A module past this size is generated data, not code to follow: placed in the map, never parsed.
_PARSED_BYTES = 2 << 20
# An import statement, from its line's start: `from x import (a, b)`, `import a, \\` and its next line,
# `try: import a`.
_STATEMENT = re.compile(
    rb"[ \t]*(?:(?:if|elif|else|try|except|finally|with|for|while)\b[^\n]*?:[ \t]*)?"
    rb"(from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]*\)|(?:[^\n\\]|\\[\s\S])*)"
    rb"|import[ \t]+(?:[^\n\\]|\\[\s\S])*)"
)
# Statement fields that hold statements: imports are statements, so the walk never enters an expression.
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")

# (level, module, names): `from ..a import b` is (2, "a", ("b",)); `import a.b` is (0, "a.b", ()).
_Import = tuple[int, str, tuple[str, ...]]


@frozen
class ImportMap:
    """Every Python file of a commit (repository-relative, `/`-separated), each with the files of the
    commit it makes Python run: those it imports, its packages' `__init__.py`, and for a test file, its
    conftests."""

    imports: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def files(self) -> frozenset[str]:
        return frozenset(path for path, _ in self.imports)

    @property
    def tests(self) -> tuple[str, ...]:
        """The test files (`tiergate.tier.testnames.named_as_test`), in path order."""
        return tuple(path for path, _ in self.imports if _is_test(path))

    def affected(self, changed: Sequence[str]) -> tuple[str, ...] | None:
        """The test files that import any of `changed` (repository-relative paths), directly or through
        other files, and the changed test files themselves (a deleted one too: the caller knows what
        is still there), in path order. None, cannot tell (run everything): a change to test
        infrastructure, to a file other than Python or documentation, to a Python file the map does not
        hold that is not a new test file; or one that affects more than a quarter of the commit's test
        files (a first pass would be most of the run)."""
        files = self.files
        found: set[str] = set()
        sources: list[str] = []
        for path in changed:
            placed = _placed(path, files)
            if placed is None:
                return None
            if placed == "test":
                found.add(path)
            if placed != "nothing" and path in files:
                sources.append(path)  # a test module too: another test may import it
        found.update(path for path in self._importers(sources) if _is_test(path))
        if len(found) * 4 > len(self.tests):
            return None
        return tuple(sorted(found))

    def importers(self) -> dict[str, frozenset[str]]:
        """The files that import each file (directly), for each file some file imports."""
        importers: dict[str, set[str]] = {}
        for path, imported in self.imports:
            for target in imported:
                importers.setdefault(target, set()).add(path)
        return {path: frozenset(by) for path, by in importers.items()}

    def _importers(self, sources: Iterable[str]) -> set[str]:
        """`sources` and every file that imports one of them, directly or not."""
        importers = self.importers()
        reached = set(sources)
        waiting = list(reached)
        while waiting:
            for importer in importers.get(waiting.pop(), ()):
                if importer not in reached:
                    reached.add(importer)
                    waiting.append(importer)
        return reached

    def to_record(self) -> dict[str, Any]:
        return {"imports": {path: list(imported) for path, imported in self.imports}}

    @staticmethod
    def from_record(record: Mapping[str, Any]) -> ImportMap:
        """The record `to_record` wrote; ValueError for anything else."""
        imports = record["imports"]
        if not isinstance(imports, dict):
            raise ValueError("not an import map")
        pairs = []
        for path, imported in imports.items():
            if not isinstance(imported, list) or not all(isinstance(p, str) for p in imported):
                raise ValueError("not an import map")
            pairs.append((str(path), tuple(imported)))
        return ImportMap(tuple(pairs))


def _placed(path: str, files: frozenset[str]) -> str | None:
    """What a changed path is to the map: "test" (a test file, kept or new), "module" (a file of the
    map), "nothing" (documentation), None (what the map cannot place)."""
    name = posixpath.basename(path)
    if names_test_infrastructure(name) or name in _INFRASTRUCTURE or "fixtures" in path.split("/")[:-1]:
        return None
    if path.endswith(".py"):
        if _is_test(path):
            return "test"
        return "module" if path in files else None
    if path.endswith(_DOCUMENTATION) or "docs" in path.split("/")[:-1]:
        return "nothing"
    return None


def _is_test(path: str) -> bool:
    return path.endswith(".py") and named_as_test(posixpath.basename(path))


def build(files: Mapping[str, bytes], *, inside: str = "") -> ImportMap:
    """The map of the Python files among `files` (repository-relative path to content; other files are
    ignored). Imports resolve against the import roots: the repository's top, the project folder
    `inside` (relative to the top, "" for the top), each one's `src/`, and every folder holding a
    top-level package or module that a test or a conftest imports (what pytest's rootdir insertion or an
    installed package puts on the path); a relative import against its file's package."""
    paths = sorted(path for path in files if path.endswith(".py"))
    found = {path: _imports_of(files[path]) for path in paths}
    present = frozenset(paths)
    packages = frozenset(posixpath.dirname(p) for p in paths if posixpath.basename(p) == "__init__.py")
    roots = _roots(paths, found, inside)
    modules = _modules(paths, roots)
    imports = []
    for path in paths:
        targets = set(_package_inits(path, packages))
        if _is_test(path):
            targets.update(_conftests(path, present))
        for level, module, names in found[path]:
            if level:
                targets.update(_relative(path, level, module, names, present))
            else:
                targets.update(_absolute(module, names, modules))
        targets.discard(path)
        imports.append((path, tuple(sorted(targets))))
    return ImportMap(tuple(imports))


def _imports_of(data: bytes) -> list[_Import]:
    """The imports a file's source states; none when they do not parse. The import statements are found
    by their keyword and parsed alone, which takes a twentieth of the time of parsing whole files (most
    of a file is not imports); a file whose statements do not parse so (a comment inside an import's
    parentheses), or that names `pytest_plugins`, is parsed whole. A docstring's line that reads as an
    import counts as one: it can only add tests to a first pass."""
    if b"pytest_plugins" in data:
        return _parsed(data) or []
    statements = _import_statements(data)
    if not statements:
        return []
    found = _parsed(b"\n".join(statements))
    if found is None:
        found = _parsed(data)
    if found is None:  # the file does not parse: what of its imports does
        found = [each for statement in statements for each in _parsed(statement) or []]
    return found


def _import_statements(data: bytes) -> list[bytes]:
    """The text of each import statement of `data` that starts its line, or follows a compound
    statement's colon (`try: import x`), continuation lines included."""
    found: list[bytes] = []
    at, taken = 0, -1
    while (hit := data.find(b"import", at)) >= 0:
        start = data.rfind(b"\n", 0, hit) + 1
        at = hit + len(b"import")
        if start <= taken:
            continue  # within a statement already taken
        statement = _STATEMENT.match(data, start)
        if statement is not None:
            found.append(statement.group(1))
            taken = statement.end()
            at = max(at, taken)
    return found


def _parsed(source: bytes) -> list[_Import] | None:
    """The imports `source` states (None: it does not parse)."""
    try:
        with warnings.catch_warnings():
            # An invalid escape in the project's code is its own business, not a line on the gate's stderr.
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: list[_Import] = []
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            found += [(0, alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module or "", tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.Assign) and any(_names_plugins(t) for t in node.targets):
            found += [(0, name, ()) for name in _strings(node.value)]
    return found


def _statements(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every statement of `body`, and of the blocks within it, however deep."""
    waiting: list[ast.AST] = list(body)
    while waiting:
        node = waiting.pop()
        yield node
        for field in _BODIES:
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                waiting.extend(inner)


def _names_plugins(target: ast.expr) -> bool:
    return isinstance(target, ast.Name) and target.id == "pytest_plugins"


def _strings(value: ast.expr) -> list[str]:
    """The module names a `pytest_plugins` value gives: a string, or a list or tuple of strings."""
    items = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
    return [item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)]


def _roots(paths: Sequence[str], found: Mapping[str, list[_Import]], inside: str) -> list[str]:
    """The folders absolute imports resolve against ("" for the top), in a fixed order."""
    holders: dict[str, set[str]] = {}  # a top-level name -> the folders holding a module or folder so named
    for path in paths:
        parts = path.removesuffix(".py").split("/")
        for depth, name in enumerate(parts):
            holders.setdefault(name, set()).add("/".join(parts[:depth]))
    project = inside.strip("/")
    roots = dict.fromkeys(["", "src", project, posixpath.join(project, "src") if project else "src"])
    for path in paths:
        if _is_test(path) or posixpath.basename(path) == "conftest.py":
            for level, module, _ in found[path]:
                if not level and module:
                    roots.update(dict.fromkeys(sorted(holders.get(module.split(".")[0], ()))))
    return list(roots)


def _modules(paths: Sequence[str], roots: Sequence[str]) -> dict[str, list[str]]:
    """The files each dotted module name can import, under any of `roots`."""
    modules: dict[str, list[str]] = {}
    for root in roots:
        prefix = root + "/" if root else ""
        for path in paths:
            if path.startswith(prefix):
                dotted = path[len(prefix) : -3].removesuffix("/__init__").replace("/", ".")
                if dotted != "__init__":
                    modules.setdefault(dotted, []).append(path)
    return modules


def _absolute(module: str, names: Sequence[str], modules: Mapping[str, list[str]]) -> Iterator[str]:
    """The files `import module` or `from module import names` runs: each package on the way, the module,
    and each name that is a module itself."""
    parts = module.split(".")
    for depth in range(1, len(parts) + 1):
        yield from modules.get(".".join(parts[:depth]), ())
    for name in names:
        yield from modules.get(f"{module}.{name}", ())


def _relative(
    path: str, level: int, module: str, names: Sequence[str], present: frozenset[str]
) -> Iterator[str]:
    """The files `from .module import names` (`level` dots) in `path` runs."""
    folder = posixpath.dirname(path).split("/") if posixpath.dirname(path) else []
    if level - 1 > len(folder):
        return  # above the top: Python refuses it
    base = "/".join(folder[: len(folder) - (level - 1)])
    parts = module.split(".") if module else []
    wanted = [parts[:depth] for depth in range(len(parts) + 1)] + [[*parts, name] for name in names]
    for dotted in wanted:
        stem = "/".join(([base] if base else []) + dotted)
        for candidate in (f"{stem}.py", f"{stem}/__init__.py" if stem else "__init__.py"):
            if candidate in present:
                yield candidate


def _package_inits(path: str, packages: frozenset[str]) -> Iterator[str]:
    """The `__init__.py` files Python runs before the module at `path`: its package's and each
    enclosing package's."""
    folder = posixpath.dirname(path)
    if posixpath.basename(path) == "__init__.py":
        folder = posixpath.dirname(folder) if folder else ""
    while folder and folder in packages:
        yield f"{folder}/__init__.py"
        folder = posixpath.dirname(folder)


def _conftests(path: str, present: frozenset[str]) -> Iterator[str]:
    """The conftest.py files pytest loads for the test file at `path`: in its folder and every one above."""
    folder = posixpath.dirname(path)
    while True:
        candidate = posixpath.join(folder, "conftest.py")
        if candidate in present:
            yield candidate
        if not folder:
            return
        folder = posixpath.dirname(folder)


def at_commit(top: Path, commit: str, cache: Path | None = None, *, inside: str = "") -> ImportMap:
    """The map of `commit`'s Python files in the repository at `top` (`build`), read from git's objects,
    never from the work tree. `cache`: a folder where the map is kept, one file per commit and project
    folder, sealed (`tiergate.seal`): the folder is within the agent's reach, and a file that is not as
    tiergate wrote it, or does not read as a map, is built again."""
    resolved = commit if objects.is_object_id(commit) else objects.resolve_rev(top, commit)
    kept = None if cache is None else cache / _cache_name(resolved, inside)
    if kept is not None:
        found = _read_kept(kept, resolved, inside)
        if found is not None:
            return found
    made = build(_python_files(top, resolved), inside=inside)
    if kept is not None:
        record = {"schema": SCHEMA, "commit": resolved, "inside": inside, **made.to_record()}
        # Best effort: a map that cannot be kept is built again next time.
        with contextlib.suppress(OSError):
            write_atomic(kept, seal.seal_file(_seal_name(kept), json.dumps(record).encode()))
    return made


def _cache_name(commit: str, inside: str) -> str:
    project = hashlib.sha256(inside.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return f"importmap-{commit}-{project}.json"


def _seal_name(path: Path) -> str:
    # The file's own name: a map copied over another commit's file does not pass.
    return f"{CACHE_DIR}/{path.name}"


def _read_kept(path: Path, commit: str, inside: str) -> ImportMap | None:
    """The map kept at `path` when tiergate wrote it for `commit` and `inside` (None: a miss)."""
    try:
        record = json.loads(seal.open_file(_seal_name(path), path.read_bytes()))
        if record["schema"] != SCHEMA or record["commit"] != commit or record["inside"] != inside:
            return None
        return ImportMap.from_record(record)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, seal.SealError):
        return None


def _python_files(top: Path, commit: str) -> dict[str, bytes]:
    """Each .py file of `commit`, by path: its blob's bytes (b"" for a link or a file too large to parse)."""
    listing = runner.run(top, "ls-tree", "-r", "-z", "-l", "--full-tree", commit).stdout
    files: dict[str, bytes] = {}
    wanted: list[tuple[str, str]] = []
    for record in listing.split(b"\0"):
        meta, tab, raw = record.partition(b"\t")
        path = raw.decode("utf-8", "surrogateescape")
        if not tab or not path.endswith(".py"):
            continue
        mode, kind, oid, size = meta.split()
        if kind != b"blob":
            continue
        files[path] = b""
        if mode != b"120000" and size.isdigit() and int(size) <= _PARSED_BYTES:
            wanted.append((path, oid.decode()))
    for (path, _), data in zip(wanted, objects.blobs(top, [oid for _, oid in wanted]), strict=True):
        files[path] = data
    return files
