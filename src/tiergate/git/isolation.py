"""The settings every git call runs with, so that asking git runs nothing the repository names.

The agent a loop verifies has a shell in the repository: its config, hooks and attributes are untrusted.
No environment variable redirects git to another repository, no config runs a program (`_SAFE_SETTINGS`,
every filter driver blanked), replace refs are off, and the output is in the C locale. See
docs/ARCHITECTURE.md, section "git, asked safely".
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

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
    # A file larger than this is binary to a diff whatever it holds: git's default, not the config's.
    ("core.bigFileThreshold", "512m"),
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


def plain_environment() -> dict[str, str]:
    """The user's environment without what would redirect git or name a program, and `_SAFE_ENV`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in _REDIRECTING_ENV and not k.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))
    }
    env.update(_SAFE_ENV)
    return env


def environment(index: Path | None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """`plain_environment` with `extra`, on the index file `index` if given."""
    env = {**plain_environment(), **(extra or {})}
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    return env


def _subcommand(args: Sequence[str]) -> str:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] == "-c" else 1
    return args[i] if i < len(args) else ""


def command(cwd: Path, args: Sequence[str], environment: Mapping[str, str]) -> tuple[str, ...]:
    """The git command line every run starts: the safe config, every filter driver blanked."""
    # `cat-file --filters` converts a blob as a checkout would: through filters, were they not blank;
    # `hash-object --no-filters` hashes the bytes as they are, whatever the attributes say.
    # In a git directory of tiergate's own (`attributes.own`) no path has a filter attribute, and the
    # repository's config is not read: there is nothing to blank.
    subcommand = _subcommand(args)
    filterless = (
        (subcommand in _FILTERLESS and "--filters" not in args)
        or (subcommand == "hash-object" and "--no-filters" in args)
        or environment.get("GIT_DIR") in OWN_GIT_DIRS
    )
    blanks = () if filterless else _filter_blanks(cwd, environment)
    return ("git", *_SAFE_CONFIG, *blanks, "-c", "core.quotepath=off", *args)


def _filter_blanks(cwd: Path, environment: Mapping[str, str]) -> tuple[str, ...]:
    """`-c` arguments that blank every filter driver the config names (clean, smudge and process are
    commands run on file content): an empty command is no filter, and `required=false` keeps git from
    failing for the lack of one. Kept for the process while no config file git read changed (never for
    a config with includes), by git directory where `repository.git_dir` knows it."""
    # Kept only while no config file changed: the checks, the project's own code, run between two calls
    # and could add a driver. A config with includes is read every time, since what it includes can change
    # without any file git read changing (a branch, a new file). By git directory, so that the calls in a
    # repository's top and in its git directory (`--git-dir`) share it. .gitattributes, in the tree, says
    # which files use a driver.
    home = GIT_DIRS.get(str(cwd), cwd)
    key = str(home)
    kept = _blanks.get(key)
    if kept is not None and kept[0] == stamps(kept[1]):
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
        _blanks[key] = (stamps(files), files, blanks)
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


def stamps(files: Sequence[Path]) -> tuple[tuple[int, ...] | None, ...]:
    """Each file's stat data that changes when the file is written or replaced; None when it is absent."""
    found: list[tuple[int, ...] | None] = []
    for file in files:
        try:
            info = file.stat()
        except OSError:
            found.append(None)
        else:
            found.append((info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino))
    return tuple(found)


# The git directory of each folder `repository.git_dir` was asked about, for the process: the filter
# blanks are kept by git directory, so that a repository's top and its git directory share them.
GIT_DIRS: dict[str, Path] = {}


# The git directories of tiergate's own that exist in this process (`attributes.own`), by path.
OWN_GIT_DIRS: set[str] = set()
