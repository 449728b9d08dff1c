"""Is this path another tool's state, and why: the one answer to "which files are not work".

Change measurement, the workspace fingerprint and the verifier manifests leave out every path
`Exclusions.verdict` excludes: narrow, named rules that never exclude code, plus the user's `[workspace]
ignore` (docs/exclusions.md). Pure: no I/O; the callers say whether a path is executable.
"""
# pathspec (about 40 ms to import) is only imported when the user lists patterns; the built-in rules are
# matched here, segment by segment.

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from fnmatch import fnmatchcase
from typing import Any, Protocol

from tiergate.frozen import frozen

# Suffixes of source code and programs: under a tool's state folder, such a file is not state.
CODE_SUFFIXES = frozenset(
    {
        ".py", ".pyi", ".pyx", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".vue",
        ".svelte", ".sh", ".bash", ".zsh", ".fish", ".ps1", ".bat", ".cmd", ".rb", ".go", ".rs", ".java",
        ".kt", ".kts", ".scala", ".groovy", ".gradle", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".m",
        ".mm", ".cs", ".fs", ".swift", ".php", ".pl", ".pm", ".lua", ".r", ".jl", ".ex", ".exs", ".erl",
        ".hs", ".clj", ".dart", ".zig", ".nim", ".sql", ".wasm", ".so", ".dylib", ".dll", ".exe",
        ".jar", ".class", ".node", ".pyc",
    }
)  # fmt: skip

# Suffixes and names of the files a language, a template engine or a build tool reads as source, whatever
# bytes they hold: node runs a script with a NUL in a comment, which git's own check (a NUL in the first
# 8000 bytes) calls binary. tiergate reads them as text (`is_source`), never as binary; every suffix
# the content rules read by is among them (tests/foreign_test.py).
_PROGRAMS = frozenset({".wasm", ".so", ".dylib", ".dll", ".exe", ".jar", ".class", ".node", ".pyc"})
SOURCE_SUFFIXES = (CODE_SUFFIXES - _PROGRAMS) | {
    ".pyw", ".ru", ".rake", ".phtml", ".mk", ".yml", ".yaml", ".html", ".htm", ".xhtml", ".jinja",
    ".jinja2", ".j2", ".njk", ".djhtml", ".tmpl", ".tpl", ".gohtml", ".hbs", ".handlebars", ".mustache",
    ".ejs", ".erb", ".haml", ".slim", ".liquid", ".twig", ".astro", ".jsp", ".eex", ".heex",
}  # fmt: skip
SOURCE_NAMES = ("Makefile", "GNUmakefile", "justfile", "Justfile", "Jenkinsfile", "Dockerfile")


@frozen
class Rule:
    """A built-in exclusion: `pattern` (segments separated by '/', each an fnmatch glob, matched at
    any depth: a tool launched in a subfolder writes there), a folder when it ends with '/'; a name
    matching `unless` is not covered."""

    pattern: str
    tool: str
    what: str
    unless: str | None = None
    holds: tuple[str, ...] = ()  # code suffixes the tool itself writes there (bytecode in __pycache__/)

    @property
    def folder(self) -> bool:
        return self.pattern.endswith("/")

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(self.pattern.rstrip("/").split("/"))

    @property
    def reason(self) -> str:
        return f"{self.tool}'s {self.what} ({self.pattern})"


