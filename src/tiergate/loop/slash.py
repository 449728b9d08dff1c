"""The loop's slash commands, as the UserPromptSubmit hook receives them: the raw text typed, as
`/tiergate:ralph <task> [--max-iterations N] [--promise TEXT]`, `/tiergate:autopilot <features.json>
[--max-iterations N]` or `/tiergate:cancel`. Only a prompt that starts with the command is one (a bare
`/ralph` reaches the model as text). Options may come before or after the task; `--completion-promise`
(ralph-loop's name) is `--promise`. Pure.
"""

from __future__ import annotations

import re

from tiergate.frozen import frozen

RALPH = "/tiergate:ralph"
AUTOPILOT = "/tiergate:autopilot"
CANCEL = "/tiergate:cancel"
MAX_ITERATIONS_LIMIT = 1000
MAX_PROMISE_LENGTH = 100
USAGE = f"usage: {RALPH} <task> [--max-iterations N] [--promise TEXT]"
AUTOPILOT_USAGE = f"usage: {AUTOPILOT} <features.json> [--max-iterations N]"

_HEAD = re.compile(r"(\S+)(.*)\Z", re.DOTALL)
_OPTION = re.compile(
    r"""(?:^|\s)--(?P<name>max-iterations|completion-promise|promise)(?:=|\s+)(?P<value>"[^"]*"|'[^']*'|\S+)(?=\s|$)"""
)

# Users of Anthropic's ralph-loop type `--completion-promise`; folding it into the task text would
# leave the loop waiting for a promise nobody was told to write.
_ALIASES = {"completion-promise": "promise"}


@frozen
class StartLoop:
    task: str
    max_iterations: int | None
    promise: str | None


@frozen
class StartAutopilot:
    features_file: str  # as typed: relative to the project's directory
    max_iterations: int | None


@frozen
class CancelLoop:
    pass


@frozen
class CommandError:
    message: str


Command = StartLoop | StartAutopilot | CancelLoop | CommandError


def parse(prompt: str) -> Command | None:
    """The loop command in `prompt`, or None if the prompt is not one."""
    match = _HEAD.match(prompt.strip())
    head, rest = (match.group(1), match.group(2)) if match else ("", "")
    if head == CANCEL:
        return CancelLoop()
    if head == AUTOPILOT:
        return parse_autopilot(rest)
    if head != RALPH:
        return None
    return parse_start(rest)


def parse_start(arguments: str) -> StartLoop | CommandError:
    options: dict[str, str] = {}
    for match in _OPTION.finditer(arguments):
        options[_ALIASES.get(match.group("name"), match.group("name"))] = _unquote(match.group("value"))
    task = _unquote(_OPTION.sub(" ", arguments).strip())
    if not task:
        return CommandError(f"no task given; {USAGE}")
    try:
        max_iterations = (
            check_max_iterations(options["max-iterations"]) if "max-iterations" in options else None
        )
        promise = check_promise(options["promise"]) if "promise" in options else None
    except ValueError as exc:
        return CommandError(f"{exc}; {USAGE}")
    return StartLoop(task=task, max_iterations=max_iterations, promise=promise)


def parse_autopilot(arguments: str) -> StartAutopilot | CommandError:
    options = {
        _ALIASES.get(m.group("name"), m.group("name")): _unquote(m.group("value"))
        for m in _OPTION.finditer(arguments)
    }
    path = _unquote(_OPTION.sub(" ", arguments).strip())
    if "promise" in options:
        return CommandError(f"an autopilot takes no --promise; {AUTOPILOT_USAGE}")
    if not path:
        return CommandError(f"no features file given; {AUTOPILOT_USAGE}")
    try:
        cap = check_max_iterations(options["max-iterations"]) if "max-iterations" in options else None
    except ValueError as exc:
        return CommandError(f"{exc}; {AUTOPILOT_USAGE}")
    return StartAutopilot(path, cap)


def check_max_iterations(value: str | int) -> int:
    try:
        number = int(value)
    except ValueError:
        raise ValueError(f"--max-iterations needs a whole number, got {value!r}") from None
    if not 1 <= number <= MAX_ITERATIONS_LIMIT:
        raise ValueError(f"--max-iterations must be between 1 and {MAX_ITERATIONS_LIMIT}, got {number}")
    return number


def check_promise(value: str) -> str:
    promise = " ".join(value.split())
    if not promise or len(promise) > MAX_PROMISE_LENGTH or "<" in promise or ">" in promise:
        raise ValueError(
            f"--promise needs 1 to {MAX_PROMISE_LENGTH} characters without < or >, got {value!r}"
        )
    return promise


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1].strip()
    return value
