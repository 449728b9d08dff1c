"""Which program a check's command line starts, read from the line alone (no PATH, no disk)."""

from __future__ import annotations

import pytest

from tiergate.gate.detection.program import Program, program_of


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("ruff check .", Program("ruff")),
        ("  pytest   -q  ", Program("pytest")),
        ("FOO=1 BAR='a b' pytest -q", Program("pytest")),
        ("PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python -m pytest", Program("python")),
        ("exec mypy src", Program("mypy")),
        ("env FOO=1 exec go test ./...", Program("go")),
        ("cd web && npm test", Program("npm", "web")),
        ("cd web; cd ../api && ./run-tests.sh", Program("./run-tests.sh", "api")),
        ("cd /opt/tools && make check", Program("make", "/opt/tools")),
        ("./scripts/check.sh --all", Program("./scripts/check.sh")),
        ("/usr/bin/make -k", Program("/usr/bin/make")),
        ('"my tool" --flag', Program("my tool")),
        ("ruff check . && pytest -q", Program("ruff")),
        ("no-such-program-xyz .", Program("no-such-program-xyz")),
        ("true", Program("true", builtin=True)),
        ("test -f app.py", Program("test", builtin=True)),
        ("[ -f app.py ]", Program("[", builtin=True)),
        (": nothing", Program(":", builtin=True)),
        (". ./env.sh && pytest", Program(".", builtin=True)),
        ("! grep -r TODO src", Program("grep")),
        ("ruff check . # lint only", Program("ruff")),
    ],
)
def test_the_program_is_the_first_word_after_what_only_prepares_it(command: str, expected: Program) -> None:
    assert program_of(command) == expected


@pytest.mark.parametrize(
    "command",
    [
        "",
        "   ",
        "FOO=1",
        "$TOOL check",
        "${PYTHON:-python} -m pytest",
        "`which ruff` check .",
        "~/bin/lint",
        "PATH=./node_modules/.bin:$PATH eslint .",
        "(cd web && npm test)",
        "{ ruff check .; }",
        "if true; then pytest; fi",
        "time pytest -q",
        "for f in *.py; do python $f; done",
        ">out.txt pytest",
        "cd && pytest",
        "cd $DIR && pytest",
        "cd web",
        "env -i pytest",
        "bin/*/lint",
        "'unbalanced quote",
    ],
)
def test_a_line_that_does_not_say_which_program_it_starts_is_none(command: str) -> None:
    assert program_of(command) is None


def test_a_path_is_found_on_disk_and_a_bare_name_on_path() -> None:
    assert Program("./run.sh").is_path
    assert Program("bin/lint").is_path
    assert not Program("ruff").is_path
