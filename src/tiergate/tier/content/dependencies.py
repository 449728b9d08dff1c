"""Rules for dependency manifests: a changed dependency line whose package implements a security construct
the language rules name (crypto and TLS, tokens and authentication, cookies and sessions, redirects, HTTP
framing and network protocols). Pure data and pattern builders. See docs/risk.md.
"""

from __future__ import annotations

import re

from tiergate.tier.content.rule import BUILT_DIRS, ContentRule, Ecosystem

# A bump of such a package changes that construct's code under the project (gin's CVE-2024-45337 was a
# `golang.org/x/crypto` bump). What the package is for is in its name, read as whole words as the path rules
# split names; which version is vulnerable is an advisory database's.


# Construct -> the words of a package name that implement it. Whole words only; the glued names are the
# ecosystems' canonical packages for the construct whose names hold no separator (`pyjwt`, `securecookie`).
FAMILIES: dict[str, tuple[str, ...]] = {
    "crypto or TLS library": (
        "crypto",
        "cryptography",
        "openssl",
        "pyopenssl",
        "ssl",
        "tls",
        "rustls",
        "sodium",
        "nacl",
        "pynacl",
        "bcrypt",
        "argon2",
        "scrypt",
        "pbkdf2",
        "hmac",
    ),
    "token or authentication library": (
        "jwt",
        "pyjwt",
        "jose",
        "jsonwebtoken",
        "jws",
        "oauth",
        "oauthlib",
        "oidc",
        "openid",
        "saml",
        "passport",
        "auth",
        "authlib",
        "passlib",
    ),
    "cookie, session or CSRF library": (
        "cookie",
        "cookies",
        "securecookie",
        "csrf",
        "csurf",
        "xsrf",
        "session",
        "sessions",
    ),
    "redirect-following library": ("redirect", "redirects"),
    # HTTP framing is a security construct in code (Content-Length, Transfer-Encoding, chunked: request
    # smuggling); these packages are that framing for HTTP/2 and HTTP/3, or Go's network stack (`x/net`:
    # http2, hpack, proxy, idna), parsing what arrives from the network before any of the project's code.
    "network or HTTP protocol library": (
        "net",
        "http2",
        "h2",
        "hpack",
        "http3",
        "quic",
        "qpack",
        "h11",
        "httparse",
        "llhttp",
    ),
}

# Directories whose manifests the project does not install: test fixtures and example apps (the path
# rules' call too), and built or vendored trees.
ASIDE_DIRS = (*BUILT_DIRS, "fixtures", "fixture", "testdata", "examples", "example")


def _spellings(word: str) -> tuple[str, ...]:
    """`word` (lower case) as it may begin a word of a name: lower, Capitalised and UPPER, each with
    the lookarounds that make it a whole word as camelCase splitting reads it (`tough-cookie`,
    `toughCookie`, `COOKIE_JAR`), never part of a longer one (`cookiecutter`, `Cookies`)."""
    esc = re.escape(word)
    cap, up = re.escape(word.capitalize()), re.escape(word.upper())
    return (
        # lower: no letter before (`xcookie` is one word), no lower-case letter after
        f"{esc}(?<![A-Za-z]{esc})(?![a-z])",
        # Capitalised: starts a word after anything; no lower-case letter after
        f"{cap}(?![a-z])",
        # UPPER: no capital before; after, a lower-case letter or a capital that starts a word only
        f"{up}(?<![A-Z]{up})(?![a-z])(?![A-Z](?![a-z]))",
    )


def dependency_rules(name_chars: str, before: str, after: str) -> tuple[ContentRule, ...]:
    """One rule per family word and spelling: the word found fast (its literal first), then the whole
    line held to the manifest's shape of a dependency line with that word inside the package's name:
    `before` + the name's characters (`name_chars`, a class body) around the word + `after`."""
    made: list[ContentRule] = []
    for construct, words in FAMILIES.items():
        for word in words:
            for spelled in _spellings(word):
                # Atomic: the first whole-word match, then the rest of the name, never retried. The name
                # ends where it ends whichever match is taken, so a retry could not succeed, and a long
                # name of repeated words (`cookie-cookie-...`) would cost its length squared.
                name = f"(?>[{name_chars}]*?{spelled}[{name_chars}]*+)"
                near = f"{before}{name}{after}"
                made.append(ContentRule(f"dependency on a {construct}", spelled, near=near))
    return tuple(made)


def manifest(ecosystem: str, names: tuple[str, ...], *shapes: tuple[str, str, str]) -> Ecosystem:
    """The ecosystem reading the manifests called `names`, with a rule set per dependency-line shape."""
    return Ecosystem(
        ecosystem,
        names=names,
        ignore_dirs=ASIDE_DIRS,
        comments=("#", "//"),
        rules=tuple(rule for shape in shapes for rule in dependency_rules(*shape)),
    )
