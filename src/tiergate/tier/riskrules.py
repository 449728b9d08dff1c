"""The built-in path rules: which files make a change security- or architecture-sensitive.

Data only; `tiergate.tier.risktable` compiles it into set and dict lookups. The judgement calls behind
the rules: docs/risk-paths.md.
Every key is lowercase unless its kind says otherwise. A rule's `pattern` is what a person reads in a
reason; `{key}` in it stands for the key that matched.
"""

from __future__ import annotations

from typing import Literal

from tiergate.frozen import frozen

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
    "parent",  # the directory right above the file is a key (and, with `stems`, the file's stem one of them)
]


@frozen
class Rule:
    category: Category
    kind: RuleKind
    keys: tuple[str, ...]
    pattern: str
    # Only files with one of these extensions ("" for none); None means any file the rules look at.
    # "{exts}" in the pattern shows them.
    exts: tuple[str, ...] | None = None
    # A "parent" rule only: only files whose lowercase stem is one of these; "{stems}" shows them.
    stems: tuple[str, ...] | None = None


def _exts(*names: str) -> tuple[str, ...]:
    return names


# The security rules a content judge replaces for the files it read (their YAML workflows): the
# workflow directories of GitHub, Gitea and Forgejo, which share one format.
CONTENT_JUDGED_DIRPATHS = (".github/workflows", ".gitea/workflows", ".forgejo/workflows")


# Prose, pictures, fonts and media change no behaviour; the built-in rules never flag them.
INERT_EXTS = frozenset(
    (
        *("md", "markdown", "mdx", "rst", "adoc", "asciidoc", "rdoc", "textile"),
        *("png", "jpg", "jpeg", "gif", "svg", "ico", "webp", "bmp", "tif", "tiff", "avif", "heic", "psd"),
        *("woff", "woff2", "ttf", "otf", "eot"),
        *("mp3", "mp4", "m4a", "wav", "ogg", "oga", "webm", "mov", "avi", "pdf"),
    )
)
# Translation catalogues hold strings shown to people ("Sign in", "Wrong password"), not logic; issue,
# discussion and pull-request templates are forms shown to people filing them (their config.yml included:
# it lists contact links and whether blank issues are allowed).
INERT_DIRS = frozenset(
    {
        *("locales", "locale", "i18n", "l10n", "translations"),
        *("issue_template", "discussion_template", "pull_request_template"),
        *("issue_templates", "merge_request_templates"),  # GitLab's .gitlab/ folders
    }
)

# Trees that hold something other than the project itself. A manifest, configuration or schema in one
# belongs to a test fixture, an example app or the documentation build, not to the project's architecture
# (tests/fixtures/app/package.json, examples/tutorial/pyproject.toml, docs/requirements.txt). A directory
# of these names counts wherever it stands, like every directory rule.
TEST_DIRS = frozenset(
    {
        *("test", "tests", "__tests__", "testdata", "test-data", "test_data", "test-fixtures"),
        *("fixtures", "__fixtures__", "__mocks__", "__snapshots__"),
        # the test-support tree of pytest and pre-commit (held-out corpus, issue 21): its fixture projects'
        # manifests (testing/resources/node_hooks_repo/package.json) are theirs, not the project's
        *("testing",),
        # cargo-fuzz's crate of fuzz targets (fuzz/Cargo.toml) is a test harness, not the shipped crate
        *("fuzz",),
    }
)
EXAMPLE_DIRS = frozenset({"examples", "example", "_examples", "samples", "sample"})
DOCS_DIRS = frozenset({"docs", "doc", "documentation", "website"})
# CI's own tooling: the images and scripts that build and test (ci/docker/*/Dockerfile, a dev container).
# Not architecture either; CI definitions themselves are security (below).
TOOLING_DIRS = frozenset({"ci", ".ci", ".devcontainer"})
# Security in test, example and docs trees comes from the files themselves (key material, .env files,
# CODEOWNERS ...: the file rules) and, for code, from security words: a test of security code is
# security (tests/test_ssl.py), and people copy an example's login code into their own app
# (examples/auth/index.js). Other files there take no security from a word in their name or directory:
# a page template (examples/auth/views/login.ejs), a certificate recipe (tests/certs/Makefile, cert.cnf).
CODE_EXTS = frozenset(
    {
        *("py", "pyw", "pyx", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "vue", "svelte"),
        *("go", "rs", "java", "kt", "kts", "scala", "groovy", "clj", "rb", "php", "cs", "fs", "vb"),
        *("c", "h", "cc", "cpp", "cxx", "hh", "hpp", "m", "mm", "swift", "dart", "ex", "exs", "erl"),
        *("hs", "ml", "lua", "pl", "pm", "r", "jl", "sh", "bash", "zsh", "ps1", "zig", "nim", "sol"),
    }
)
# Type stubs declare types and run nothing: no word in their name makes them security (auth.pyi).
STUB_EXTS = frozenset({"pyi"})
# A file named as a test (test_config.py, TestConfig.java, config_test.go, types.spec.ts) is a test,
# never architecture, wherever it stands: its first word is "test", or its last one of these.
TEST_NAME_LAST_WORDS = frozenset({"test", "tests", "spec", "specs"})

