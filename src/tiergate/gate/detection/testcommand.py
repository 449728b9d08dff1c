"""What a test command runs, read from its line alone: which runner, whether it hands the tests to
another tool, adds doctests or narrows the tests to a subset; and its own coverage options, dropped
because the gate measures coverage itself. Used to rank the test commands
(`tiergate.gate.detection.rules`). See docs/judging.md, "Choosing the test command". Pure.
"""

from __future__ import annotations

import posixpath
import re
import shlex

from tiergate.frozen import frozen
from tiergate.gate.detection.program import invocation_of

_PYTHON = re.compile(r"python(\d+(\.\d+)?)?")
_WRAPPERS = frozenset({"uv", "poetry", "pdm", "pipenv", "hatch"})
_DELEGATORS = frozenset(
    {"tox", "nox", "make", "just", "hatch", "pdm", "poe", "npm", "yarn", "pnpm", "invoke"}
)
# The options that select some tests or stop at the first failure, per runner.
_PYTEST_NARROWING = (
    *("-k", "-m", "--ignore", "--ignore-glob", "--deselect", "--lf", "--last-failed", "--sw", "--stepwise"),
    *("-x", "--exitfirst", "--maxfail"),
)
_UNITTEST_NARROWING = ("-k", "-f", "--failfast")
_GO_NARROWING = ("-run", "--run", "-short", "--short", "-skip", "--skip", "-failfast", "--failfast")
_COVERAGE_FLAGS = frozenset({"--cov-append", "--cov-branch", "--no-cov", "--no-cov-on-fail", "--cov-reset"})
_COVERAGE_VALUED = frozenset({"--cov-report", "--cov-config", "--cov-fail-under", "--cov-context"})
# Words of a test-like name: a tox or nox environment, a make or just target, a script.
TEST_WORDS = frozenset({"test", "tests", "unit", "unittest", "unittests", "pytest"})
_NAME_WORDS = TEST_WORDS | {"all", "run", "py", "python", "suite"}
_PY_ENV = re.compile(r"(py|pypy)\d*")


@frozen
class Runs:
    """What a command runs. `runner`: `pytest`, `unittest`, `doctest`, `go test`, `cargo test`, or ""
    (not a runner tiergate knows); `ecosystem`: python, go, rust or ""; `delegates`: the tool it hands
    the tests to ("" when it runs them itself); `doctests`: why it runs doctests too ("" when it
    does not say); `narrows`: why it runs only some of the tests ("" when it runs them all)."""

    runner: str = ""
    ecosystem: str = ""
    delegates: str = ""
    doctests: str = ""
    narrows: str = ""


def names_tests(name: str) -> bool:
    """Whether a tox or nox environment, a make or just target or a script named `name` runs the tests:
    its words are test words (`test`, `tests`, `unit`, `test-all`, `py311`), one of them at least a
    test word proper, or it is a Python version environment (`py311`)."""
    words = [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]
    if len(words) == 1 and _PY_ENV.fullmatch(words[0]):
        return True
    known = [w for w in words if w in _NAME_WORDS or _PY_ENV.fullmatch(w)]
    return bool(words) and len(known) == len(words) and bool(TEST_WORDS.intersection(words))


def what_runs(command: str, pytest_options: str = "") -> Runs:
    """What `command` runs (docs/judging.md); `pytest_options`: the `addopts` the project gives
    pytest wherever pytest reads them, as text."""
    found = invocation_of(command)
    if found is None:
        return Runs()
    program, args = posixpath.basename(found[0].word), list(found[1])
    while program in _WRAPPERS and args[:1] == ["run"] and len(args) > 1:
        inner = _runs(posixpath.basename(args[1]), args[2:], pytest_options)
        if inner.runner or inner.delegates:
            return inner
        return Runs(delegates=program) if names_tests(args[1]) else Runs()
    return _runs(program, args, pytest_options)


