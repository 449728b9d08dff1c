"""Every git question tiergate asks, in one place.

git runs as a subprocess (no library) with `core.quotepath=off`, `LC_ALL=C` (so that its messages can be
recognised) and NUL-separated output wherever paths are involved, so that names with spaces, newlines,
quotes, leading dashes or any unicode survive. Environment variables that would point git at another
repository (a git hook's `GIT_DIR`, `GIT_INDEX_FILE`, ...) are dropped: the repository is always the one
at the directory asked about. Optional locks are off, so that asking never competes with the user's own
git commands for the index lock.

Every failure a user can act on becomes one `UserError` line naming the culprit.

The agent a loop verifies has a shell in the repository: git runs so that nothing in the repository's
config, hooks or attributes executes a program (see `_SAFE_CONFIG`, `_SAFE_ENV` and `_filter_blanks`), and
so that the change is what is on disk: replace refs are ignored, index flags (assume-unchanged,
skip-worktree) are cleared on a copy of the index before a diff, and untracked files are those the
.gitignore files committed at the base do not ignore (`untracked_files`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from tiergate.errors import UserError
from tiergate.gitformat import DiffEntry, parse_raw_numstat, rebase_ignore_rules, with_patch_counts
from tiergate.project import state_dirs_in_tree

if TYPE_CHECKING:
    pass

_REDIRECTING_ENV = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
        "GIT_PREFIX",
        # Variables that name a program git would run, or that bring config and replace refs back in:
        # the user's environment is trusted, but tiergate's calls run none of them (see _SAFE_CONFIG).
        "GIT_EXTERNAL_DIFF",
        "GIT_PAGER",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_PROXY_COMMAND",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "GIT_CONFIG",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_REPLACE_REF_BASE",
        "GIT_ATTR_SOURCE",
    }
)
# Config that would make git run a program, or measure something else than the files on disk, set to a
# value that does neither. `-c` beats every config file (system, global, the repository's, worktree's).
_SAFE_SETTINGS = (
    # The fsmonitor hook is a command git runs whenever it reads the index (14-26 times in one claim).
    ("core.fsmonitor", "false"),
    # Every hook (post-checkout, post-index-change, reference-transaction, pre-auto-gc, ...) is looked up
    # in this folder: /dev/null is not a directory, so it cannot hold one.
    ("core.hooksPath", "/dev/null"),
    # No network: lazy fetches of a partial clone, and with them core.sshCommand, core.gitProxy,
    # remote helpers and credential helpers, never run. The helpers are blanked as well.
    ("protocol.allow", "never"),
    ("credential.helper", ""),
    ("core.askPass", ""),
    # ":" is git's own "no editor"; tiergate never edits, and an editor would be a program.
    ("core.editor", ":"),
    ("sequence.editor", ":"),
    # Signing and verifying run gpg.program (or gpg.ssh.program / gpg.x509.program): `git show` would
    # verify signatures with log.showSignature, commit-tree would sign with commit.gpgSign.
    ("log.showSignature", "false"),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    # An automatic gc or maintenance is a background git process tiergate does not control.
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    # A command that recursed into a submodule would read the submodule's own config, filters included.
    ("submodule.recurse", "false"),
    # The stat check cannot be loosened so that an edit hides behind a restored mtime and size.
    ("core.trustctime", "true"),
    ("core.checkStat", "default"),
    ("core.ignoreStat", "false"),
    # Output stays in the format parsed here: no colour codes around names (`git grep -l`), paths from
    # the top, submodule pointers compared.
    ("color.ui", "never"),
    ("diff.relative", "false"),
    ("diff.ignoreSubmodules", "none"),
    # Not here, on purpose: diff.external and diff.<driver>.command/textconv are off through
    # --no-ext-diff --no-textconv on every diff (an empty diff.external would be run as a command);
    # filter.<driver>.* is blanked per repository (_filter_blanks); uploadpack.packObjectsHook and
    # core.alternateRefsCommand only run when serving a fetch or push, which tiergate never does;
    # merge.<driver>.driver only in a merge; core.pager only on a terminal (output is captured, and
    # --no-pager is given).
)
_SAFE_CONFIG = ("--no-pager", *(arg for key, value in _SAFE_SETTINGS for arg in ("-c", f"{key}={value}")))
_SAFE_ENV = {
    "LC_ALL": "C",
    "LANGUAGE": "C",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_TERMINAL_PROMPT": "0",
    # `git replace <base> HEAD` would make the base look like the agent's commit.
    "GIT_NO_REPLACE_OBJECTS": "1",
    # The system config is not the user's, and could hold anything -c does not override.
    "GIT_CONFIG_NOSYSTEM": "1",
}
# Subcommands that never read work-tree content through a filter driver: asking them is not worth the
# `git config` call that finds which filters to blank. Anything not listed here gets the blanks.
_FILTERLESS = frozenset(
    {
        "cat-file",
        "check-ignore",  # reads the ignore files, never a file's content
        "commit-tree",
        "config",
        "diff-index",  # only ever --cached here: the index against a tree, no file read
        "diff-tree",
        "for-each-ref",
        "index-pack",  # a pack from stdin into the object store
        "init",  # a new repository (the backup store), from no template
        "ls-files",
        "ls-tree",
        "merge-base",
        "mktree",
        "pack-objects",  # objects of the object store only
        "rev-list",
        "rev-parse",
        "show",
        "update-ref",
    }
)  # Not write-tree: writing an index rehashes its racily clean entries, through the filters.
# Options that keep a diff in git's own plain format whatever the user configured (external diff tools,
# text conversion filters, colours, custom prefixes).
_PLAIN_DIFF = ("--no-ext-diff", "--no-textconv", "--no-color")


def _env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in _REDIRECTING_ENV and not k.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))
    }
    env.update(_SAFE_ENV)
    return env


def _environment(index: Path | None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """git.py's environment with `extra`, on the index file `index` if given."""
    environment = {**_env(), **(extra or {})}
    if index is not None:
        environment["GIT_INDEX_FILE"] = str(index)
    return environment