# What running tests, linters and builds leaves behind, that no one writes by hand (issue 21: a one-line
# change read as 38 files once bytecode was written). Many of these folders ignore themselves with a
# .gitignore of their own, which tiergate does not read (the agent could write one anywhere): they are
# named here instead. Code in them is still work, except the code the tool itself writes there.
GENERATED: tuple[Rule, ...] = (
    Rule("__pycache__/", "Python", "bytecode cache", holds=(".pyc",)),
    Rule(".pytest_cache/", "pytest", "cache"),
    Rule(".mypy_cache/", "mypy", "cache"),
    Rule(".ruff_cache/", "Ruff", "cache"),
    Rule(".hypothesis/", "Hypothesis", "example database"),
    Rule(".tox/", "tox", "environments"),
    Rule(".nox/", "nox", "environments"),
    Rule(".benchmarks/", "pytest-benchmark", "saved runs"),
    Rule("*.egg-info/", "setuptools", "package metadata"),
    Rule(".coverage", "coverage.py", "data file"),
    Rule(".coverage.*", "coverage.py", "parallel data files"),
    Rule("coverage.xml", "coverage.py", "XML report"),
    Rule("htmlcov/", "coverage.py", "HTML report", holds=(".js",)),
    Rule("node_modules/", "npm", "installed packages"),
    Rule(".nyc_output/", "nyc", "coverage data"),
    Rule("coverage/lcov-report/", "Istanbul", "HTML report", holds=(".js",)),
    Rule("coverage/lcov.info", "Istanbul", "LCOV report"),
    Rule("coverage/coverage-final.json", "Istanbul", "JSON report"),
    Rule(".eslintcache", "ESLint", "cache"),
    Rule("*.tsbuildinfo", "TypeScript", "incremental build state"),
    Rule(".parcel-cache/", "Parcel", "cache"),
    Rule(".turbo/", "Turborepo", "cache"),
    Rule(".next/", "Next.js", "build output"),
    Rule(".gradle/", "Gradle", "project cache"),
    Rule(".DS_Store", "macOS Finder", "folder view settings"),
)
_CC = "Claude Code"
_RUNTIME = "runtime state"
# docs/exclusions.md says where each one comes from. Claude Code's runtime files are those it lists
# itself (2.1.332 writes them to .git/info/exclude, which tiergate does not read: the agent can edit it).
BUILT_IN: tuple[Rule, ...] = (
    Rule(".omc/", "oh-my-claudecode", "state"),
    # CLAUDE.local.md is instructions every session reads, verifiers included: work, not state.
    Rule(".claude/*.local.md", "a Claude Code plugin", "per-project state", unless="CLAUDE.local.md"),
    Rule(".claude/settings.local.json", _CC, "local settings, written when a permission is approved"),
    Rule(".claude/scheduled_tasks.json", _CC, "durable scheduled tasks"),
    Rule(".claude/scheduled_tasks.lock", _CC, "scheduled tasks lock"),
    Rule(".claude/worktrees/", _CC, "--worktree checkouts (separate work trees)"),
    Rule(".claude/checkpoints/", _CC, _RUNTIME),
    Rule(".claude/mailbox/", _CC, "cross-session messages"),
    Rule(".claude/agent-registry.json", _CC, _RUNTIME),
    Rule(".claude/agent-memory-local/", _CC, "subagents' local memory"),
    Rule(".claude/first-run", _CC, _RUNTIME),
    Rule(".claude/assistant-daemon-state.json", _CC, _RUNTIME),
    Rule(".claude/routines/.state/", _CC, "routines' state"),
    Rule(".aider.chat.history.md", "Aider", "chat history"),
    Rule(".aider.input.history", "Aider", "input history"),
    Rule(".aider.llm.history", "Aider", "model traffic log"),
    Rule(".aider.tags.cache.v*/", "Aider", "repository map cache"),
    Rule(".serena/cache/", "Serena", "language-server cache"),
    Rule(".crush/crush.db*", "Crush", "session database"),
    Rule(".swarm/memory.db*", "claude-flow", "memory database"),
    Rule("gemini-debug.log", "Gemini CLI", "debug log"),
    Rule(".gemini-clipboard/", "Gemini CLI", "pasted clipboard images"),
    *GENERATED,
)


@frozen
class Verdict:
    """A path another tool's rule matched: `excluded` (not work), or kept as work because it is code
    under a tool's state folder; `reason` says which tool or which setting, in words."""

    path: str
    reason: str
    excluded: bool = True


