from __future__ import annotations

from dataclasses import replace
from typing import Any

from tiergate.gate.detection.rules import DetectedCheck, Detection, ProjectFacts, detect, programs_named


def facts(
    *names: str, pyproject: dict[str, Any] | None = None, package: dict[str, Any] | None = None
) -> ProjectFacts:
    return ProjectFacts(frozenset(names), pyproject or {}, package or {})


def detect_checks(facts: ProjectFacts) -> list[DetectedCheck]:
    """The checks offered for `facts`, every program taken as found."""
    return list(detect(facts).offered)


def commands(found: list[DetectedCheck]) -> dict[str, str]:
    return {check.name: check.command for check in found}


def test_a_project_without_any_marker_has_no_checks() -> None:
    assert detect_checks(facts("README.md", "docs", "Makefile")) == []


def test_python_tools_are_detected_from_pyproject_tables_with_the_table_as_reason() -> None:
    pyproject = {"tool": {"ruff": {}, "mypy": {"strict": True}, "pytest": {"ini_options": {}}}}
    found = detect_checks(facts("pyproject.toml", "src", pyproject=pyproject))
    assert commands(found) == {"lint": "ruff check .", "types": "mypy", "tests": "pytest -q"}
    assert [c.reason for c in found] == [
        "pyproject.toml has [tool.ruff]",
        "pyproject.toml has [tool.mypy]",
        "pyproject.toml has [tool.pytest.ini_options]",
    ]


def test_python_tools_are_detected_from_their_own_config_files() -> None:
    found = detect_checks(facts("setup.py", "ruff.toml", "pyrightconfig.json", "tests"))
    assert commands(found) == {"lint": "ruff check .", "types": "pyright", "tests": "pytest -q"}
    assert found[0].reason == "ruff.toml exists"


def test_mypy_wins_over_pyright_when_both_are_configured() -> None:
    found = detect_checks(facts("pyproject.toml", "mypy.ini", "pyrightconfig.json"))
    assert commands(found) == {"types": "mypy"}


def test_python_config_files_count_only_in_a_python_project() -> None:
    # A tests/ folder and a ruff.toml beside a Go module do not make it a Python project.
    found = detect_checks(facts("go.mod", "tests", "ruff.toml"))
    assert {c.ecosystem for c in found} == {"go"}


def test_node_checks_come_from_package_json_scripts_run_with_the_lock_files_package_manager() -> None:
    package = {
        "scripts": {"lint": "eslint .", "typecheck": "tsc -p .", "build": "vite build", "test": "vitest"}
    }
    found = detect_checks(facts("package.json", "pnpm-lock.yaml", package=package))
    assert commands(found) == {
        "lint": "pnpm run lint",
        "types": "pnpm run typecheck",
        "build": "pnpm run build",
        "tests": "pnpm run test",
    }
    assert found[-1].reason == 'package.json has a "test" script'


def test_node_uses_npm_without_a_lock_file_and_yarn_or_bun_with_theirs() -> None:
    package = {"scripts": {"build": "tsc"}}
    assert commands(detect_checks(facts("package.json", package=package))) == {"build": "npm run build"}
    assert commands(detect_checks(facts("package.json", "yarn.lock", package=package))) == {
        "build": "yarn run build"
    }
    assert commands(detect_checks(facts("package.json", "bun.lockb", package=package))) == {
        "build": "bun run build"
    }


def test_npm_inits_placeholder_test_script_is_not_a_test_suite() -> None:
    package = {"scripts": {"test": 'echo "Error: no test specified" && exit 1'}}
    assert detect_checks(facts("package.json", package=package)) == []


def test_a_typescript_project_without_a_typecheck_script_gets_tsc() -> None:
    found = detect_checks(facts("package.json", "tsconfig.json", package={"scripts": {}}))
    assert commands(found) == {"types": "npx tsc --noEmit"}
    assert found[0].reason == "tsconfig.json exists"


def test_malformed_package_scripts_are_ignored_not_fatal() -> None:
    listed: dict[str, Any] = {"scripts": ["lint", "test"]}
    assert detect_checks(facts("package.json", package=listed)) == []
    mixed: dict[str, Any] = {"scripts": {"test": 42, "lint": "eslint ."}}
    assert commands(detect_checks(facts("package.json", package=mixed))) == {"lint": "npm run lint"}


def test_go_gets_vet_build_and_test_and_golangci_lint_when_configured() -> None:
    assert commands(detect_checks(facts("go.mod"))) == {
        "lint": "go vet ./...",
        "build": "go build ./...",
        "tests": "go test ./...",
    }
    found = detect_checks(facts("go.mod", ".golangci.yml"))
    assert found[0] == DetectedCheck("lint", "golangci-lint run", "go", ".golangci.yml exists")


def test_rust_gets_clippy_build_and_test() -> None:
    assert commands(detect_checks(facts("Cargo.toml", "src"))) == {
        "lint": "cargo clippy --all-targets",
        "build": "cargo build",
        "tests": "cargo test",
    }


