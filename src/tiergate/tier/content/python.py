"""Rules for Python (`.py`, `.pyw`, `.pyx`; not `.pyi` stubs, which run nothing). Pure data."""

from __future__ import annotations

from tiergate.tier.content.dependencies import manifest
from tiergate.tier.content.escaping import PYTHON_ESCAPING
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
    NESTED_QUANTIFIERS,
    userinfo_splits,
)

# Judgement calls: `subprocess` and `os.system` calls count wherever they appear (tests included: a test
# that runs a shell is as much a door as the code); `random` counts only on a line that names a secret
# (token, password, nonce, salt, key), since shuffling a list is not risky; `os.path.join` counts only
# beside request data; SQL counts when `execute` takes a string built in the call (f-string, `%`, `.format`,
# `+`), never a constant with parameters.


_SECRET_WORDS = r"(?i:token|secret|passw|nonce|salt|otp|api_?key|session_?key|csrf)"
_REQUEST_DATA = r"\b(?:request|req|params|args|form|query|filename|user_input|path_info)\b"
# A spaced comparison (`size > limit`), not a return annotation (`-> int`).
_COMPARED = r"\s[<>]=?\s"
_BUILT_STRING = r"""[ \t]*\([ \t]*(?:f["']|["'][^"'\n]*["'][ \t]*(?:%|\+|\.format\())"""

