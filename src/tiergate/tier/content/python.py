"""Rules for Python (`.py`, `.pyw`, `.pyx`; not `.pyi` stubs, which run nothing).

Judgement calls: `subprocess` and `os.system` calls count wherever they appear (tests included: a test
that runs a shell is as much a door as the code); `random` counts only on a line that names a secret
(token, password, nonce, salt, key), since shuffling a list is not risky; `os.path.join` counts only
beside request data; SQL counts when `execute` takes a string built in the call (f-string, `%`,
`.format`, `+`), never a constant with parameters.
"""

from __future__ import annotations

from tiergate.tier.content.model import BUILT_DIRS, BUILT_NAMES, Ecosystem, call, literal, prefix, rules, word
from tiergate.tier.content.web import (
    COOKIE_HEADERS,
    CREDENTIAL_HEADERS,
    DISPOSITION_HEADERS,
    LOCATION_HEADERS,
)

_SECRET_WORDS = r"(?i:token|secret|passw|nonce|salt|otp|api_?key|session_?key|csrf)"
_REQUEST_DATA = r"\b(?:request|req|params|args|form|query|filename|user_input|path_info)\b"
_BUILT_STRING = r"""[ \t]*\([ \t]*(?:f["']|["'][^"']*["'][ \t]*(?:%|\+|\.format\())"""

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
            word("max_decode_links"),
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
    ),
)
