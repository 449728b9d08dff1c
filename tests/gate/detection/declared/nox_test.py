"""A noxfile's test sessions, read as a syntax tree."""

from __future__ import annotations

from testing.declaredfiles import commands, read

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
