"""Rules shared by the ecosystems that speak HTTP in strings: credential and cookie header names in
quotes, as requests and responses write them ('Authorization', "set-cookie"), in either case."""

from __future__ import annotations

import re

from tiergate.tier.content.model import ContentRule, quoted, rules


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
