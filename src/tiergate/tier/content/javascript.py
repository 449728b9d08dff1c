"""Rules for JavaScript and TypeScript (`.js .jsx .mjs .cjs .ts .tsx .mts .cts`).

Judgement calls: `exec(` alone is not a process (it is `RegExp.prototype.exec` as often), so only the
`child_process` module and its `execSync`/`spawn`/`execFile`/`fork` names count; `Function(` counts only
as a constructor or a bare call, never a method; `Math.random` counts beside a secret word; header names
count in quotes, as they are written in requests and responses, in either case.
"""

from __future__ import annotations

from tiergate.tier.content.model import BUILT_DIRS, BUILT_NAMES, Ecosystem, call, literal, quoted, rules, word
from tiergate.tier.content.web import (
    COOKIE_HEADERS,
    CREDENTIAL_HEADERS,
    DISPOSITION_HEADERS,
    LOCATION_HEADERS,
)

_SECRET_WORDS = r"(?i:token|secret|passw|nonce|salt|otp|api_?key|session_?key|csrf|xsrf)"
_REQUEST_DATA = r"\b(?:req|request|params|query|body|filename|originalUrl|userInput)\b"

JAVASCRIPT = Ecosystem(
    "javascript",
    suffixes=(".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"),
    ignore_dirs=BUILT_DIRS,
    ignore_names=BUILT_NAMES,
    comments=("//", "/*", "* "),
    rules=(
        *rules(
            "process execution",
            word("child_process"),
            call("execSync"),
            call("execFile"),
            call("execFileSync"),
            call("spawn"),
            call("spawnSync"),
            word("shell") + r"[ \t]*:[ \t]*true\b",
        ),
        *rules(
            "eval or dynamic code",
            call("eval", after_dot=False),
            word("new Function") + r"[ \t]*\(",
            call("Function", after_dot=False),
            word("vm") + r"\.(?:runIn\w+|Script|compileFunction)\b",
            word("setTimeout") + r"""\([ \t]*["'`]""",
        ),
        *rules(
            "TLS verification switch",
            word("rejectUnauthorized"),
            word("NODE_TLS_REJECT_UNAUTHORIZED"),
            word("checkServerIdentity"),
            word("strictSSL"),
        ),
        *rules(
            "weak hash",
            word("createHash") + r"""\([ \t]*["'](?i:md5|sha1)["']""",
        ),
        *rules("randomness for a secret", call("Math.random"), near=_SECRET_WORDS),
        *rules(
            "secret generation or comparison",
            word("randomBytes"),
            word("timingSafeEqual"),
            word("getRandomValues"),
        ),
        *rules(
            "crypto",
            word("createCipheriv"),
            word("createDecipheriv"),
            word("createHmac"),
            word("jwt") + r"\.(?:verify|sign|decode)\b",
            word("jsonwebtoken"),
        ),
        *rules(
            "authentication or authorisation check",
            word("isAuthenticated"),
            word("passport.authenticate"),
            word("WWW-Authenticate"),
            word("basicAuth"),
        ),
        *CREDENTIAL_HEADERS,
        *COOKIE_HEADERS,
        *LOCATION_HEADERS,
        *DISPOSITION_HEADERS,
        *rules(
            "prototype pollution", word("allowPrototypes"), word("__proto__"), word("constructor.prototype")
        ),
        *rules(
            "credential header",
            word("withCredentials"),
            word("beforeRedirect"),
        ),
        *rules(
            "cookie or session security",
            call("res.cookie"),
            call("clearCookie"),
            word("httpOnly"),
            word("sameSite"),
            word("xsrfCookieName"),
            word("xsrfHeaderName"),
            word("withXSRFToken"),
            word("isURLSameOrigin"),
            "csrf",
            "CSRF",
            quoted("Vary"),
        ),
        *rules(
            "redirect or Location header",
            call("res.redirect"),
            call("res.location"),
            call("encodeurl"),
            call("encodeURI"),
            word("isAbsoluteURL"),
            word("allowAbsoluteUrls"),
            word("maxRedirects"),
        ),
        *rules(
            "SQL built from a string",
            word("query") + r"\([ \t]*`[^`]*\$\{",
            word("query") + r"""\([ \t]*["'][^"']*["'][ \t]*\+""",
        ),
        *rules("path built from input", call("path.join"), call("path.resolve"), near=_REQUEST_DATA),
        *rules("path traversal check", literal("'..'"), literal('".."'), word("isAbsolute")),
        *rules("permission bits", call("chmod"), call("chmodSync"), "0o777", "0o666", call("umask")),
    ),
)