# The configuration of the project's own checks: linters, type checkers, test runners, coverage, hooks.
# By path they are not architecture: every hook autoupdate and linter bump would go THOROUGH. A change
# that weakens what they check is architecture, found in its changed lines by the content rules
# (`tiergate.tier.content.checkconfig`), which read these files and the manifests with tool sections.
CHECK_CONFIG_NAMES = frozenset(
    {
        *("tox.ini", "pytest.ini", "mypy.ini", ".mypy.ini", ".coveragerc", "ruff.toml", ".ruff.toml"),
        *(".flake8", ".pylintrc", "pylintrc", "noxfile.py", "conftest.py", ".pre-commit-config.yaml"),
        *(".pre-commit-config.yml", ".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json"),
        *("clippy.toml", ".clippy.toml", "rustfmt.toml", ".rustfmt.toml", "deny.toml", ".yamllint"),
        *(".yamllint.yml", ".yamllint.yaml", "biome.json", "biome.jsonc", "phpunit.xml", "phpunit.xml.dist"),
        *("phpstan.neon", "phpstan.neon.dist", "psalm.xml", ".rubocop.yml", ".php-cs-fixer.php"),
        *("codecov.yml", ".codecov.yml", "karma.conf.js", "detekt.yml", "checkstyle.xml"),
    }
)
# The rc files of JavaScript's check tools, in any of their forms (.eslintrc, .eslintrc.json, .eslintrc.cjs).
CHECK_CONFIG_PREFIXES = (
    *(".eslintrc", ".stylelintrc", ".prettierrc", ".mocharc", ".nycrc", ".c8rc", ".jshintrc"),
    *(".lintstagedrc", ".commitlintrc", ".markdownlint", ".remarkrc"),
)
# `<tool>.config.<ext>`: the check tools whose configuration is a script named after them
# (jest.config.js, eslint.config.mjs, vitest.config.ts). Stylesheet tools count with them: a Tailwind
# or PostCSS configuration decides how the pages look, not how the program works.
CHECK_CONFIG_TOOLS = frozenset(
    {
        *("jest", "vitest", "eslint", "prettier", "stylelint", "commitlint", "lint-staged", "playwright"),
        *("cypress", "karma", "ava", "mocha", "nyc", "c8", "knip", "wdio", "tailwind", "postcss"),
    }
)

