"""docs/ARCHITECTURE.md held to the code: its tables stay readable, and every module it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "tiergate"
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
MAX_CELL = 200
# A module path in backticks: `gate/run.py`, `run.py`, `handlers/stop.py::measure`, `nodemutants/guard.cjs`.
MODULE_PATH = re.compile(r"`((?:[a-z_][a-z0-9_]*/)*[a-z_][a-z0-9_]*\.(?:py|cjs|mjs))(?:::[A-Za-z_.]+)?`")
# Paths outside the package the document names too.
ELSEWHERE = ("tests/", "testing/", "bench/", "scripts/", "hooks/", "agents/", ".ci/")
# Files of the user's project the document names, not modules of tiergate.
PROJECT_FILES = {"conftest.py", "setup.py", "noxfile.py"}
# A table headed `### gate/` (or `### loop/ (pure ...)`) names its modules relative to that package.
PACKAGE_HEADING = re.compile(r"^#{2,3} ([a-z]+)/")


def table_cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split(" | ")]


def module_paths(text: str) -> list[tuple[int, str, str | None]]:
    """(line number, path, the package of the section it is in) of every module path in backticks."""
    found = []
    package = None
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#"):
            heading = PACKAGE_HEADING.match(line)
            package = heading.group(1) if heading else None
        for path in MODULE_PATH.findall(line):
            if not path.startswith(ELSEWHERE) and path not in PROJECT_FILES:
                found.append((number, path, package))
    return found


def exists(path: str, package: str | None) -> bool:
    """Under the section's package, at the top, or under one package (`mutation/step.py` in gate/)."""
    path = path.removeprefix("src/").removeprefix("tiergate/")
    folders = [PACKAGE / package] if package else []
    folders += [PACKAGE, *(p for p in PACKAGE.iterdir() if p.is_dir())]
    if any((folder / path).is_file() for folder in folders):
        return True
    # A bare name in prose (`sandboxinit.py`): some module of that name.
    return "/" not in path and any(PACKAGE.rglob(path))


def test_no_table_cell_runs_over_the_limit() -> None:
    lines = ARCHITECTURE.read_text(encoding="utf-8").splitlines()
    long = {
        number: len(cell)
        for number, line in enumerate(lines, start=1)
        if line.startswith("|")
        for cell in table_cells(line)
        if len(cell) > MAX_CELL
    }
    assert long == {}


def test_every_module_the_document_names_exists() -> None:
    named = module_paths(ARCHITECTURE.read_text(encoding="utf-8"))
    assert len(named) > 100
    missing = [(number, path) for number, path, package in named if not exists(path, package)]
    assert missing == []


def test_what_counts_as_a_module_path() -> None:
    text = "\n".join(
        [
            "### gate/",
            "`run.py` and `mutation/step.py::Step`, `tests/docs_test.py`, `gate/run`, `.tiergate.toml`",
            "`conftest.py`",
            "`tiergate/seal.py`",
            "## Other",
            "`handlers/gone.py`",
        ]
    )
    named = [(path, package) for _, path, package in module_paths(text)]
    assert named == [
        ("run.py", "gate"),
        ("mutation/step.py", "gate"),
        ("tiergate/seal.py", "gate"),
        ("handlers/gone.py", None),
    ]
    assert [exists(path, package) for path, package in named] == [True, True, True, False]
