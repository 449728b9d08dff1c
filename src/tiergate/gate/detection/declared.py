"""The test commands a project declares in its own files, read without running anything. Pure: the
caller reads the files (`tiergate.gate.detection.projectchecks`) and passes their text.

Where a test command is declared, and what counts as one:

    tox.ini (or setup.cfg's [tox:tox],    `commands` of [testenv] and of the environments named like
    pyproject's legacy_tox_ini, tox.toml,  tests (`test`, `tests`, `unit`, `py311`; `lint` is not)
    [tool.tox] in pyproject.toml)
    noxfile.py                            `session.run(...)` calls, all arguments literal, in a session
                                          named like tests (read with `ast`, never run)
    Makefile, justfile                    the recipe lines of a target or recipe named like tests
    [tool.hatch.envs.*.scripts]           a script named like tests (also in hatch.toml)
    [tool.pdm.scripts], [tool.poe.tasks]  a script or task named like tests, when it is a command
    .github/workflows/*.yml               `run:` lines that start a test runner (a small line reader:
                                          plain and `|`/`>` block values; the project has no YAML
                                          library, and a line it cannot read is left out)

`[tool.poetry.scripts]` declares entry points (`module:function`), never commands: it is not read.

Variables and substitutions are resolved the way each tool would, as far as the file says:
`{posargs}` (tox), `{args}` (hatch, pdm) and a just recipe's parameters become their default or
nothing, since tiergate passes no arguments; `{envpython}` is `python`, `{envbindir}/X` is `X`,
`{toxinidir}` is `.`; make and just variables defined in the file are expanded, and a make variable the
file does not define is empty, as make leaves it. What only the tool itself could resolve (`{envdir}`,
`$(shell ...)`, `${{ matrix.python }}`, a computed nox argument) makes the command unusable, saying
why. A line whose failure the tool ignores (make's and tox's `-` prefix) is no test command.
"""

from __future__ import annotations

import ast
import configparser
import contextlib
import re
import shlex
import tomllib
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from tiergate.frozen import frozen
from tiergate.gate.detection.testcommand import names_tests

# The files read, in the order their declarations are preferred when everything else is equal.
TOX_FILES = ("tox.ini", "setup.cfg", "pyproject.toml", "tox.toml")
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
JUSTFILES = ("justfile", "Justfile", ".justfile")
WORKFLOWS = ".github/workflows/"
FILES_READ = (*TOX_FILES, "noxfile.py", "hatch.toml", *MAKEFILES, *JUSTFILES, "pytest.ini", ".pytest.ini")


@frozen
class Declared:
    """One command a project declares for its tests. `command`: as tiergate would run it; `file`,
    `line` (0: not known) and `where` (`[testenv] commands`, `target test`, ...): where it is declared;
    `written`: the line as written, when that differs; `notes`: what was resolved or dropped to read it;
    `problem`: why it cannot be run directly ("" when it can); `ci`: a line of a CI step (there, only
    lines that start a test runner count), not a test environment, target or script; `alone`: the only
    command of its environment, target or script (so the project's test command, whatever it runs)."""

    command: str
    file: str
    where: str
    line: int = 0
    written: str = ""
    notes: tuple[str, ...] = ()
    problem: str = ""
    ci: bool = False
    alone: bool = False

    @property
    def origin(self) -> str:
        """Where it is declared, for a person: `tox.ini line 6 ([testenv] commands)`."""
        line = f" line {self.line}" if self.line else ""
        return f"{self.file}{line} ({self.where})"


def declared_commands(texts: Mapping[str, str], pyproject: Mapping[str, Any]) -> tuple[Declared, ...]:
    """Every command declared for the tests in the files of `texts` (path relative to the project
    root -> text) and the parsed `pyproject`, in the order of the module docstring."""
    found = [
        *_tox(texts, pyproject),
        *_nox(texts.get("noxfile.py", "")),
        *_hatch(texts, pyproject),
        *_tasks(pyproject, texts.get("pyproject.toml", "")),
        *_make(texts),
        *_just(texts),
        *_workflows(texts),
    ]
    return tuple(found)


