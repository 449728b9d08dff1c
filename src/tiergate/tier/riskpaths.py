"""Architecture- and security-sensitive paths: which files of a change lift its verification floor. Pure.

The rules are data (`tiergate.tier.riskrules`, compiled by `tiergate.tier.risktable`), read per name by
`tiergate.tier.riskfacts`; the user's globs (`tiergate.tier.riskglobs`) add to them and never remove a
built-in rule, or the agent being verified could configure its own floor away. The judgement calls
behind the rules, and which rule a match names: docs/risk-paths.md.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from tiergate.text import quote_inline, quote_path
from tiergate.tier.riskfacts import dir_facts, file_facts, unambiguous
from tiergate.tier.riskglobs import compile_globs, relative_path
from tiergate.tier.riskrules import CODE_EXTS, Category

__all__ = ["DEFAULT", "PathMatch", "RiskPaths", "RiskScan"]

# Prose rules read "word 'jwt' in a file name"; every other pattern is a glob.
_PROSE_PREFIX = "word '"


@dataclass(frozen=True, slots=True)
class PathMatch:
    path: str
    category: Category
    pattern: str

    def describe(self) -> str:
        if self.pattern.startswith(_PROSE_PREFIX):
            return f"{quote_path(self.path)} matches {self.category} rule: {self.pattern}"
        # The agent names its files: a name with a newline in it must not start a line of its own.
        return f"{quote_path(self.path)} matches {self.category} pattern '{quote_inline(self.pattern)}'"


@dataclass(frozen=True, slots=True)
class RiskScan:
    security: tuple[PathMatch, ...]
    architecture: tuple[PathMatch, ...]


class RiskPaths:
    """The built-in rules plus the user's extra globs, compiled once; `match` costs a few microseconds."""

    def __init__(self, extra_security: Sequence[str] = (), extra_architecture: Sequence[str] = ()) -> None:
        self._extra_security = compile_globs(extra_security, "security")
        self._extra_architecture = compile_globs(extra_architecture, "architecture")
        self._has_extras = self._extra_security is not None or self._extra_architecture is not None

    def match(self, path: str, judged: bool = False) -> tuple[PathMatch, ...]:
        """The path's matches, at most one per category. `judged`: a content judge read the file's
        changed lines (a CI workflow), so the path rules it replaces do not count."""
        norm = path.replace("\\", "/")
        cut = norm.rfind("/")
        name = norm[cut + 1 :]
        file = file_facts(name)
        dirs = dir_facts(norm[:cut] if cut > 0 else "")
        security: str | None = None
        architecture: str | None = None
        if not (file.inert or dirs.inert):
            security = file.security
            if security is None and not (dirs.code_only and file.ext not in CODE_EXTS):
                security = (dirs.security_unjudged if judged else dirs.security) or file.security_word
                security = security or dirs.security_word
                if security is None and (file.weak or dirs.weak):
                    security = unambiguous(file, dirs)
            if not dirs.aside:
                architecture = file.architecture
                if architecture is None and dirs.architecture:
                    lower = name.lower()
                    architecture = next(
                        (
                            p
                            for p, only in dirs.architecture
                            if only is None or file.ext in only or lower in only
                        ),
                        None,
                    )
        if self._has_extras and (security is None or architecture is None):
            relative = relative_path(norm)
            if security is None and self._extra_security is not None:
                security = self._extra_security.match(relative)
            if architecture is None and self._extra_architecture is not None:
                architecture = self._extra_architecture.match(relative)
        if security is None:
            return () if architecture is None else (PathMatch(path, "architecture", architecture),)
        if architecture is None:
            return (PathMatch(path, "security", security),)
        return (PathMatch(path, "security", security), PathMatch(path, "architecture", architecture))

    def scan(self, paths: Iterable[str], judged: Collection[str] = ()) -> RiskScan:
        """Every path's matches; those in `judged` as `match(path, judged=True)`."""
        security: list[PathMatch] = []
        architecture: list[PathMatch] = []
        match = self.match
        for path in paths:
            for found in match(path, path in judged) if judged else match(path):
                (security if found.category == "security" else architecture).append(found)
        return RiskScan(security=tuple(security), architecture=tuple(architecture))


DEFAULT = RiskPaths()
