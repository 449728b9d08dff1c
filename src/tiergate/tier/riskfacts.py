"""What one file name or one directory path says to the path rules, worked out once per name; pure.

A name is split into words (at `_ - .`, digits and camelCase) and looked up in the compiled rules
(`tiergate.tier.risktable`); a directory path is the facts of its folders, each folder's worked out once.
Both are memoised, bounded, so that the next path in the same folder or of the same name costs a dict
lookup. See docs/risk-paths.md, "How a path is read".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise
from typing import NamedTuple, TypeVar

from tiergate.tier.riskrules import (
    AMBIGUOUS_WORDS,
    CHECK_CONFIG_NAMES,
    CHECK_CONFIG_PREFIXES,
    CHECK_CONFIG_TOOLS,
    COMPOUND_WORDS,
    DOCS_DIRS,
    ENV_TEMPLATE_WORDS,
    EXAMPLE_DIRS,
    INERT_DIRS,
    INERT_EXTS,
    LOCK_NAMES,
    SECURITY_WORDS,
    STUB_EXTS,
    TEST_DIRS,
    TEST_NAME_LAST_WORDS,
    TOOLING_DIRS,
    Category,
)
from tiergate.tier.risktable import JUDGED, TABLE, Hit

# Words inside one name: ALLCAPS runs before a capitalised word, capitalised or lowercase runs, digits.
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_CHUNK = re.compile(r"[A-Za-z0-9]+")
# Facts are memoised, bounded so that a stream of unique names cannot grow memory without end.
CACHE_LIMIT = 1 << 16
_NO_SENSES: frozenset[str] = frozenset()
# The kinds every file name is looked up in, bound once: most names are found in none of them.
_BY_NAME = TABLE.kinds["name"]
_BY_NAME_CASE = TABLE.kinds["name-case"]
_BY_EXT = TABLE.kinds["ext"]
_BY_STEM = TABLE.kinds["stem"]
_BY_LAST_PART = TABLE.kinds["last-part"]
# The beginnings of compound words, so that only names holding one pay for joining word pairs.
_COMPOUND_HEADS = frozenset(c[:i] for c in COMPOUND_WORDS for i in range(1, len(c)))
_SENSE_WORDS = frozenset().union(*AMBIGUOUS_WORDS.values())
_CHECK_CONFIG_PREFIX = re.compile("|".join(re.escape(p) for p in CHECK_CONFIG_PREFIXES) + r"(?:\.|$)")
_CHECK_CONFIG_TOOL = re.compile(r"([a-z0-9-]+)\.config\.[a-z]+$")


def is_check_config(name: str) -> bool:
    """Whether a file name (no directory) is the configuration of one of the project's check tools."""
    lower = name.lower()
    if lower in CHECK_CONFIG_NAMES or _CHECK_CONFIG_PREFIX.match(lower):
        return True
    tool = _CHECK_CONFIG_TOOL.match(lower)
    return tool is not None and tool.group(1) in CHECK_CONFIG_TOOLS


class _Words(NamedTuple):
    """The security words of one name: the first strong one, the ambiguous ones, the senses it gives."""

    strong: str | None = None
    weak: tuple[str, ...] = ()
    senses: frozenset[str] = _NO_SENSES


_NO_WORDS = _Words()


class FileFacts(NamedTuple):
    inert: bool
    ext: str
    security: str | None = None  # a file rule (.env, *.pem, CODEOWNERS ...)
    security_word: str | None = None
    weak: tuple[tuple[str, str], ...] = ()  # (ambiguous word, pattern)
    senses: frozenset[str] = _NO_SENSES
    architecture: str | None = None


class DirFacts(NamedTuple):
    inert: bool = False
    aside: bool = False  # inside a test, example, docs or CI tooling tree: no architecture
    code_only: bool = False  # inside a test, example or docs tree: security words count for code only
    security: str | None = None  # a directory rule (**/auth/**, .github/workflows ...)
    # the same without the rules a content judge replaces (CONTENTJUDGED_DIRPATHS), for a file it read
    security_unjudged: str | None = None
    security_word: str | None = None
    weak: tuple[tuple[str, str], ...] = ()
    senses: frozenset[str] = _NO_SENSES
    # candidate directory rules, best first, each with the extensions it applies to
    architecture: tuple[tuple[str, frozenset[str] | None], ...] = ()


NO_DIRS = DirFacts()


def _split_words(text: str) -> list[str]:
    return " ".join(_WORD.findall(text)).lower().split()