def _runs(program: str, args: list[str], pytest_options: str) -> Runs:
    if program in ("pytest", "py.test"):
        return _pytest(args, pytest_options)
    if _PYTHON.fullmatch(program):
        return _python(args, pytest_options)
    if program == "go" and args[:1] == ["test"]:
        return Runs("go test", "go", narrows=_narrowing(args[1:], _GO_NARROWING))
    if program == "cargo" and (args[:1] == ["test"] or args[:2] == ["nextest", "run"]):
        return Runs("cargo test", "rust")
    if program in ("tox", "nox") or (
        program in _DELEGATORS and any(names_tests(a) or a in ("t", "test") for a in args[:3])
    ):
        return Runs(delegates=program)
    return Runs()


def _python(args: list[str], pytest_options: str) -> Runs:
    module, rest = _module(args)
    if module == "pytest":
        return _pytest(rest, pytest_options)
    if module == "unittest":
        return Runs("unittest", "python", narrows=_narrowing(rest, _UNITTEST_NARROWING))
    if module == "doctest":
        return Runs("doctest", "python", narrows="it runs only the doctests of the files it names")
    return Runs(delegates=module) if module in ("tox", "nox") else Runs()


def _module(args: list[str]) -> tuple[str, list[str]]:
    """The module `python ARGS` runs with `-m` and the words after it ("" when it runs none)."""
    for index, arg in enumerate(args):
        if arg == "-m" and index + 1 < len(args):
            return args[index + 1], args[index + 2 :]
        if arg.startswith("-m") and len(arg) > 2:
            return arg[2:], args[index + 1 :]
        if not arg.startswith("-") or arg == "-c":
            break
    return "", []


def _pytest(args: list[str], options: str) -> Runs:
    doctests = next(
        (a.split("=")[0] for a in args if a.startswith(("--doctest-modules", "--doctest-glob"))), ""
    )
    if not doctests and "--doctest-modules" in options:
        doctests = "the project's pytest options add --doctest-modules"
    return Runs("pytest", "python", doctests=doctests, narrows=_narrowing(args, _PYTEST_NARROWING))


def _narrowing(args: list[str], options: tuple[str, ...]) -> str:
    """Why `args` run only some of the tests ("" when they run them all): one of `options`, alone,
    with `=value`, or a short one with its value or other flags attached (`-kslow`, `-xv`)."""
    for arg in args:
        option = arg.split("=")[0]
        short = option[:2] if not option.startswith("--") else option
        named = option if option in options else short if short in options else ""
        if named in _STOPPING:
            return f"it stops at the first failure ({arg}): the tests after it are not run"
        if named:
            return f"it runs only some of the tests ({arg})"
    return ""


_STOPPING = frozenset({"-x", "--exitfirst", "--maxfail", "-f", "--failfast", "-failfast"})


def without_own_coverage(command: str) -> tuple[str, str]:
    """`command` without the coverage measurement it asks for itself (docs/judging.md), and what was
    dropped ("" when nothing was: the command is returned as it was). Only a line that is the runner
    alone is rewritten; one with an assignment, a `cd` or a shell list is left as written."""
    found = invocation_of(command)
    try:
        alone = found is not None and shlex.split(command) == [found[0].word, *found[1]]
    except ValueError:
        alone = False
    if found is None or not alone:
        return command, ""
    word, args = found[0].word, list(found[1])
    program = posixpath.basename(word)
    module, rest = _module(args[1:]) if program == "coverage" and args[:1] == ["run"] else ("", [])
    if module:
        return shlex.join(["python", "-m", module, *rest]), "`coverage run` dropped"
    pytest = program in ("pytest", "py.test") or (_PYTHON.fullmatch(program) and _module(args)[0] == "pytest")
    kept = _without_cov(args) if pytest else args
    if kept != args:
        return shlex.join([word, *kept]), "pytest-cov's --cov options dropped"
    return command, ""


def _without_cov(args: list[str]) -> list[str]:
    kept: list[str] = []
    skip_value = False
    for index, arg in enumerate(args):
        if skip_value:
            skip_value = False
            continue
        option = arg.split("=")[0]
        if arg in _COVERAGE_FLAGS:
            continue
        if option in _COVERAGE_VALUED:
            skip_value = "=" not in arg
            continue
        if option == "--cov":
            # `--cov` takes an optional value: argparse gives it the next word unless that is an option.
            following = args[index + 1] if index + 1 < len(args) else "-"
            skip_value = "=" not in arg and not following.startswith("-")
            continue
        kept.append(arg)
    return kept
