"""The evaluation corpus's data (`bench/corpus/*.toml`) and the commits it names, read from clones.

The corpus holds repository names, commit ids, paths and one-line judgements, never the repositories'
code: the commits are read from clones the caller points at, `DIR/<owner>+<name>` (a work tree or a bare
clone) or `DIR/<owner>+<name>/repo` (a bare mirror). Every git call goes through
`tiergate.git.runner.run`, the one git runner with its safe settings, because a clone's own
configuration is not ours to run.

- `repos.toml`: `[[repo]]` name, ecosystem, head (the commit the corpus was cut at), ordinary (N) and
  split ("tuning": the rules were tuned on it; "held-out": kept out of that, to measure them on).
  The ordinary commits of a repository are the last N non-merge commits reachable from head (first
  parents and merged branches alike, as `git rev-list --no-merges` lists them), minus its security fixes.
- `security.toml`: `[[fix]]` repo, commit, advisory, summary, files, and optionally kind ("code", the
  default, or "non-code" for a fix that lives only in docs or dependency pins), source (where the
  advisory id is tied to the commit) and branch (the branch holding a fix that head does not reach).
- `labels.toml`: `[[path]]` repo, path, category, judged ("right" or "wrong") and why.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tiergate.errors import UserError
from tiergate.git import runner

CORPUS = Path(__file__).resolve().parent / "corpus"
Judgement = Literal["right", "wrong"]
Split = Literal["tuning", "held-out"]
SPLITS: tuple[Split, ...] = ("tuning", "held-out")
_CATEGORIES = ("security", "architecture")
_LABEL_KEYS = ("repo", "path", "category", "judged", "why")


@dataclass(frozen=True)
class Repo:
    name: str  # owner/name
    ecosystem: str
    head: str
    ordinary: int
    split: Split = "tuning"

    @property
    def slug(self) -> str:
        return self.name.replace("/", "+")


@dataclass(frozen=True)
class Fix:
    repo: str
    commit: str
    advisory: str
    summary: str
    files: tuple[str, ...]
    kind: str = "code"
    source: str = ""
    branch: str = ""


@dataclass(frozen=True)
class Label:
    repo: str
    path: str
    category: str
    judged: Judgement
    why: str


@dataclass(frozen=True)
class Commit:
    repo: str
    sha: str
    paths: tuple[str, ...]  # the paths the commit's own change touches (new paths for renames)
    fix: Fix | None  # the security fix this commit is, if it is one


def _table(name: str, key: str, corpus: Path) -> list[dict[str, Any]]:
    path = corpus / name
    try:
        with path.open("rb") as handle:
            rows = tomllib.load(handle).get(key, [])
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise UserError(f"cannot read {path}: {e}") from e
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise UserError(f"{path}: expected [[{key}]] tables")
    return rows


def _field(row: dict[str, Any], key: str, where: str) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value:
        raise UserError(f"{where}: '{key}' must be a non-empty string")
    return value


def load_repos(corpus: Path = CORPUS) -> list[Repo]:
    repos = []
    for index, row in enumerate(_table("repos.toml", "repo", corpus)):
        where = f"repos.toml repo {index + 1}"
        ordinary = row.get("ordinary")
        if not isinstance(ordinary, int) or ordinary < 0:
            raise UserError(f"{where}: 'ordinary' must be a count")
        split = row.get("split")
        if split not in SPLITS:
            raise UserError(f'{where}: \'split\' must be "tuning" or "held-out"')
        name = _field(row, "name", where)
        ecosystem, head = _field(row, "ecosystem", where), _field(row, "head", where)
        repos.append(Repo(name, ecosystem, head, ordinary, "tuning" if split == "tuning" else "held-out"))
    return repos


def load_fixes(corpus: Path = CORPUS) -> list[Fix]:
    fixes = []
    for index, row in enumerate(_table("security.toml", "fix", corpus)):
        where = f"security.toml fix {index + 1}"
        files = row.get("files", [])
        if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
            raise UserError(f"{where}: 'files' must be a list of paths")
        kind = row.get("kind", "code")
        if kind not in ("code", "non-code"):
            raise UserError(f'{where}: \'kind\' must be "code" or "non-code"')
        fixes.append(
            Fix(
                repo=_field(row, "repo", where),
                commit=_field(row, "commit", where),
                advisory=_field(row, "advisory", where),
                summary=_field(row, "summary", where),
                files=tuple(files),
                kind=kind,
                source=str(row.get("source", "")),
                branch=str(row.get("branch", "")),
            )
        )
    return fixes


def load_labels(corpus: Path = CORPUS) -> dict[tuple[str, str, str], Label]:
    labels: dict[tuple[str, str, str], Label] = {}
    for index, row in enumerate(_table("labels.toml", "path", corpus)):
        where = f"labels.toml path {index + 1}"
        repo, path, category, judged, why = (_field(row, k, where) for k in _LABEL_KEYS)
        if category not in _CATEGORIES or judged not in ("right", "wrong"):
            raise UserError(f"{where}: category must be security|architecture, judged right|wrong")
        label = Label(repo, path, category, "right" if judged == "right" else "wrong", why)
        key = (label.repo, label.path, label.category)
        if key in labels:
            raise UserError(f"{where}: {label.path} ({label.category}) is labelled twice")
        labels[key] = label
    return labels


def git_dir(clones: Path, repo: Repo) -> Path:
    """The clone of `repo` under `clones`: a bare mirror's `repo` folder, else the clone itself."""
    for candidate in (clones / repo.slug / "repo", clones / repo.slug):
        if candidate.is_dir():
            return candidate
    raise UserError(f"no clone of {repo.name} under {clones} (expected {repo.slug} or {repo.slug}/repo)")


def _git(where: Path, *args: str) -> str:
    return runner.run(where, *args).stdout.decode("utf-8", "surrogateescape")


def commit_paths(where: Path, sha: str) -> tuple[str, ...]:
    """The paths of a commit's own change against its first parent (a root commit: all its files)."""
    out = _git(where, "diff-tree", "-r", "-M", "--root", "--no-commit-id", "--name-only", "-z", sha)
    return tuple(p for p in out.split("\0") if p)


def ordinary_shas(where: Path, repo: Repo, fixes: Sequence[Fix]) -> list[str]:
    listed = _git(where, "rev-list", "--no-merges", f"--max-count={repo.ordinary}", repo.head).split()
    fixed = {f.commit for f in fixes if f.repo == repo.name}
    return [sha for sha in listed if sha not in fixed]


def commits(clones: Path, repos: Sequence[Repo], fixes: Sequence[Fix]) -> Iterator[Commit]:
    """Every corpus commit with its paths: each repository's ordinary commits, then its fixes."""
    for repo in repos:
        where = git_dir(clones, repo)
        for sha in ordinary_shas(where, repo, fixes):
            yield Commit(repo.name, sha, commit_paths(where, sha), None)
        for fix in fixes:
            if fix.repo == repo.name:
                yield Commit(repo.name, fix.commit, _fix_paths(where, fix), fix)


def _fix_paths(where: Path, fix: Fix) -> tuple[str, ...]:
    paths = commit_paths(where, fix.commit)
    # A fix's files name what carries the fix: a path its commit does not touch is a corpus error.
    if stray := sorted(set(fix.files) - set(paths)):
        raise UserError(f"{fix.repo} {fix.commit[:12]} ({fix.advisory}) does not touch {', '.join(stray)}")
    return paths
