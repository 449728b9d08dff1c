"""Every test command a project declares, gathered in order, and the options it gives pytest."""

from __future__ import annotations

from typing import Any

from testing.declaredfiles import commands, read

from tiergate.gate.detection.declared.commands import pytest_options


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
