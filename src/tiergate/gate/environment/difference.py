"""Two records of the environment compared, each difference named for what it does: a package installed,
upgraded or removed, a file of an installed package edited, a module planted where no package's metadata
names it, a file that Python runs at every start (a `.pth`, `sitecustomize`), an interpreter replaced, a
program found elsewhere on PATH. Pure. See docs/judging.md, "The environment the checks run with".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import field

from tiergate.frozen import frozen
from tiergate.gate.environment.envrecord import EnvironmentRecord, Stamp, read_from_outside
from tiergate.text import SEMI_AND_MORE, more_than, quote_inline

SITE_FOLDERS = frozenset({"site-packages", "dist-packages"})
NODE_FOLDER = "node_modules"
# Files of a site folder that Python runs, or imports, at every start of an interpreter that reads it.
STARTUP_MODULES = frozenset({"sitecustomize.py", "usercustomize.py"})
DIST_SUFFIXES = (".dist-info", ".egg-info")
_INTERPRETER = re.compile(r"(?:python|pypy)[0-9.]*(?:\.exe)?|node(?:\.exe)?")
_VENV_CONFIG = "pyvenv.cfg"

# The kinds of difference, in the order they are named: what runs at every start and edits of installed
# code first, since an honest task rarely needs either.
STARTUP = "startup"
EDITED = "edited"
PLANTED = "planted"
INTERPRETER = "interpreter"
# A file the runners read from outside the project (`places.outside_configs`), rather than an interpreter.
_OUTSIDE = "what a runner reads from outside the project,"
INSTALLED = "installed"
ENVIRONMENT = "environment"
OTHER = "other"
ORDER = (STARTUP, EDITED, PLANTED, INTERPRETER, INSTALLED, ENVIRONMENT, OTHER)
PATHS_NAMED = 3  # paths named in one difference; the rest counted
NAMED = 8  # differences named in the claim's reason; the rest counted
NO_RECORD = (
    "environment: the environment the checks run with cannot be compared with the loop's start: no sound "
    "record of it was kept then -> THOROUGH"
)


@frozen
class Difference:
    """One named difference; `kind` is one of ORDER."""

    kind: str
    text: str


@frozen
class _Group:
    """The differing files of one package, or one file outside every package: full paths."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [*self.changed, *self.added, *self.removed]


# By (the site or node_modules folder, "") or, outside every package, by ("", kind); then by the full path
# of the package's top (its folder or module) or of the file.
_Groups = dict[tuple[str, str], dict[str, _Group]]


@frozen
class _Tops:
    """The package tops (`container/top`) that held a file before, and that hold one now."""

    before: frozenset[str]
    after: frozenset[str]


def differences(
    before: EnvironmentRecord,
    after: EnvironmentRecord,
    owners: Mapping[str, str] | None = None,
    project: str = "",
) -> tuple[Difference, ...]:
    """What differs from `before` to `after`, in ORDER. `owners`: for the package tops listed in the
    RECORD of a distribution installed or changed since, that distribution's metadata folder (full
    paths), so that what an install writes is named as the install; `project`: the project's folder,
    paths inside it shown relative to it."""
    found = [*_programs(before.programs, after.programs, project), *_files(before, after, project)]
    for folder in sorted(before.folders.keys() | after.folders.keys()):
        was, now = before.folders.get(folder), after.folders.get(folder)
        whole = was is None or now is None  # made or removed, not emptied or filled
        found += _folder(folder, was or {}, now or {}, owners or {}, project, whole=whole)
    return tuple(sorted(found, key=lambda d: ORDER.index(d.kind)))


def reason(found: Iterable[Difference]) -> str | None:
    """The claim's THOROUGH reason naming `found` (None when there is none)."""
    named = list(found)
    if not named:
        return None
    listed = "; ".join(d.text for d in named[:NAMED]) + more_than(len(named), NAMED, SEMI_AND_MORE)
    # The paths are the agent's to name: a line break or a fence in one must not leave tiergate's line.
    listed = quote_inline(listed)
    return (
        f"environment: the environment the checks run with changed since the loop began: {listed} -> THOROUGH"
    )


def _programs(was: Mapping[str, str], now: Mapping[str, str], project: str) -> list[Difference]:
    found = []
    for name in sorted(was.keys() & now.keys()):
        old, new = was[name], now[name]
        if old != new:
            where = f"is found at {_shown(new, project)}" if new else "is no longer found"
            since = f" (was {_shown(old, project)})" if old else " (was not found)"
            found.append(Difference(INTERPRETER, f"{name} on PATH {where}{since}"))
    return found


def _files(before: EnvironmentRecord, after: EnvironmentRecord, project: str) -> list[Difference]:
    found = []
    for path in sorted(before.files.keys() & after.files.keys()):
        old, new = before.files[path], after.files[path]
        if old != new:
            what = "added" if old is None else "removed" if new is None else "replaced"
            named = _OUTSIDE if read_from_outside(path) else "the interpreter"
            found.append(Difference(INTERPRETER, f"{what} {named} {_shown(path, project)}"))
    return found


