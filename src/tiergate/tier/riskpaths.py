"""Architecture- and security-sensitive paths: which files of a change lift its verification floor.

Pure: paths in, matches with the rule that matched out. The rules are data (`tiergate.tier.riskrules`); the
user's configuration can add gitignore-style globs to either category and can never remove a built-in
rule, because the agent being verified could otherwise configure its own floor away.

How a path is read. `\\` and `/` both separate directories. Matching ignores case, except in camelCase
splitting and in Bazel's `BUILD` and `WORKSPACE` (a script called `build` is not a Bazel file). Names are
split into words at `_ - .`, digits and camelCase, so `getAuthToken.ts`, `jwt_utils.ts` and
`oauth2-client.ts` hold security words while `tokenizer.ts`, `StringTokenizer.ts`, `secretariat.ts`,
`permissionless.ts`, `authors.py`, `keyboard.ts`, `appconfig.ts` and `dbschema.sql` hold none. A
directory counts wherever it stands, the repository root included (`auth/login.py`), and no rule looks
at depth: directories that mean nothing to the rules, added above a path, never change its result.

Judgement calls (the seed is silent on them):

- Prose, pictures, fonts and media (`docs/auth.md`, `SECURITY.md`, `auth/logo.svg`) and translation
  catalogues (`locales/en/auth.json`) change no behaviour: the built-in rules never flag them.
- Tests of security code are security-sensitive (`tests/auth/test_login.py`, `auth_test.go`): a loop
  that weakens a security test does as much harm as one that weakens the code.
- Lock files (`package-lock.json`, `Cargo.lock`, `go.sum` ...) are not architecture: they change with
  every dependency bump, and the manifest beside them already counts. Compiled pins are lock files by
  another name (`constraints.txt`, pip-compile's `requirements/*.txt`).
- pip's requirements: `requirements.txt` / `.in` and the runtime variants (`requirements/base.txt`,
  `requirements-prod.in`: base, common, main, prod, production, runtime, install, default) are the
  manifest of an application that installs from them: architecture. Every other variant
  (`requirements/dev.txt`, `requirements/tests.in`, `mypy-requirements.txt`) pins the tools that build,
  test, lint or document the project; its changes are mostly bot bumps: not architecture.
- Test, example and docs trees are not the project. Inside a directory named `test(s)`, `testing`,
  `__tests__`, `testdata`, `fixtures`, `__fixtures__`, `__mocks__`, `fuzz`, `example(s)`, `_examples`,
  `sample(s)`, `doc(s)`, `documentation` or `website`, no path is architecture: a manifest, configuration
  or schema there belongs to a fixture project, an example app or the docs build
  (`tests/fixtures/app/package.json`, `examples/tutorial/pyproject.toml`, `docs/requirements.txt`).
  Security there comes from the file rules (key material: `tests/certs/server.key` is what the TLS tests
  check against; `.env` files) and, for code only, from security words: tests of security code are
  security (`tests/test_ssl.py`), and people copy an example's login code into their own app
  (`examples/auth/index.js`). Other files there take nothing from a word: page templates
  (`examples/auth/views/login.ejs`), certificate recipes and bookkeeping (`tests/certs/Makefile`,
  `ca.cnf`, `ca.srl`), which change nothing a test trusts until the certificates are made again. CI's
  tooling (`ci/`, `.ci/`, `.devcontainer/`: cross-compilation images, a dev container) is not architecture
  either, and keeps its security.
- Type stubs (`.pyi`) run nothing: no word in their name makes them security.
- A file named as a test (`test_config.py`, `TestConfig.java`, `types.spec.ts`) is never architecture.
- Issue, discussion and pull-request templates (`.github/ISSUE_TEMPLATE/**`, its `config.yml`
  included, `PULL_REQUEST_TEMPLATE*`, GitLab's `issue_templates`) are neither category: they are forms
  shown to people. Neither are `FUNDING.yml`, `.github/release.yml`, `.github/dependabot.yml` and
  `renovate.json`: the bots propose updates, and each update is a change verified on its own (a workflow
  that merges them unreviewed is under `.github/workflows`, which is security).
- `.env.example` and other `.env` templates are architecture (they declare the configuration a deploy
  needs), not security (they hold no secrets). Every other `.env*` file and `*.env` is security.
- CI definitions (`.github/workflows/**`, `.gitlab-ci.yml`, `Jenkinsfile` ...) are security: they run
  with the repository's secrets and deploy rights. So is `CODEOWNERS` (who must review what). A
  workflow whose changed lines the content rules read (`judged`; `tiergate.tier.content.ci`) is theirs
  to decide: an action's version bump is routine, a new `run:` command is not.
- Terraform, Helm, Kustomize and Kubernetes manifests, Dockerfiles and compose files are architecture;
  Terraform variable and state files are security (they carry credentials in plain text).
- The configuration of the project's own checks (`pytest.ini`, `tox.ini`, `.pre-commit-config.yaml`,
  `.eslintrc*`, `jest.config.js`, `ruff.toml` ...: `riskrules.CHECK_CONFIG_*`, `is_check_config`) is
  not architecture by its path, or every hook autoupdate would go THOROUGH. Weakening what the checks
  measure is how a loop fakes green, so a change whose changed lines weaken them (an added ignore, skip
  or exclude, a lowered `fail_under`, a removed hook) is architecture: the content rule
  `tiergate.tier.content.checkconfig` reads those lines. Build configurations (`webpack.config.js`,
  `vite.config.ts`) stay architecture; so do `pyproject.toml` and `setup.cfg`, which also declare the
  package and its dependencies, whichever section changed.
- `config` names configuration in data formats (json, yaml, toml, ini, xml, properties ...), in
  JavaScript and TypeScript files (the seed's `config.{ts,js,json}`, `webpack.config.js`,
  `app-config.ts`), in C headers (`config.h`), and ending a Spring or .NET class file
  (`DatabaseConfig.java`, `AuthConfig.cs`), where a *Config class wires the application. In other code
  (`flask/config.py`, `config.rs`, `app_config.py`) it names the module that reads and models
  configuration: code like any other. It counts after `_ - .` or in a PascalCase class file, not in
  camelCase, where it names a function (`useConfig.ts`, `getConfig.ts`); likewise `schema`, which counts
  in every language (a schema module declares a data contract: `schema.rs`, `schemas.py`).
- `types` is the contract in TypeScript (the seed's `types.ts`, `*.types.ts`, `*.d.ts`) and in C
  headers (`types.h`); `types.py`, `types.go`, `types.rs` are modules like any other.
- A security word with a common harmless sense yields to the path's context: `token` beside lexer,
  parser, design, theme, style or language-model words (`src/lexer/token.rs`, `src/styles/tokens.ts`,
  `llm/token_counter.py`), cancellation or bucket words (`CancelToken.js`, `TokenBucket.java`),
  `crypto` beside market words (`crypto_prices.py`). A bare `token.ts` stays security, as in the seed.
- Barrel files (`index.ts`, `__init__.py`, `mod.rs`) and ORM model files are not architecture: a schema
  change shows up in the migration that must come with it.
- `login` and `signin` are security words (a login page handles credentials; `LoginButton.tsx` is the
  price). `session`, `policy` and `key(s)` are not: they are as often a database session, a retry
  policy or a dictionary key. Compounds count (`api_key`, `PrivateKey`, `KeyStore`).

Which rule a match names: a rule about the file itself before one about a directory above it, and among
those the first in the table; a security word after every table rule; the user's globs (matched without
regard to case, like the rest) only when no built-in rule matched that category.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import NamedTuple, TypeVar

from tiergate.frozen import frozen
from tiergate.text import quote_inline, quote_path
from tiergate.tier.riskrules import (
    AMBIGUOUS_WORDS,
    CHECK_CONFIG_NAMES,
    CHECK_CONFIG_PREFIXES,
    CHECK_CONFIG_TOOLS,
    CODE_EXTS,
    COMPOUND_WORDS,
    CONTENT_JUDGED_DIRPATHS,
    DOCS_DIRS,
    ENV_TEMPLATE_WORDS,
    EXAMPLE_DIRS,
    INERT_DIRS,
    INERT_EXTS,
    LOCK_NAMES,
    RULES,
    SECURITY_WORDS,
    STUB_EXTS,
    TEST_DIRS,
    TEST_NAME_LAST_WORDS,
    TOOLING_DIRS,
    Category,
    Rule,
)

__all__ = ["DEFAULT", "Category", "PathMatch", "RiskPaths", "RiskScan", "is_check_config"]

# Words inside one name: ALLCAPS runs before a capitalised word, capitalised or lowercase runs, digits.
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_CHUNK = re.compile(r"[A-Za-z0-9]+")
# Prose rules read "word 'jwt' in a file name"; every other pattern is a glob.
_PROSE_PREFIX = "word '"
# Segment facts are memoised, bounded so that a stream of unique names cannot grow memory without end.
_CACHE_LIMIT = 1 << 16


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


# -- compiled rule table --------------------------------------------------------------------------------

# One hit of a rule: its place in the table (lower wins), category, pattern as shown, and its filter: the
# extensions it applies to, or for a rule with stems, the lowercase file names.
_Hit = tuple[int, Category, str, frozenset[str] | None]
_Keyed = dict[str, tuple[_Hit, ...]]
_NO_HITS: tuple[_Hit, ...] = ()
_NO_SENSES: frozenset[str] = frozenset()


@frozen
class _Table:
    kinds: dict[str, _Keyed]
    dirpaths: dict[tuple[str, str], tuple[_Hit, ...]]
    # Cheap gates, so that a name no rule of a kind could match costs one C call for that kind.
    prefix: re.Pattern[str]
    suffixes: tuple[str, ...]
    last_words: tuple[str, ...]
    words: frozenset[str]
    word_rank: int  # security words rank after every table rule

    def hits(self, kind: str, key: str) -> tuple[_Hit, ...]:
        return self.kinds[kind].get(key, _NO_HITS)


_KINDS = ("name", "name-case", "prefix", "ext", "suffix", "stem", "last-part", "last-word", "word", "dir")


def _compile(rules: Sequence[Rule]) -> _Table:
    kinds: dict[str, dict[str, list[_Hit]]] = {kind: {} for kind in (*_KINDS, "parent")}
    dirpaths: dict[tuple[str, str], list[_Hit]] = {}
    for index, rule in enumerate(rules):
        exts = None if rule.exts is None else frozenset(rule.exts)
        if rule.stems is not None:
            exts = frozenset(f"{stem}.{ext}" for stem in rule.stems for ext in rule.exts or ())
        shown_exts = "" if rule.exts is None else _brace(rule.exts)
        shown_stems = "" if rule.stems is None else _brace(rule.stems)
        for key in rule.keys:
            lookup = key if rule.kind == "name-case" else key.lower()
            shown = rule.pattern.format(key=key, exts=shown_exts, stems=shown_stems)
            hit: _Hit = (index, rule.category, shown, exts)
            if rule.kind == "dirpath":
                first, second = lookup.split("/")
                dirpaths.setdefault((first, second), []).append(hit)
            else:
                kinds[rule.kind].setdefault(lookup, []).append(hit)
    prefixes = "|".join(re.escape(k) for k in sorted(kinds["prefix"], key=len, reverse=True))
    return _Table(
        kinds={kind: {k: tuple(v) for k, v in keyed.items()} for kind, keyed in kinds.items()},
        dirpaths={k: tuple(v) for k, v in dirpaths.items()},
        prefix=re.compile(rf"({prefixes})(?:[._-]|$)"),
        suffixes=tuple(kinds["suffix"]),
        last_words=tuple(kinds["last-word"]),
        words=frozenset(kinds["word"]),
        word_rank=len(rules),
    )


def _brace(exts: tuple[str, ...]) -> str:
    return exts[0] if len(exts) == 1 else "{" + ",".join(exts) + "}"


_TABLE = _compile(RULES)
# The patterns of the rules a content judge replaces, as they show in a match.
_JUDGED = frozenset(f"**/{key}/**" for key in CONTENT_JUDGED_DIRPATHS)
# The kinds every file name is looked up in, bound once: most names are found in none of them.
_BY_NAME = _TABLE.kinds["name"]
_BY_NAME_CASE = _TABLE.kinds["name-case"]
_BY_EXT = _TABLE.kinds["ext"]
_BY_STEM = _TABLE.kinds["stem"]
_BY_LAST_PART = _TABLE.kinds["last-part"]
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


# -- what one file name or one directory path contributes ---------------------------------------------


class _Words(NamedTuple):
    """The security words of one name: the first strong one, the ambiguous ones, the senses it gives."""

    strong: str | None = None
    weak: tuple[str, ...] = ()
    senses: frozenset[str] = _NO_SENSES


_NO_WORDS = _Words()


class _FileFacts(NamedTuple):
    inert: bool
    ext: str
    security: str | None = None  # a file rule (.env, *.pem, CODEOWNERS ...)
    security_word: str | None = None
    weak: tuple[tuple[str, str], ...] = ()  # (ambiguous word, pattern)
    senses: frozenset[str] = _NO_SENSES
    architecture: str | None = None


class _DirFacts(NamedTuple):
    inert: bool = False
    aside: bool = False  # inside a test, example, docs or CI tooling tree: no architecture
    code_only: bool = False  # inside a test, example or docs tree: security words count for code only
    security: str | None = None  # a directory rule (**/auth/**, .github/workflows ...)
    # the same without the rules a content judge replaces (CONTENT_JUDGED_DIRPATHS), for a file it read
    security_unjudged: str | None = None
    security_word: str | None = None
    weak: tuple[tuple[str, str], ...] = ()
    senses: frozenset[str] = _NO_SENSES
    # candidate directory rules, best first, each with the extensions it applies to
    architecture: tuple[tuple[str, frozenset[str] | None], ...] = ()


_NO_DIRS = _DirFacts()


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


def _best(hits: Iterable[_Hit], category: Category, ext: str) -> str | None:
    best: _Hit | None = None
    for hit in hits:
        if hit[1] == category and (hit[3] is None or ext in hit[3]) and (best is None or hit[0] < best[0]):
            best = hit
    return None if best is None else best[2]


def _file_facts(name: str) -> _FileFacts:
    lower = name.lower()
    cut = lower.rfind(".")
    ext = lower[cut + 1 :] if cut > 0 else ""
    if ext in INERT_EXTS:
        return _FileFacts(inert=True, ext=ext)
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
    return _FileFacts(
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


def _plain(ext: str) -> _FileFacts:
    """The facts of a name no rule matches, one per extension."""
    return _PLAIN.get(ext) or _remember(_PLAIN, ext, _FileFacts(inert=False, ext=ext))


def _file_hits(name: str, lower: str, stem: str, ext: str, words: list[str]) -> list[_Hit]:
    stem_lower = stem.lower()
    hits: list[_Hit] = []
    for found in (
        _BY_NAME.get(lower),
        _BY_NAME_CASE.get(name),
        _BY_EXT.get(ext),
        _BY_STEM.get(stem_lower),
        _BY_LAST_PART.get(stem_lower.rpartition(".")[2]),
    ):
        if found:
            hits += found
    table = _TABLE
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
    architecture: tuple[_Hit, ...]  # "dir" rules
    parent: tuple[_Hit, ...]  # "parent" rules, which apply only right above the file


def _segment_facts(segment: str) -> _SegmentFacts:
    lower = segment.lower()
    dir_hits = _TABLE.hits("dir", lower)
    security = [(h[0], h[2]) for h in dir_hits if h[1] == "security"]
    words = _Words()
    if lower in SECURITY_WORDS and lower not in AMBIGUOUS_WORDS:
        security.append((_TABLE.word_rank, f"**/{lower}/**"))
    elif lower not in INERT_DIRS:
        words = _security_words(_split_words(segment))
    return _SegmentFacts(
        lower=lower,
        inert=lower in INERT_DIRS,
        tree=_tree(lower),
        security=tuple(security),
        words=words,
        architecture=tuple(h for h in dir_hits if h[1] == "architecture"),
        parent=tuple(h for h in _TABLE.hits("parent", lower) if h[1] == "architecture"),
    )


def _tree(lower: str) -> str | None:
    if lower in TEST_DIRS:
        return "test"
    if lower in EXAMPLE_DIRS:
        return "example"
    if lower in DOCS_DIRS:
        return "docs"
    return "tooling" if lower in TOOLING_DIRS else None


# -- the engine --------------------------------------------------------------------------------------


class RiskPaths:
    """The built-in rules plus the user's extra globs, compiled once; `match` costs a few microseconds."""

    def __init__(self, extra_security: Sequence[str] = (), extra_architecture: Sequence[str] = ()) -> None:
        self._extra_security = _compile_globs(extra_security, "security")
        self._extra_architecture = _compile_globs(extra_architecture, "architecture")
        self._has_extras = self._extra_security is not None or self._extra_architecture is not None

    def match(self, path: str, judged: bool = False) -> tuple[PathMatch, ...]:
        """The path's matches, at most one per category. `judged`: a content judge read the file's
        changed lines (a CI workflow), so the path rules it replaces do not count."""
        norm = path.replace("\\", "/")
        cut = norm.rfind("/")
        name = norm[cut + 1 :]
        file = _FILES.get(name) or _remember(_FILES, name, _file_facts(name))
        where = norm[:cut] if cut > 0 else ""
        dirs = (_DIRS.get(where) or _remember(_DIRS, where, _dir_facts(where))) if where else _NO_DIRS
        security: str | None = None
        architecture: str | None = None
        if not (file.inert or dirs.inert):
            security = file.security
            if security is None and not (dirs.code_only and file.ext not in CODE_EXTS):
                security = (dirs.security_unjudged if judged else dirs.security) or file.security_word
                security = security or dirs.security_word
                if security is None and (file.weak or dirs.weak):
                    security = _unambiguous(file, dirs)
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
            relative = _relative(norm)
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