def pytest_options(texts: Mapping[str, str], pyproject: Mapping[str, Any]) -> str:
    """The `addopts` the project gives pytest, wherever pytest reads them, as text."""
    tool = pyproject.get("tool")
    pytest = tool.get("pytest") if isinstance(tool, Mapping) else None
    ini = pytest.get("ini_options") if isinstance(pytest, Mapping) else None
    options = [str(ini.get("addopts", ""))] if isinstance(ini, Mapping) else []
    for name, section in (
        ("pytest.ini", "pytest"),
        (".pytest.ini", "pytest"),
        ("tox.ini", "pytest"),
        ("setup.cfg", "tool:pytest"),
    ):
        parser = _ini(texts.get(name, ""))
        if parser is not None and parser.has_option(section, "addopts"):
            options.append(parser.get(section, "addopts"))
    return "\n".join(options)


# tox --------------------------------------------------------------------------------------------------------

_TOX_SIMPLE = {
    "envpython": "python",
    "env_python": "python",
    "toxinidir": ".",
    "tox_root": ".",
    "/": "/",
    ":": ":",
}
_TOX_BIN = re.compile(r"\{(?:envbindir|env_bin_dir)\}/")
_BRACED = re.compile(r"(?<!\\)\{([^{}]*)\}")


def _tox(texts: Mapping[str, str], pyproject: Mapping[str, Any]) -> Iterator[Declared]:
    """The first tox configuration tox itself would read: tox.ini, setup.cfg with [tox:tox], pyproject's
    [tool.tox] (its `legacy_tox_ini`, or native TOML), tox.toml."""
    if "tox.ini" in texts:
        yield from _tox_ini(texts["tox.ini"], "tox.ini", numbered=True)
        return
    setup = _ini(texts.get("setup.cfg", ""))
    if setup is not None and setup.has_section("tox:tox"):
        yield from _tox_ini(texts["setup.cfg"], "setup.cfg", numbered=True)
        return
    tool = pyproject.get("tool")
    tox = tool.get("tox") if isinstance(tool, Mapping) else None
    if isinstance(tox, Mapping):
        legacy = tox.get("legacy_tox_ini")
        if isinstance(legacy, str):
            yield from _tox_ini(legacy, "pyproject.toml", numbered=False, prefix="legacy_tox_ini ")
        else:
            yield from _tox_toml(tox, "pyproject.toml", "[tool.tox.")
        return
    if "tox.toml" in texts:
        try:
            yield from _tox_toml(tomllib.loads(texts["tox.toml"]), "tox.toml", "[")
        except tomllib.TOMLDecodeError:
            return


def _ini(text: str) -> configparser.RawConfigParser | None:
    if not text:
        return None
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return parser


def _tox_ini(text: str, file: str, *, numbered: bool, prefix: str = "") -> Iterator[Declared]:
    parser = _ini(text)
    if parser is None:
        return
    lines = text.splitlines()
    for section in parser.sections():
        env = "" if section == "testenv" else section.removeprefix("testenv:")
        if not section.startswith("testenv") or (env and not names_tests(env)):
            continue
        if not parser.has_option(section, "commands"):
            continue
        commands = _joined(parser.get(section, "commands").splitlines())
        where = f"{prefix}[{section}] commands"
        for written in commands:
            line = _line_of(lines, written, f"[{section}]") if numbered else 0
            yield _tox_command(written, file, where, line, parser, alone=len(commands) == 1)