def _folder(
    folder: str,
    was: Mapping[str, Stamp],
    now: Mapping[str, Stamp],
    owners: Mapping[str, str],
    project: str,
    *,
    whole: bool = True,
) -> list[Difference]:
    """The differences inside one folder of the environment."""
    if was == now:
        return []  # the usual answer, from one comparison of the two in C
    added = [p for p in now if p not in was]
    removed = [p for p in was if p not in now]
    changed = [p for p in now if p in was and was[p] != now[p]]
    if not (added or removed or changed):
        return []
    groups = _grouped(folder, added, changed, removed)
    if whole and (not was or not now):
        # A whole environment made or removed: named as one, with what in it runs at every start.
        what = "a new environment" if now else "removed the environment"
        named = Difference(ENVIRONMENT, f"{what} {_shown(folder, project)} ({_count(len(now or was))})")
        return [named, *_startup(groups.get(("", STARTUP), {}), project)]
    tops = _Tops(_present(folder, was), _present(folder, now)) if any(k[0] for k in groups) else _NO_TOPS
    found: list[Difference] = []
    for (container, kind), files in sorted(groups.items()):
        if kind == STARTUP:
            found += _startup(files, project)
        elif not container:
            found += _loose(kind, files, project)
        elif container.rsplit("/", 1)[-1] == NODE_FOLDER:
            found += _node(container, files, tops, project)
        else:
            found += _site(files, tops, owners, project)
    return found


_NO_TOPS = _Tops(frozenset(), frozenset())


def _grouped(folder: str, added: list[str], changed: list[str], removed: list[str]) -> _Groups:
    groups: _Groups = {}
    for paths, how in ((added, "added"), (changed, "changed"), (removed, "removed")):
        for rel in paths:
            full = f"{folder}/{rel}"
            container, top = _place(full)
            key = (container, "") if container else ("", _loose_kind(full, top))
            group = groups.setdefault(key, {}).setdefault(
                f"{container}/{top}" if container else full, _Group()
            )
            getattr(group, how).append(full)
    return groups


def _place(full: str) -> tuple[str, str]:
    """The innermost site-packages or node_modules folder holding `full`, and the top entry in it that
    holds `full` (a package's folder or module, a `@scope/name`); ("", kind) outside every package."""
    parts = full.split("/")
    for i in range(len(parts) - 2, -1, -1):
        rest = parts[i + 1 :]
        if parts[i] in SITE_FOLDERS:
            name = rest[0]
            if len(rest) == 1 and (name.endswith(".pth") or name in STARTUP_MODULES):
                return "", STARTUP
            return "/".join(parts[: i + 1]), name if len(rest) > 1 else name.split(".")[0]
        if parts[i] == NODE_FOLDER:
            if len(rest) == 1:
                return "", OTHER  # npm's own bookkeeping (`.package-lock.json`)
            scoped = rest[0].startswith("@") and len(rest) > 2
            return "/".join(parts[: i + 1]), "/".join(rest[:2]) if scoped else rest[0]
    return "", OTHER


def _loose_kind(full: str, kind: str) -> str:
    """The kind of a file outside every package: a startup file, an interpreter or a virtualenv's
    configuration, or another file."""
    if kind == STARTUP:
        return STARTUP
    name = full.rsplit("/", 1)[-1]
    return INTERPRETER if name == _VENV_CONFIG or _INTERPRETER.fullmatch(name) else OTHER


def _present(folder: str, files: Mapping[str, Stamp]) -> frozenset[str]:
    tops = set()
    for rel in files:
        container, top = _place(f"{folder}/{rel}")
        if container:
            tops.add(f"{container}/{top}")
    return frozenset(tops)


def _startup(files: Mapping[str, _Group], project: str) -> list[Difference]:
    found = []
    for full, group in sorted(files.items()):
        how = "added" if group.added else "removed" if group.removed else "edited"
        runs = "Python runs its import lines" if full.endswith(".pth") else "Python imports it"
        found.append(Difference(STARTUP, f"{how} {_shown(full, project)} ({runs} at every start)"))
    return found


def _loose(kind: str, files: Mapping[str, _Group], project: str) -> list[Difference]:
    found = []
    for full, group in sorted(files.items()):
        how = "added" if group.added else "removed" if group.removed else "replaced"
        found.append(Difference(kind, f"{how} {_shown(full, project)}"))
    return found


def _site(
    tops: Mapping[str, _Group], present: _Tops, owners: Mapping[str, str], project: str
) -> list[Difference]:
    """A site folder's differences: distributions installed, upgraded, removed or changed, each with the
    files of the packages it names folded in; edits of the packages no such distribution names, and
    packages that none names."""
    dists = {top: group for top, group in tops.items() if top.endswith(DIST_SUFFIXES)}
    folded = _owned(tops, dists, owners)
    found = _dists(dists, present, _folded_counts(tops, folded), project)
    for top, group in sorted(tops.items()):
        if top in dists or top in folded:
            continue
        if top in present.before:
            found.append(_edit(top, group, project))
        else:
            files = _count(len(group.added))
            planted = f"added {_shown(top, project)} ({files}), which no package's metadata names"
            found.append(Difference(PLANTED, planted))
    return found


