"""Rules for Rust (`.rs`).

Judgement calls: `Command::new` counts wherever it is (ripgrep's decompression helper ran programs it was
told to); `unsafe` does not: it is memory safety, which the compiler's review and the tests cover, and it
is too frequent in systems code to name a risk a reviewer would agree with.
"""

from __future__ import annotations

from tiergate.tier.content.dependencies import manifest
from tiergate.tier.content.escaping import RUST_ESCAPING
from tiergate.tier.content.rule import (
    BUILT_DIRS,
    BUILT_NAMES,
    Ecosystem,
    call,
    literal,
    prefix,
    rules,
    word,
)
from tiergate.tier.content.testcode import added
from tiergate.tier.content.web import COOKIE_HEADERS, CREDENTIAL_HEADERS, LOCATION_HEADERS

_SECRET_WORDS = r"(?i:token|secret|passw|nonce|salt|otp|api_?key|csrf)"
_SIZE_WORDS = r"(?i:size|len)"
_SQL = r"""format!\([ \t]*"[ \t]*(?i:select|insert|update|delete)\b"""
SHADOWED_ASSERTION = "outwitting: a macro named as the tests' assertion"

RUST = Ecosystem(
    "rust",
    suffixes=(".rs",),
    ignore_dirs=BUILT_DIRS,
    ignore_names=BUILT_NAMES,
    comments=("//", "/*", "* "),
    rules=(
        *rules(
            "process execution",
            word("Command::new"),
            word("process::Command"),
            word("CommandExt"),
            prefix("libc::exec"),
        ),
        *rules(
            "TLS verification switch",
            word("danger_accept_invalid_certs"),
            word("danger_accept_invalid_hostnames"),
            word("dangerous") + r"[ \t]*\(",
            word("SslVerifyMode::NONE"),
            word("NoCertificateVerification"),
        ),
        *rules(
            "program lookup on PATH",
            word("split_paths"),
            word("var_os") + r"""\([ \t]*"PATH"\)""",
            word("which::which"),
        ),
        *rules("weak hash", word("Md5"), word("md5::"), word("Sha1"), word("sha1::")),
        *rules("randomness for a secret", word("thread_rng"), word("rand::random"), near=_SECRET_WORDS),
        *rules("secret generation or comparison", word("OsRng"), word("constant_time_eq"), word("ct_eq")),
        *CREDENTIAL_HEADERS,
        *rules(
            "credential header",
            word("header::AUTHORIZATION"),
            word("PROXY_AUTHORIZATION"),
            word("header::COOKIE"),
        ),
        *COOKIE_HEADERS,
        *LOCATION_HEADERS,
        *rules("cookie or session security", word("SET_COOKIE")),
        *rules("redirect or Location header", word("header::LOCATION")),
        # Framing as a parser reads it (its identifiers), not the header names quoted in tests that set them.
        *rules(
            "HTTP message framing (Content-Length, Transfer-Encoding)",
            word("header::CONTENT_LENGTH"),
            word("header::TRANSFER_ENCODING"),
            prefix("content_length_"),
            # whether the message's transfer coding is chunked (hyper's `is_te_chunked`)
            "te_chunked(?<![A-Za-z0-9]te_chunked)(?![A-Za-z0-9_])",
            word("is_chunked"),
        ),
        # A length read from the input, multiplied or summed without wrapping: in a release build a wrapped
        # chunk size is another message's framing (hyper's CVE-2021-32714).
        *rules(
            "overflow-checked size arithmetic",
            word("checked_mul"),
            word("checked_add"),
            near=_SIZE_WORDS,
        ),
        *rules("SQL built from a string", word("sql_query") + r"\(", _SQL),
        *rules("path traversal check", literal('".."'), word("ParentDir")),
        *rules(
            "permission bits",
            call("set_mode"),
            call("from_mode"),
            call("Permissions::from_mode"),
            "0o777",
            "0o666",
            call("umask"),
        ),
        *RUST_ESCAPING,
        # A macro the crate declares under an assertion's name is the one its tests call (a `macro_rules!`
        # shadows the standard one where it is in scope, a test module's `use super::*` included), and it
        # can pass whatever they compare. The base's tests, put back around the claimed code, call it too.
        *added(
            SHADOWED_ASSERTION,
            literal("macro_rules!") + r"[ \t]*(?:debug_)?assert(?:_eq|_ne)?(?![A-Za-z0-9_])",
        ),
    ),
)

_CARGO_NAME = r"A-Za-z0-9_-"
# `rustls = "0.23"`, `rustls = { version = ... }`, `rustls.workspace = true`, or a table of its own,
# `[dependencies.rustls]` (dev-, build-, target- and workspace dependencies alike).
CARGO_MANIFEST = manifest(
    "cargo-manifest",
    ("Cargo.toml",),
    (
        _CARGO_NAME,
        r"^[ \t]*",
        r"""(?:\.workspace[ \t]*=[ \t]*true|[ \t]*=[ \t]*(?:["'][~^<>=*0-9]|\{))""",
    ),
    (_CARGO_NAME, r"^[ \t]*\[(?:workspace\.|target\.[^\]\n]*\.)?(?:dev-|build-)?dependencies\.", r"\]"),
)