def test_names_shared_by_two_ecosystems_are_suffixed_with_the_ecosystem_and_the_rest_stay_plain() -> None:
    pyproject: dict[str, Any] = {"tool": {"pytest": {}, "mypy": {}}}
    package: dict[str, Any] = {"scripts": {"test": "jest", "build": "webpack"}}
    found = detect_checks(facts("pyproject.toml", "package.json", pyproject=pyproject, package=package))
    assert commands(found) == {
        "types": "mypy",
        "tests-python": "pytest -q",
        "build": "npm run build",
        "tests-node": "npm run test",
    }
    assert len({c.name for c in found}) == len(found)


def test_only_checks_whose_program_was_found_are_offered_and_the_others_say_why() -> None:
    pyproject: dict[str, Any] = {"tool": {"ruff": {}, "mypy": {}, "pytest": {"ini_options": {}}}}
    found = facts("pyproject.toml", "go.mod", pyproject=pyproject)
    assert programs_named(found) == {"ruff", "mypy", "pytest", "go"}
    detection = detect(replace(found, programs=frozenset({"pytest"})))
    assert [c.name for c in detection.offered] == ["tests"]  # one tests check left: no suffix
    assert [(c.command, why) for c, why in detection.skipped] == [
        ("ruff check .", "`ruff` is not on PATH"),
        ("mypy", "`mypy` is not on PATH"),
        ("go vet ./...", "`go` is not on PATH"),
        ("go build ./...", "`go` is not on PATH"),
        ("go test ./...", "`go` is not on PATH"),
    ]
    everything = detect(replace(found, programs=frozenset({"ruff", "mypy", "pytest", "go"})))
    assert everything.skipped == ()
    assert list(everything.offered) == detect_checks(found)  # not looked up: every check is offered
    assert [c.name for c in everything.offered if c.name.startswith("tests")] == ["tests-python", "tests-go"]


# The project's own test command -----------------------------------------------------------------------------


def project(files: dict[str, str], *names: str, programs: set[str] | None = None) -> ProjectFacts:
    """A Python project (a pyproject.toml and a tests folder) with the declaring files `files`."""
    found = frozenset({"pyproject.toml", "tests", *names, *(f.split("/")[0] for f in files)})
    return ProjectFacts(found, {}, {}, None if programs is None else frozenset(programs), texts=files)


def chosen_tests(detection: Detection) -> tuple[str, list[tuple[str, str]]]:
    """The chosen tests command, and each passed over with why."""
    chosen = [c.command for c in detection.offered if c.name.startswith("tests")]
    return chosen[0] if chosen else "", [(c.command, why) for c, why in detection.passed_over]


GUESS_LOSES = ("pytest -q", "the project declares its own test command, which wins over a guess")


def test_a_declared_unittest_wins_over_the_guessed_pytest_and_says_where_it_is_declared() -> None:
    tox = "[testenv]\ncommands = {envpython} -m unittest -v {posargs}\n"
    detection = detect(project({"tox.ini": tox, "Makefile": "test:\n\tpython -m unittest -v ${tests}\n"}))
    assert chosen_tests(detection) == ("python -m unittest -v", [GUESS_LOSES])
    chosen = detection.offered[0]
    assert chosen.reason == (
        "declared in tox.ini line 2 ([testenv] commands) as `{envpython} -m unittest -v {posargs}` "
        "({envpython} is python; {posargs} is nothing: tiergate passes no arguments); "
        "also in Makefile line 2 (target test)"
    )
    assert [(d.file, d.line) for d in chosen.declared] == [("tox.ini", 2), ("Makefile", 2)]


def test_each_shape_of_declaration_is_chosen_over_the_guess() -> None:
    shapes = {
        "noxfile.py": (
            'import nox\n@nox.session\ndef tests(session):\n    session.run("pytest", "--doctest-modules")\n',
            "pytest --doctest-modules",
        ),
        "Makefile": ("test:\n\t$(MAKE) lint\n\tpython -m pytest src tests\n", "python -m pytest src tests"),
        "justfile": ("test:\n    pytest --doctest-glob='*.md'\n", "pytest --doctest-glob='*.md'"),
        "hatch.toml": ('[envs.default.scripts]\ntest = "pytest {args:tests}"\n', "pytest tests"),
        ".github/workflows/ci.yml": (
            "    steps:\n      - run: pytest -p no:randomly\n",
            "pytest -p no:randomly",
        ),
    }
    for file, (text, command) in shapes.items():
        assert chosen_tests(detect(project({file: text}))) == (command, [GUESS_LOSES]), file
    pdm = {"tool": {"pdm": {"scripts": {"test": {"cmd": "python -m unittest discover -s tests"}}}}}
    facts = replace(project({}), pyproject=pdm)
    assert chosen_tests(detect(facts)) == ("python -m unittest discover -s tests", [GUESS_LOSES])


