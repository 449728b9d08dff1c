"""The checks tiergate would run for a project that configures none: simple rules per ecosystem.

A project's `[checks]` table always wins; these rules only name the obvious commands for Python, Node, Go
and Rust projects from what their root holds (marker files, `pyproject.toml` tool tables, `package.json`
scripts). Each detected check carries the reason it was detected, so `tiergate doctor` can say why.

A detected check is offered only when its program is there: a check that cannot run shows nothing, and
a project that merely has a `[tool.mypy]` table has not promised that mypy is installed. The caller says
which of the programs the rules name it found (`ProjectFacts.programs`, from `programs_named`); the
others' checks are skipped, each with why.

Pure: the caller reads the files and looks the programs up (`ProjectFacts`); this module only decides.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tiergate.gate.program import program_of

# What `npm init` writes as the test script: a placeholder that always fails, not a test suite.
NPM_PLACEHOLDER_TEST = "no test specified"


@dataclass(frozen=True)
class ProjectFacts:
    """What the detection rules look at, all from the project root.

    `names`: entries directly in the root (files and folders alike), `pyproject`: the parsed
    `pyproject.toml` (empty without one), `package_json`: the parsed `package.json` (empty without one),
    `programs`: which of the programs the rules name (`programs_named`) were found (None: not looked
    up, every check is offered).
    """

    names: frozenset[str] = frozenset()
    pyproject: Mapping[str, Any] = field(default_factory=dict)
    package_json: Mapping[str, Any] = field(default_factory=dict)
    programs: frozenset[str] | None = None


@dataclass(frozen=True)
class DetectedCheck:
    name: str
    command: str
    ecosystem: str
    reason: str


@dataclass(frozen=True)
class Detection:
    offered: tuple[DetectedCheck, ...]
    skipped: tuple[tuple[DetectedCheck, str], ...] = ()  # each with why it is not offered


def detect_checks(facts: ProjectFacts) -> list[DetectedCheck]:
    """The checks offered for `facts` (`detect`)."""
    return list(detect(facts).offered)


def detect(facts: ProjectFacts) -> Detection:
    """The checks for `facts`, in ecosystem order (Python, Node, Go, Rust), named `lint`, `types`, `build`
    or `tests`, and those skipped because their program was not found. When two offered checks of two
    ecosystems have one kind, every check of that kind is suffixed with its ecosystem (`tests-python`,
    `tests-node`) so the names stay unique."""
    found = _candidates(facts)
    skipped = tuple((check, _missing(check, facts.programs)) for check in found)
    offered = [check for check, why in skipped if not why]
    kinds = [check.name for check in offered]
    return Detection(
        tuple(
            check if kinds.count(check.name) == 1 else _renamed(check, f"{check.name}-{check.ecosystem}")
            for check in offered
        ),
        tuple((check, why) for check, why in skipped if why),
    )


def programs_named(facts: ProjectFacts) -> frozenset[str]:
    """The programs the checks detected for `facts` start: the caller looks these up."""
    programs = (program_of(check.command) for check in _candidates(facts))
    return frozenset(program.word for program in programs if program is not None)


def _candidates(facts: ProjectFacts) -> list[DetectedCheck]:
    return [check for rules in _ECOSYSTEMS for check in rules(facts)]


def _missing(check: DetectedCheck, programs: frozenset[str] | None) -> str:
    """Why `check` is not offered ("" when it is): its program was looked for and not found."""
    program = program_of(check.command)
    if programs is None or program is None or program.word in programs:
        return ""
    return f"`{program.word}` is not on PATH"


def _renamed(check: DetectedCheck, name: str) -> DetectedCheck:
    return DetectedCheck(name, check.command, check.ecosystem, check.reason)


def _python(facts: ProjectFacts) -> list[DetectedCheck]:
    markers = {"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"} & facts.names
    if not markers:
        return []
    tools = _tool_tables(facts.pyproject)
    checks: list[DetectedCheck] = []
    ruff = _first_reason(facts.names, tools, files=("ruff.toml", ".ruff.toml"), table="ruff")
    if ruff:
        checks.append(DetectedCheck("lint", "ruff check .", "python", ruff))
    mypy = _first_reason(facts.names, tools, files=("mypy.ini", ".mypy.ini"), table="mypy")
    pyright = _first_reason(facts.names, tools, files=("pyrightconfig.json",), table="pyright")
    if mypy:
        checks.append(DetectedCheck("types", "mypy", "python", mypy))
    elif pyright:
        checks.append(DetectedCheck("types", "pyright", "python", pyright))
    pytest = _pytest_reason(facts.names, tools)
    if pytest:
        checks.append(DetectedCheck("tests", "pytest -q", "python", pytest))
    return checks


def _tool_tables(pyproject: Mapping[str, Any]) -> frozenset[str]:
    tool = pyproject.get("tool")
    return frozenset(tool) if isinstance(tool, Mapping) else frozenset()


def _first_reason(names: frozenset[str], tools: frozenset[str], *, files: tuple[str, ...], table: str) -> str:
    for name in files:
        if name in names:
            return f"{name} exists"
    return f"pyproject.toml has [tool.{table}]" if table in tools else ""


def _pytest_reason(names: frozenset[str], tools: frozenset[str]) -> str:
    if "pytest" in tools:
        return "pyproject.toml has [tool.pytest.ini_options]"
    for name in ("pytest.ini", "conftest.py", "tests", "test"):
        if name in names:
            return f"{name} exists"
    return ""


def _node(facts: ProjectFacts) -> list[DetectedCheck]:
    if "package.json" not in facts.names:
        return []
    runner = _node_runner(facts.names)
    raw = facts.package_json.get("scripts")
    scripts = {k: v for k, v in raw.items() if isinstance(v, str)} if isinstance(raw, Mapping) else {}
    checks: list[DetectedCheck] = []
    if "lint" in scripts:
        checks.append(_script_check("lint", "lint", runner))
    types_script = next((s for s in ("typecheck", "type-check", "types") if s in scripts), None)
    if types_script:
        checks.append(_script_check("types", types_script, runner))
    elif "tsconfig.json" in facts.names:
        checks.append(DetectedCheck("types", "npx tsc --noEmit", "node", "tsconfig.json exists"))
    if "build" in scripts:
        checks.append(_script_check("build", "build", runner))
    if "test" in scripts and NPM_PLACEHOLDER_TEST not in scripts["test"]:
        checks.append(_script_check("tests", "test", runner))
    return checks


def _node_runner(names: frozenset[str]) -> str:
    # The lock file says which package manager the project uses; npm is what every Node install has.
    for lock, runner in (
        ("pnpm-lock.yaml", "pnpm"),
        ("yarn.lock", "yarn"),
        ("bun.lock", "bun"),
        ("bun.lockb", "bun"),
    ):
        if lock in names:
            return runner
    return "npm"


def _script_check(name: str, script: str, runner: str) -> DetectedCheck:
    return DetectedCheck(name, f"{runner} run {script}", "node", f'package.json has a "{script}" script')


def _go(facts: ProjectFacts) -> list[DetectedCheck]:
    if "go.mod" not in facts.names:
        return []
    golangci = next(
        (n for n in (".golangci.yml", ".golangci.yaml", ".golangci.toml") if n in facts.names), None
    )
    lint = (
        DetectedCheck("lint", "golangci-lint run", "go", f"{golangci} exists")
        if golangci
        else DetectedCheck("lint", "go vet ./...", "go", "go.mod exists")
    )
    return [
        lint,
        DetectedCheck("build", "go build ./...", "go", "go.mod exists"),
        DetectedCheck("tests", "go test ./...", "go", "go.mod exists"),
    ]


def _rust(facts: ProjectFacts) -> list[DetectedCheck]:
    if "Cargo.toml" not in facts.names:
        return []
    return [
        DetectedCheck("lint", "cargo clippy --all-targets", "rust", "Cargo.toml exists"),
        DetectedCheck("build", "cargo build", "rust", "Cargo.toml exists"),
        DetectedCheck("tests", "cargo test", "rust", "Cargo.toml exists"),
    ]


_ECOSYSTEMS: tuple[Callable[[ProjectFacts], list[DetectedCheck]], ...] = (_python, _node, _go, _rust)
