"""Which of the gate's checks can measure line coverage of the change, with which tool, or why not; and the
record of what the gate measured. Pure: the files are read by `tiergate.gate.coverage.measuring`.

Only a check whose own command is a runner measurable through the environment alone (pytest, unittest,
node, mocha, a package script running one) takes it, never by rewriting the command; any other runs as
written, with the reason. See docs/coverage.md, "Which checks the gate measures".
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Literal

from tiergate.frozen import frozen
from tiergate.gate.checks import Check
from tiergate.tier.coverage.lines import Format

Tool = Literal["python", "node"]
SUFFIXES: dict[Tool, tuple[str, ...]] = {"python": (".py",), "node": (".js", ".cjs", ".mjs")}
FORMATS: dict[Tool, Format] = {
    "python": "Python line coverage, measured at the gate",
    "node": "Node V8 coverage, measured at the gate",
}
RUNNERS = "pytest, python -m pytest/unittest, node, mocha, or an npm/yarn/pnpm script running one"

_PUNCTUATION = "();<>|&"
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?")
_WRAPPERS = {("uv", "run"), ("poetry", "run"), ("pdm", "run"), ("pipenv", "run")}
_OWN_ENV = ("PYTHONPATH=", "NODE_V8_COVERAGE=")
_TRANSFORMING = frozenset({"jest", "vitest", "ava", "tap", "karma", "playwright", "ts-node", "tsx"})
_MEASURING = frozenset({"coverage", "c8", "nyc"})
_HOOK_FLAGS = ("-r", "--require", "--loader", "--experimental-loader", "--import")
_PACKAGE_MANAGERS = frozenset({"npm", "yarn", "pnpm"})


@frozen
class RunnerFacts:
    """What the plan reads from the project: its pytest options (`addopts` wherever pytest reads them,
    as text) and its package.json scripts."""

    pytest_options: str = ""
    scripts: Mapping[str, str] = field(default_factory=dict)


@frozen
class Capability:
    """A check's answer: the tool that can measure its run, or None with the reason it cannot."""

    tool: Tool | None
    reason: str
    runner: str = ""  # what runs the tests: pytest, unittest, node, mocha ("" when none measures)


def capability(command: str, facts: RunnerFacts, depth: int = 0) -> Capability:
    """Whether `command` (a check's shell line) can take coverage, and how (module docstring)."""
    argv = _runner_argv(command)
    if isinstance(argv, str):
        return Capability(None, argv)
    program, args = posixpath.basename(argv[0]), argv[1:]
    if program in ("pytest", "py.test"):
        return _pytest(args, facts)
    if _PYTHON.fullmatch(program):
        return _python(args, facts)
    if program in _PACKAGE_MANAGERS:
        return _script(program, args, facts, depth)
    if program in ("node", "mocha"):
        return _node(program, args)
    return Capability(None, _not_measurable(program, args))


def _node(program: str, args: Sequence[str]) -> Capability:
    hooked = next((a for a in args if a.split("=")[0] in _HOOK_FLAGS), None)
    if hooked:
        return Capability(None, f"`{hooked}` loads code that transforms what runs: {_OFFSETS}")
    runner = "node --test" if "--test" in args else program
    return Capability("node", f"{program} runs it: Node's V8 coverage (NODE_V8_COVERAGE)", runner)


def _not_measurable(program: str, args: Sequence[str]) -> str:
    if program in _TRANSFORMING:
        return f"{program} transforms or bundles the code it runs: {_OFFSETS}"
    if program in _MEASURING:
        return f"it measures coverage itself ({program}): {_OWN}"
    if program in ("tox", "nox"):
        return f"{program} runs the tests in environments that do not pass PYTHONPATH on"
    if program == "go" and args[:1] == ["test"]:
        return "go test: Go's -coverprofile is not measured at the gate yet"
    return f"`{program}` is not a test runner the gate can measure ({RUNNERS})"