@frozen
class Exclusions:
    """The built-in rules and the user's `[workspace] ignore` patterns, read from `source`."""

    ignore: tuple[str, ...] = ()
    source: str | None = None
    _user: Callable[[str], str | None] | None = field(default=None, compare=False, repr=False)

    def verdict(self, path: str, executable: bool = False) -> Verdict | None:
        """Whether `path` (repository-relative, '/'-separated; a trailing '/' for a nested repository)
        is another tool's, and why; None when it is plain work. `executable`: its executable bit."""
        rule = built_in_rule(path)
        if rule is not None and not _foreign_code(rule, path, executable):
            return Verdict(path, rule.reason)
        pattern = self._matcher()(path) if self.ignore else None
        if pattern is not None:
            return Verdict(path, f"[workspace] ignore in {self.source or 'the configuration'} ({pattern})")
        if rule is not None:
            return Verdict(
                path, f"under {rule.tool}'s {rule.pattern}, but code, which it does not write", False
            )
        return None

    def may_exclude(self, path: str) -> bool:
        """Whether `verdict` could exclude `path` (before its executable bit is read)."""
        return built_in_rule(path) is not None or (bool(self.ignore) and self._matcher()(path) is not None)

    def _matcher(self) -> Callable[[str], str | None]:
        if self._user is None:
            object.__setattr__(self, "_user", user_matcher(self.ignore))
        assert self._user is not None
        return self._user


DEFAULT = Exclusions()  # the built-in rules alone


# A rule's first segment names a dot-folder or dot-file, or is one of these plain names (no glob): a path
# with neither among its segments matches no rule, which settles almost every path of a change at once
# (a claim on 2,000 files asks 4,000 times).
# a plain name ending in one of these (a rule's first segment `*<suffix>`, such as `*.egg-info`).
_PLAIN = [r.segments[0] for r in BUILT_IN if not r.segments[0].startswith(".")]
_PLAIN_FIRSTS = frozenset(name for name in _PLAIN if not name.startswith("*"))
_PLAIN_SUFFIXES = tuple(name[1:] for name in _PLAIN if name.startswith("*"))
assert not any(set(name) & set("*?[") for name in [*_PLAIN_FIRSTS, *_PLAIN_SUFFIXES]), "literal, or *literal"


# What a tool writes a state file's new content to, then renames over it: for that moment, the same state.
ATOMIC_WRITE = ".tmp"


def built_in_rule(path: str) -> Rule | None:
    """The built-in rule that matches `path`, at any depth, or None. A state file's atomic rewrite in
    progress (`.claude/ralph-loop.local.md.tmp`) is that file's: a tool's hook that runs beside
    tiergate's must not make the workspace look changed for the moment it writes."""
    directory = path.endswith("/")
    parts = path.rstrip("/").split("/")
    if not any(_may_match(part) for part in parts):
        return None
    rule = _rule_of(parts, directory)
    if rule is None and not directory and parts[-1].endswith(ATOMIC_WRITE):
        rule = _rule_of([*parts[:-1], parts[-1].removesuffix(ATOMIC_WRITE)], directory)
    return rule


def _rule_of(parts: Sequence[str], directory: bool) -> Rule | None:
    for rule in BUILT_IN:
        segments = rule.segments
        for start in range(len(parts) - len(segments) + 1):
            end = start + len(segments)
            inside = end < len(parts) or (directory and rule.folder)
            at_end = end == len(parts) and not directory and not rule.folder
            if (inside if rule.folder else at_end) and _matches(rule, parts[start:end]):
                return rule
    return None


def _may_match(part: str) -> bool:
    return part.startswith(".") or part in _PLAIN_FIRSTS or part.endswith(_PLAIN_SUFFIXES)


def _matches(rule: Rule, parts: Sequence[str]) -> bool:
    if rule.unless is not None and fnmatchcase(parts[-1], rule.unless):
        return False
    return all(fnmatchcase(part, glob) for part, glob in zip(parts, rule.segments, strict=True))