# The split requirements files a project installs to run (requirements/base.txt, requirements-prod.in).
# Every other variant (requirements/dev.txt, test-requirements.txt, docs/requirements.txt,
# mypy-requirements.txt) pins the tools that build, test, lint or document the project: most changes
# to them are bot bumps, and the project's own dependencies are declared elsewhere.
RUNTIME_REQUIREMENTS = ("base", "common", "main", "prod", "production", "runtime", "install", "default")

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
        # cancellation tokens (axios's CancelToken) and rate limiters' token buckets
        *("cancel", "cancellation", "cancelled", "canceled", "bucket", "buckets"),
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
_CONFIG_EXTS = _exts(
    *("js", "mjs", "cjs", "ts", "mts", "cts", "json", "json5", "jsonc", "yaml", "yml", "toml", "ini"),
    *("cfg", "conf", "xml", "properties", "hcl", "plist", "h", "hpp"),
)
_CLASS_CONFIG_EXTS = _exts("java", "kt", "scala", "groovy", "cs", "vb", "fs")
_TYPES_EXTS = _exts("ts", "mts", "cts", "h", "hpp")

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
    # Workflows: when the content rules read a workflow's changed lines, they decide instead of this rule
    # (CONTENT_JUDGED_DIRPATHS; `tiergate.tier.content.ci`: an action's version bump is routine).
    Rule(
        "security", "dirpath", (".github/workflows", ".gitea/workflows", ".forgejo/workflows"), "**/{key}/**"
    ),
    Rule("security", "dirpath", (".github/actions", ".gitlab/ci"), "**/{key}/**"),
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
            # the web server in front of the application: routing, TLS, headers
            *("nginx.conf", "Caddyfile"),
        ),
        "**/{key}",
    ),
    Rule("architecture", "name-case", ("BUILD", "WORKSPACE"), "**/{key}"),
    Rule("architecture", "prefix", ("Dockerfile", "Containerfile"), "**/{key}*"),
    Rule("architecture", "prefix", ("docker-compose", "compose"), "**/{key}*.{exts}", _MANIFEST_YAML),
    Rule("architecture", "prefix", ("tsconfig",), "**/{key}*.{exts}", _exts("json")),
    # pip's requirements: the plain file and the runtime variants (see RUNTIME_REQUIREMENTS)
    Rule("architecture", "name", ("requirements.txt", "requirements.in"), "**/{key}"),
    Rule(
        "architecture",
        "name",
        tuple(
            f"{a}{sep}{b}.{ext}"
            for word in RUNTIME_REQUIREMENTS
            for a, b in (("requirements", word), (word, "requirements"))
            for sep in "-_"
            for ext in ("txt", "in")
        ),
        "**/{key}",
    ),
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
    # `config` names configuration in data formats, in JavaScript's and TypeScript's tool scripts (the
    # seed's config.{ts,js,json}) and in C headers; in other code it names the module that reads and models
    # configuration (flask/config.py, ripgrep's config.rs), reviewed and tested like any other code.
    Rule("architecture", "stem", ("config", "configuration"), "**/{key}.*", _CONFIG_EXTS),
    # `types` is the contract in TypeScript (the seed's types.ts) and in C headers; types.py, types.go and
    # types.rs are modules like any other (ripgrep's ignore/types.rs matches file types).
    Rule("architecture", "stem", ("types",), "**/{key}.{exts}", _TYPES_EXTS),
    Rule("architecture", "stem", ("schema", "schemas"), "**/{key}.*"),
    Rule("architecture", "stem", ("definitions",), "**/{key}.*"),
    Rule("architecture", "stem", ("settings",), "**/{key}.py", _exts("py")),
    Rule("architecture", "last-part", ("types",), "**/*.{key}.{exts}", _exts("ts", "mts", "cts")),
    # ... and in the class files of Spring and .NET, where a *Config class wires the application
    # (DatabaseConfig.java, SecurityConfig.kt).
    Rule(
        "architecture",
        "last-word",
        ("config", "configuration"),
        "word '{key}' ending a file name",
        (*_CONFIG_EXTS, *_CLASS_CONFIG_EXTS),
    ),
    Rule("architecture", "last-word", ("schema",), "word '{key}' ending a file name"),
    Rule("architecture", "last-word", ("settings",), "word '{key}' ending a .py file name", _exts("py")),
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
    Rule(
        "architecture",
        "parent",
        ("requirements",),
        "**/{key}/{stems}.{exts}",
        _exts("txt", "in"),
        stems=RUNTIME_REQUIREMENTS,
    ),
    # Django's settings split per environment (settings/production.py)
    Rule("architecture", "parent", ("settings",), "**/{key}/*.py", _exts("py")),
)
