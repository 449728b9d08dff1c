"""The small project the loop's hook tests verify: `value.txt` must say good, and `check.sh`, the
project's one check (`[checks] tests`), says whether it does. Each test module brings the check's wording
it asserts on."""

from __future__ import annotations

from pathlib import Path

from testing.gitrepo import init_repo

CONFIG = '[checks]\ntests = "sh check.sh"\n'


def value_project(
    root: Path, check: str, *, config: str = CONFIG, value: str = "good\n", gitignore: bool = True
) -> Path:
    """A git repository at `root / "project"` with value.txt, check.sh and .tiergate.toml committed (and,
    with `gitignore`, the `.tiergate/` ignore line projects of the old layout carried)."""
    files = {"value.txt": value, "check.sh": check, ".tiergate.toml": config}
    if gitignore:
        files[".gitignore"] = ".tiergate/\n"
    return init_repo(root / "project", files)