def _owned(
    tops: Mapping[str, _Group], dists: Mapping[str, _Group], owners: Mapping[str, str]
) -> dict[str, str]:
    """The tops that belong to a distribution that differs: listed in its RECORD (`owners`), or named
    as it is (all a removed distribution leaves to go by)."""
    named = {_normal(_dist_name(d)[0]): d for d in dists}
    folded = {}
    for top in tops:
        owner = owners.get(top) or named.get(_normal(top.rsplit("/", 1)[-1]))
        if owner is not None and top not in dists and owner in dists:
            folded[top] = _normal(_dist_name(owner)[0])
    return folded


def _folded_counts(tops: Mapping[str, _Group], folded: Mapping[str, str]) -> dict[str, int]:
    """How many differing files each distribution's packages hold, by its normalised name."""
    counts: dict[str, int] = {}
    for top, name in folded.items():
        counts[name] = counts.get(name, 0) + len(tops[top].paths)
    return counts


def _dists(
    dists: Mapping[str, _Group], present: _Tops, folded: Mapping[str, int], project: str
) -> list[Difference]:
    """Each distribution installed, removed, upgraded (one removed and one installed under the same
    name) or changed in place, with how many files its packages gained, lost or changed."""
    by_name: dict[str, list[str]] = {}
    for dist in sorted(dists):
        by_name.setdefault(_normal(_dist_name(dist)[0]), []).append(dist)
    found = []
    for name, named in sorted(by_name.items()):
        files = _count(sum(len(dists[d].paths) for d in named) + folded.get(name, 0))
        where = _shown(named[0].rsplit("/", 1)[0], project)
        old = [d for d in named if d not in present.after]
        new = [d for d in named if d not in present.before]
        label = " ".join(filter(None, _dist_name(named[-1])))
        if old and new:
            what = f"upgraded {_dist_name(old[0])[0]} {_dist_name(old[0])[1]} -> {_dist_name(new[0])[1]}"
        elif new:
            what = f"installed {label} (new)"
        elif old:
            what = f"removed {label}"
        else:
            what = f"reinstalled or changed {label}"
        found.append(Difference(INSTALLED, f"{what}: {files} in {where}"))
    return found


def _edit(top: str, group: _Group, project: str) -> Difference:
    """An installed package's files changed, added or removed with no change to its metadata."""
    parts = [f"edited {_shown(p, project)}" for p in group.changed]
    parts += [f"added {_shown(p, project)}" for p in group.added]
    parts += [f"removed {_shown(p, project)}" for p in group.removed]
    more = len(parts) - PATHS_NAMED
    tail = f" and {more} more files of the installed {top.rsplit('/', 1)[-1]}" if more > 0 else ""
    return Difference(EDITED, ", ".join(parts[:PATHS_NAMED]) + tail)


def _node(container: str, tops: Mapping[str, _Group], present: _Tops, project: str) -> list[Difference]:
    """A node_modules folder's differences: packages installed or removed, and files of one that stays
    edited (npm's `.bin` links and dot folders named as other files)."""
    found = []
    where = _shown(container, project)
    for top, group in sorted(tops.items()):
        name = top[len(container) + 1 :]
        if name.startswith("."):
            found.append(Difference(OTHER, f"changed {_count(len(group.paths))} of {_shown(top, project)}"))
        elif top not in present.before:
            found.append(
                Difference(INSTALLED, f"installed {name} (new): {_count(len(group.added))} in {where}")
            )
        elif top not in present.after:
            found.append(Difference(INSTALLED, f"removed {name}: {_count(len(group.removed))} in {where}"))
        else:
            found.append(_edit(top, group, project))
    return found


def _dist_name(top: str) -> tuple[str, str]:
    """A distribution's name and version from its metadata folder's name (`foo-1.2.dist-info`,
    `foo-1.2-py3.11.egg-info`, `foo.egg-info`)."""
    stem = top.rsplit("/", 1)[-1]
    for suffix in DIST_SUFFIXES:
        stem = stem.removesuffix(suffix)
    name, _, rest = stem.partition("-")
    return name, rest.split("-")[0]


def _normal(name: str) -> str:
    """A distribution's or module's name as the two compare (PEP 503: `-`, `_` and `.` alike)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _count(n: int) -> str:
    return "1 file" if n == 1 else f"{n} files"


def _shown(path: str, project: str) -> str:
    """`path`, relative to the project's folder when inside it."""
    top = project.rstrip("/") + "/"
    return path[len(top) :] if project and path.startswith(top) else path
