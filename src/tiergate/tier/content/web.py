"""Rules shared by several ecosystems: the HTTP header names they write in strings (credential, cookie
and proxy headers, in quotes, as requests and responses write them: 'Authorization',
"set-cookie", in either case), and regular expressions open to catastrophic backtracking."""

from __future__ import annotations

import re

from tiergate.tier.content.rule import ContentRule, literal, quoted, rules


def userinfo_splits(*calls: str) -> tuple[ContentRule, ...]:
    """`authority.rpartition("@")` and the like: credentials cut out of a URL (its userinfo), where a
    wrong cut leaks them or lets a host hide behind them (urllib3's GHSA-q2q7-5pp4-w6pg)."""
    return rules(
        "credentials in a URL (userinfo)",
        *(f"{re.escape(c)}\\([ \\t]*{q}@{q}" for c in calls for q in ('"', "'")),
    )


def spellings(*names: str) -> tuple[str, ...]:
    """Each header name quoted, as written and lower-cased."""
    return tuple(quoted(n) for name in names for n in dict.fromkeys((name, name.lower())))


CREDENTIAL_HEADERS: tuple[ContentRule, ...] = rules(
    "credential header", *spellings("Authorization", "Proxy-Authorization", "Cookie")
)
COOKIE_HEADERS: tuple[ContentRule, ...] = rules("cookie or session security", *spellings("Set-Cookie"))
LOCATION_HEADERS: tuple[ContentRule, ...] = rules("redirect or Location header", *spellings("Location"))
# A file name written into this header unescaped lets a request inject parameters (gin, CVE-2023-29401).
DISPOSITION_HEADERS: tuple[ContentRule, ...] = rules(
    "Content-Disposition header", *spellings("Content-Disposition")
)
# The client's address as a proxy reports it: anyone can send these, so trusting them unchecked lets a
# remote client pass as a trusted or local one (gin's CVE-2020-28483, fiber's CVE-2023-41338).
FORWARDED_HEADERS: tuple[ContentRule, ...] = rules(
    "client address from proxy headers", *spellings("X-Forwarded-For", "X-Real-IP", "X-Forwarded-Host")
)
# A group that repeats and holds a repeated item, `(a+)+` or `(\s*x*)*`: a backtracking engine (Python's
# `re`, JavaScript's) tries every way to share a long near-match among them, exponential time on one input
# (ReDoS). Go's RE2 and Rust's `regex` do not backtrack: their ecosystems leave this out.
NESTED_QUANTIFIERS: tuple[ContentRule, ...] = rules(
    "regular expression open to backtracking (ReDoS)", *(literal(f"{a}){b}") for a in "+*" for b in "+*")
)