def _subcommand(args: Sequence[str]) -> str:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] == "-c" else 1
    return args[i] if i < len(args) else ""


def _filter_blanks(cwd: Path, environment: Mapping[str, str]) -> tuple[str, ...]:
    """`-c` arguments that blank every filter driver the config names (clean, smudge and process are
    commands run on file content; .gitattributes, in the tree, says which files use them). An empty
    command is no filter, and `required=false` keeps git from failing for the lack of one.

    The answer is kept for the process while no config file git read changed (the checks, the project's
    own code, run between two calls and could add a driver); a config with includes is read every time,
    since what it includes can change without any file git read changing (a branch, a new file). It is
    kept by git directory where `git_dir` knows it, so that the calls in a repository's top and in its
    git directory (`--git-dir`) share it."""
    home = _git_dirs.get(str(cwd), cwd)
    key = str(home)
    kept = _blanks.get(key)
    if kept is not None and kept[0] == _stamps(kept[1]):
        return kept[2]
    proc = subprocess.run(
        ("git", *_SAFE_CONFIG, "config", "-z", "--list", "--show-origin"),
        cwd=cwd,
        env=environment,
        capture_output=True,
        check=False,
    )
    fields = proc.stdout.split(b"\0")
    origins = {Path(cwd, os.fsdecode(o[5:])) for o in fields[0::2] if o.startswith(b"file:")}
    names = [os.fsdecode(f.partition(b"\n")[0]) for f in fields[1::2]]
    drivers = {name.rpartition(".")[0] for name in names if name.startswith("filter.")}
    blanks = tuple(
        arg
        for driver in sorted(drivers)
        for item, value in (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))
        for arg in ("-c", f"{driver}.{item}={value}")
    )
    if not any(name.startswith(("include.", "includeif.")) for name in names):
        files = tuple(sorted(origins | _standard_configs(cwd, home)))
        _blanks[key] = (_stamps(files), files, blanks)
    return blanks


_blanks: dict[str, tuple[tuple[tuple[int, ...] | None, ...], tuple[Path, ...], tuple[str, ...]]] = {}


def _standard_configs(cwd: Path, git_dir: Path) -> set[Path]:
    """Config files git would read that may not exist yet: the user's, and the repository's own."""
    home = Path(os.environ.get("HOME", "/nonexistent"))
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    found = {home / ".gitconfig", xdg / "git" / "config", cwd / ".git" / "config", git_dir / "config"}
    if os.environ.get("GIT_CONFIG_GLOBAL"):
        found.add(Path(os.environ["GIT_CONFIG_GLOBAL"]))
    return found


def _stamps(files: Sequence[Path]) -> tuple[tuple[int, ...] | None, ...]:
    stamps: list[tuple[int, ...] | None] = []
    for file in files:
        try:
            info = file.stat()
        except OSError:
            stamps.append(None)
        else:
            stamps.append((info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino))
    return tuple(stamps)


