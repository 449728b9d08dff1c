"""The test commands a project declares, read from each kind of file without running anything."""

from __future__ import annotations

import tomllib
from typing import Any

from tiergate.gate.detection.declared.commands import declared_commands, pytest_options
from tiergate.gate.detection.declared.declaration import Declared


def read(files: dict[str, str]) -> list[Declared]:
    pyproject = tomllib.loads(files.get("pyproject.toml", ""))
    return list(declared_commands(files, pyproject))


def commands(files: dict[str, str]) -> list[tuple[str, str]]:
    """(command, problem) of each declared command."""
    return [(d.command, d.problem) for d in read(files)]


TOX = """\
[tox]
envlist = py{39,310,311}, lint

[testenv]
deps = pytest
commands =
    coverage run -m pytest {posargs:tests}
    - coverage report

[testenv:lint]
commands = ruff check .

[testenv:unit]
commands = {envbindir}/pytest -m "not slow" {[testenv:shared]opts} {envsitepackagesdir}

[testenv:shared]
opts = -p no:cacheprovider
"""


def test_tox_ini_commands_of_test_environments_with_substitutions_resolved() -> None:
    found = read({"tox.ini": TOX})
    assert [(d.command, d.where, d.line) for d in found] == [
        ("coverage run -m pytest tests", "[testenv] commands", 7),
        ("- coverage report", "[testenv] commands", 8),
        ('pytest -m "not slow" -p no:cacheprovider {envsitepackagesdir}', "[testenv:unit] commands", 14),
    ]
    assert found[0].written == "coverage run -m pytest {posargs:tests}"
    assert found[0].notes == ("{posargs} is tests: tiergate passes no arguments",)
    assert found[1].problem == "tox ignores its failure (`-`)"
    assert found[2].problem == "only tox can resolve {envsitepackagesdir}"
    assert found[0].origin == "tox.ini line 7 ([testenv] commands)"


def test_the_more_itertools_shape_tox_and_its_makefile() -> None:
    tox = "[tox]\nenvlist = py{39,310}\n\n[testenv]\ncommands = {envpython} -m unittest -v {posargs}\n"
    make = (
        ".PHONY: coverage\ncoverage:\n\tcoverage run -m unittest\n\n"
        ".PHONY: test\ntest:\n\tpython -m unittest -v ${tests}\n"
    )
    found = read({"tox.ini": tox, "Makefile": make})
    assert [(d.command, d.file, d.line, d.alone) for d in found] == [
        ("python -m unittest -v", "tox.ini", 5, True),
        ("python -m unittest -v", "Makefile", 7, True),
    ]
    assert found[1].notes == ("${tests} is not set in Makefile: empty, as make leaves it",)


def test_tox_is_read_from_setup_cfg_and_pyproject_only_without_a_tox_ini() -> None:
    setup = "[tox:tox]\nenvlist = py311\n\n[testenv]\ncommands = pytest --doctest-modules\n"
    assert commands({"setup.cfg": setup}) == [("pytest --doctest-modules", "")]
    assert commands({"setup.cfg": "[testenv]\ncommands = pytest\n"}) == []  # not tox's without [tox:tox]
    legacy = 'legacy_tox_ini = """\n[testenv]\ncommands = python -m unittest\n"""\n'
    assert commands({"pyproject.toml": f"[tool.tox]\n{legacy}"}) == [("python -m unittest", "")]
    native = (
        '[env_run_base]\ncommands = [["pytest", {replace = "posargs", default = ["tests"], extend = true}]]\n'
        '[env.docs]\ncommands = [["sphinx-build", "docs", "out"]]\n'
    )
    assert commands({"tox.toml": native}) == [("pytest tests", "")]
    both = {"tox.ini": "[testenv]\ncommands = pytest -x\n", "tox.toml": native}
    assert commands(both) == [("pytest -x", "")]


NOXFILE = """\
import nox

@nox.session(python=["3.11", "3.12"])
def tests(session):
    session.install("-e", ".")
    session.run("pytest", "--doctest-modules", *session.posargs)

@nox.session(name="unit")
def whatever(s):
    s.run("python", "-m", "unittest", ARGS)

@nox.session
def lint(session):
    session.run("ruff", "check", ".")

open("/tmp/never-written", "w")  # read, never run
"""


def test_noxfile_sessions_named_like_tests_are_read_as_a_syntax_tree() -> None:
    found = read({"noxfile.py": NOXFILE})
    assert [(d.command, d.where, d.line, d.problem) for d in found] == [
        ("pytest --doctest-modules", "session tests", 6, ""),
        ("python -m unittest", "session unit", 10, "nox computes an argument (ARGS)"),
    ]
    assert found[0].notes == ("session.posargs is nothing: tiergate passes no arguments",)
    assert commands({"noxfile.py": "def broken(:\n"}) == []


