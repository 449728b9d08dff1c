"""Rules for the configuration of the project's own checks: a change that weakens what they measure (an
ignore or skip added, a failure masked, a hook, a strictness switch or a coverage floor removed). By path
such files are not architecture, or every `pre-commit autoupdate` would go THOROUGH; these lines are,
each hit named. See docs/risk.md, "Check configurations".
"""

from __future__ import annotations

from tiergate.tier.content.rule import ContentRule, Ecosystem, Sides, word
from tiergate.tier.riskrules import CHECK_CONFIG_NAMES, CHECK_CONFIG_PREFIXES, CHECK_CONFIG_TOOLS

# A key as TOML and INI (`key =`), YAML and JavaScript (`key:`) or JSON (`"key":`) write it.
_KEY = r"""["']?[ \t]*[=:]"""
# What starts a whole-line comment in INI, TOML, YAML, JavaScript and XML: removing `#strict = true`
# weakens nothing.
_COMMENTS = ("#", "//", ";", "/*", "<!--")


def _rule(construct: str, pattern: str, sides: Sides) -> ContentRule:
    return ContentRule(construct, pattern, category="architecture", sides=sides)


def _keys(construct: str, *keys: str, sides: Sides = "added") -> tuple[ContentRule, ...]:
    return tuple(_rule(construct, word(key) + _KEY, sides) for key in keys)


def _words(construct: str, *names: str, sides: Sides = "added") -> tuple[ContentRule, ...]:
    return tuple(_rule(construct, word(name), sides) for name in names)


_IGNORED = "check weakened: an ignore, skip or exclude rule added"
_DISABLED = "check weakened: a check disabled"
_MASKED = "check weakened: a failure masked"
_REMOVED = "check weakened: a hook or rule selection removed"
_LOOSENED = "check weakened: a strictness or error level removed"
_FLOOR = "check weakened: a coverage floor changed or removed"

_MASKS: tuple[ContentRule, ...] = (
    _rule(_MASKED, r"continue-on-error" + _KEY + r"[ \t]*(?:true|\$\{\{)", "added"),
    _rule(_MASKED, r"allow_failure" + _KEY + r"[ \t]*true", "added"),
    _rule(_MASKED, r"\|\|[ \t]*(?:true|exit 0|:)(?![A-Za-z0-9_])", "added"),
    *_words(_DISABLED, "--no-verify"),
    _rule(_LOOSENED, r"-D[ \t]*warnings\b", "removed"),
    _rule(_LOOSENED, r"--deny[ \t]+warnings\b", "removed"),
    *_words(_LOOSENED, "-Werror", sides="removed"),
)

_RULES: tuple[ContentRule, ...] = (
    *_keys(
        _IGNORED,
        *("ignore", "ignores", "ignore_errors", "ignore_missing_imports", "ignore_outcome", "ignorePatterns"),
        *("exclude", "exclude_lines", "exclude_also", "exclude-rules", "exclude-dirs", "exclude-files"),
        *("excludes", "skip-dirs", "skip-files", "omit", "skip", "norecursedirs", "collect_ignore"),
        *("collect_ignore_glob", "testPathIgnorePatterns", "coveragePathIgnorePatterns"),
        *("modulePathIgnorePatterns",),
    ),
    # also as a TOML table: [tool.ruff.lint.per-file-ignores]
    *_words(_IGNORED, "per-file-ignores"),
    *_keys(_DISABLED, "disable", "disable-all", "disable_error_code", "disabled_rules"),
    *_keys(_DISABLED, "allow_untyped_defs", "allow_untyped_calls", "allow_incomplete_defs"),
    *_words(_IGNORED, "--deselect", "--ignore", "--ignore-glob", "--exclude", "--extend-ignore"),
    _rule(_DISABLED, r"-p[ \t]*no:", "added"),
    _rule(_IGNORED, r"-[km][ \t]+[\"']?not\b", "added"),
    *_words(_DISABLED, "--passWithNoTests", "--suppress-no-test-exit-code", "--no-cov"),
    _rule(_DISABLED, r"""off(?<=["']off)["']""", "added"),
    # removed lines
    _rule(_REMOVED, r"- id:", "removed"),
    *_keys(_REMOVED, "select", "extend-select", "enable", "enable-all", sides="removed"),
    # `strict` also finds --strict-markers and --strict-config
    *_words(_LOOSENED, "strict", "strict_markers", "strict_optional", sides="removed"),
    # mypy's disallow_untyped_defs, clippy's disallowed-methods
    _rule(_LOOSENED, r"disallow(?<![A-Za-z0-9_]disallow)(?:ed)?[-_][a-z_-]+", "removed"),
    _rule(_LOOSENED, r"warn_(?<![A-Za-z0-9_]warn_)[a-z_]+", "removed"),
    _rule(_LOOSENED, r"error(?<![A-Za-z0-9_.-]error)(?![A-Za-z0-9_-])", "removed"),
    *_words(_LOOSENED, "--max-warnings", "warnings_as_errors", "TreatWarningsAsErrors", sides="removed"),
    *_words(_FLOOR, "fail_under", "fail-under", "--cov-fail-under", "coverageThreshold", sides="removed"),
    *_words(_FLOOR, "thresholds", "minimum_coverage", sides="removed"),
    *_MASKS,
)

CHECK_CONFIG = Ecosystem(
    "checkconfig",
    rules=_RULES,
    comments=_COMMENTS,
    # a fixture project's or an example app's checks are not the project's (tests/conftest.py is)
    ignore_dirs=("fixtures", "__fixtures__", "testdata", "examples", "example", "_examples", "samples"),
    names=(
        *sorted(CHECK_CONFIG_NAMES),
        *(f"{prefix}*" for prefix in CHECK_CONFIG_PREFIXES),
        *(f"{tool}.config.*" for tool in sorted(CHECK_CONFIG_TOOLS)),
        *("pyproject.toml", "setup.cfg", "package.json", "tsconfig.json", "tsconfig.*.json"),
    ),
)

# Masked failures and bypassed hooks in CI definitions, scripts and Makefiles.
CHECK_RUNS = Ecosystem(
    "checkruns",
    rules=_MASKS,
    comments=_COMMENTS,
    suffixes=(".yml", ".yaml", ".sh", ".mk"),
    names=("Makefile", "GNUmakefile", "justfile", "Justfile", "Jenkinsfile"),
)
