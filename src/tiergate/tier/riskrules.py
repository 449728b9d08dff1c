"""The built-in path rules: which files make a change security- or architecture-sensitive.

Data only; `tiergate.tier.riskpaths` compiles it into set and dict lookups and documents the judgement calls.
Every key is lowercase unless its kind says otherwise. A rule's `pattern` is what a person reads in a
reason; `{key}` in it stands for the key that matched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Category = Literal["security", "architecture"]

RuleKind = Literal[
    "name",  # the file name is a key
    "name-case",  # the file name is a key, spelt exactly so (Bazel's BUILD, not scripts/build)
    "prefix",  # the file name is a key, or a key followed by one of . - _
    "ext",  # the file's last extension is a key
    "suffix",  # the file name ends with a key (compound extensions such as .d.ts)
    "stem",  # the file name without its extension is a key
    "last-part",  # the last dot-separated part of that stem is a key (user.types.ts)
    "last-word",  # the last word of that stem is a key (app_config.py, DatabaseConfig.java)
    "word",  # a word of the file name is a key
    "dir",  # a directory anywhere above the file is a key
    "dirpath",  # consecutive directories above the file are a key (".github/workflows")
    "parent",  # the directory right above the file is a key
]


@dataclass(frozen=True)
class Rule:
    category: Category
    kind: RuleKind
    keys: tuple[str, ...]
    pattern: str
    # Only files with one of these extensions ("" for none); None means any file the rules look at.
    # "{exts}" in the pattern shows them.
    exts: tuple[str, ...] | None = None


def _exts(*names: str) -> tuple[str, ...]:
    return names


# Prose, pictures, fonts and media change no behaviour; the built-in rules never flag them.
INERT_EXTS = frozenset(
    (
        *("md", "markdown", "mdx", "rst", "adoc", "asciidoc", "rdoc", "textile"),
        *("png", "jpg", "jpeg", "gif", "svg", "ico", "webp", "bmp", "tif", "tiff", "avif", "heic", "psd"),
        *("woff", "woff2", "ttf", "otf", "eot"),
        *("mp3", "mp4", "m4a", "wav", "ogg", "oga", "webm", "mov", "avi", "pdf"),
    )
)
# Translation catalogues hold strings shown to people ("Sign in", "Wrong password"), not logic.
INERT_DIRS = frozenset({"locales", "locale", "i18n", "l10n", "translations"})

# Lock files change with every dependency bump, and the manifest beside them already counts.
LOCK_NAMES = frozenset(
    {
        *("package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb", "bun.lock"),
        *("cargo.lock", "go.sum", "go.work.sum", "poetry.lock", "pipfile.lock", "uv.lock", "pdm.lock"),
        *("gemfile.lock", "composer.lock", "mix.lock", "pubspec.lock", "podfile.lock", "package.resolved"),
        *("gradle.lockfile", "packages.lock.json", ".terraform.lock.hcl", "flake.lock"),
    }
)

# Words that make a path security-sensitive wherever they stand as a word: a whole directory name
# ("**/auth/**"), or a word of a file or directory name split at _ - . and camelCase.
SECURITY_WORDS = frozenset(
    {
        *("auth", "authn", "authz", "authentication", "authenticate", "authenticated", "authenticator"),
        *("authorization", "authorize", "authorized", "authorizer", "login", "signin"),
        *("oauth", "oauth2", "openid", "oidc", "saml", "sso", "ldap", "kerberos", "webauthn", "passkey"),
        *("passkeys", "mfa", "totp", "hotp", "2fa", "jwt", "jwk", "jwks", "jws", "jwe"),
        *("secret", "secrets", "credential", "credentials", "creds", "password", "passwords", "passwd"),
        *("passphrase", "htpasswd", "apikey", "apikeys", "privatekey", "secretkey", "accesskey"),
        *("signingkey", "keypair", "keyring", "keychain", "keystore", "truststore", "kms", "vault"),
        *("permission", "permissions", "privilege", "privileges", "rbac", "abac", "acl", "acls", "iam"),
        *("sudo", "sudoers", "security", "crypto", "cryptography", "encrypt", "encrypted", "encryption"),
        *("decrypt", "decryption", "cipher", "hmac", "bcrypt", "tls", "ssl", "x509", "pki", "cert"),
        *("certs", "certificate", "certificates", "ssh", "gpg", "pgp"),
        *("csrf", "xsrf", "xss", "cors", "csp", "sanitize", "sanitizer", "sanitizers"),
        *("token", "tokens"),
    }
)

# Security words that are also written as two words ("api_key", "PassWord", "SignIn", "oauth2" split at
# the digit). Joining every adjacent pair would invent words ("I", "Am" -> "iam"); only these are joined.
COMPOUND_WORDS = frozenset(
    {
        *("apikey", "apikeys", "privatekey", "secretkey", "accesskey", "signingkey", "keypair", "keyring"),
        *("keychain", "keystore", "truststore", "password", "passwords", "passphrase", "login", "signin"),
        *("oauth", "oauth2", "x509", "2fa"),
    }
)

# A security word with a common harmless sense loses its force when the path says which sense it is:
# lexer tokens, design tokens and language-model tokens; crypto as in cryptocurrency prices.
_TOKEN_SENSES = frozenset(
    {
        *("lexer", "lexers", "lexical", "lex", "lexing", "parser", "parsers", "parse", "parsing", "scanner"),
        *("scanners", "syntax", "grammar", "grammars", "ast", "compiler", "tokenizer", "tokenizers"),
        *("tokenize", "tokenization", "design", "theme", "themes", "style", "styles", "styling", "css"),
        *("scss", "sass", "color", "colors", "typography", "count", "counts", "counter", "counting"),
        *("usage", "budget", "llm", "llms", "gpt", "prompt", "prompts", "embedding", "embeddings", "nlp"),
        *("vocab", "bpe"),
    }
)
AMBIGUOUS_WORDS: dict[str, frozenset[str]] = {
    "token": _TOKEN_SENSES,
    "tokens": _TOKEN_SENSES,
    "crypto": frozenset(
        {"price", "prices", "pricing", "ticker", "tickers", "trading", "trade", "trades", "market"}
        | {"markets", "portfolio", "coin", "coins", "chart", "charts"}
    ),
}

# A ".env" file whose name also says one of these is a template of the configuration, not its secrets.
ENV_TEMPLATE_WORDS = frozenset(
    {"example", "sample", "template", "tmpl", "tpl", "dist", "defaults", "default"}
)

_MANIFEST_YAML = _exts("yml", "yaml")

RULES: tuple[Rule, ...] = (
    # -- security: files that hold secrets or grant access --------------------------------------------
    Rule(
        "security",
        "name",
        (
            *(".envrc", ".htpasswd", ".netrc", ".npmrc", ".pypirc", ".yarnrc", ".yarnrc.yml"),
            *(".git-credentials", ".dockercfg", "kubeconfig", "authorized_keys", "known_hosts"),
            # who must review what, and which permissions an Android app holds and exports
            *("CODEOWNERS", "AndroidManifest.xml"),
        ),
        "**/{key}",
    ),
    Rule("security", "prefix", ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"), "**/{key}*"),
    Rule(
        "security",
        "ext",
        (
            *("pem", "key", "p12", "pfx", "jks", "keystore", "crt", "cer", "p8", "ppk", "kdbx", "gpg"),
            # Terraform variable files and state carry credentials in plain text
            *("tfvars", "tfstate", "entitlements"),
        ),
        "**/*.{key}",
    ),
    Rule("security", "suffix", (".tfstate.backup",), "**/*{key}"),
    # CI runs with the repository's secrets and deploy rights
    Rule(
        "security",
        "name",
        (".gitlab-ci.yml", ".travis.yml", "bitbucket-pipelines.yml", ".drone.yml", "appveyor.yml"),
        "**/{key}",
    ),
    Rule("security", "prefix", ("Jenkinsfile", "azure-pipelines", "cloudbuild"), "**/{key}*"),
    Rule(
        "security",
        "dirpath",
        (".github/workflows", ".github/actions", ".gitea/workflows", ".forgejo/workflows", ".gitlab/ci"),
        "**/{key}/**",
    ),
    Rule(
        "security", "dir", (".circleci", ".buildkite", ".woodpecker", ".ssh", ".gnupg", ".aws"), "**/{key}/**"
    ),
    # The verification's own controls: tiergate's configuration and Claude Code's project settings (hooks,
    # permissions). A loop that edits them could weaken the check on its own claim.
    Rule("security", "name", (".tiergate.toml",), "**/{key}"),
    Rule("security", "dir", (".claude",), "**/{key}/**"),
    # -- architecture: build manifests, contracts, schemas, deployment ----------------------------------
    Rule(
        "architecture",
        "name",
        (
            # JavaScript / TypeScript
            *("package.json", "jsconfig.json", "deno.json", "deno.jsonc", "pnpm-workspace.yaml"),
            *("lerna.json", "nx.json", "turbo.json", "angular.json", ".babelrc", ".swcrc"),
            # Python
            *("pyproject.toml", "setup.py", "setup.cfg", "Pipfile", "environment.yml", "alembic.ini"),
            # Go, Rust, JVM
            *("go.mod", "go.work", "Cargo.toml", "build.rs", "rust-toolchain", "rust-toolchain.toml"),
            *("pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"),
            *("libs.versions.toml", "build.sbt", "module-info.java"),
            # Ruby, PHP, Elixir, Dart, Swift, .NET, C and C++, Zig, Bazel
            *("Gemfile", "composer.json", "mix.exs", "pubspec.yaml", "Package.swift", "Podfile"),
            *("Directory.Build.props", "Directory.Packages.props", "CMakeLists.txt", "meson.build"),
            *("build.zig", "BUILD.bazel", "WORKSPACE.bazel", "MODULE.bazel"),
            # database schemas dumped whole (Rails)
            *("structure.sql",),
            # deployment
            *("Chart.yaml", "kustomization.yaml", "kustomization.yml", "Procfile", "serverless.yml"),
            *("serverless.yaml", "fly.toml", "vercel.json", "netlify.toml", "buf.yaml"),
            # what the project's own checks check: weakening them is how a loop fakes green
            *("tox.ini", "pytest.ini", "mypy.ini", ".coveragerc", "ruff.toml", ".ruff.toml"),
            *(".golangci.yml", ".golangci.yaml", ".pre-commit-config.yaml", "noxfile.py", "clippy.toml"),
            *("biome.json", "biome.jsonc", "phpunit.xml", "phpunit.xml.dist", "phpstan.neon", ".rubocop.yml"),
            # the web server in front of the application: routing, TLS, headers
            *("nginx.conf", "Caddyfile"),
        ),
        "**/{key}",
    ),
    Rule("architecture", "name-case", ("BUILD", "WORKSPACE"), "**/{key}"),
    Rule("architecture", "prefix", ("Dockerfile", "Containerfile", ".eslintrc"), "**/{key}*"),
    Rule("architecture", "prefix", ("docker-compose", "compose"), "**/{key}*.{exts}", _MANIFEST_YAML),
    Rule("architecture", "prefix", ("tsconfig",), "**/{key}*.{exts}", _exts("json")),
    Rule("architecture", "prefix", ("requirements",), "**/{key}*.{exts}", _exts("txt", "in")),
    Rule("architecture", "prefix", ("application",), "**/{key}*.{exts}", _exts("yml", "yaml", "properties")),
    Rule("architecture", "prefix", ("appsettings",), "**/{key}*.{exts}", _exts("json")),
    Rule(
        "architecture",
        "ext",
        (
            # API and data contracts
            *("proto", "thrift", "avsc", "avdl", "graphqls", "prisma"),
            # infrastructure
            *("tf", "hcl", "dockerfile"),
            # build manifests named after the project
            *("csproj", "fsproj", "vbproj", "sln", "gemspec", "cabal"),
        ),
        "**/*.{key}",
    ),
    Rule("architecture", "suffix", (".d.ts", ".d.mts", ".d.cts"), "**/*{key}"),
    Rule("architecture", "stem", ("config", "configuration", "schema", "schemas", "types"), "**/{key}.*"),
    Rule("architecture", "stem", ("definitions",), "**/{key}.*"),
    Rule("architecture", "stem", ("settings",), "**/{key}.py", _exts("py")),
    Rule("architecture", "last-part", ("types",), "**/*.{key}.*"),
    Rule(
        "architecture", "last-word", ("config", "configuration", "schema"), "word '{key}' ending a file name"
    ),
    Rule("architecture", "last-word", ("settings",), "word '{key}' ending a .py file name", _exts("py")),
    Rule(
        "architecture",
        "last-word",
        ("requirements",),
        "word '{key}' ending a .{exts} file name",
        _exts("txt", "in"),
    ),
    Rule(
        "architecture",
        "word",
        ("openapi", "swagger", "asyncapi"),
        "word '{key}' in a .{exts} file name",
        _exts("json", "yaml", "yml"),
    ),
    Rule("architecture", "dir", ("migrations", "migration", "alembic"), "**/{key}/**"),
    Rule("architecture", "dirpath", ("db/migrate",), "**/{key}/**"),
    Rule("architecture", "dir", ("schema", "schemas", "types", "typings"), "**/{key}/**"),
    Rule("architecture", "dir", ("terraform", "helm", "kustomize"), "**/{key}/**"),
    # Kubernetes manifests; Go code that talks to Kubernetes (pkg/kubernetes/client.go) is not one.
    Rule(
        "architecture",
        "dir",
        ("k8s", "kubernetes", "charts"),
        "**/{key}/**/*.{exts}",
        _exts("yaml", "yml", "tpl", "jsonnet", "libsonnet"),
    ),
    Rule("architecture", "parent", ("config", "configs", "conf"), "**/{key}/*"),
    Rule("architecture", "parent", ("requirements",), "**/{key}/*.{exts}", _exts("txt", "in")),
    # Django's settings split per environment (settings/production.py)
    Rule("architecture", "parent", ("settings",), "**/{key}/*.py", _exts("py")),
)
