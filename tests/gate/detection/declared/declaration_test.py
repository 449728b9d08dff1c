"""What every reader of a project's declared test commands shares (gate/detection/declared/declaration.py):
where a command is declared, for a person; ini files read or not; continued lines; tox's command lines;
the line a command is written on; a declaration made from its written line. Pure."""

from __future__ import annotations

from tiergate.gate.detection.declared.declaration import (
    BRACED,
    Declared,
    DeclaredAt,
    joined,
    line_of,
    logical_lines,
    made,
    read_ini,
)


def test_the_origin_names_the_file_the_line_when_known_and_where() -> None:
    assert (
        Declared("pytest", "tox.ini", "[testenv] commands", 6).origin == "tox.ini line 6 ([testenv] commands)"
    )
    assert Declared("make test", "Makefile", "target test").origin == "Makefile (target test)"


def test_an_ini_file_is_read_leniently_and_none_when_empty_or_broken() -> None:
    parser = read_ini("[testenv]\ncommands = pytest\ncommands = pytest -x\n")
    assert parser is not None
    assert parser.get("testenv", "commands") == "pytest -x"  # a repeated key: the last, not an error
    assert read_ini("") is None
    assert read_ini("[testenv\ncommands = pytest\n") is None
    assert read_ini("commands = pytest\n") is None  # no section header


def test_continued_lines_are_joined_with_the_number_of_their_first() -> None:
    lines = ["pytest \\", "  -q \\", "  tests", "ruff check .", "echo \\"]

    assert list(logical_lines(lines)) == [(1, "pytest    -q    tests"), (4, "ruff check ."), (5, "echo  ")]
    assert list(logical_lines([])) == []


def test_toxs_command_lines_leave_out_blanks_and_comments() -> None:
    lines = ["", "  pytest \\", "    -q tests", "  # coverage run -m pytest", "   ", "  ruff check ."]

    assert joined(lines) == ["pytest  -q tests", "ruff check ."]


def test_the_line_of_a_command_is_the_first_holding_its_start_after_the_given_line() -> None:
    lines = [
        "[testenv]",
        "commands =",
        "    pytest   -q  tests",
        "[testenv:lint]",
        "commands = pytest -q tests",
    ]

    # Its first three words, spaces as written aside.
    assert line_of(lines, "pytest -q tests --maxfail 1", "") == 3
    assert line_of(lines, "pytest -q tests", "[testenv:lint]") == 5
    assert line_of(lines, "tox -e py", "") == 0
    assert line_of(lines, "pytest -q tests", "[missing]") == 0


def test_a_declaration_keeps_its_written_line_only_when_it_differs_and_its_notes_once() -> None:
    same = made(
        "pytest -q", "pytest -q", DeclaredAt("tox.ini", "[testenv] commands", 3), ["a", "b", "a"], "", True
    )
    assert same == Declared("pytest -q", "tox.ini", "[testenv] commands", 3, notes=("a", "b"), alone=True)

    resolved = made(
        "pytest {posargs}", "pytest", DeclaredAt("tox.ini", "[testenv] commands", 3), [], "", False
    )
    assert (resolved.written, resolved.problem) == ("pytest {posargs}", "")


def test_a_declaration_that_runs_nothing_says_so_unless_it_has_a_problem_of_its_own() -> None:
    nothing = made("{posargs}", "", DeclaredAt("tox.ini", "[testenv] commands", 4), [], "", True)
    assert nothing.problem == "it runs nothing"
    own = made("$(PYTEST)", "", DeclaredAt("Makefile", "target test", 2), [], "it uses a make variable", True)
    assert own.problem == "it uses a make variable"


def test_a_placeholder_is_braced_and_never_an_escaped_brace() -> None:
    assert BRACED.findall(r"pytest {posargs} \{literal} {env:X}") == ["posargs", "env:X"]
