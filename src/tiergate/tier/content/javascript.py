"""Rules for JavaScript and TypeScript (`.js .jsx .mjs .cjs .ts .tsx .mts .cts`).

Judgement calls: `exec(` alone is not a process (it is `RegExp.prototype.exec` as often), so only the
`child_process` module and its `execSync`/`spawn`/`execFile`/`fork` names count; `Function(` counts only
as a constructor or a bare call, never a method; `Math.random` counts beside a secret word; header names
count in quotes, as they are written in requests and responses, in either case.
"""

from __future__ import annotations

from tiergate.tier.content.dependencies import manifest
from tiergate.tier.content.escaping import JAVASCRIPT_ESCAPING
from tiergate.tier.content.rule import BUILT_DIRS, BUILT_NAMES, Ecosystem, call, literal, quoted, rules, word
from tiergate.tier.content.web import (
    COOKIE_HEADERS,
    CREDENTIAL_HEADERS,
    DISPOSITION_HEADERS,
    FORWARDED_HEADERS,
    LOCATION_HEADERS,
    NESTED_QUANTIFIERS,
    userinfo_splits,
)

_SECRET_WORDS = r"(?i:token|secret|passw|nonce|salt|otp|api_?key|session_?key|csrf|xsrf)"
# A regular expression literal whose last item before `$` repeats (`/\s+$/`, `/\/+$/`): searched in a long
# run of that item not at the end, the engine retries the run from each of its characters (quadratic
# time: axios's trim, CVE-2021-3749, and its combineURLs). The literal's text: escapes, or no '/'.
_TRAILING_RUN = r"\(/(?:[^/\\\n]|\\.)*[*+]\$/"
# A spaced comparison (`bytes > limit`).
_COMPARED = r"\s[<>]=?\s"
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
        *userinfo_splits("split", "indexOf", "lastIndexOf"),
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
            word("query") + r"\([ \t]*`[^`\n]*\$\{",
            word("query") + r"""\([ \t]*["'][^"'\n]*["'][ \t]*\+""",
        ),
        *rules("path built from input", call("path.join"), call("path.resolve"), near=_REQUEST_DATA),
        *rules("path traversal check", literal("'..'"), literal('".."'), word("isAbsolute")),
        *NESTED_QUANTIFIERS,
        *rules(
            "regular expression open to backtracking (ReDoS)",
            *(word(method) + _TRAILING_RUN for method in ("replace", "match", "search", "split")),
        ),
        *FORWARDED_HEADERS,
        *rules("client address from proxy headers", quoted("trust proxy")),
        *rules("response size limit", word("maxContentLength"), word("maxBodyLength"), near=_COMPARED),
        *rules("permission bits", call("chmod"), call("chmodSync"), "0o777", "0o666", call("umask")),
        *JAVASCRIPT_ESCAPING,
    ),
)

# A dependency (or override, resolution) entry: a quoted package name, then a version range, tag or
# protocol (`"tough-cookie": "^4.1.3"`), never a script (`"auth": "node auth.js"`) or a keyword list item.
NPM_MANIFEST = manifest(
    "npm-manifest",
    ("package.json",),
    (r"A-Za-z0-9@/._-", r'^[ \t]*"', r'"[ \t]*:[ \t]*"(?:[~^<>=*0-9]|[vx][0-9.]|npm:|workspace:|latest\b)'),
)
