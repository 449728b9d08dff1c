"""A Makefile's test target, its variables expanded as make would."""

from __future__ import annotations

from testing.declaredfiles import read


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
