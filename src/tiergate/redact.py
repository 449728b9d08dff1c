"""Credentials taken out of text before tiergate keeps it or hands it on: `redact(text) -> str`. Pure.

A check's output carries them in (a test printing its environment); each secret found becomes
`[redacted: <kind>]`, its prefix naming the kind kept. The patterns are the providers' documented token
formats (`PATTERNS`). Why not detect-secrets: docs/ARCHITECTURE.md, "Credentials out of what tiergate keeps".
"""
# Each pattern is searched only in a text holding its literal needle. No I/O; `re` is imported here, so
# the hook's common path must import this module lazily.

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from tiergate import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

MARK = "[redacted: {}]"


class Pattern:
    """One kind of credential: the regular expression, the literal needles it starts with (a text
    without any of them is not searched), and which of its groups is kept as a harmless prefix (0: none).

    Every expression starts with its needle, and a word boundary is checked after the needle (`_word`):
    CPython's `re` then finds candidates as fast as `str.find` does, where a leading `\\b` or character
    class makes it try every position (about 50 ms per MB and pattern, measured)."""

    __slots__ = ("_compiled", "_rest", "boundary", "keep", "kind", "needles")

    def __init__(
        self, kind: str, needles: tuple[str, ...], rest: str, *, keep: int = 0, boundary: bool = True
    ):
        self.kind = kind
        self.needles = needles
        self.keep = keep
        self.boundary = boundary
        self._rest = rest
        self._compiled: dict[str, re.Pattern[str]] = {}

    def regex(self, needle: str) -> re.Pattern[str]:
        """The expression for the matches that start with `needle`, compiled when first needed: one
        expression per needle, because an alternation of literals is searched far slower than one."""
        compiled = self._compiled.get(needle)
        if compiled is None:
            start = _word(needle) if self.boundary else re.escape(needle)
            compiled = re.compile(f"({start}{self._rest}" if self.keep else f"{start}{self._rest}")
            self._compiled[needle] = compiled
        return compiled


def _word(literal: str) -> str:
    """`literal`, not preceded by a letter, digit or underscore."""
    return f"{re.escape(literal)}(?<![A-Za-z0-9_]{re.escape(literal)})"


def _cases(*names: str) -> tuple[str, ...]:
    """How a name is written in configuration and environments: `token`, `TOKEN`, `Token`."""
    return tuple(dict.fromkeys(v for n in names for v in (n, n.upper(), n.capitalize())))


_B64 = r"A-Za-z0-9+/=\\\s:,.\-"  # what a PEM body holds, also when shown escaped (`\n`) in a repr
_ASSIGN = r"[\"']?\s*[:=]\s*[\"']?)"  # closes the kept group: `token = "`, `"password": "`, `SECRET=`
# A value worth hiding after `password=`: long, and not one plain lower-case word (`token: expected`).
_LONG_VALUE = r"(?!\[redacted)(?=[^\s\"'`,;]*[0-9A-Z_+/=.!@#$%^&*\-])[^\s\"'`,;]{12,}"
_SECRET_NAMES = _cases(
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "access_key",
    "private_key",
    "credentials",
)

PATTERNS: tuple[Pattern, ...] = (
    Pattern(
        "private key",
        ("-----BEGIN",),
        rf"[ A-Z0-9]*PRIVATE KEY( BLOCK)?-----[{_B64}]*?"
        rf"(?:-----END[ A-Z0-9]*PRIVATE KEY( BLOCK)?-----|(?=[^{_B64}])|\Z)",
        boundary=False,
    ),
    Pattern(
        "aws access key id",
        ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "ABIA", "ACCA"),
        r")[A-Z0-9]{16}\b",
        keep=1,
    ),
    Pattern(
        "aws secret",
        _cases("aws_secret_access_key", "aws_session_token", "secret_access_key"),
        _ASSIGN + r"[A-Za-z0-9/+=]{40,}",
        keep=1,
        boundary=False,
    ),
    Pattern("github token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r")[A-Za-z0-9]{36,255}\b", keep=1),
    Pattern("github token", ("github_pat_",), r")[A-Za-z0-9_]{22,255}", keep=1),
    Pattern("gitlab token", ("glpat-",), r")[A-Za-z0-9_\-]{20,}", keep=1),
    Pattern("slack token", ("xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-"), r")[A-Za-z0-9\-]{10,}", keep=1),
    Pattern("stripe key", ("sk_live_", "rk_live_", "sk_test_", "rk_test_"), r")[A-Za-z0-9]{16,}", keep=1),
    Pattern("google api key", ("AIza",), r")[0-9A-Za-z_\-]{35}", keep=1),
    Pattern("anthropic key", ("sk-ant-",), r")[A-Za-z0-9_\-]{20,}", keep=1),
    # sk-... keys are random, so they hold a digit; `sk-learn-compatible-estimators` does not.
    Pattern("api key", ("sk-",), r")(?=[A-Za-z0-9_\-]*[0-9])[A-Za-z0-9_\-]{20,}", keep=1),
    Pattern("jwt", ("eyJ",), r"[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    # scheme://user:password@host: the scheme before the needle stays as it is.
    Pattern("password", ("://",), r"[^\s:/@\"'<>]+:)[^\s@/\"'<>]+(?=@)", keep=1, boundary=False),
    # The name ends at the needle, so `GITHUB_TOKEN=` is found and `max_tokens=` is not.
    Pattern("secret", _SECRET_NAMES, _ASSIGN + _LONG_VALUE, keep=1, boundary=False),
)


def redact(text: str) -> str:
    """`text` with every credential `PATTERNS` knows replaced by `[redacted: <kind>]`. Idempotent."""
    for pattern in PATTERNS:
        for needle in pattern.needles:
            if needle in text:
                text = pattern.regex(needle).sub(_replacer(pattern), text)
    return text


def redact_data(value: Any) -> Any:
    """`value` (JSON-like: dicts, lists, tuples, strings, numbers) with every string redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {key: redact_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_data(item) for item in value]
    return value


def _replacer(pattern: Pattern) -> Callable[[re.Match[str]], str]:
    mark = MARK.format(pattern.kind)

    def replace(match: re.Match[str]) -> str:
        return (match.group(pattern.keep) if pattern.keep else "") + mark

    return replace
