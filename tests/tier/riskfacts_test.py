from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from testing.riskmatch import categories

from tiergate.tier import riskfacts
from tiergate.tier.riskfacts import is_check_config
from tiergate.tier.riskpaths import DEFAULT, RiskScan

T = TypeVar("T")

CORPUS = Path(__file__).parents[1] / "fixtures" / "risk_corpus.tsv"


def corpus_paths() -> list[str]:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()[1:]
    return [line.split("\t")[1] for line in lines if line and not line.startswith("#")]


@pytest.mark.parametrize(
    "name",
    [
        *("pytest.ini", "tox.ini", "mypy.ini", ".coveragerc", "ruff.toml", ".flake8", "noxfile.py"),
        *(".pre-commit-config.yaml", ".golangci.yml", "clippy.toml", "phpunit.xml.dist", ".rubocop.yml"),
        *(".eslintrc", ".eslintrc.json", ".eslintrc.cjs", "eslint.config.mjs", "jest.config.js"),
        *("vitest.config.ts", "playwright.config.ts", "tailwind.config.js", "lint-staged.config.js"),
    ],
)
def test_check_tool_configs_are_not_architecture_by_path(name: str) -> None:
    assert is_check_config(name)
    assert DEFAULT.match(name) == ()
    assert DEFAULT.match(f"packages/web/{name}") == ()


def test_build_configs_are_not_check_configs() -> None:
    for name in ("webpack.config.js", "rollup.config.mjs", "vite.config.ts", "next.config.mjs"):
        assert not is_check_config(name), name
        assert categories(name) == {"architecture"}, name
    for name in ("pyproject.toml", "setup.cfg", "package.json", "tsconfig.json", ".eslint_helpers.js"):
        assert not is_check_config(name), name


# -- the memo ------------------------------------------------------------------------------------------


def test_the_memo_stays_bounded() -> None:
    # The memos filled to 10 short of their bound, with facts already worked out under keys no path has:
    # working out 65,000 new paths' facts one by one to get there took seconds and proved no more. Then
    # 20 new paths, 10 more than there is room for, through the real matching.
    _fill(riskfacts._FILES, riskfacts.file_facts("filler.py"), riskfacts.CACHE_LIMIT - 10)
    _fill(riskfacts._DIRS, riskfacts.dir_facts("filler"), riskfacts.CACHE_LIMIT - 10)
    _fill(riskfacts._SEGMENTS, riskfacts._segment_facts("filler"), riskfacts.CACHE_LIMIT - 10)
    for i in range(20):
        DEFAULT.match(f"src/unique_{i}/file_{i}.py")
    assert len(riskfacts._FILES) <= riskfacts.CACHE_LIMIT
    assert len(riskfacts._DIRS) <= riskfacts.CACHE_LIMIT
    assert len(riskfacts._SEGMENTS) <= riskfacts.CACHE_LIMIT
    assert categories("src/auth/x.py") == {"security"}


def test_a_path_seen_before_is_matched_from_the_memo_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # What keeps matching at about a microsecond a path (bench/riskpaths_bench.py measures it): a file name
    # or a folder seen before is not worked out again.
    paths = corpus_paths()
    for memo in (riskfacts._FILES, riskfacts._DIRS, riskfacts._SEGMENTS):
        memo.clear()  # no other test's entries, and room for all of these
    first = DEFAULT.scan(paths)
    worked_out: list[str] = []
    for name in ("_file_facts", "_dir_facts", "_segment_facts"):
        monkeypatch.setattr(riskfacts, name, _noted(getattr(riskfacts, name), worked_out))
    assert DEFAULT.scan(paths * 100) == RiskScan(first.security * 100, first.architecture * 100)
    assert worked_out == []


def _fill(memo: dict[str, T], facts: T, size: int) -> None:
    """`memo` grown to `size` entries of `facts`, under keys that hold a NUL, which no path does."""
    memo.update((f"\0filler {n}", facts) for n in range(len(memo), size))


def _noted(work: Callable[[str], object], calls: list[str]) -> Callable[[str], object]:
    """`work`, noting each key it is asked about in `calls`."""

    def noted(key: str) -> object:
        calls.append(key)
        return work(key)

    return noted
