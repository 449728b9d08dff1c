"""Rules for Go (`.go`); `GO_MODULES` reads `go.mod` (required modules that implement a security construct).

Judgement calls: `math/rand` counts where it is imported (a Go file names the package once), and
`rand.` calls only beside a secret word; SQL counts when a query method takes `fmt.Sprintf` or a string
joined with `+` on the same line. No ReDoS rule: Go's `regexp` (RE2) does not backtrack.
"""

from __future__ import annotations

from tiergate.tier.content.dependencies import manifest
from tiergate.tier.content.escaping import GO_ESCAPING
from tiergate.tier.content.rule import (
    BUILT_DIRS,
    BUILT_NAMES,
    Ecosystem,
    call,
    literal,
    prefix,
    quoted,
    rules,
    word,
)
from tiergate.tier.content.web import (
    COOKIE_HEADERS,
    CREDENTIAL_HEADERS,
    DISPOSITION_HEADERS,
    FORWARDED_HEADERS,
    LOCATION_HEADERS,
)

_SECRET_WORDS = r"(?i:token|secret|passw|nonce|salt|otp|apikey|api_key|csrf)"
_REQUEST_DATA = r"\b(?:c\.Param|c\.Query|Param|Query|FormValue|PostForm|URL\.Path|r\.URL|filename)\b"
_BUILT = r"""(?:fmt\.Sprintf|"[ \t]*\+)"""

GO = Ecosystem(
    "go",
    suffixes=(".go",),
    ignore_dirs=BUILT_DIRS,
    ignore_names=BUILT_NAMES,
    comments=("//", "/*", "* "),
    rules=(
        *rules(
            "process execution",
            call("exec.Command"),
            call("exec.CommandContext"),
            call("syscall.Exec"),
            call("os.StartProcess"),
        ),
        *rules(
            "TLS verification switch",
            word("InsecureSkipVerify"),
            word("VerifyPeerCertificate"),
            word("tls.VersionTLS10"),
            word("MinVersion"),
        ),
        *rules(
            "weak hash or randomness",
            '"crypto/md5"',
            '"crypto/sha1"',
            '"math/rand"',
            '"crypto/rand"',
            call("md5.New"),
            call("sha1.New"),
        ),
        *rules("randomness for a secret", word("rand.") + r"(?:Int|Intn|Read|Float64)\b", near=_SECRET_WORDS),
        *rules(
            "crypto",
            word("subtle.ConstantTimeCompare"),
            word("hmac.New"),
            word("hmac.Equal"),
            word("jwt.Parse"),
        ),
        *rules(
            "authentication or authorisation check",
            word("BasicAuth"),
            word("SetBasicAuth"),
            quoted("WWW-Authenticate"),
        ),
        *CREDENTIAL_HEADERS,
        *COOKIE_HEADERS,
        *LOCATION_HEADERS,
        *DISPOSITION_HEADERS,
        *rules("program lookup on PATH", call("exec.LookPath")),
        *rules(
            "cookie or session security",
            call("SetCookie"),
            call("http.SetCookie"),
            word("http.Cookie"),
            word("HttpOnly"),
            word("SameSite"),
            "csrf",
            "CSRF",
            quoted("Vary"),
        ),
        *rules(
            "redirect or Location header",
            call("http.Redirect"),
            call("c.Redirect"),
            word("RedirectTrailingSlash"),
            word("RedirectFixedPath"),
        ),
        *rules(
            "SQL built from a string",
            prefix("Query") + r"(?:Row|Context|RowContext)?\(",
            prefix("Exec") + r"(?:Context)?\(",
            near=_BUILT,
        ),
        *rules("path built from input", call("filepath.Join"), call("path.Join"), near=_REQUEST_DATA),
        *rules("path traversal check", literal('".."'), call("filepath.Clean"), word("http.Dir")),
        *FORWARDED_HEADERS,
        # Which peers may speak for the client: a proxy trusted unchecked lets anyone set the client's IP.
        *rules(
            "client address from proxy headers",
            word("trustedCIDRs"),
            word("TrustedProxies"),
            word("SetTrustedProxies"),
            word("isTrustedProxy"),
            word("IsProxyTrusted"),
            word("RemoteIPHeaders"),
            word("ForwardedByClientIP"),
            word("TrustedPlatform"),
            call("RemoteIP"),
        ),
        *rules(
            "request size limit",
            call("http.MaxBytesReader"),
            word("MaxMultipartMemory"),
            word("MaxHeaderBytes"),
            word("BodyLimit"),
        ),
        *rules("permission bits", call("os.Chmod"), call("syscall.Umask"), word("0777"), word("0o777")),
        *rules("template escaping switched off", call("template.HTML"), call("template.JS")),
        *GO_ESCAPING,
    ),
)

# A require line (`require m v1`, or `m v1` inside a block; `// indirect` after it) or a replacement's
# target (`=> m v1`): `golang.org/x/crypto v0.31.0` holds the word `crypto`.
GO_MODULES = manifest(
    "go-modules",
    ("go.mod",),
    (r"A-Za-z0-9._~/-", r"(?:^[ \t]*(?:require[ \t]+|replace[ \t]+)?|=>[ \t]*)", r"[ \t]+v[0-9]"),
)
