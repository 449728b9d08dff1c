"""The content rules' vocabulary: a rule, an ecosystem (which files, which rules), a hit, and the helpers
that write a rule's pattern (`word`, `call`, `rules`, ...). Pure.

A rule is a regular expression searched in the text of one changed line (added or removed); an ecosystem
says which files its rules read. The rules themselves are data, one module per ecosystem (`python`,
`javascript`, `go`, `rust`, and `secretleaks` for every text file).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from tiergate.text import quote_inline, quote_path
from tiergate.tier.content.patch import FileLines, Side

Category = Literal["security", "architecture"]
Sides = Literal["added", "removed", "both"]
CATEGORIES: tuple[Category, ...] = ("security", "architecture")
SIDES: tuple[Sides, ...] = ("added", "removed", "both")


@dataclass(frozen=True, slots=True)
class ContentRule:
    """One risky construct: `pattern` is searched (`re.search`, case-sensitive unless the pattern says
    `(?i:...)`) in the text of one changed line, without its leading '+' or '-'. `construct` names it
    in a reason ("TLS verification switched off"). Patterns match identifiers and calls with word
    boundaries, never substrings."""

    construct: str
    # The changed lines are searched joined by newlines, so a built-in pattern never runs across one (its
    # classes exclude `\n`): one that could would cost the length of the change per candidate, a slow
    # claim the agent could write on purpose.
    pattern: str
    category: Category = "security"
    # Which changed lines count: a removed `verify=True` is as risky as an added `verify=False`, a removed
    # `eval(` is not.
    sides: Sides = "both"
    # A second pattern the same line must hold too, anywhere (`random.choice` only beside `token`): searched
    # only in the lines `pattern` matched, so it may be as slow as it likes.
    near: str = ""

    def reads(self, side: Side) -> bool:
        return self.sides in ("both", side)


@dataclass(frozen=True, slots=True)
class Ecosystem:
    """The files a family of rules reads: by suffix (lower-cased, with the dot: `.py`) or by a glob on
    the file's name (`Dockerfile`, `*.env`, `*` for every file), and those rules."""

    name: str
    rules: tuple[ContentRule, ...]
    suffixes: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    # What starts a comment line (after its indentation): such lines are prose about the code, and its
    # rules do not read them ("# Add a Vary: Cookie header" names a topic, the code beside it acts).
    comments: tuple[str, ...] = ()
    # Files it does not read although their suffix says so: directories anywhere in the path (`dist`),
    # globs on the name (`*.min.js`). Built and vendored code is someone else's change, rebuilt.
    ignore_dirs: tuple[str, ...] = ()
    ignore_names: tuple[str, ...] = ()
    # Only files under one of these directory paths (`.github/workflows`), when given.
    within: tuple[str, ...] = ()
    # Only files this says yes to, when given: what no glob says alone (a test file is one by its name
    # or by its folder, `testfiles.is_test`).
    accepts: Callable[[str], bool] | None = None
    # A reader of a whole file's changed lines, for what one line alone cannot say (`ci`: whether an
    # action's new ref is a bump of the action the removed line named). It reads every file the
    # ecosystem holds, beside the rules; its files' path floor is then its to decide (`judges`).
    judge: Callable[[FileLines], Iterable[ContentHit]] | None = None
    # Whether its judge's verdict replaces its files' path floor (CI: yes). A judge that only adds
    # hits, as the tests-weakened ones do, leaves the path rules as they are.
    judge_replaces_path_floor: bool = True

    def holds(self, path: str) -> bool:
        name = path[path.rfind("/") + 1 :]
        return self.names_file(name, suffix_of(name)) and self.places(path)

    def names_file(self, name: str, suffix: str) -> bool:
        """Whether a file of this name (and its lower-cased `suffix`, '' for none) is of this ecosystem."""
        return suffix in self.suffixes or _any_glob(name, self.names)

    def places(self, path: str) -> bool:
        """Whether a file of this ecosystem's names is read where it is (`ignore_names`, `within`,
        `accepts`, `ignore_dirs`)."""
        slash = path.rfind("/")
        if _any_glob(path[slash + 1 :], self.ignore_names):
            return False
        if self.within and not any(f"/{d}/" in f"/{path[:slash]}/" for d in self.within):
            return False
        if self.accepts is not None and not self.accepts(path):
            return False
        if self.ignore_dirs and slash > 0:
            folders = f"/{path[:slash]}/"
            for folder in self.ignore_dirs:
                if f"/{folder}/" in folders:
                    return False
        return True


def suffix_of(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def _any_glob(name: str, globs: tuple[str, ...]) -> bool:
    # A claim asks this for every changed file and ecosystem (18,000 times on a 2,000-file change):
    # each tuple of globs is compiled once into exact names, `*suffix` tails and one regex for the rest.
    if not globs:
        return False
    matcher = _MATCHERS.get(globs)
    if matcher is None:
        matcher = _MATCHERS[globs] = _matcher(globs)
    exact, tails, rest = matcher
    return (
        name in exact
        or (bool(tails) and name.endswith(tails))
        or (rest is not None and bool(rest.match(name)))
    )


def _matcher(globs: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...], re.Pattern[str] | None]:
    from fnmatch import translate

    wild = [g for g in globs if any(c in g for c in "*?[")]
    tails = tuple(g[1:] for g in wild if g[:1] == "*" and not any(c in g[1:] for c in "*?["))
    rest = [g for g in wild if g[1:] not in tails or g[:1] != "*"]
    exact = frozenset(g for g in globs if g not in wild)
    return exact, tails, re.compile("|".join(translate(g) for g in rest)) if rest else None