def test_makefile_test_target_with_variables_prefixes_and_continuations() -> None:
    make = (
        "PYTHON ?= python3\nARGS := -q\nARGS += --doctest-modules\nGIT != git rev-parse HEAD\n\n"
        "lint:\n\truff check .\n\n"
        "test tests: install\n"
        "\t@$(PYTHON) -m pytest $(ARGS) \\\n\t  src tests\n"
        "\t-$(PYTHON) -m doctest README.md\n"
        "\techo $(GIT)\n"
    )
    found = read({"Makefile": make})
    assert [(d.command, d.where, d.line, d.problem) for d in found] == [
        ("python3 -m pytest -q --doctest-modules src tests", "target test", 10, ""),
        ("-$(PYTHON) -m doctest README.md", "target test", 12, "make ignores its failure (`-`)"),
        ("echo $(GIT)", "target test", 13, "only make can resolve $(GIT)"),
    ]
    unset = read({"Makefile": "test:\n\t$(PYTHON) -m unittest\n"})
    assert unset[0].problem == "its program, $(PYTHON), is set outside Makefile"
    assert read({"Makefile": "test: ; pytest -q\n"})[0].command == "pytest -q"


def test_justfile_test_recipe_with_variables_and_parameters() -> None:
    just = (
        'python := "python3"\n\n'
        "# run the tests\n"
        "test *args:\n    {{python}} -m pytest {{ args }}\n\n"
        "[private]\nunit target='tests':\n    @pytest {{target}}\n\n"
        "tests-script:\n    #!/usr/bin/env bash\n    pytest\n"
    )
    found = read({"justfile": just})
    assert [(d.command, d.where, d.line) for d in found] == [
        ("python3 -m pytest", "recipe test", 5),
        ("pytest tests", "recipe unit", 9),
    ]
    assert found[0].notes == ("{{ args }} is nothing: tiergate passes no arguments",)


def test_hatch_pdm_and_poe_scripts_named_like_tests_and_poetry_scripts_never() -> None:
    pyproject = """\
[tool.hatch.envs.default.scripts]
test = "pytest {args:tests}"
cov = "pytest --cov"
[tool.hatch.envs.hatch-test.scripts]
run = "pytest{env:HATCH_TEST_ARGS:} {args}"

[tool.pdm.scripts]
test = {cmd = ["pytest", "-x"]}
unit = {call = "pkg.tests:main"}

[tool.poe.tasks]
tests = "python -m unittest"

[tool.poetry.scripts]
test = "pkg.cli:test"
"""
    found = read({"pyproject.toml": pyproject})
    assert [(d.command, d.where, d.line) for d in found] == [
        ("pytest tests", "[tool.hatch.envs.default.scripts] test", 2),
        ("pytest -x", "[tool.pdm.scripts] test", 0),
        ("python -m unittest", "[tool.poe.tasks] tests", 12),
    ]
    hatch_toml = '[envs.default.scripts]\ntests = ["pytest src", "python -m doctest README.md"]\n'
    assert [(d.command, d.file, d.alone) for d in read({"hatch.toml": hatch_toml})] == [
        ("pytest src", "hatch.toml", False),
        ("python -m doctest README.md", "hatch.toml", False),
    ]


WORKFLOW = """\
name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pip install -e . # install
      - name: Run the tests
        run: |
          python -m pytest \\
            --doctest-modules src
          # a comment
          pytest -k ${{ matrix.only }}
      - run: "tox -e py"
      - run: >-
          go test
          ./...
      - run: pytest
          --continued-plain-scalar
"""


def test_ci_workflow_run_lines_are_read_line_by_line_conservatively() -> None:
    found = read({".github/workflows/ci.yml": WORKFLOW, "README.md": "run: pytest\n"})
    assert [(d.command, d.line, d.problem) for d in found] == [
        ("pip install -e .", 8, ""),
        ("python -m pytest --doctest-modules src", 11, ""),
        ("pytest -k ${{ matrix.only }}", 14, "only GitHub Actions can resolve ${{ ... }}"),
        ("tox -e py", 15, ""),
        ("go test ./...", 17, ""),
    ]
    assert {d.ci for d in found} == {True}


def test_nothing_declared_reads_as_nothing() -> None:
    assert read({}) == []
    assert read({"tox.ini": "[tox\nbroken"}) == []
    assert read({"Makefile": "all:\n\tcc main.c\n"}) == []


def test_pytest_options_are_gathered_wherever_pytest_reads_them() -> None:
    pyproject: dict[str, Any] = {"tool": {"pytest": {"ini_options": {"addopts": "--doctest-modules"}}}}
    assert "--doctest-modules" in pytest_options({}, pyproject)
    files = {"setup.cfg": "[tool:pytest]\naddopts = --doctest-glob=*.md\n"}
    assert "--doctest-glob" in pytest_options(files, {})
    assert pytest_options({"tox.ini": "[pytest]\naddopts = -q\n"}, {}) == "-q"


def test_odd_files_never_raise() -> None:
    # Read at every gate: what cannot be read is no declaration, never an error.
    odd = "test:\n\t$() $(=x) ${ } $$ \\\n\t{{ }} ${{ x }}\n"
    for name in ("tox.ini", "setup.cfg", "tox.toml", "hatch.toml", "noxfile.py", "Makefile", "justfile"):
        read({name: odd})
    assert [problem for _, problem in commands({"Makefile": odd})] == [
        "its program, $(), is set outside Makefile"
    ]
