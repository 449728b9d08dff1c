"""tox's test commands: tox.ini, setup.cfg, pyproject's [tool.tox] and tox.toml, substitutions resolved."""

from __future__ import annotations

from testing.declaredfiles import commands, read

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