def _security_words(words: list[str]) -> _Words:
    present = set(words)
    if (
        SECURITY_WORDS.isdisjoint(present)
        and _COMPOUND_HEADS.isdisjoint(present)
        and _SENSE_WORDS.isdisjoint(present)
    ):
        return _NO_WORDS
    # A joined compound is the more exact name for what it matched ("oauth2" rather than "oauth").
    candidates = [a + b for a, b in pairwise(words) if a + b in COMPOUND_WORDS] + words
    found = [w for w in candidates if w in SECURITY_WORDS]
    senses = frozenset(w for w, context in AMBIGUOUS_WORDS.items() if not context.isdisjoint(present))
    if not found and not senses:
        return _NO_WORDS
    strong = next((w for w in found if w not in AMBIGUOUS_WORDS), None)
    weak = tuple(dict.fromkeys(w for w in found if w in AMBIGUOUS_WORDS))
    return _Words(strong, weak, senses)


def _best(hits: Iterable[Hit], category: Category, ext: str) -> str | None:
    best: Hit | None = None
    for hit in hits:
        if hit[1] == category and (hit[3] is None or ext in hit[3]) and (best is None or hit[0] < best[0]):
            best = hit
    return None if best is None else best[2]


def _file_facts(name: str) -> FileFacts:
    lower = name.lower()
    cut = lower.rfind(".")
    ext = lower[cut + 1 :] if cut > 0 else ""
    if ext in INERT_EXTS:
        return FileFacts(inert=True, ext=ext)
    if not lower or lower in LOCK_NAMES:
        return _plain(ext)
    stem = name[:cut] if cut > 0 else name
    words = _split_words(stem)
    hits = _file_hits(name, lower, stem, ext, words)
    env = _env_file(lower) if "env" in lower else None
    found = _NO_WORDS if ext in STUB_EXTS else _security_words(words)
    if hits and _not_architecture(lower, words):
        hits = [hit for hit in hits if hit[1] != "architecture"]
    if not hits and env is None and found is _NO_WORDS:
        return _plain(ext)
    return FileFacts(
        inert=False,
        ext=ext,
        security=env[1] if env and env[0] == "security" else _best(hits, "security", ext),
        security_word=None if found.strong is None else f"word '{found.strong}' in a file name",
        weak=tuple((w, f"word '{w}' in a file name") for w in found.weak),
        senses=found.senses,
        architecture=env[1] if env and env[0] == "architecture" else _best(hits, "architecture", ext),
    )


def _not_architecture(lower: str, words: list[str]) -> bool:
    """A test file (test_config.py, TestConfig.java) or a check tool's configuration (see riskrules)."""
    if words and (words[0] == "test" or words[-1] in TEST_NAME_LAST_WORDS):
        return True
    return is_check_config(lower)


def _plain(ext: str) -> FileFacts:
    """The facts of a name no rule matches, one per extension."""
    return _PLAIN.get(ext) or _remember(_PLAIN, ext, FileFacts(inert=False, ext=ext))


def _file_hits(name: str, lower: str, stem: str, ext: str, words: list[str]) -> list[Hit]:
    stem_lower = stem.lower()
    hits: list[Hit] = []
    for found in (
        _BY_NAME.get(lower),
        _BY_NAME_CASE.get(name),
        _BY_EXT.get(ext),
        _BY_STEM.get(stem_lower),
        _BY_LAST_PART.get(stem_lower.rpartition(".")[2]),
    ):
        if found:
            hits += found
    table = TABLE
    if stem_lower.endswith(table.last_words):
        hits += table.hits("last-word", _last_word(stem))
    if not table.words.isdisjoint(words):
        for word in dict.fromkeys(words):
            hits += table.hits("word", word)
    prefix = table.prefix.match(lower)
    if prefix:
        hits += table.hits("prefix", prefix.group(1))
    if lower.endswith(table.suffixes):
        hits += [
            hit for suffix in table.suffixes if lower.endswith(suffix) for hit in table.hits("suffix", suffix)
        ]
    return hits


def _last_word(stem: str) -> str:
    """The word a name ends in: after `_ - .`, or the last word of a PascalCase class name.

    A camelCase name ends in no word of its own (`useConfig` is a function, not a configuration).
    """
    chunks: list[str] = _CHUNK.findall(stem)
    if not chunks:
        return ""
    last = chunks[-1]
    if last[0].isupper():
        words: list[str] = _WORD.findall(last)
        return words[-1].lower() if words else ""
    return last.lower()


def _env_file(lower: str) -> tuple[Category, str] | None:
    """A dotenv file (`.env`, `.env.local`, `app.env`) is security; a template of one is architecture."""
    dotenv = lower.startswith(".env") and (len(lower) == 4 or lower[4] in ".-_")
    parts = lower.lstrip(".").split(".")
    template = next((p for p in parts[1:] if p in ENV_TEMPLATE_WORDS), None)
    if dotenv or (len(parts) > 1 and parts[-1] == "env"):
        if template is None:
            return ("security", "**/.env*" if dotenv else "**/*.env")
        return ("architecture", f"**/.env.{template}" if dotenv else f"**/*.env.{template}")
    if template is not None and parts[0] == "env":
        return ("architecture", f"**/env.{template}")
    return None


