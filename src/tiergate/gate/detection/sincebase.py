"""How the checks the project declares now differ from those it declared at the loop's base. Pure.

The gate runs the base's checks, but a narrowed test command (Makefile, tox, package.json) is still the
agent's change: each is named, and the claim goes THOROUGH. A check only declared now is not named (it
narrows nothing). An npm script is compared itself, and so, by the caller, a project file the command runs
as its program (`script_of`). See docs/judging.md, "The checks as declared at the base".
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import Any

from tiergate.gate.detection.program import invocation_of
from tiergate.gate.detection.rules import DetectedCheck, ProjectFacts, detect
from tiergate.text import brief, quote_inline

# A command is shown up to this many characters.
SHOWN = 160
# The programs that run the script file their first word names: `python runtests.py`, `sh ci/test.sh`.
_INTERPRETERS = re.compile(r"python[0-9.]*|sh|bash|dash|zsh|node")


def changed_declarations(then: ProjectFacts, now: ProjectFacts) -> tuple[str, ...]:
    """Why each check detected from `then` (the base's files) runs otherwise by `now`'s (the
    workspace's), for a person; both with the programs they found (`ProjectFacts.programs`)."""
    after = {_slot(check): check for check in detect(now).offered}
    found: list[str] = []
    for check in detect(then).offered:
        later = after.get(_slot(check))
        said = f"the declared command of check `{quote_inline(check.name)}` changed since the loop began"
        if later is None:
            found.append(f"{said}: {_shown(check)} at the base, none now; the gate runs the base's")
        elif later.command != check.command:
            found.append(
                f"{said}: {_shown(check)} at the base, {_shown(later)} now; the gate runs the base's"
            )
        else:
            found += [
                f"{said}: {each}" for each in _scripts_changed(check, then.package_json, now.package_json)
            ]
    return tuple(found)


def script_of(command: str) -> str | None:
    """The file of the project `command` runs as its program (`./run_tests.sh`, `python runtests.py`),
    relative to the project root; None when it runs none (a program on PATH, a module, a path outside)."""
    found = invocation_of(command)
    if found is None:
        return None
    program, args = found
    if program.is_path:
        script = posixpath.join(program.directory, program.word)
    elif _INTERPRETERS.fullmatch(posixpath.basename(program.word)) and args and not args[0].startswith("-"):
        script = posixpath.join(program.directory, args[0])
    else:
        return None
    script = posixpath.normpath(script)
    return None if script.startswith(("/", "../")) or script == ".." else script


def script_changed(name: str, script: str) -> str:
    """Why check `name` is named when the file it runs (`script_of`) differs from the base's."""
    return (
        f"the declared command of check `{quote_inline(name)}` runs {_code(script)}, which differs "
        "from the base's: the gate runs it as the workspace has it, and the tests it leaves out are told "
        "by their outcomes at the base"
    )


def _slot(check: DetectedCheck) -> tuple[str, str]:
    """What a check is for, whatever it is called: its ecosystem and kind (`tests-python` is `tests`)."""
    return check.ecosystem, check.name.removesuffix(f"-{check.ecosystem}")


def _shown(check: DetectedCheck) -> str:
    where = check.declared[0].origin if check.declared else "tiergate's guess"
    return f"{_code(check.command)} ({where})"


def _scripts_changed(check: DetectedCheck, then: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """For a check that runs a package.json script (`npm run test`), how the script and the ones npm runs
    around it (`pretest`, `posttest`) differ: npm reads them from the workspace."""
    words = check.command.split()
    if check.ecosystem != "node" or len(words) != 3 or words[1] != "run":
        return []
    found = []
    for name in (f"pre{words[2]}", words[2], f"post{words[2]}"):
        was, is_now = _script(then, name), _script(now, name)
        if was != is_now:
            found.append(
                f'package.json\'s "{name}" script is {_command(was)} at the base, {_command(is_now)} now; '
                f"{_code(check.command)} runs the workspace's, and the tests it leaves out are told "
                "by their outcomes at the base"
            )
    return found


def _script(package: Mapping[str, Any], name: str) -> str | None:
    scripts = package.get("scripts")
    script = scripts.get(name) if isinstance(scripts, Mapping) else None
    return script if isinstance(script, str) else None


def _command(script: str | None) -> str:
    return "none" if script is None else _code(script)


def _code(text: str) -> str:
    return f"`{brief(text, SHOWN)}`"
