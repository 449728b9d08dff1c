"""hatch, pdm and poe scripts named like tests; poetry's scripts never."""

from __future__ import annotations

from testing.declaredfiles import read


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