_FILES: dict[str, _FileFacts] = {}
_PLAIN: dict[str, _FileFacts] = {}
_DIRS: dict[str, _DirFacts] = {}
_SEGMENTS: dict[str, _SegmentFacts] = {}


_T = TypeVar("_T")


def _remember(cache: dict[str, _T], key: str, value: _T) -> _T:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value
    return value


def _dir_facts(where: str) -> _DirFacts:
    segments = [s for s in where.split("/") if s and s != "."]
    facts = [_SEGMENTS.get(s) or _remember(_SEGMENTS, s, _segment_facts(s)) for s in segments]
    if not facts:
        return _NO_DIRS
    security: list[tuple[int, int, str]] = []
    architecture: list[tuple[int, int, str, frozenset[str] | None]] = []
    for depth, seg in enumerate(facts):
        security += [(rank, depth, pattern) for rank, pattern in seg.security]
        hits = list(seg.architecture) + list(seg.parent if depth == len(facts) - 1 else ())
        if depth:
            pair = _TABLE.dirpaths.get((facts[depth - 1].lower, seg.lower), ())
            security += [(h[0], depth, h[2]) for h in pair if h[1] == "security"]
            hits += [h for h in pair if h[1] == "architecture"]
        architecture += [(h[0], depth, h[2], h[3]) for h in hits]
    strong = next((s.words.strong for s in facts if s.words.strong), None)
    trees = {s.tree for s in facts}
    return _DirFacts(
        inert=any(s.inert for s in facts),
        aside=trees != {None},
        code_only=bool(trees & {"test", "example", "docs"}),
        security=min(security)[2] if security else None,
        security_unjudged=min(unjudged)[2]
        if (unjudged := [s for s in security if s[2] not in _JUDGED])
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


def _unambiguous(file: _FileFacts, dirs: _DirFacts) -> str | None:
    senses = file.senses | dirs.senses
    return next((pattern for word, pattern in file.weak + dirs.weak if word not in senses), None)


# -- the user's globs -------------------------------------------------------------------------------

_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


class _Globs(NamedTuple):
    """gitignore-style globs of one category, in order: the last glob that matches a path decides it."""

    globs: tuple[tuple[str, re.Pattern[str], bool], ...]  # (glob as written, regex, include)
    # Any including glob at all, in one regex: most paths match none, and then one search says so.
    gate: re.Pattern[str]

    def match(self, path: str) -> str | None:
        if not self.gate.match(path):
            return None
        found: str | None = None
        for glob, regex, include in self.globs:
            if regex.match(path):
                found = glob if include else None
        return found


def _compile_globs(globs: Sequence[str], category: Category) -> _Globs | None:
    if not globs:
        return None
    from pathspec import GitIgnoreSpec

    from tiergate.errors import UserError

    compiled: list[tuple[str, re.Pattern[str], bool]] = []
    for glob in globs:
        if not isinstance(glob, str):
            raise UserError(f"extra {category} pattern {glob!r} is not a string")
        try:
            patterns = GitIgnoreSpec.from_lines([glob]).patterns
        except ValueError as exc:
            raise UserError(f"extra {category} pattern '{glob}' is not a valid glob: {exc}") from None
        for pattern in patterns:
            regex = getattr(pattern, "regex", None)
            if pattern.include is None or regex is None:
                continue
            # Case-insensitive like the built-in rules: `Billing/` on macOS or Windows is `billing/`.
            compiled.append((glob, re.compile(regex.pattern, re.IGNORECASE), bool(pattern.include)))
    including = [_NAMED_GROUP.sub("(?:", r.pattern) for _, r, include in compiled if include]
    gate = "|".join(f"(?:{p})" for p in including) if including else "(?!)"
    return _Globs(tuple(compiled), re.compile(gate, re.IGNORECASE))


def _relative(norm: str) -> str:
    while norm.startswith(("./", "/")):
        norm = norm[1:] if norm[0] == "/" else norm[2:]
    return norm


DEFAULT = RiskPaths()
