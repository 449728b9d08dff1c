"""The test commands of tox's configuration: the first file tox itself would read (tox.ini, setup.cfg's
[tox:tox], pyproject's [tool.tox] or its legacy_tox_ini, tox.toml), `commands` of [testenv] and of the
environments named like tests, with tox's substitutions resolved as far as the file says.
"""

from __future__ import annotations

import configparser
import re
import shlex
import tomllib
from collections.abc import Iterator, Mapping
from typing import Any

from tiergate.gate.detection.declared.declaration import (
    BRACED,
    Declared,
    DeclaredAt,
    joined,
    line_of,
    made,
    read_ini,
)
from tiergate.gate.detection.testcommand import names_tests

_TOX_SIMPLE = {
    "envpython": "python",
    "env_python": "python",
    "toxinidir": ".",
    "tox_root": ".",
    "/": "/",
    ":": ":",
}
_TOX_BIN = re.compile(r"\{(?:envbindir|env_bin_dir)\}/")


def tox_commands(texts: Mapping[str, str], pyproject: Mapping[str, Any]) -> Iterator[Declared]:
    """The first tox configuration tox itself would read: tox.ini, setup.cfg with [tox:tox], pyproject's
    [tool.tox] (its `legacy_tox_ini`, or native TOML), tox.toml."""
    if "tox.ini" in texts:
        yield from _tox_ini(texts["tox.ini"], "tox.ini", numbered=True)
        return
    setup = read_ini(texts.get("setup.cfg", ""))
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


def _tox_ini(text: str, file: str, *, numbered: bool, prefix: str = "") -> Iterator[Declared]:
    parser = read_ini(text)
    if parser is None:
        return
    lines = text.splitlines()
    for section in parser.sections():
        env = "" if section == "testenv" else section.removeprefix("testenv:")
        if not section.startswith("testenv") or (env and not names_tests(env)):
            continue
        if not parser.has_option(section, "commands"):
            continue
        commands = joined(parser.get(section, "commands").splitlines())
        where = f"{prefix}[{section}] commands"
        for written in commands:
            line = line_of(lines, written, f"[{section}]") if numbered else 0
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
            return " ".join(joined(parser.get(reference.group(1), reference.group(2)).splitlines()))
        if inside.startswith("env:") and inside.count(":") >= 2:
            default = inside.split(":", 2)[2]
            notes.append(f"{{{inside}}} read as its default")
            return default
        problem = problem or f"only tox can resolve {{{inside}}}"
        return match.group(0)

    text = BRACED.sub(substitute, text).replace("\\{", "{").replace("\\}", "}")
    return made(written, " ".join(text.split()), DeclaredAt(file, where, line), notes, problem, alone=alone)


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