_MATCHERS: dict[tuple[str, ...], tuple[frozenset[str], tuple[str, ...], re.Pattern[str] | None]] = {}


@dataclass(frozen=True, slots=True)
class ContentHit:
    """A changed line that matched a rule: where (`path`, `line` on its side's numbering: the new file's
    for an added line, the old file's for a removed one), which construct, and the line's text around the
    match (`excerpt`, clipped at word boundaries; the agent wrote it, so it is untrusted text)."""

    path: str
    line: int
    side: Side
    construct: str
    category: Category
    excerpt: str

    def describe(self) -> str:
        """One line for a reason, naming the file and line, the side, the construct and the excerpt:
        `sessions.py:301 (removed line) credential header: "del h['Authorization']"`."""
        where = f"{quote_path(self.path)}:{self.line}"
        return f'{where} ({self.side} line) {self.construct}: "{quote_inline(self.excerpt)}"'


# Pattern builders. CPython's `re` searches a pattern that starts with a literal about as fast as
# `str.find`; one starting with `\b` or a character class is tried at every position (see `scan`). So a
# word's boundary before it is checked by a lookbehind placed after the literal (as `tiergate.redact`
# does), and the literal comes first.
_IDENT = "A-Za-z0-9_"


def whole_word_needle(pattern: str) -> bool:
    """Whether every match of `pattern` holds its needle as a whole word: it starts as `word`, `call` or
    `quoted` write one. The scanner then looks for the needle among the change's words alone."""
    name = _literal_prefix(pattern)
    if not name:
        return False
    made = (prefix(name) + _tail(name), prefix(name, after_dot=False) + _tail(name))
    return (_starts_word(name) and pattern.startswith(made)) or pattern.startswith(quoted(name))


def word(name: str, *, after_dot: bool = True) -> str:
    """`name` as a whole identifier (or a dotted name, `os.system`): not inside a longer one. With
    `after_dot=False`, not an attribute either (`eval(` but not `model.eval(`)."""
    return prefix(name, after_dot=after_dot) + _tail(name)


def _starts_word(name: str) -> bool:
    return name[0].isalnum() or name[0] == "_"


def _tail(name: str) -> str:
    return f"(?![{_IDENT}])" if name[-1].isalnum() or name[-1] == "_" else ""


def prefix(name: str, *, after_dot: bool = True) -> str:
    """`name` at the start of an identifier, which may go on (`SESSION_COOKIE_` + anything)."""
    literal = re.escape(name)
    before = _IDENT if after_dot else _IDENT + "."
    return f"{literal}(?<![{before}]{literal})" if _starts_word(name) else literal


def call(name: str, *, after_dot: bool = True) -> str:
    """A call of `name`: the identifier, then '('."""
    return word(name, after_dot=after_dot) + r"[ \t]*\("


# What language ecosystems leave alone: bundles, builds and vendored copies (a release commit of a
# JavaScript library rebuilds `dist/`; its risky lines were judged when their source changed).
BUILT_DIRS = ("dist", "build", "vendor", "node_modules", "third_party", "_vendor")
# Of those, the ones that hold sources someone else wrote, copied in: code that runs as the project's own.
VENDORED_DIRS = ("vendor", "third_party", "_vendor")
BUILT_NAMES = ("*.min.js", "*.bundle.js", "*.min.mjs", "*.min.cjs")


def needle(pattern: str) -> str:
    """The longest run of letters, digits and '_' in the literal text `pattern` starts with ('' if
    none, or if the pattern is an alternation at its top): every match holds it inside one of its
    words, so a text without it cannot match. Read by hand, not by `re`'s parser: a hook pays for every
    rule's needle on every claim."""
    found = _needles.get(pattern)
    if found is None:
        found = _needles[pattern] = "" if _alternates(pattern) else _longest_run(_literal_prefix(pattern))
    return found


_needles: dict[str, str] = {}
_SPECIAL = frozenset(".^$*+?{}[]|()\\")
_QUANTIFIERS = frozenset("*+?{")


def _literal_prefix(pattern: str) -> str:
    prefix: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern) and not pattern[i + 1].isalnum():
            prefix.append(pattern[i + 1])
            i += 2
        elif char not in _SPECIAL:
            prefix.append(char)
            i += 1
        else:
            if char in _QUANTIFIERS and prefix:
                prefix.pop()  # the last character is optional or repeated
            break
    return "".join(prefix)


def _longest_run(text: str) -> str:
    return max(re.findall(r"[A-Za-z0-9_]+", text), key=len, default="")


def _alternates(pattern: str) -> bool:
    """Whether `pattern` has a '|' outside every group and class (its prefix is then not required)."""
    depth, i, in_class = 0, 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]":
                i += 1  # a ']' first in a class is a literal
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            return True
        i += 1
    return False


def literal(text: str) -> str:
    """`text`, every character meaning itself."""
    return re.escape(text)


def quoted(name: str) -> str:
    """`name` inside quotes, as a header name or a key is written in code: 'Authorization', "Set-Cookie".
    Not in backticks: prose (docstrings, Markdown in comments) writes ``Cookie`` so."""
    return f"{re.escape(name)}(?<=[\"']{re.escape(name)})(?=[\"'])"


def rules(construct: str, *patterns: str, sides: Sides = "both", near: str = "") -> tuple[ContentRule, ...]:
    """One security construct written several ways, one literal-first pattern each."""
    return tuple(ContentRule(construct, p, sides=sides, near=near) for p in patterns)