PYTHON = Ecosystem(
    "python",
    suffixes=(".py", ".pyw", ".pyx"),
    ignore_dirs=BUILT_DIRS,
    ignore_names=BUILT_NAMES,
    comments=("#",),
    rules=(
        # Process execution and shells.
        *rules(
            "process execution",
            word("subprocess") + r"\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)\b",
            word("os.") + r"(?:system|popen|exec[lv]p?e?|spawn[lv]p?e?|posix_spawnp?)[ \t]*\(",
            word("asyncio.create_subprocess_exec"),
            word("asyncio.create_subprocess_shell"),
            word("shell") + r"[ \t]*=[ \t]*True\b",
            word("pty.spawn"),
        ),
        # eval and unsafe deserialisation.
        *rules(
            "eval or unsafe deserialisation",
            call("eval", after_dot=False),
            call("exec", after_dot=False),
            word("pickle") + r"\.(?:loads?|Unpickler)\b",
            word("cPickle") + r"\.loads?\b",
            word("marshal.loads"),
            word("dill") + r"\.loads?\b",
            word("jsonpickle.decode"),
            call("yaml.load"),
            word("yaml.unsafe_load"),
            word("yaml.full_load"),
            word("shelve.open"),
        ),
        # TLS verification switches, both ways (adding verify=False, removing verify=True).
        *rules(
            "TLS verification switch",
            word("verify") + r"[ \t]*=[ \t]*(?:False|True)\b",
            word("CERT_NONE"),
            word("CERT_REQUIRED"),
            word("check_hostname") + r"[ \t]*=(?!=)",
            word("assert_hostname") + r"[ \t]*=[ \t]*False\b",
            word("_create_unverified_context"),
            call("set_verify"),
            word("verify_mode") + r"[ \t]*=(?!=)",
            word("cert_reqs") + r"[ \t]*=(?!=)",
        ),
        # Hashing and randomness for secrets.
        *rules(
            "weak hash",
            word("hashlib") + r"\.(?:md5|sha1)\b",
            word("hashlib.new") + r"""\([ \t]*["'](?i:md5|sha1)""",
            word("usedforsecurity"),
        ),
        *rules(
            "randomness for a secret",
            word("random") + r"\.(?:random|randint|choice|choices|getrandbits|randrange|sample|shuffle)\b",
            near=_SECRET_WORDS,
        ),
        *rules(
            "secret generation or comparison",
            word("secrets") + r"\.(?:token_\w+|choice|randbelow|randbits|compare_digest)\b",
            word("compare_digest"),
            word("SystemRandom"),
        ),
        # Crypto.
        *rules(
            "crypto",
            word("hmac") + r"\.(?:new|digest|HMAC)\b",
            word("cryptography.hazmat"),
            word("Crypto.Cipher"),
            word("jwt") + r"\.(?:decode|encode)\b",
            word("verify_signature"),
            word("itsdangerous"),
            word("SECRET_KEY"),
            word("secret_key"),
        ),
        # Authentication and authorisation checks.
        *rules(
            "authentication or authorisation check",
            word("login_required"),
            word("permission_required"),
            word("requires_auth"),
            word("check_password_hash"),
            word("generate_password_hash"),
            word("check_password"),
            word("is_authenticated"),
            word("has_permission"),
            word("HTTPBasicAuth"),
            word("HTTPDigestAuth"),
            word("_basic_auth_str"),
            word("get_netrc_auth"),
            word("netrc"),
            "strip_auth",
            word("rebuild_auth"),
            word("WWW-Authenticate"),
        ),
        # Credential headers, stripped or forwarded.
        *CREDENTIAL_HEADERS,
        *COOKIE_HEADERS,
        *LOCATION_HEADERS,
        *DISPOSITION_HEADERS,
        *userinfo_splits("partition", "rpartition", "split", "rsplit"),
        *rules(
            "credential header",
            word("remove_headers_on_redirect"),
            word("DEFAULT_REMOVE_HEADERS_ON_REDIRECT"),
            word("proxy_headers"),
        ),
        # Sessions, cookies and CSRF.
        *rules(
            "cookie or session security",
            call("set_cookie"),
            call("delete_cookie"),
            word("httponly"),
            word("HttpOnly"),
            word("samesite"),
            word("SameSite"),
            prefix("SESSION_COOKIE_"),
            word("Vary"),
            "csrf",
            "CSRF",
        ),
        # Redirects and URLs built from input.
        *rules(
            "redirect or Location header",
            call("redirect", after_dot=False),
            word("get_redirect_location"),
            word("is_safe_url"),
            word("url_has_allowed_host_and_scheme"),
            call("iri_to_uri"),
        ),
        *rules("host allow-list", word("trusted_hosts"), word("TRUSTED_HOSTS"), word("ALLOWED_HOSTS")),
        *rules(
            "redirect following switch",
            word("redirect") + r"[ \t]*=[ \t]*(?:False|True)\b",
            word("raise_on_redirect"),
            word("allow_redirects"),
            word("follow_redirects"),
        ),
        *rules(
            "decompression limit",
            word("decompressobj"),
            word("unconsumed_tail"),
            word("has_unconsumed_tail"),
            word("max_decode_links"),
        ),
        *rules("decompression limit", word("max_length"), near=r"(?i:decompress|zlib|brotli|decoder)"),
        # Limits on what a request may make the server hold, enforced: without them one request exhausts
        # memory. A limit compared, or its error raised; a default or a docstring naming one is not a check.
        *rules(
            "request size limit",
            word("max_content_length"),
            word("max_form_memory_size"),
            word("max_form_parts"),
            word("max_header_size"),
            near=_COMPARED,
        ),
        *rules(
            "request size limit",
            word("RequestEntityTooLarge"),
            word("RequestHeaderFieldsTooLarge"),
            near=r"\braise\b",
        ),
        # Where a multipart parser looks for the boundary in what it has buffered (werkzeug's CVE-2023-46136).
        *rules("multipart body parsing", word("boundary"), near=r"\.(?:find|rfind|index|split|startswith)\("),
        *FORWARDED_HEADERS,
        *rules("client address from proxy headers", word("ProxyFix"), word("access_route")),
        *NESTED_QUANTIFIERS,
        # A body decoded in the charset the request declares: the client picks the codec (flask's
        # CVE-2018-1000656, JSON in a charset the parser mis-read).
        *rules(
            "charset chosen by the request", quoted("charset"), near=r"\b(?:mimetype_params|content_type)\b"
        ),
        # Which cookies a response may set for which domain, and which a request sends back.
        *rules(
            "cookie jar (cookies and their domains)",
            word("extract_cookies_to_jar"),
            call("extract_cookies"),
            word("add_cookie_header"),
            word("domain_match"),
        ),
        # A cookie header read into names and values: a lax parser lets one cookie shadow another.
        *rules(
            "cookie parsing",
            word("parse_cookie"),
            word("SimpleCookie"),
            "cookie_re(?<![A-Za-z0-9]cookie_re)(?![A-Za-z0-9_])",
        ),
        # The host cut out of a URL by hand, not by the parser (requests' netrc lookup, CVE-2024-47081).
        *rules(
            "URL host parsed by hand",
            word("netloc") + r"\.(?:split|rsplit|partition|rpartition)\(",
        ),
        # A file at a name another local user can guess, or create first.
        *rules(
            "temporary file in a shared directory",
            word("tempfile.gettempdir"),
            word("tempfile.mktemp"),
        ),
        *rules("program lookup on PATH", call("shutil.which")),
        # SQL built from strings.
        *rules(
            "SQL built from a string",
            word("execute") + _BUILT_STRING,
            word("executemany") + _BUILT_STRING,
            word("executescript") + _BUILT_STRING,
        ),
        # Paths built from input.
        *rules(
            "path built from input",
            call("os.path.join"),
            near=_REQUEST_DATA,
        ),
        *rules(
            "path traversal check",
            word("safe_join"),
            word("send_from_directory"),
            word("secure_filename"),
            literal("'..'"),
            literal('".."'),
            word("_os_alt_seps"),
        ),
        # Permission bits.
        *rules(
            "permission bits",
            call("os.chmod"),
            call("os.umask"),
            call("os.fchmod"),
            "0o777",
            "0o666",
            word("S_IWOTH"),
            word("S_IRWXO"),
        ),
        *PYTHON_ESCAPING,
    ),
)

_DIST_NAME = r"A-Za-z0-9._-"
# After a requirement's name: its extras, then a version operator, a URL (`@`), markers, a line
# continuation, a comment or the end (`cryptography==42.0.4`, `requests-oauthlib`, `pyjwt[crypto]>=2`).
_REQUIREMENT_TAIL = r"[ \t]*(?:\[[^\]\n]*\])?[ \t]*(?:[=<>!~]=|[<>]|@|;|\\|#|$)"
# requirements*.txt lines; pyproject's PEP 508 strings, one a line (`    "cryptography>=41",`; a quoted
# bare name counts only followed by a version, extras or markers, so a keyword list item does not); and
# Poetry's or PDM's `name = "^1.2"` tables.
PYTHON_REQUIREMENTS = manifest(
    "python-requirements",
    ("requirements*.txt", "pyproject.toml"),
    (_DIST_NAME, r"^[ \t]*", _REQUIREMENT_TAIL),
    (_DIST_NAME, r"""^[ \t]*["']""", r"[ \t]*(?:\[[^\]\n]*\])?[ \t]*(?:[=<>!~]=|[<>]|@|;)"),
    (_DIST_NAME, r"^[ \t]*", r"""[ \t]*=[ \t]*(?:["'][~^<>=!*0-9]|\{)"""),
)
