"""How fast risk-path detection classifies realistic paths: `python bench/riskpaths_bench.py [N] [LISTING]`.

Paths are drawn from six ecosystems (Python, Go, Rust, Java, JS/TS, infrastructure), mostly ordinary
source files with a few sensitive ones, as in a real change list. Figures: a cold start (empty memo), a
warm second pass, a pass where every file name is new (the memo of names never hits), and the warm pass
with two user globs. LISTING, a file with one path a line (`git ls-files > listing`), adds a pass over
real paths, repeated up to N.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tiergate.tier import riskfacts
from tiergate.tier.riskpaths import RiskPaths

_WORDS = (
    "user",
    "order",
    "invoice",
    "cart",
    "payment",
    "report",
    "search",
    "index",
    "render",
    "cache",
    "queue",
    "worker",
    "client",
    "server",
    "handler",
    "service",
    "model",
    "view",
    "controller",
    "router",
    "parser",
    "util",
    "helper",
    "format",
    "date",
    "image",
    "upload",
    "email",
    "notify",
    "metric",
    "logger",
    "stream",
    "buffer",
    "batch",
    "retry",
    "schedule",
    "export",
    "import",
    "profile",
    "settings",
    "widget",
)
_SENSITIVE = (
    "auth/session.py",
    "security/policy.go",
    "jwt_utils.ts",
    "permissions.py",
    "secrets.yaml",
    ".env.local",
    "package.json",
    "go.mod",
    "Cargo.toml",
    "pom.xml",
    "schema.prisma",
    "migrations/0042_add_index.py",
    "config.ts",
    "Dockerfile",
)


def _python(rng: random.Random, name: str) -> str:
    pkg = rng.choice(_WORDS)
    return rng.choice([f"src/app/{pkg}/{name}.py", f"tests/{pkg}/test_{name}.py", f"app/{pkg}/{name}.py"])


def _go(rng: random.Random, name: str) -> str:
    pkg = rng.choice(_WORDS)
    return rng.choice([f"internal/{pkg}/{name}.go", f"pkg/{pkg}/{name}_test.go", f"cmd/{pkg}/main.go"])


def _rust(rng: random.Random, name: str) -> str:
    return rng.choice([f"src/{name}.rs", f"crates/{rng.choice(_WORDS)}/src/{name}.rs", "src/lib.rs"])


def _java(rng: random.Random, name: str) -> str:
    cls = name.title().replace("_", "")
    return f"src/main/java/com/acme/{rng.choice(_WORDS)}/{cls}{rng.choice(['Service', 'Impl', ''])}.java"


def _typescript(rng: random.Random, name: str) -> str:
    comp = name.title().replace("_", "")
    return rng.choice(
        [
            f"src/components/{comp}/{comp}.tsx",
            f"src/hooks/use{comp}.ts",
            f"packages/{rng.choice(_WORDS)}/src/{name}.ts",
            "src/components/index.ts",
        ]
    )


def _infra(rng: random.Random, name: str) -> str:
    return rng.choice([f"docs/{name}.md", f"scripts/{name}.sh", f"assets/{name}.png", f"data/{name}.csv"])


_ECOSYSTEMS: tuple[Callable[[random.Random, str], str], ...] = (
    _python,
    _go,
    _rust,
    _java,
    _typescript,
    _infra,
)


def realistic_paths(count: int, seed: int = 7, unique_names: bool = False) -> list[str]:
    rng = random.Random(seed)
    paths = []
    for i in range(count):
        if rng.random() < 0.04:
            paths.append(f"{rng.choice(['', 'services/api/', 'backend/'])}{rng.choice(_SENSITIVE)}")
            continue
        name = f"{rng.choice(_WORDS)}_{rng.choice(_WORDS)}"
        if unique_names:
            name = f"{name}{i}"
        paths.append(rng.choice(_ECOSYSTEMS)(rng, name))
    return paths


def _forget() -> None:
    for cache in (riskfacts._FILES, riskfacts._DIRS, riskfacts._SEGMENTS):
        cache.clear()


def _rate(rules: RiskPaths, paths: list[str], cold: bool) -> tuple[float, int]:
    """Paths per second, the best of five runs: other work on the machine only ever slows a run down."""
    best = float("inf")
    found = 0
    for _ in range(5):
        if cold:
            _forget()
        start = time.perf_counter()
        scan = rules.scan(paths)
        best = min(best, time.perf_counter() - start)
        found = len(scan.security) + len(scan.architecture)
    return len(paths) / best, found


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rules = RiskPaths()
    paths = realistic_paths(count)
    cold, found = _rate(rules, paths, cold=True)
    warm, _ = _rate(rules, paths, cold=False)
    unique, _ = _rate(rules, realistic_paths(count, seed=8, unique_names=True), cold=True)
    extras = RiskPaths(extra_security=["billing/**"], extra_architecture=["**/*.sql"])
    with_extras, _ = _rate(extras, paths, cold=False)
    print(f"{count} paths, {found} matches; best of five runs")
    print(f"cold memo:          {cold:12,.0f} paths/s")
    print(f"warm memo:          {warm:12,.0f} paths/s")
    print(f"every name new:     {unique:12,.0f} paths/s")
    print(f"two extra globs:    {with_extras:12,.0f} paths/s")
    if len(sys.argv) > 2:
        listing = [p for p in Path(sys.argv[2]).read_text().splitlines() if p]
        real = (listing * (count // len(listing) + 1))[:count]
        real_cold, real_found = _rate(rules, real, cold=True)
        print(f"listing, cold memo: {real_cold:12,.0f} paths/s", end=" ")
        print(f"({len(listing)} distinct paths, {real_found} matches)")


if __name__ == "__main__":
    main()