def _tox_command(
    written: str, file: str, where: str, line: int, parser: configparser.RawConfigParser, *, alone: bool
) -> Declared:
    text = re.sub(r"^[\w{},.!-]+:\s+", "", written)  # a factor condition (`py311: pytest`)
    if text.startswith("-"):
        return Declared(written, file, where, line, problem="tox ignores its failure (`-`)", alone=alone)
    text = text.removeprefix("!")
    notes: list[str] = []
    text = _TOX_BIN.sub("", text)
    problem = ""

    def substitute(match: re.Match[str]) -> str:
        nonlocal problem
        inside = match.group(1)
        if inside in _TOX_SIMPLE:
            notes.append(f"{{{inside}}} is {_TOX_SIMPLE[inside] or 'nothing'}")
            return _TOX_SIMPLE[inside]
        if inside == "posargs" or inside.startswith("posargs:"):
            default = inside.partition(":")[2]
            notes.append(f"{{posargs}} is {default or 'nothing'}: tiergate passes no arguments")
            return default
        reference = re.fullmatch(r"\[([^\]]+)\](\w+)", inside)
        if reference and parser.has_option(reference.group(1), reference.group(2)):
            return " ".join(_joined(parser.get(reference.group(1), reference.group(2)).splitlines()))
        if inside.startswith("env:") and inside.count(":") >= 2:
            default = inside.split(":", 2)[2]
            notes.append(f"{{{inside}}} read as its default")
            return default
        problem = problem or f"only tox can resolve {{{inside}}}"
        return match.group(0)

    text = _BRACED.sub(substitute, text).replace("\\{", "{").replace("\\}", "}")
    return _made(written, " ".join(text.split()), file, where, line, notes, problem, alone=alone)


def _tox_toml(config: Mapping[str, Any], file: str, prefix: str) -> Iterator[Declared]:
    envs: list[tuple[str, Any]] = [("env_run_base", config.get("env_run_base"))]
    named = config.get("env")
    if isinstance(named, Mapping):
        envs += [(f"env.{name}", table) for name, table in named.items() if names_tests(str(name))]
    for key, table in envs:
        commands = table.get("commands") if isinstance(table, Mapping) else None
        if not isinstance(commands, list):
            continue
        where = f"{prefix}{key}] commands"
        for command in commands:
            words, notes, problem = _tox_argv(command)
            written = " ".join(str(w) for w in command) if isinstance(command, list) else str(command)
            if problem:
                yield Declared(written, file, where, problem=problem, alone=len(commands) == 1)
                continue
            parser = configparser.RawConfigParser()
            found = _tox_command(shlex.join(words), file, where, 0, parser, alone=len(commands) == 1)
            yield Declared(
                found.command,
                file,
                where,
                written=written if written != found.command else "",
                notes=(*notes, *found.notes),
                problem=found.problem,
                alone=found.alone,
            )


def _tox_argv(command: object) -> tuple[list[str], list[str], str]:
    """The words of one native-TOML tox command (strings, `{replace = "posargs", default = [...]}`)."""
    if not isinstance(command, list):
        return [], [], "not a list of words"
    words: list[str] = []
    notes: list[str] = []
    for word in command:
        if isinstance(word, str):
            words.append(word)
        elif isinstance(word, Mapping) and word.get("replace") == "posargs":
            default = word.get("default", [])
            words += [str(w) for w in default] if isinstance(default, list) else []
            notes.append("its posargs are their default: tiergate passes no arguments")
        else:
            return [], [], f"only tox can resolve {word}"
    return words, notes, ""


# nox --------------------------------------------------------------------------------------------------------


def _nox(text: str) -> Iterator[Declared]:
    """`session.run(...)` in the sessions named like tests, read as a syntax tree: never executed."""
    if not text:
        return
    try:
        with warnings.catch_warnings():  # the project's warnings are not tiergate's to print
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        name = _session_name(node)
        parameters = [*node.args.posonlyargs, *node.args.args]
        if name is None or not names_tests(name) or not parameters:
            continue
        session = parameters[0].arg
        calls = [call for call in ast.walk(node) if _is_run(call, session)]
        for call in calls:
            assert isinstance(call, ast.Call)
            yield _nox_command(call, session, f"session {name}", alone=len(calls) == 1)