def run(
    cwd: Path,
    *args: str,
    ok: Sequence[int] = (0,),
    stdin: bytes = b"",
    env: Mapping[str, str] | None = None,
    index: Path | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`git -c core.quotepath=off ARGS` in `cwd`, in git.py's environment (no redirection, C locale, no
    optional locks, no replace refs) plus `env`, on the index file `index` if given, with nothing from
    the config run (`_SAFE_CONFIG`, `_filter_blanks`). The one git runner: every module asks git through
    it. A return code not in `ok` raises UserError with git's own one-line reason."""
    environment = _environment(index, env)
    try:
        proc = subprocess.run(
            _command(cwd, args, environment),
            cwd=cwd,
            env=environment,
            input=stdin,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError as e:
        raise _not_found(cwd) from e
    if proc.returncode not in ok:
        raise _error(cwd, args, proc.stderr)
    return proc


class Started:
    """A git run going on in the background (`start`): its output goes to files, read by `result`."""

    def __init__(
        self,
        cwd: Path,
        args: Sequence[str],
        proc: subprocess.Popen[bytes],
        files: tuple[IO[bytes], IO[bytes]],
        resources: contextlib.ExitStack,
    ) -> None:
        self._cwd, self._args, self._proc = cwd, args, proc
        self._out, self._err = files
        self._resources = resources

    def result(self) -> bytes:
        """git's output once it has ended; a failure raises UserError, as `run` does."""
        try:
            code = self._proc.wait()
            self._out.seek(0)
            if code != 0:
                self._err.seek(0)
                raise _error(self._cwd, self._args, self._err.read())
            return self._out.read()
        finally:
            self._close()

    def cancel(self) -> None:
        """End git now, its answer unread."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._close()

    def _close(self) -> None:
        self._resources.close()  # the output files with the rest


def start(
    cwd: Path, *args: str, index: Path | None = None, resources: contextlib.ExitStack | None = None
) -> Started:
    """`run`, in the background: git starts now, with the same settings, and `Started.result` waits for
    it. Its output goes to a file rather than a pipe, so that git never waits for the caller to read.
    `resources` (the index file it reads, say) are released when it has been read or cancelled."""
    environment = _environment(index)
    held = resources or contextlib.ExitStack()
    try:
        # Closed with `held`, when the answer has been read.
        out = held.enter_context(tempfile.TemporaryFile())  # noqa: SIM115
        err = held.enter_context(tempfile.TemporaryFile())  # noqa: SIM115
        try:
            proc = subprocess.Popen(
                _command(cwd, args, environment),
                cwd=cwd,
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
            )
        except FileNotFoundError as e:
            raise _not_found(cwd) from e
    except BaseException:
        held.close()
        raise
    return Started(cwd, args, proc, (out, err), held)


@contextlib.contextmanager
def stream(cwd: Path, *args: str, stdin: bytes = b"") -> Iterator[Iterator[bytes]]:
    """`run` for output too long to hold at once (a history's patches): git's stdout in chunks, read
    while git writes them, with the same settings. git's failure raises UserError once its output is
    read to the end; a caller that stops early ends git."""
    environment = _env()
    command = _command(cwd, args, environment)
    # stderr goes to a file: a pipe nobody reads while stdout is read would stall a chatty git.
    with tempfile.TemporaryFile() as errors, tempfile.TemporaryFile() as given:
        given.write(stdin)
        given.seek(0)
        try:
            proc = subprocess.Popen(
                command, cwd=cwd, env=environment, stdin=given, stdout=subprocess.PIPE, stderr=errors
            )
        except FileNotFoundError as e:
            raise _not_found(cwd) from e
        assert proc.stdout is not None
        out, ended = proc.stdout, []

        def chunks() -> Iterator[bytes]:
            # What git has written so far, up to 1 MiB, without waiting for the rest.
            while chunk := os.read(out.fileno(), 1 << 20):
                yield chunk
            ended.append(True)

        try:
            yield chunks()
        except Exception as e:
            # Output read to its end but unreadable: git's own failure, when it failed, is the news.
            code = _finish(proc, killed=not ended)
            if ended and code != 0:
                errors.seek(0)
                raise _error(cwd, args, errors.read()) from e
            raise
        except BaseException:  # the caller closed, or an interrupt: git is ended
            _finish(proc, killed=True)
            raise
        # A caller that stopped early does not want the rest: git is ended, its failure no news.
        code = _finish(proc, killed=not ended)
        if ended and code != 0:
            errors.seek(0)
            raise _error(cwd, args, errors.read())


def _command(cwd: Path, args: Sequence[str], environment: Mapping[str, str]) -> tuple[str, ...]:
    """The git command line `run` and `stream` start: the safe config, every filter driver blanked."""
    # `cat-file --filters` converts a blob as a checkout would: through filters, were they not blank;
    # `hash-object --no-filters` hashes the bytes as they are, whatever the attributes say.
    subcommand = _subcommand(args)
    filterless = (subcommand in _FILTERLESS and "--filters" not in args) or (
        subcommand == "hash-object" and "--no-filters" in args
    )
    blanks = () if filterless else _filter_blanks(cwd, environment)
    return ("git", *_SAFE_CONFIG, *blanks, "-c", "core.quotepath=off", *args)


def _not_found(cwd: Path) -> UserError:
    """Why git could not be started: the directory is gone, or git is not installed."""
    if not cwd.is_dir():
        return UserError(f"no such directory: {cwd}")
    return UserError("git not found: install git and put it on PATH")


def _finish(proc: subprocess.Popen[bytes], killed: bool) -> int:
    if killed:
        proc.kill()
    assert proc.stdout is not None
    proc.stdout.close()
    return proc.wait()


def _error(cwd: Path, args: Sequence[str], stderr: bytes) -> UserError:
    text = stderr.decode(errors="replace")
    if "not a git repository" in text or "must be run in a work tree" in text:
        return UserError(f"not a git repository: {cwd} (run tiergate inside a git work tree)")
    if "dubious ownership" in text:
        return UserError(
            f"git does not trust the repository at {cwd}: dubious ownership (see safe.directory)"
        )
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    detail = next((line for line in lines if line.startswith(("fatal:", "error:"))), None)
    return UserError(f"git {args[0]} failed in {cwd}: {detail or (lines[0] if lines else 'no message')}")


def _lines(out: bytes) -> str:
    return os.fsdecode(out.rstrip(b"\n"))


def repo_root(path: Path) -> Path:
    """The top of the work tree holding `path` (a directory or a file in one). Kept for the process (as
    `git_dir` is): a hook asks it of the same folder a dozen times, and no git command tiergate runs
    moves a work tree."""
    start = path if path.is_dir() else path.parent
    if not start.is_dir():
        raise UserError(f"no such directory: {path}")
    kept = _tops.get(str(start))
    if kept is not None:
        return kept
    try:
        out = run(start, "rev-parse", "--show-toplevel").stdout
    except UserError as e:
        if str(e).startswith("not a git repository"):
            raise UserError(f"not a git repository: {path} (run tiergate inside a git work tree)") from e
        raise
    root = _lines(out)
    if not root:  # inside a .git directory, git answers with nothing
        raise UserError(f"not a git repository: {path} (run tiergate inside a git work tree)")
    return _keep_top(start, _holding(Path(root), start))


_tops: dict[str, Path] = {}  # by the folder asked about, for the process: see repo_root
_git_dirs: dict[str, Path] = {}  # the same for git_dir


def _keep_top(start: Path, top: Path) -> Path:
    _tops[str(start)] = top
    return top


def git_dir(repo: Path) -> Path:
    """The git directory (absolute) of the repository at `repo` (its top, or a git directory itself);
    kept for the process, as `repo_root` is."""
    key = str(repo)
    if key not in _git_dirs:
        _git_dirs[key] = Path(_lines(run(repo, "rev-parse", "--absolute-git-dir").stdout))
    return _git_dirs[key]


def _holding(top: Path, start: Path) -> Path:
    """`top`, which must hold `start`: a `core.worktree` pointing elsewhere (at a clean copy, say) would
    have git measure another folder than the one asked about."""
    if not start.resolve().is_relative_to(Path(top).resolve()):
        raise UserError(f"git's work tree for {start} is {top}, which does not hold it (see core.worktree)")
    return top


# What a half-done operation leaves in the git directory, and how a person ends it. Rolling the workspace
# back (or restoring a backup) in the middle of one would drop its conflict stages and leave its state
# behind, so that a later commit concludes it without what was staged.
_OPERATIONS = (
    ("MERGE_HEAD", "a merge", "git merge --abort"),
    ("rebase-merge", "a rebase", "git rebase --abort"),
    ("rebase-apply", "a rebase or git am", "git rebase --abort, or git am --abort"),
    ("CHERRY_PICK_HEAD", "a cherry-pick", "git cherry-pick --abort"),
    ("REVERT_HEAD", "a revert", "git revert --abort"),
    ("BISECT_LOG", "a bisect", "git bisect reset"),
)


def operation_in_progress(repo: Path) -> str | None:
    """The git operation half done in `repo`'s work tree (merge, rebase, cherry-pick, revert, bisect),
    in words with how to end it, or None."""
    folder = git_dir(repo)
    for marker, what, ending in _OPERATIONS:
        if (folder / marker).exists():
            return f"{what} is in progress ({marker} in the git directory); finish it or end it ({ending})"
    return None


def head_sha(repo: Path) -> str | None:
    """The commit HEAD points to; None in a repository with no commits yet."""
    proc = run(repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", ok=(0, 1))
    if proc.returncode != 0:
        return None
    return _lines(proc.stdout) or None


def top_and_head(path: Path) -> tuple[Path, str | None]:
    """`repo_root(path)` and `head_sha` of that repository, asked of git in one call."""
    start = path if path.is_dir() else path.parent
    if not start.is_dir():
        raise UserError(f"no such directory: {path}")
    proc = run(start, "rev-parse", "--show-toplevel", "--verify", "--quiet", "HEAD^{commit}", ok=(0, 1, 128))
    lines = _lines(proc.stdout).splitlines()
    if proc.returncode == 128 or not lines or not lines[0]:
        # Outside a work tree (or inside a .git directory, where git answers nothing).
        raise UserError(f"not a git repository: {path} (run tiergate inside a git work tree)")
    head = lines[1] if proc.returncode == 0 and len(lines) > 1 else None
    return _keep_top(start, _holding(Path(lines[0]), start)), head


def empty_tree(repo: Path) -> str:
    """The id of the empty tree in this repository's object format (SHA-1 or SHA-256)."""
    key = str(repo)
    if key not in _empty_trees:
        _empty_trees[key] = _lines(run(repo, "hash-object", "-t", "tree", "--no-filters", "--stdin").stdout)
    return _empty_trees[key]


_empty_trees: dict[str, str] = {}  # by repository: its object format never changes
# The empty tree's id in each object format (SHA-1, SHA-256): fixed by its content, "tree 0\0".
_EMPTY_TREE_IDS = frozenset(
    {
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
    }
)


def is_empty_tree(oid: str) -> bool:
    """Whether the full id `oid` is the empty tree's (`empty_tree`, in either object format), without
    asking git."""
    return oid in _EMPTY_TREE_IDS


def resolve_rev(repo: Path, rev: str) -> str:
    """The full id `rev` names: a commit, or a tree (the empty tree for HEAD before the first commit).
    An object id, once found, is kept for the process: what it names never changes."""
    key = (str(repo), rev)
    if key in _resolved:
        return _resolved[key]
    # A revision that starts with a dash would be read as an option.
    if rev and not rev.startswith("-"):
        for peel in ("^{commit}", "^{tree}"):
            proc = run(repo, "rev-parse", "--verify", "--quiet", rev + peel, ok=(0, 1, 128))
            if proc.returncode == 0:
                resolved = _lines(proc.stdout)
                if is_object_id(rev):
                    _resolved[key] = resolved
                return resolved
        if rev == "HEAD" and head_sha(repo) is None:
            return empty_tree(repo)
    raise UserError(f"unknown revision {rev!r} in {repo}")


_resolved: dict[tuple[str, str], str] = {}


class ChangeDiff:
    """Every tracked path that differs between `base` and the working tree, renames detected, and with
    `with_patch` the `-U0` patch of the same paths, from one git run. git diffs in the background
    (`start`) while the caller does something else, and `result` reads its answer; a caller that finds
    it does not need it after all calls `cancel`. On `_measuring_index`, kept until then.

    Without `--numstat` beside `-p`, which would make git diff every file a second time: the hunks'
    counts are the same numbers (`gitformat.with_patch_counts`). When the patch does not line up with
    the records (an unmerged path, a type change), one run with `--numstat` gives both."""

    def __init__(self, repo: Path, base: str, with_patch: bool) -> None:
        self.repo, self.base, self.with_patch = repo, base, with_patch
        resources = contextlib.ExitStack()
        try:
            index = resources.enter_context(_measuring_index(repo, base, private=True))
            self._run = start(
                repo,
                "diff",
                *_PLAIN_DIFF,
                *_diff_options(with_patch, False),
                base,
                "--",
                index=index,
                resources=resources,
            )
        except BaseException:
            resources.close()
            raise

    def result(self) -> tuple[list[DiffEntry], bytes | None]:
        out = self._run.result()
        if not self.with_patch:
            return parse_raw_numstat(out), None
        entries, patch = _entries_and_patch(out)
        counted = with_patch_counts(entries, patch)
        if counted is not None:
            return counted, patch
        return _entries_and_patch(_disk_diff(self.repo, *_diff_options(True, True), base=self.base))

    def cancel(self) -> None:
        self._run.cancel()


def _diff_options(with_patch: bool, numstat: bool) -> tuple[str, ...]:
    counts = ("--numstat",) if numstat or not with_patch else ()
    patch = ("-p", "-U0", "--src-prefix=a/", "--dst-prefix=b/") if with_patch else ()
    return ("--raw", *counts, "-z", "-M", "--no-abbrev", *patch)


def _entries_and_patch(out: bytes) -> tuple[list[DiffEntry], bytes]:
    # The NUL-separated records end with an empty field; the patch follows. Records hold no empty
    # field before that (a path is never empty), so the first two NULs in a row are the boundary.
    end = out.find(b"\0\0")
    if end == -1:
        return parse_raw_numstat(out), b""
    return parse_raw_numstat(out[: end + 1]), out[end + 2 :]


def changed_paths(repo: Path, base: str) -> list[str]:
    """Every tracked path that differs between `base` and the working tree of `repo` (its top): a
    rename is its old and its new path. Cheaper than `ChangeDiff` (no line counts, no rename
    detection) for callers that only need the names."""
    out = _disk_diff(repo, "--name-only", "-z", "--no-renames", base=base)
    return [os.fsdecode(p) for p in out.split(b"\0") if p]


def changed_statuses(repo: Path, base: str) -> list[tuple[str, str]]:
    """`changed_paths` with git's status letter of each (A: not in `base`; D, M, T, U: in it)."""
    out = _disk_diff(repo, "--name-status", "-z", "--no-renames", base=base)
    fields = out.split(b"\0")
    return [(fields[i].decode()[:1], os.fsdecode(fields[i + 1])) for i in range(0, len(fields) - 1, 2)]


def untracked_files(repo: Path, base: str) -> list[str]:
    """Untracked paths that the .gitignore files committed in `base` do not ignore, nor a tiergate state
    folder inside the work tree (`project.state_dirs_in_tree`); a nested repository is one entry ending
    in '/'.

    Only the base's rules count: .git/info/exclude, core.excludesFile and a .gitignore written or edited
    since are all the agent's to change, and a rule added during the loop must not hide a new file. The
    price is that files the user ignores only locally (info/exclude, a global excludes file) count as
    untracked: more to verify, never less."""
    with tempfile.NamedTemporaryFile(prefix="tiergate-ignore-") as rules:
        rules.write("".join(f"{line}\n" for line in _committed_ignores(repo, base)).encode())
        rules.flush()
        in_use, legacy = state_dirs_in_tree(os.fspath(repo), os.environ)
        states = [f"--exclude=/{_literal(in_use)}/"] if in_use is not None else []
        with _measuring_index(repo, base) as index:
            listing = ("ls-files", "-z", "--others", f"--exclude-from={rules.name}", *states)
            out = run(repo, *listing, index=index).stdout
    found = [os.fsdecode(p) for p in out.split(b"\0") if p]
    return found if legacy is None else [p for p in found if not _legacy_state(repo, legacy, p)]


def _legacy_state(repo: Path, legacy: str, path: str) -> bool:
    """Whether `path` is an older tiergate's state file: under its folder, and not code (see
    `project.state_dirs_in_tree`)."""
    if not path.startswith(legacy + "/"):
        return False
    from tiergate import foreign

    try:
        executable = bool((repo / path).lstat().st_mode & 0o111)
    except OSError:
        executable = False
    return not foreign.is_code(path, executable)


def _literal(path: str) -> str:
    """`path` as an ignore pattern that matches that path only (wildcards and a leading `!` or `#`
    escaped), anchored by the caller's leading slash."""
    return "".join(f"\\{c}" if c in "*?[\\!#" else c for c in path)


def untracked_by_git_rules(repo: Path) -> list[str]:
    """Untracked paths git itself does not ignore (every ignore rule, the agent's included): what `git
    add -A` takes, for saving a workspace as git sees it."""
    out = run(repo, "ls-files", "-z", "--others", "--exclude-standard").stdout
    return [os.fsdecode(p) for p in out.split(b"\0") if p]


_ignores: dict[tuple[Path, str], list[str]] = {}


def _committed_ignores(repo: Path, base: str) -> list[str]:
    """The patterns of every .gitignore in `base`, as one exclude file (patterns relative to the top),
    deeper files last since a deeper .gitignore overrides a shallower one. One `git grep` of the base
    reads them all. A commit never changes (replace refs are off), so the answer is kept for the
    process."""
    key = (repo, base)
    if key not in _ignores or not is_object_id(base):
        out = run(
            repo,
            "grep",
            "-z",
            "-I",
            "-H",
            "-F",
            "--full-name",
            "--no-line-number",
            "--no-column",
            "--no-textconv",
            "-e",
            "",
            base,
            "--",
            ":(glob)**/.gitignore",
            ok=(0, 1),
        ).stdout
        texts: dict[str, list[str]] = {}
        for record in out.split(b"\n"):  # base:path NUL line
            name, nul, line = record.partition(b"\0")
            if nul:
                texts.setdefault(os.fsdecode(name)[len(base) + 1 :], []).append(os.fsdecode(line))
        _ignores[key] = [
            rule
            for path in sorted(texts, key=lambda p: p.count("/"))
            for rule in rebase_ignore_rules(path.rpartition("/")[0], texts[path])
        ]
    return _ignores[key]


def is_object_id(rev: str) -> bool:
    """Whether `rev` is a full object id (SHA-1 or SHA-256): what it names never changes (replace refs
    are off), so an answer about it can be kept for the process."""
    return len(rev) in (40, 64) and all(c in "0123456789abcdef" for c in rev)


def diff_patch(repo: Path, base: str, paths: Iterable[str] = (), context: int = 0) -> bytes:
    """The unified diff between `base` and the working tree, limited to `paths` (taken literally) if any."""
    options = ("--src-prefix=a/", "--dst-prefix=b/")
    return _disk_diff(repo, f"-U{context}", "-M", *options, base=base, paths=paths, literal=True)


def _disk_diff(repo: Path, *args: str, base: str, paths: Iterable[str] = (), literal: bool = False) -> bytes:
    """`git diff ARGS BASE -- PATHS` against the working tree as it is on disk, on a private
    `_measuring_index`."""
    command = ("--literal-pathspecs",) if literal else ()
    with _measuring_index(repo, base, private=True) as index:
        return run(repo, *command, "diff", *_PLAIN_DIFF, *args, base, "--", *paths, index=index).stdout


def flagged_paths(repo: Path) -> dict[str, list[bytes]]:
    """Tracked paths the index marks, by the update-index option that clears the mark: assume-unchanged
    (a lowercase tag) and skip-worktree (S, or s with both). Kept for the process while the index file
    of a plain repository (`.git/index`) is the same file, unchanged: git replaces it on every write."""
    stamp = _stamps((repo / ".git" / "index",))
    kept = _flags.get(repo)
    if kept is not None and kept[0] == stamp and stamp[0] is not None:
        return kept[1]
    flagged = _read_flags(repo)
    if (repo / ".git").is_dir():
        _flags[repo] = (stamp, flagged)
    return flagged


_flags: dict[Path, tuple[tuple[tuple[int, ...] | None, ...], dict[str, list[bytes]]]] = {}


def _read_flags(repo: Path) -> dict[str, list[bytes]]:
    out = run(repo, "ls-files", "-v", "-z").stdout
    flagged: dict[str, list[bytes]] = {"--no-assume-unchanged": [], "--no-skip-worktree": []}
    for entry in out.split(b"\0"):
        tag, path = entry[:1], entry[2:]
        if tag.islower():
            flagged["--no-assume-unchanged"].append(path)
        if tag in (b"S", b"s"):
            flagged["--no-skip-worktree"].append(path)
    return flagged


def clear_flags(repo: Path, index: Path, flagged: Mapping[str, Sequence[bytes]] | None = None) -> None:
    """Clear assume-unchanged and skip-worktree in the index file `index` (a copy: never the user's)
    on the paths `flagged` (those of the repository's index when None)."""
    for option, paths in (flagged_paths(repo) if flagged is None else flagged).items():
        # One option a call: update-index applies only the last of two such options.
        if paths:
            listed = b"".join(path + b"\0" for path in paths)
            run(repo, "update-index", option, "-z", "--stdin", stdin=listed, index=index)


@contextlib.contextmanager
def _measuring_index(repo: Path, base: str, private: bool = False) -> Iterator[Path | None]:
    """The index a measurement from `base` reads: None (the index as it is) when that is the truth and
    no `private` copy is asked for; else a copy, next to it (where a split index finds its shared part),
    removed afterwards, in which
    - the assume-unchanged and skip-worktree flags are cleared (git trusts a flagged entry instead of
      looking at the file);
    - every path `base` holds that the index does not is entered with `base`'s content: such a file is
      compared with what is on disk, not taken for a deletion plus an untracked file. That is how the
      user's untracked files in a loop's start workspace (`workspace_tree`) stay out of the loop's
      change while they are as they were (and a file only untracked since, `git rm --cached`, is no
      change). Only for a base `measure_from_workspace` named: a commit of the history pays nothing.

    A command that may write the index it reads asks for a `private` one. `git diff` against the
    working tree does, whatever GIT_OPTIONAL_LOCKS says: when it finds files whose stat data is stale
    but whose content is not, it takes the index's lock and rewrites it. On the user's index that would
    be a measurement changing the repository: a lock in the way of the user's own git (or left behind,
    when the hook is killed), and an index replaced under the feet of the caches here (`flagged_paths`)
    and of a measurement running beside it in a child, which then differ by timing."""
    flagged = flagged_paths(repo)
    absent = _only_in_base(repo, base) if base in _workspace_bases else b""
    if not any(flagged.values()) and not absent and not private:
        yield None
        return
    real = _index_file(repo)
    fd, name = tempfile.mkstemp(prefix="tiergate-index-", dir=real.parent)
    os.close(fd)
    index = Path(name)
    try:
        if real.exists():
            # copy2 keeps the index's mtime, which git's racy-file check compares file mtimes with.
            shutil.copy2(real, index)
        else:
            index.unlink()  # no index yet: git reads a missing index file as an empty one
        clear_flags(repo, index, flagged)
        if absent:
            run(repo, "update-index", "-z", "--index-info", stdin=absent, index=index)
        yield index
    finally:
        index.unlink(missing_ok=True)


def _index_file(repo: Path) -> Path:
    """The index file of `repo` (its top): `.git/index` in a plain repository, git's answer otherwise
    (a linked worktree's is in its own git folder)."""
    if (repo / ".git").is_dir():
        return repo / ".git" / "index"
    return Path(_lines(run(repo, "rev-parse", "--path-format=absolute", "--git-path", "index").stdout))


def workspace_tree(
    repo: Path, base: str, differing: tuple[Sequence[str], Sequence[str]] | None = None
) -> str | None:
    """The working tree of `repo` (its top) as a tree in its objects, as a measurement from `base` sees
    it: the files that differ from `base` and the untracked files `untracked_files` lists, hashed as
    `git diff` hashes a file to compare it (git's own eol and ident conversion, no filter driver), on a
    copy of the index. What a loop that begins on a dirty workspace measures its change from: measured
    from this tree, every file is as it was. None when no file differs from `base` (nothing to write);
    UserError when the index has unresolved conflicts. `differing`: `changed_paths` and `untracked_files`
    from `base`, when the caller has just asked them."""
    changed, found = differing or (changed_paths(repo, base), untracked_files(repo, base))
    untracked = [p for p in found if not p.endswith("/")]  # not a nested repository
    if not changed and not untracked:
        return None
    with _measuring_index(repo, base, private=True) as index:
        listed = b"".join(os.fsencode(p) + b"\0" for p in sorted({*changed, *untracked}))
        run(repo, "update-index", "--add", "--remove", "-z", "--stdin", stdin=listed, index=index)
        return _lines(run(repo, "write-tree", index=index).stdout)


# The bases that are a workspace a loop began on (`workspace_tree`), named for this process by
# `tiergate.workspace.startpoint` before anything is measured from them.
_workspace_bases: set[str] = set()


def measure_from_workspace(base: str) -> None:
    """Measure from `base` as from a workspace: its paths the index lacks are compared with the disk
    (`_measuring_index`), at the price of one more git call per measurement."""
    _workspace_bases.add(base)


def _only_in_base(repo: Path, base: str) -> bytes:
    """`update-index --index-info` lines for the paths `base` holds and the index does not: `base`'s
    mode and blob (zero stat information, so git compares the file's content)."""
    out = run(repo, "diff-index", "--cached", "--raw", "-z", "--no-renames", "--diff-filter=D", base).stdout
    fields = out.split(b"\0")
    entries = []
    for meta, path in zip(fields[0:-1:2], fields[1::2], strict=False):
        old_mode, _new_mode, old_id, *_ = meta.lstrip(b":").split(b" ")
        if old_mode != b"160000":  # a submodule pointer the index dropped stays a deletion
            entries.append(old_mode + b" " + old_id + b"\t" + path + b"\0")
    return b"".join(entries)


def grep_files(repo: Path, words: Iterable[str], pathspecs: Iterable[str]) -> list[str]:
    """Files, tracked or untracked (not ignored), that hold one of `words` as a whole word."""
    patterns = [arg for word in words for arg in ("-e", word)]
    if not patterns:
        return []
    proc = run(
        repo,
        "grep",
        "-l",
        "-z",
        "-I",
        "-w",
        "-F",
        "--untracked",
        "--no-recurse-submodules",
        *patterns,
        "--",
        *pathspecs,
        ok=(0, 1),
    )
    return [os.fsdecode(p) for p in proc.stdout.split(b"\0") if p]
