"""The replay engine's summary of past commits' tiers: what they cost against always THOROUGH, and why."""

from __future__ import annotations

from pathlib import Path

from testing.gitrepo import commit_all, init_repo, write
from testing.pastcommits import lines, replayed

from tiergate.config.settings import load_config
from tiergate.tier.policy import Tier
from tiergate.tier.replay import summarise


def test_the_summary_adds_up(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"README.md": "hi\n"})  # root: docs only, vacuously covered: LIGHT
    write(repo, {"a/package.json": "{}\n"})
    commit_all(repo, "manifest a")  # THOROUGH
    write(repo, {"b/package.json": "{}\n", "src/x.py": "x = 1\n"})
    commit_all(repo, "manifest b")  # THOROUGH, the same rule
    write(repo, {"src/x.py": "x = 2\n"})
    commit_all(repo, "small code edit")  # STANDARD; LIGHT had the gate measured full coverage
    write(repo, {"src/big.py": lines(150)})
    commit_all(repo, "big")  # STANDARD, and not LIGHT even fully covered
    config = load_config(repo)
    rows = list(replayed(repo).values())
    summary = summarise(rows, config)
    assert summary.commits == 5
    assert summary.tiers == {Tier.LIGHT: 1, Tier.STANDARD: 2, Tier.THOROUGH: 2}
    assert summary.cost == 1 + 5 + 5 + 20 + 20
    assert summary.always_thorough == 100
    assert summary.thorough_reasons == (("architecture pattern '**/package.json'", 2),)
    assert summary.light_if_full_coverage == 2
    assert summary.raised_by_content == ()