def _session_name(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The session name of a function decorated with `@nox.session` (or `@session`), else None."""
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        dotted = ast.unparse(target)
        if dotted not in ("nox.session", "session"):
            continue
        if isinstance(decorator, ast.Call):
            for keyword in decorator.keywords:
                if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
        return function.name
    return None


def _is_run(node: ast.AST, session: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "run"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == session
    )


def _nox_command(call: ast.Call, session: str, where: str, *, alone: bool) -> Declared:
    words: list[str] = []
    notes: list[str] = []
    problem = ""
    for argument in call.args:
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            words.append(argument.value)
        elif isinstance(argument, ast.Starred) and ast.unparse(argument.value) == f"{session}.posargs":
            notes.append(f"{session}.posargs is nothing: tiergate passes no arguments")
        else:
            problem = problem or f"nox computes an argument ({ast.unparse(argument)})"
    written = ast.unparse(call)
    command = shlex.join(words)
    return _made(written, command, "noxfile.py", where, call.lineno, notes, problem, alone=alone)


# hatch, pdm, poe --------------------------------------------------------------------------------------------

_ARGS = re.compile(r"\{args(?::([^{}]*))?\}")


def _hatch(texts: Mapping[str, str], pyproject: Mapping[str, Any]) -> Iterator[Declared]:
    tool = pyproject.get("tool")
    hatch = tool.get("hatch") if isinstance(tool, Mapping) else None
    sources: list[tuple[str, Any, str]] = [("pyproject.toml", hatch, "tool.hatch.")]
    if "hatch.toml" in texts:
        with contextlib.suppress(tomllib.TOMLDecodeError):
            sources.append(("hatch.toml", tomllib.loads(texts["hatch.toml"]), ""))
    for file, config, prefix in sources:
        envs = config.get("envs") if isinstance(config, Mapping) else None
        for env, table in envs.items() if isinstance(envs, Mapping) else ():
            scripts = table.get("scripts") if isinstance(table, Mapping) else None
            for name, script in scripts.items() if isinstance(scripts, Mapping) else ():
                if names_tests(str(name)):
                    where = f"[{prefix}envs.{env}.scripts] {name}"
                    yield from _script(script, file, where, texts.get(file, ""))


# The task runners whose table maps a name to a command, and the keys of a table entry holding it.
_TASK_TABLES = (
    ("pdm", "scripts", ("cmd", "shell", "composite")),
    ("poe", "tasks", ("cmd", "shell", "sequence")),
)


def _tasks(pyproject: Mapping[str, Any], text: str) -> Iterator[Declared]:
    """pdm's scripts and poe's tasks named like tests (a `call` or `script` entry is no command)."""
    tool = pyproject.get("tool")
    for runner, key, keys in _TASK_TABLES:
        config = tool.get(runner) if isinstance(tool, Mapping) else None
        table = config.get(key) if isinstance(config, Mapping) else None
        for name, entry in table.items() if isinstance(table, Mapping) else ():
            if names_tests(str(name)):
                body = (
                    next((entry[k] for k in keys if k in entry), None)
                    if isinstance(entry, Mapping)
                    else entry
                )
                yield from _script(body, "pyproject.toml", f"[tool.{runner}.{key}] {name}", text)


def _script(script: object, file: str, where: str, text: str) -> Iterator[Declared]:
    """A script's commands: a string, or a list of them (a list of words is one command)."""
    if isinstance(script, list) and script and all(isinstance(w, str) and " " not in w for w in script):
        script = shlex.join(script)
    commands = [script] if isinstance(script, str) else script if isinstance(script, list) else []
    lines = text.splitlines()
    for written in commands:
        if not isinstance(written, str):
            continue
        command, notes = _without_args(written)
        command = command.replace("{root}", ".")
        problem = f"only the tool can resolve {found.group(0)}" if (found := _BRACED.search(command)) else ""
        line = _line_of(lines, written, "") if lines else 0
        yield _made(written, " ".join(command.split()), file, where, line, notes, problem, len(commands) == 1)


def _without_args(written: str) -> tuple[str, list[str]]:
    """`written` with its `{args}` placeholders replaced by their default, or by nothing."""
    notes = [
        f"{m.group(0)} is {m.group(1) or 'nothing'}: tiergate passes no arguments"
        for m in _ARGS.finditer(written)
    ]
    return _ARGS.sub(lambda m: m.group(1) or "", written), notes


# make, just -------------------------------------------------------------------------------------------------

_MAKE_ASSIGN = re.compile(
    r"^(?:export\s+|override\s+)*([A-Za-z_][\w.-]*)\s*(\?=|:::=|::=|:=|\+=|!=|=)\s*(.*)$"
)
_MAKE_RULE = re.compile(r"^([^\s:=#][^:=]*?)\s*::?(?!=)\s*(.*)$")
_MAKE_REFERENCE = re.compile(r"\$(?:\(([^()]*)\)|\{([^{}]*)\}|([^({$]))")


def _make(texts: Mapping[str, str]) -> Iterator[Declared]:
    file = next((name for name in MAKEFILES if name in texts), None)
    if file is None:
        return
    variables: dict[str, str] = {}
    computed: set[str] = set()
    recipes: list[tuple[str, list[tuple[int, str]]]] = []
    current: list[tuple[int, str]] | None = None
    for number, raw in _logical(texts[file].splitlines()):
        if raw.startswith("\t"):
            if current is not None:
                current.append((number, raw[1:].strip()))
            continue
        current = None
        stripped = raw.split("#", 1)[0].rstrip()
        if not stripped.strip() or _make_assignment(stripped, variables, computed):
            continue
        rule = _MAKE_RULE.match(stripped)
        tested = next((t for t in rule.group(1).split() if names_tests(t)), None) if rule else None
        if rule is not None and tested is not None and "=" not in rule.group(2):
            current = [(number, rule.group(2).split(";", 1)[1].strip())] if ";" in rule.group(2) else []
            recipes.append((tested, current))
    for target, recipe in recipes:
        commands = [(n, line) for n, line in recipe if line and not line.startswith("#")]
        for number, written in commands:
            where = f"target {target}"
            yield _make_command(written, file, where, number, variables, computed, len(commands) == 1)


def _make_assignment(line: str, variables: dict[str, str], computed: set[str]) -> bool:
    """Record the variable `line` assigns, if it is an assignment (`=`, `:=`, `?=`, `+=`, `!=`)."""
    assigned = _MAKE_ASSIGN.match(line)
    if not assigned:
        return False
    name, operator, value = assigned.groups()
    if operator == "!=":
        computed.add(name)
    elif operator == "+=":
        variables[name] = f"{variables.get(name, '')} {value}".strip()
    elif operator != "?=" or name not in variables:
        variables[name] = value.strip()
    return True


def _logical(lines: Sequence[str]) -> Iterator[tuple[int, str]]:
    """The lines joined where one ends with a backslash, each with the number of its first line."""
    joined, start = "", 0
    for number, line in enumerate(lines, 1):
        if not joined:
            start = number
        if line.endswith("\\"):
            joined += line[:-1] + " "
            continue
        yield start, joined + line
        joined = ""
    if joined:
        yield start, joined


def _make_command(
    written: str,
    file: str,
    where: str,
    line: int,
    variables: Mapping[str, str],
    computed: set[str],
    alone: bool,
) -> Declared:
    text = written
    while text[:1] in ("@", "+", "-"):
        if text[0] == "-":
            return Declared(written, file, where, line, problem="make ignores its failure (`-`)", alone=alone)
        text = text[1:].lstrip()
    notes: list[str] = []
    problem = ""

    def expand(value: str, depth: int) -> str:
        def one(match: re.Match[str]) -> str:
            nonlocal problem
            name = next((g for g in match.groups() if g is not None), "")
            if name == "$":
                return "$"
            if name == "MAKE":
                return "make"
            if name in computed or " " in name or depth > 8:
                problem = problem or f"only make can resolve {match.group(0)}"
                return match.group(0)
            if name not in variables:
                notes.append(f"{match.group(0)} is not set in {file}: empty, as make leaves it")
                return ""
            return expand(variables[name], depth + 1)

        return _MAKE_REFERENCE.sub(one, value)

    first = _MAKE_REFERENCE.fullmatch(text.split()[0]) if text.split() else None
    name = next((g for g in first.groups() if g), "") if first is not None else ""
    if first is not None and name not in variables and name != "MAKE":
        problem = f"its program, {first.group(0)}, is set outside {file}"
    command = expand(text, 0)
    return _made(written, " ".join(command.split()), file, where, line, notes, problem, alone)


_JUST_ASSIGN = re.compile(r"^(?:export\s+)?([A-Za-z_][\w-]*)\s*:=\s*(.*)$")
_JUST_RECIPE = re.compile(r"^@?([A-Za-z_][\w-]*)((?:\s+[^:]*)?):(?!=)(.*)$")
_JUST_INTERPOLATION = re.compile(r"\{\{\s*(.*?)\s*\}\}")


def _just(texts: Mapping[str, str]) -> Iterator[Declared]:
    file = next((name for name in JUSTFILES if name in texts), None)
    if file is None:
        return
    variables: dict[str, str] = {}
    recipes: list[tuple[str, dict[str, str], list[tuple[int, str]]]] = []
    current: list[tuple[int, str]] | None = None
    for number, raw in _logical(texts[file].splitlines()):
        if raw[:1] in (" ", "\t"):
            if current is not None and raw.strip():
                current.append((number, raw.strip()))
            continue
        current = None
        line = raw.strip()
        if not line or line.startswith(("#", "[")):
            continue
        assigned = _JUST_ASSIGN.match(line)
        if assigned:
            variables[assigned.group(1)] = _just_string(assigned.group(2))
            continue
        recipe = _JUST_RECIPE.match(line)
        if recipe and names_tests(recipe.group(1)):
            current = []
            recipes.append((recipe.group(1), _just_parameters(recipe.group(2)), current))
    for name, parameters, body in recipes:
        if body and body[0][1].startswith("#!"):
            continue  # a script recipe: its lines are a program of their own
        commands = [(n, text) for n, text in body if not text.startswith("#")]
        for number, written in commands:
            scope = {**variables, **parameters}
            yield _just_command(written, file, f"recipe {name}", number, scope, len(commands) == 1)


def _just_string(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return "\0" if not re.fullmatch(r"[\w.-]*", value) else value  # an expression: unknown


def _just_parameters(text: str) -> dict[str, str]:
    """A recipe's parameters with their default ("" without one: tiergate passes no arguments)."""
    parameters: dict[str, str] = {}
    for word in text.split():
        name, _, default = word.lstrip("*+$").partition("=")
        parameters[name] = _just_string(default) if default else ""
    return parameters


def _just_command(
    written: str, file: str, where: str, line: int, scope: Mapping[str, str], alone: bool
) -> Declared:
    text = written
    while text[:1] in ("@", "-"):
        if text[0] == "-":
            return Declared(written, file, where, line, problem="just ignores its failure (`-`)", alone=alone)
        text = text[1:].lstrip()
    notes: list[str] = []
    problem = ""

    def one(match: re.Match[str]) -> str:
        nonlocal problem
        value = scope.get(match.group(1))
        if value is None or value == "\0":
            problem = problem or f"only just can resolve {match.group(0)}"
            return match.group(0)
        if not value:
            notes.append(f"{match.group(0)} is nothing: tiergate passes no arguments")
        return value

    command = _JUST_INTERPOLATION.sub(one, text)
    return _made(written, " ".join(command.split()), file, where, line, notes, problem, alone)


# GitHub Actions ---------------------------------------------------------------------------------------------

_RUN = re.compile(r"^(\s*)(-\s+)?run:\s*(.*?)\s*$")
_BLOCK = re.compile(r"^[|>][+-]?\d?[+-]?$")


def _workflows(texts: Mapping[str, str]) -> Iterator[Declared]:
    for file in sorted(name for name in texts if name.startswith(WORKFLOWS)):
        for line, command in _run_lines(texts[file].splitlines()):
            problem = "only GitHub Actions can resolve ${{ ... }}" if "${{" in command else ""
            yield Declared(command, file, "a run: step", line, problem=problem, ci=True)


def _run_lines(lines: Sequence[str]) -> Iterator[tuple[int, str]]:
    """The shell lines of each `run:` value, with their line numbers: a plain or quoted value on the
    `run:` line, or a `|` / `>` block below it. A plain value continued on the next lines is left out."""
    for index, text in enumerate(lines):
        found = _RUN.match(text)
        if not found:
            continue
        indent = len(found.group(1)) + len(found.group(2) or "")
        value = found.group(3)
        if _BLOCK.match(value):
            block = _block(lines, index + 1, indent)
            if value.startswith(">"):
                block = [(block[0][0], " ".join(t for _, t in block))] if block else []
            yield from _shell_lines(block)
        elif value and not _continued(lines, index + 1, indent):
            plain = _plain(value)
            if plain is not None:
                yield from _shell_lines([(index + 1, plain)])


def _block(lines: Sequence[str], start: int, indent: int) -> list[tuple[int, str]]:
    block: list[tuple[int, str]] = []
    inner: int | None = None
    for index in range(start, len(lines)):
        text = lines[index]
        if not text.strip():
            continue
        depth = len(text) - len(text.lstrip())
        if depth <= indent:
            break
        inner = depth if inner is None else inner
        block.append((index + 1, text[inner:] if depth >= inner else text.strip()))
    return block


def _continued(lines: Sequence[str], start: int, indent: int) -> bool:
    for text in lines[start:]:
        if text.strip():
            depth = len(text) - len(text.lstrip())
            return depth > indent and not re.match(r"\s*(-\s+)?[\w-]+:(\s|$)", text)
    return False


def _plain(value: str) -> str | None:
    """A one-line YAML scalar's text; None when it is not one this reader can tell."""
    if value[0] == "'":
        return value[1:-1].replace("''", "'") if value.endswith("'") and len(value) > 1 else None
    if value[0] == '"':
        inner = value[1:-1]
        return inner if value.endswith('"') and len(value) > 1 and "\\" not in inner else None
    if value[0] in "[{&*!%@`":
        return None
    return value.split(" #", 1)[0].rstrip()


def _shell_lines(block: Sequence[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    joined, start = "", 0
    for number, text in block:
        stripped = text.strip()
        if not joined:
            start = number
        if stripped.endswith("\\"):
            joined += stripped[:-1] + " "
            continue
        whole = " ".join((joined + stripped).split())
        joined = ""
        if whole and not whole.startswith("#"):
            yield start, whole


# Shared -----------------------------------------------------------------------------------------------------


def _joined(lines: Sequence[str]) -> list[str]:
    """tox's command lines: continued where one ends with a backslash, blank ones and comments left out."""
    commands = [text for _, text in _logical([line.strip() for line in lines])]
    return [c.strip() for c in commands if c.strip() and not c.strip().startswith("#")]


def _line_of(lines: Sequence[str], written: str, after: str) -> int:
    """The number of the first line holding the start of `written` (after the line `after`); 0 if none."""
    head = " ".join(written.split()[:3])
    begun = not after
    for number, text in enumerate(lines, 1):
        if not begun:
            begun = text.strip() == after
            continue
        if head and head in " ".join(text.split()):
            return number
    return 0


def _made(
    written: str,
    command: str,
    file: str,
    where: str,
    line: int,
    notes: Sequence[str],
    problem: str,
    alone: bool,
) -> Declared:
    if not command and not problem:
        problem = "it runs nothing"
    return Declared(
        command,
        file,
        where,
        line,
        written="" if written == command else written,
        notes=tuple(dict.fromkeys(notes)),
        problem=problem,
        alone=alone,
    )