class _SegmentFacts(NamedTuple):
    lower: str
    inert: bool
    tree: str | None  # "test", "example", "docs" or "tooling": a tree that is not the project itself
    security: tuple[tuple[int, str], ...]  # (rank, pattern)
    words: _Words
    architecture: tuple[Hit, ...]  # "dir" rules
    parent: tuple[Hit, ...]  # "parent" rules, which apply only right above the file


def _segment_facts(segment: str) -> _SegmentFacts:
    lower = segment.lower()
    dir_hits = TABLE.hits("dir", lower)
    security = [(h[0], h[2]) for h in dir_hits if h[1] == "security"]
    words = _Words()
    if lower in SECURITY_WORDS and lower not in AMBIGUOUS_WORDS:
        security.append((TABLE.word_rank, f"**/{lower}/**"))
    elif lower not in INERT_DIRS:
        words = _security_words(_split_words(segment))
    return _SegmentFacts(
        lower=lower,
        inert=lower in INERT_DIRS,
        tree=_tree(lower),
        security=tuple(security),
        words=words,
        architecture=tuple(h for h in dir_hits if h[1] == "architecture"),
        parent=tuple(h for h in TABLE.hits("parent", lower) if h[1] == "architecture"),
    )


def _tree(lower: str) -> str | None:
    if lower in TEST_DIRS:
        return "test"
    if lower in EXAMPLE_DIRS:
        return "example"
    if lower in DOCS_DIRS:
        return "docs"
    return "tooling" if lower in TOOLING_DIRS else None


_T = TypeVar("_T")


def _remember(cache: dict[str, _T], key: str, value: _T) -> _T:
    if len(cache) >= CACHE_LIMIT:
        cache.clear()
    cache[key] = value
    return value


def _dir_facts(where: str) -> DirFacts:
    segments = [s for s in where.split("/") if s and s != "."]
    facts = [_SEGMENTS.get(s) or _remember(_SEGMENTS, s, _segment_facts(s)) for s in segments]
    if not facts:
        return NO_DIRS
    security: list[tuple[int, int, str]] = []
    architecture: list[tuple[int, int, str, frozenset[str] | None]] = []
    for depth, seg in enumerate(facts):
        security += [(rank, depth, pattern) for rank, pattern in seg.security]
        hits = list(seg.architecture) + list(seg.parent if depth == len(facts) - 1 else ())
        if depth:
            pair = TABLE.dirpaths.get((facts[depth - 1].lower, seg.lower), ())
            security += [(h[0], depth, h[2]) for h in pair if h[1] == "security"]
            hits += [h for h in pair if h[1] == "architecture"]
        architecture += [(h[0], depth, h[2], h[3]) for h in hits]
    strong = next((s.words.strong for s in facts if s.words.strong), None)
    trees = {s.tree for s in facts}
    return DirFacts(
        inert=any(s.inert for s in facts),
        aside=trees != {None},
        code_only=bool(trees & {"test", "example", "docs"}),
        security=min(security)[2] if security else None,
        security_unjudged=min(unjudged)[2]
        if (unjudged := [s for s in security if s[2] not in JUDGED])
        else None,
        security_word=None if strong is None else f"word '{strong}' in a directory name",
        weak=tuple(
            (w, f"**/{s.lower}/**" if s.lower == w else f"word '{w}' in a directory name")
            for s in facts
            for w in s.words.weak
        ),
        senses=frozenset().union(*(s.words.senses for s in facts)),
        architecture=tuple(
            (pattern, exts) for _, _, pattern, exts in sorted(architecture, key=lambda a: a[:2])
        ),
    )


def unambiguous(file: FileFacts, dirs: DirFacts) -> str | None:
    senses = file.senses | dirs.senses
    return next((pattern for word, pattern in file.weak + dirs.weak if word not in senses), None)


_FILES: dict[str, FileFacts] = {}
_PLAIN: dict[str, FileFacts] = {}
_DIRS: dict[str, DirFacts] = {}
_SEGMENTS: dict[str, _SegmentFacts] = {}


def file_facts(name: str) -> FileFacts:
    """What a file name says to the rules (memoised)."""
    return _FILES.get(name) or _remember(_FILES, name, _file_facts(name))


def dir_facts(where: str) -> DirFacts:
    """What a directory path (`a/b/c`, no file name) says to the rules (memoised)."""
    return (_DIRS.get(where) or _remember(_DIRS, where, _dir_facts(where))) if where else NO_DIRS