def test_the_most_complete_declaration_wins_and_the_others_say_why() -> None:
    files = {
        "tox.ini": "[testenv]\ncommands = pytest {posargs}\n",
        "noxfile.py": (
            'import nox\n@nox.session\ndef tests(session):\n    session.run("pytest", "-m", "not slow")\n'
        ),
        "Makefile": "test:\n\tpytest --doctest-modules\n",
        ".github/workflows/ci.yml": "      - run: tox -e py\n      - run: pytest --doctest-modules\n",
    }
    assert chosen_tests(detect(project(files))) == (
        "pytest --doctest-modules",
        [
            ("pytest", "runs no doctests that it says; the chosen command does (--doctest-modules)"),
            ("pytest -m 'not slow'", "it runs only some of the tests (-m)"),
            GUESS_LOSES,
            (
                "tox -e py",
                "it hands the tests to tox: the gate runs what tox would run, here; "
                "tox's own environments are not this one",
            ),
        ],
    )
    chosen = detect(project(files)).offered[0]
    assert [d.file for d in chosen.declared] == ["Makefile", ".github/workflows/ci.yml"]


def test_agreeing_files_and_then_the_first_declared_break_ties() -> None:
    files = {
        "tox.ini": "[testenv]\ncommands = python -m unittest\n",
        "Makefile": "test:\n\tpytest\n",
        ".github/workflows/ci.yml": "      - run: pytest\n",
    }
    assert chosen_tests(detect(project(files)))[1][0] == (
        "python -m unittest",
        "declared in fewer files (1 against 2)",
    )
    files["justfile"] = "test:\n    python -m unittest\n"
    assert chosen_tests(detect(project(files)))[1][0] == (
        "pytest",
        "ranks the same, and tox.ini line 2 ([testenv] commands) comes first",
    )


def test_a_command_that_cannot_run_here_gives_way_to_the_next() -> None:
    files = {"tox.ini": "[testenv]\ncommands = {envpython} -m unittest\n", "Makefile": "test:\n\tpytest -x\n"}
    only_pytest = detect(project(files, programs={"pytest"}))
    assert chosen_tests(only_pytest) == (
        "pytest -x",
        [("python -m unittest", "`python` is not on PATH"), GUESS_LOSES],
    )
    python3 = detect(project(files, programs={"python3"}))
    assert python3.offered[0].command == "python3 -m unittest"
    assert python3.offered[0].reason.endswith("; run as python3: `python` is not on PATH")
    nothing = detect(project(files, programs=set()))
    assert nothing.offered == ()
    assert [(c.command, why) for c, why in nothing.skipped] == [
        ("python -m unittest", "`python` is not on PATH")
    ]
    assert programs_named(project(files)) == {"python", "python3", "pytest"}


def test_a_declaration_only_its_tool_can_resolve_is_passed_over_with_why() -> None:
    files = {"tox.ini": "[testenv]\ncommands = pytest {envsitepackagesdir}/pkg\n"}
    assert chosen_tests(detect(project(files))) == (
        "pytest -q",
        [("pytest {envsitepackagesdir}/pkg", "only tox can resolve {envsitepackagesdir}")],
    )


def test_a_script_of_its_own_counts_only_as_its_slots_single_command() -> None:
    alone = {"Makefile": "test:\n\t./run-tests.sh --all\n"}
    assert chosen_tests(detect(project(alone))) == ("./run-tests.sh --all", [GUESS_LOSES])
    among = {"Makefile": "test:\n\tpip install -e .\n\t./run-tests.sh --all\n"}
    assert chosen_tests(detect(project(among))) == ("pytest -q", [])
    ci = {".github/workflows/ci.yml": "      - run: ./run-tests.sh\n"}
    assert chosen_tests(detect(project(ci))) == ("pytest -q", [])


def test_a_project_declaring_only_through_tox_is_a_python_project() -> None:
    facts = ProjectFacts(frozenset({"tox.ini"}), texts={"tox.ini": "[testenv]\ncommands = pytest tests\n"})
    assert chosen_tests(detect(facts)) == ("pytest tests", [])


def test_go_and_rust_declared_test_commands_compete_with_their_guesses() -> None:
    make = "test:\n\tgo test -race ./...\n"
    go = ProjectFacts(frozenset({"go.mod", "Makefile"}), texts={"Makefile": make})
    assert chosen_tests(detect(go)) == (
        "go test -race ./...",
        [("go test ./...", "the project declares its own test command, which wins over a guess")],
    )
    python_in_go = ProjectFacts(frozenset({"go.mod", "Makefile"}), texts={"Makefile": "test:\n\tpytest\n"})
    assert chosen_tests(detect(python_in_go)) == ("go test ./...", [])


def test_without_declarations_the_guess_stands_alone() -> None:
    assert chosen_tests(detect(project({}))) == ("pytest -q", [])
    assert detect(project({"Makefile": "docs:\n\tsphinx-build docs out\n"})).passed_over == ()
