"""Which program a check's shell command starts, read from the command line alone, before running it.

Assignments, `cd DIR &&`, `exec` and `env` are looked through; when only running the line could tell
(an expansion, a subshell, a compound command), the answer is None. Pure: looking the program up is
`tiergate.gate.detection.projectchecks.locate_program`'s. See docs/judging.md, "Running a check".
"""

from __future__ import annotations

import posixpath
import re
import shlex

from tiergate.frozen import frozen

# The builtins of a POSIX shell (dash, bash as sh): they run whatever PATH holds.
BUILTINS: frozenset[str] = frozenset(
    {
        ":",
        ".",
        "[",
        "alias",
        "bg",
        "break",
        "cd",
        "command",
        "continue",
        "echo",
        "eval",
        "exit",
        "export",
        "false",
        "fg",
        "getopts",
        "hash",
        "jobs",
        "kill",
        "printf",
        "pwd",
        "read",
        "readonly",
        "return",
        "set",
        "shift",
        "test",
        "times",
        "trap",
        "true",
        "type",
        "ulimit",
        "umask",
        "unalias",
        "unset",
        "wait",
    }
)
# Words that start a compound command: what runs inside cannot be told from the first word. `time` is
# a keyword in bash (also as sh) and a program elsewhere: which one runs depends on the shell.
_COMPOUND = frozenset(
    {"if", "then", "while", "until", "for", "case", "do", "{", "(", "((", "function", "time"}
)
_SEPARATORS = frozenset({"&&", ";"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_EXPANDS = re.compile(r"[$`*?~]|^\[.+")  # expanded by the shell before it runs: unknowable here
_PUNCTUATION = "();<>|&"


@frozen
class Program:
    """The program a command starts. `word` is as written (`ruff`, `./run.sh`, `/usr/bin/make`);
    `directory` is where a relative path is found, relative to the project root (after `cd DIR &&`);
    `builtin`: the shell runs it itself."""

    word: str
    directory: str = "."
    builtin: bool = False

    @property
    def is_path(self) -> bool:
        """Named by a path (found on disk), not a bare name (found on PATH)."""
        return "/" in self.word


def program_of(command: str) -> Program | None:
    """The program `command` starts (docs/judging.md); None when the line alone cannot tell."""
    found = invocation_of(command)
    return found[0] if found is not None else None


def invocation_of(command: str) -> tuple[Program, tuple[str, ...]] | None:
    """The program `command` starts and the words given to it, up to the first shell operator (`&&`,
    `;`, a pipe or a redirection); None when the line alone cannot tell which program it starts."""
    try:
        words = _split(command)
    except ValueError:  # unbalanced quotes: the shell will say what is wrong
        return None
    directory = "."
    index = 0
    while index < len(words):
        after = _skip_assignments(words, index)
        if after is None or after >= len(words):
            return None
        index, word = after, words[after]
        if word in ("exec", "env", "!"):
            index += 1
            continue
        if word == "cd":
            moved = _cd(words, index, directory)
            if moved is None:
                return None
            directory, index = moved
            continue
        if word in _COMPOUND or word[0] in f"-{_PUNCTUATION}" or _EXPANDS.search(word):
            return None
        given = []
        for argument in words[index + 1 :]:
            if argument[0] in _PUNCTUATION:
                break
            given.append(argument)
        return Program(word, directory, word in BUILTINS), tuple(given)
    return None


def _split(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=_PUNCTUATION)
    lexer.whitespace_split = True
    return list(lexer)


def _skip_assignments(words: list[str], index: int) -> int | None:
    """The index after the assignments at `index`; None when one changes PATH (so where the program
    is found) or assigns an expansion that PATH lookups cannot see."""
    while index < len(words) and _ASSIGNMENT.match(words[index]):
        if words[index].startswith("PATH="):
            return None
        index += 1
    return index


def _cd(words: list[str], index: int, directory: str) -> tuple[str, int] | None:
    """After `cd DIR &&` (or `;`): the new directory and the index of the next word; None when the
    target is not a plain path or no command follows."""
    if index + 2 >= len(words) or words[index + 2] not in _SEPARATORS:
        return None
    target = words[index + 1]
    if target.startswith("-") or target[0] in _PUNCTUATION or _EXPANDS.search(target):
        return None
    return posixpath.normpath(posixpath.join(directory, target)), index + 3
