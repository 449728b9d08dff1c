"""The test commands of the CI workflows: the shell lines of `run:` steps in .github/workflows/*.yml,
read by a small line reader (plain and `|`/`>` block values; a line it cannot read is left out), since
the project has no YAML library.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

from tiergate.gate.detection.declared.declaration import WORKFLOWS, Declared

_RUN = re.compile(r"^(\s*)(-\s+)?run:\s*(.*?)\s*$")
_BLOCK = re.compile(r"^[|>][+-]?\d?[+-]?$")


def workflow_commands(texts: Mapping[str, str]) -> Iterator[Declared]:
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
