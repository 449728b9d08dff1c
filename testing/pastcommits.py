"""Past commits replayed as `tiergate replay` does, and file texts of a given length, for its tests."""

from __future__ import annotations

from pathlib import Path

from tiergate.config.settings import load_config
from tiergate.tier import pastcommits
from tiergate.tier.replay import Engine, Replayed


def lines(n: int, tag: str = "line") -> str:
    return "".join(f"{tag} {i}\n" for i in range(n))


def replayed(repo: Path, rev_range: str | None = None, first_parent: bool = False) -> dict[str, Replayed]:
    config = load_config(repo)
    engine = Engine(config)
    selection = pastcommits.select(repo, rev_range, first_parent=first_parent)
    return {c.id: engine.replay(c) for c in pastcommits.replay(repo, selection, config.exclusions)}
