"""The checks tiergate would run for a project that configures none: simple rules per ecosystem.

The obvious commands for Python, Node, Go and Rust projects, each with the reason it was detected; the
tests check is the command that runs the tests most completely among those the project declares and
tiergate's own guess. Pure: the caller reads the files and looks the programs up (`ProjectFacts`).
See docs/judging.md, "Choosing the test command".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field, replace
from typing import Any

from tiergate.frozen import frozen
from tiergate.gate.detection.declared.commands import declared_commands, pytest_options
from tiergate.gate.detection.declared.declaration import Declared
from tiergate.gate.detection.program import program_of
from tiergate.gate.detection.testcommand import Runs, what_runs, without_own_coverage

# What `npm init` writes as the test script: a placeholder that always fails, not a test suite.
NPM_PLACEHOLDER_TEST = "no test specified"


@frozen
class ProjectFacts:
    """What the detection rules look at, all from the project root: `names`, its entries (files and
    folders); the parsed `pyproject.toml` and `package.json` (empty without one); `programs`, those the
    rules name (`programs_named`) that were found (None: not looked up, every check offered); `texts`, the
    files declaring test commands (`declared.declaration.FILES_READ`, CI workflows) by path; and
    `package_tests`, the root's packages' `tests` or `test` folders (`pkg/tests`)."""

    names: frozenset[str] = frozenset()
    pyproject: Mapping[str, Any] = field(default_factory=dict)
    package_json: Mapping[str, Any] = field(default_factory=dict)
    programs: frozenset[str] | None = None
    texts: Mapping[str, str] = field(default_factory=dict)
    # Test folders inside the root's Python packages (`toolz/tests`): where many libraries keep them.
    package_tests: frozenset[str] = frozenset()


@frozen
class DetectedCheck:
    """A detected check; `declared`: where the project declares its command (empty: tiergate's guess)."""

    name: str
    command: str
    ecosystem: str
    reason: str
    declared: tuple[Declared, ...] = ()


@frozen
class Detection:
    offered: tuple[DetectedCheck, ...]
    skipped: tuple[tuple[DetectedCheck, str], ...] = ()  # each with why it is not offered
    # The other test commands the project declares (and tiergate's guess), each with why it was not chosen.
    passed_over: tuple[tuple[DetectedCheck, str], ...] = ()


@frozen
class Standing:
    """How completely a candidate test command runs the tests, as the ranking reads it (docs/judging.md,
    "Choosing the test command"). `order`: where its first declaration comes (files in preference order)."""

    declared: bool = False
    narrows: str = ""
    doctests: str = ""
    known: bool = True
    places: int = 1
    order: int = 0

    def key(self) -> tuple[bool, bool, bool, bool, int, int]:
        return (self.declared, not self.narrows, bool(self.doctests), self.known, self.places, -self.order)


@frozen
class Candidate:
    check: DetectedCheck
    standing: Standing = Standing()
    problem: str = ""  # why it cannot be the check whatever is on PATH ("" when it can)


Slot = tuple[Candidate, ...]  # the candidates for one check, best first


def detect(facts: ProjectFacts) -> Detection:
    """The checks for `facts`, in ecosystem order (Python, Node, Go, Rust), named `lint`, `types`, `build`
    or `tests`, and those skipped because their program was not found. When two offered checks of two
    ecosystems have one kind, every check of that kind is suffixed with its ecosystem (`tests-python`,
    `tests-node`) so the names stay unique. Of a slot's candidates (the test commands), the best one
    whose program is found is offered, and the others are passed over, each with why."""
    offered: list[DetectedCheck] = []
    skipped: list[tuple[DetectedCheck, str]] = []
    passed_over: list[tuple[DetectedCheck, str]] = []
    for slot in _slots(facts):
        runnable = [(c, *_runnable(c, facts.programs)) for c in slot]
        chosen = next((entry for entry in runnable if not entry[2]), None)
        if chosen is None:
            first = next((entry for entry in runnable if not entry[0].problem), None)
            if first is not None:
                skipped.append((first[1], first[2]))
            passed_over += [(entry[1], entry[2]) for entry in runnable if entry is not first]
            continue
        offered.append(chosen[1])
        passed_over += [
            (entry[1], entry[2] or _below(entry[0], chosen[0])) for entry in runnable if entry is not chosen
        ]
    kinds = [check.name for check in offered]
    names = {
        (check.name, check.ecosystem): check.name
        if kinds.count(check.name) == 1
        else f"{check.name}-{check.ecosystem}"
        for check in offered
    }

    def named(check: DetectedCheck) -> DetectedCheck:
        return replace(check, name=names.get((check.name, check.ecosystem), check.name))

    return Detection(
        tuple(named(check) for check in offered),
        tuple((check, why) for check, why in skipped),
        tuple((named(check), why) for check, why in passed_over),
    )


def programs_named(facts: ProjectFacts) -> frozenset[str]:
    """The programs the checks detected for `facts` start: the caller looks these up."""
    programs = (program_of(c.check.command) for slot in _slots(facts) for c in slot)
    words = {program.word for program in programs if program is not None}
    return frozenset(words | ({"python3"} if "python" in words else set()))


def _slots(facts: ProjectFacts) -> list[Slot]:
    return [slot for rules in _ECOSYSTEMS for slot in rules(facts)]


def _runnable(candidate: Candidate, programs: frozenset[str] | None) -> tuple[DetectedCheck, str]:
    """The candidate's check as it would run here, and why it cannot ("" when it can)."""
    check = candidate.check
    if candidate.problem:
        return check, candidate.problem
    why = _missing(check, programs)
    if why and programs is not None and "python3" in programs and check.command.startswith("python "):
        moved = replace(check, command=f"python3 {check.command.removeprefix('python ')}")
        return replace(moved, reason=f"{check.reason}; run as python3: `python` is not on PATH"), ""
    return check, why


def _missing(check: DetectedCheck, programs: frozenset[str] | None) -> str:
    """Why `check` is not offered ("" when it is): its program was looked for and not found."""
    program = program_of(check.command)
    if programs is None or program is None or program.word in programs:
        return ""
    return f"`{program.word}` is not on PATH"


def _below(loser: Candidate, winner: Candidate) -> str:
    """Why `loser` ranks below `winner` (docs/judging.md), for a person."""
    lost, won = loser.standing, winner.standing
    if won.declared and not lost.declared:
        return "the project declares its own test command, which wins over a guess"
    if lost.narrows and not won.narrows:
        return lost.narrows
    if won.doctests and not lost.doctests:
        return f"runs no doctests that it says; the chosen command does ({won.doctests})"
    if won.known and not lost.known:
        return "what it runs cannot be told from the line; the chosen command is a test runner"
    if won.places > lost.places:
        return f"declared in fewer files ({lost.places} against {won.places})"
    first = winner.check.declared[0].origin if winner.check.declared else "the chosen command"
    return f"ranks the same, and {first} comes first"


def _python(facts: ProjectFacts) -> list[Slot]:
    markers = {"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "tox.ini", "noxfile.py"}
    if not markers & facts.names:
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
    pytest, command = _pytest_reason(facts.names, tools), "pytest -q"
    if not pytest and facts.package_tests:
        # Run as a module, so that the root is on sys.path: the tests import the package they sit in.
        pytest, command = f"{min(facts.package_tests)} exists (a package's own tests)", "python -m pytest -q"
    guess = DetectedCheck("tests", command, "python", pytest) if pytest else None
    return [*_alone(checks), *_tests(facts, "python", guess)]


def _alone(checks: Sequence[DetectedCheck]) -> list[Slot]:
    return [(Candidate(check),) for check in checks]


def _tests(facts: ProjectFacts, ecosystem: str, guess: DetectedCheck | None) -> list[Slot]:
    """The tests slot of `ecosystem`: the commands the project declares for it and tiergate's guess,
    best first (docs/judging.md); none when there is neither."""
    options = pytest_options(facts.texts, facts.pyproject)
    found: dict[str, tuple[list[Declared], Runs, int]] = {}
    handed: list[Candidate] = []
    for order, written in enumerate(declared_commands(facts.texts, facts.pyproject)):
        command, dropped = without_own_coverage(written.command)
        runs = what_runs(command, options)
        note = f"{dropped}: the gate measures coverage itself"
        declared = replace(written, notes=(*written.notes, note)) if dropped else written
        if runs.delegates:
            if ecosystem == "python" and not declared.problem:
                why = (
                    f"it hands the tests to {runs.delegates}: the gate runs what {runs.delegates} would run, "
                )
                why += f"here; {runs.delegates}'s own environments are not this one"
                handed.append(Candidate(_declared_check(command, ecosystem, [declared]), problem=why))
            continue
        own = runs.ecosystem == ecosystem or (
            not runs.runner and ecosystem == "python" and declared.alone and not declared.ci
        )
        if not own:
            continue
        if command in found:
            found[command][0].append(declared)
        else:
            found[command] = ([declared], runs, order)
    candidates = [
        Candidate(
            _declared_check(command, ecosystem, places),
            Standing(
                True, runs.narrows, runs.doctests, bool(runs.runner), len({d.file for d in places}), order
            ),
            places[0].problem,
        )
        for command, (places, runs, order) in found.items()
    ]
    if guess is not None:
        runs = what_runs(guess.command, options)
        candidates.append(Candidate(guess, Standing(False, runs.narrows, runs.doctests)))
    if not candidates:
        return []
    ranked = sorted(candidates, key=lambda c: (not c.problem, c.standing.key()), reverse=True)
    return [(*ranked, *handed)]


def _declared_check(command: str, ecosystem: str, places: Sequence[Declared]) -> DetectedCheck:
    first, *others = places
    said = f"{first.origin} as `{first.written}`" if first.written else first.origin
    if first.notes:
        said += f" ({'; '.join(first.notes)})"
    also = f"; also in {', '.join(d.origin for d in others)}" if others else ""
    return DetectedCheck("tests", command, ecosystem, f"declared in {said}{also}", tuple(places))


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


def _node(facts: ProjectFacts) -> list[Slot]:
    return _alone(_node_checks(facts))


def _node_checks(facts: ProjectFacts) -> list[DetectedCheck]:
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


def _go(facts: ProjectFacts) -> list[Slot]:
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
        *_alone([lint, DetectedCheck("build", "go build ./...", "go", "go.mod exists")]),
        *_tests(facts, "go", DetectedCheck("tests", "go test ./...", "go", "go.mod exists")),
    ]


def _rust(facts: ProjectFacts) -> list[Slot]:
    if "Cargo.toml" not in facts.names:
        return []
    return [
        *_alone(
            [
                DetectedCheck("lint", "cargo clippy --all-targets", "rust", "Cargo.toml exists"),
                DetectedCheck("build", "cargo build", "rust", "Cargo.toml exists"),
            ]
        ),
        *_tests(facts, "rust", DetectedCheck("tests", "cargo test", "rust", "Cargo.toml exists")),
    ]


_ECOSYSTEMS: tuple[Callable[[ProjectFacts], list[Slot]], ...] = (_python, _node, _go, _rust)