def is_tool_state(path: str, executable: bool = False) -> bool:
    """Whether a built-in rule excludes `path`: a tool's state or output, and not code of anyone else's."""
    rule = built_in_rule(path)
    return rule is not None and not _foreign_code(rule, path, executable)


def _foreign_code(rule: Rule, path: str, executable: bool) -> bool:
    """Code under a tool's folder that the tool does not write itself: work, whatever the rule says."""
    holds = bool(rule.holds) and path.lower().endswith(rule.holds)
    return is_code(path, executable) and (executable or not holds)


def is_code(path: str, executable: bool = False) -> bool:
    """Source code or a program: a code suffix, or the executable bit (a directory entry never is)."""
    if path.endswith("/"):
        return False
    name = path.rpartition("/")[2]
    suffix = name[name.rfind(".") :].lower() if "." in name.lstrip(".") else ""
    return executable or suffix in CODE_SUFFIXES


def is_source(path: str) -> bool:
    """Whether `path` names a file read as source (`SOURCE_SUFFIXES`, `SOURCE_NAMES`): text, whatever
    its bytes."""
    name = path.rpartition("/")[2]
    suffix = name[name.rfind(".") :].lower() if "." in name.lstrip(".") else ""
    return suffix in SOURCE_SUFFIXES or name in SOURCE_NAMES


def user_matcher(patterns: Sequence[str]) -> Callable[[str], str | None]:
    """A function naming the pattern of `patterns` (gitignore-style: a later one overrides an earlier
    one, '!' re-includes) that ignores `path`, or None. Invalid patterns are left out (a loop's kept
    configuration was validated at its start: `pattern_error`)."""
    from pathspec import GitIgnoreSpec

    # One pattern a line, kept with its text; the last one that matches decides, as in a .gitignore.
    compiled = [
        (pattern, compiled)
        for pattern in patterns
        if pattern_error(pattern) is None
        for compiled in GitIgnoreSpec.from_lines([pattern]).patterns
        if compiled.include is not None
    ]

    def match(path: str) -> str | None:
        found: str | None = None
        for pattern, rule in compiled:
            if rule.match_file(path) is not None:
                found = pattern if rule.include else None
        return found

    return match


def pattern_error(pattern: object) -> str | None:
    """Why `pattern` is no gitignore-style pattern for `[workspace] ignore`, or None."""
    if not isinstance(pattern, str) or not pattern.strip():
        return "must be a list of non-empty gitignore-style patterns"
    if pattern.lstrip().startswith("#"):
        return f"{pattern!r} is a comment in gitignore syntax: it would match nothing"
    from pathspec import GitIgnoreSpec

    try:
        GitIgnoreSpec.from_lines([pattern])
    except ValueError as exc:
        return f"{pattern!r} is not a valid gitignore-style pattern ({exc})"
    return None


def kept(config: Mapping[str, Any] | None, source: str | None) -> Exclusions:
    """The exclusions of a loop's kept configuration (`LoopState.config`, validated at the loop's start,
    in its JSON form): the file the agent can edit now is never read. Anything that is not a list of
    strings excludes nothing more (narrow is the safe side)."""
    workspace = config.get("workspace") if isinstance(config, Mapping) else None
    ignore = workspace.get("ignore") if isinstance(workspace, Mapping) else None
    if not isinstance(ignore, list) or not all(isinstance(p, str) for p in ignore):
        return DEFAULT
    return Exclusions(tuple(ignore), source)


class _KeepsConfig(Protocol):
    @property
    def config(self) -> Mapping[str, Any] | None: ...

    @property
    def config_source(self) -> str | None: ...


def of_loop(loop: _KeepsConfig) -> Exclusions:
    """The exclusions of a loop (a `LoopState`): its kept configuration's (`kept`). A loop stored before
    configurations were kept gets the built-in rules alone, at every hook alike."""
    return kept(loop.config, loop.config_source)