_OFFSETS = "V8's offsets would not match the files"
_PYTHON_HOW = "measured through PYTHONPATH (tiergate's line probes in the changed modules)"
_OWN = "two tracers in one process spoil each other, and its files are in the workspace"


def _runner_argv(command: str) -> list[str] | str:
    """The words of the one program the line runs, wrappers skipped; or why it cannot be told."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=_PUNCTUATION)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return "its quoting cannot be read"
    index = 0
    while index < len(words):
        word = words[index]
        if word.startswith(_OWN_ENV):
            return f"it sets {word.split('=')[0]} itself, which the measurement needs"
        if _ASSIGNMENT.match(word) or word in ("exec", "env"):
            index += 1
        elif word == "cd" and index + 2 < len(words) and words[index + 2] in ("&&", ";"):
            index += 3
        elif tuple(words[index : index + 2]) in _WRAPPERS:
            index += 2
        elif word == "npx":
            index += 1
        else:
            break
    rest = words[index:]
    if not rest:
        return "it runs no program"
    if any(set(w) <= set(_PUNCTUATION) for w in rest):
        return "a shell list, pipeline or redirection: what runs the tests cannot be told from the line"
    if any(c in rest[0] for c in "$`*?~"):
        return "its program is a shell expansion"
    return rest


def _pytest(args: Sequence[str], facts: RunnerFacts) -> Capability:
    if any(a.startswith("--cov") for a in args):
        return Capability(None, f"it measures coverage itself (pytest-cov's --cov): {_OWN}")
    if "--cov" in facts.pytest_options:
        return Capability(None, f"the project's pytest options add pytest-cov's --cov: {_OWN}")
    return Capability("python", f"pytest runs it: {_PYTHON_HOW}", "pytest")


def _python(args: Sequence[str], facts: RunnerFacts) -> Capability:
    for index, arg in enumerate(args):
        if arg == "-m" and index + 1 < len(args):
            module = args[index + 1]
            if module in ("pytest", "unittest"):
                if module == "pytest":
                    return _pytest(args[index + 2 :], facts)
                return Capability("python", f"unittest runs it: {_PYTHON_HOW}", "unittest")
            if module == "coverage":
                return Capability(None, f"it measures coverage itself (coverage run): {_OWN}")
            return Capability(None, f"python runs `-m {module}`, not a test runner ({RUNNERS})")
        if arg.startswith("-") and not arg.startswith("--") and set(arg[1:]) & set("IES"):
            return Capability(None, f"`python {arg}` ignores PYTHONPATH or site, which the measurement needs")
        if not arg.startswith("-"):
            break
    return Capability(None, f"python runs a script, not pytest or unittest ({RUNNERS})")


def _script(manager: str, args: Sequence[str], facts: RunnerFacts, depth: int) -> Capability:
    if args[:1] in (["test"], ["t"]):
        name = "test"
    elif args[:1] in (["run"], ["run-script"]) and len(args) > 1:
        name = args[1]
    elif manager == "yarn" and args:
        name = args[0]
    else:
        return Capability(None, f"`{manager} {' '.join(args[:1])}` does not run a package.json script")
    script = facts.scripts.get(name)
    if not isinstance(script, str) or not script.strip():
        return Capability(None, f"package.json has no `{name}` script")
    if depth > 0:
        return Capability(None, f"the `{name}` script runs another package script: followed one level only")
    found = capability(script, facts, depth + 1)
    return Capability(
        found.tool, f"{manager} runs the `{name}` script (`{script}`): {found.reason}", found.runner
    )


def plan(checks: Sequence[Check], facts: RunnerFacts) -> tuple[tuple[Check, Capability], ...]:
    """Every test check with its capability, in the checks' order."""
    return tuple((c, capability(c.command, facts)) for c in checks if c.kind == "tests")


def files_for(tool: Tool, files: Sequence[str]) -> tuple[str, ...]:
    """The files of the change `tool` measures."""
    return tuple(f for f in files if f.endswith(SUFFIXES[tool]))
