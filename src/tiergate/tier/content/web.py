"""Rules shared by the ecosystems that speak HTTP in strings: credential and cookie header names in
quotes, as requests and responses write them ('Authorization', "set-cookie"), in either case."""

from __future__ import annotations

from tiergate.tier.content.model import ContentRule, quoted, rules


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
