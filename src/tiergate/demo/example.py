"""The example project of the demo: `statkit`, whose `median()` is wrong for an even number of values.

Its tests use `unittest` (nothing but the Python running tiergate); its `.tiergate.toml` names them as
the gate's check. The three edits "Claude" makes are here too: one the gate refutes, one the verifier
refutes (it passes only the careless test), and the real fix.
"""

from __future__ import annotations

import compileall
import contextlib
import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from tiergate.demo import OffScriptError
from tiergate.frozen import frozen

NAME = "statkit-demo"
MODULE = "statkit/median.py"
TASK = "Fix statkit's bug: median() is wrong for an even number of values"

_BUGGY = '''\
"""The median of a list of numbers."""


def median(values: list[float]) -> float:
    """The middle value of `values` once sorted; for an even count, the mean of the two middle ones."""
    if not values:
        raise ValueError("median() of an empty list")
    ordered = sorted(values)
    return ordered[len(ordered) // 2]
'''

FILES: dict[str, str] = {
    "README.md": "# statkit\n\nSmall statistics helpers. Run the tests with `python -m unittest -v`.\n",
    ".gitignore": "__pycache__/\n",
    "statkit/__init__.py": 'from statkit.median import median\n\n__all__ = ["median"]\n',
    MODULE: _BUGGY,
    "tests/__init__.py": "",
    "tests/test_median.py": """\
import unittest

from statkit.median import median


class MedianTest(unittest.TestCase):
    def test_odd_count(self) -> None:
        self.assertEqual(median([3, 1, 2]), 2)

    def test_even_count_sorted(self) -> None:
        self.assertEqual(median([1, 2, 3, 4]), 2.5)

    def test_even_count_unsorted(self) -> None:
        self.assertEqual(median([4, 1, 3, 2]), 2.5)

    def test_empty_list_is_an_error(self) -> None:
        with self.assertRaises(ValueError):
            median([])

    def test_input_is_left_unchanged(self) -> None:
        values = [3, 1, 2]
        median(values)
        self.assertEqual(values, [3, 1, 2])


if __name__ == "__main__":
    unittest.main()
""",
}

_BUILT = ("statkit", "tests")  # what the build compiles
_ORIGINAL_RETURN = "    return ordered[len(ordered) // 2]\n"


def _even_branch(pair: str) -> str:
    return (
        "    middle = len(ordered) // 2\n"
        "    if len(ordered) % 2 == 0:\n"
        f"        return ({pair}[middle - 1] + {pair}[middle]) / 2\n"
        "    return ordered[middle]\n"
    )


# Sorts the caller's list in place: the even counts come out right, but a test that passed before the
# loop (the input is left unchanged) now fails, so the gate refutes it before any verifier is spent.
BREAKING_FIX = _BUGGY.replace(
    "    ordered = sorted(values)\n", "    values.sort()\n    ordered = values\n"
).replace(_ORIGINAL_RETURN, _even_branch("ordered"))
# Averages the two middle values only when the input comes sorted: right for sorted input only. The
# test it fails already failed before the loop, and the same way (3 != 2.5), so the gate does not refute
# it by itself; the verifier's own run of the tests does.
WRONG_FIX = _BUGGY.replace(_ORIGINAL_RETURN, _even_branch("ordered")).replace(
    "    if len(ordered) % 2 == 0:\n", "    if len(ordered) % 2 == 0 and values == ordered:\n"
)
RIGHT_FIX = _BUGGY.replace(_ORIGINAL_RETURN, _even_branch("ordered"))

# Git without the user's configuration (signing, hooks, templates), so the example commits anywhere.
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "tiergate demo",
    "GIT_AUTHOR_EMAIL": "demo@tiergate.invalid",
    "GIT_COMMITTER_NAME": "tiergate demo",
    "GIT_COMMITTER_EMAIL": "demo@tiergate.invalid",
}


@frozen
class CommandRun:
    """A command the verifier ran, as it would quote it: the command line, exit code and output."""

    command: str
    exit_code: int
    output: str

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def config() -> str:
    """The example's `.tiergate.toml`: its one check, the tests, run by the Python running tiergate."""
    command = f"{shlex.quote(sys.executable)} -m unittest -v"
    return f"[checks]\ntests = {json.dumps(command)}\n"


def create(parent: Path) -> Path:
    """The example as a git repository under `parent`, its files committed."""
    root = parent / NAME
    write(root, {**FILES, ".tiergate.toml": config()})
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "--no-verify", "-m", "statkit: median()")
    return root


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _git(root: Path, *args: str) -> None:
    try:
        result = subprocess.run(
            # Without the maintenance a commit starts after itself: a process for nothing to tidy.
            ["git", "-c", "maintenance.auto=false", "-c", "gc.auto=0", *args],
            cwd=root,
            env={**os.environ, **GIT_ENV},
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError:
        raise OffScriptError("git not found: the demo needs git on PATH") from None
    if result.returncode != 0:
        detail = (result.stderr.strip().splitlines() or ["no message"])[-1]
        raise OffScriptError(f"git {args[0]} failed in the example repository: {detail}")


def run_tests(root: Path) -> CommandRun:
    """The example's test suite, really run."""
    return _python(root, ("-m", "unittest", "-v"))


def compile_all(root: Path) -> CommandRun:
    """Byte-compile every module: the example's build, and the only static check it has.

    `python -m compileall -q statkit tests` run in this process rather than in one of its own, which
    would spend more on starting Python than on compiling: the same module with the same arguments, so
    the same files written, the same lines printed (with the paths relative to the example, as run there)
    and the same exit code."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        # Every folder, even after one fails, as the command does.
        compiled = [compileall.compile_dir(root / folder, quiet=1) for folder in _BUILT]
    output = printed.getvalue().replace(f"{root}{os.sep}", "")
    return CommandRun(f"python -m compileall -q {' '.join(_BUILT)}", 0 if all(compiled) else 1, output)


def _python(root: Path, args: tuple[str, ...]) -> CommandRun:
    try:
        result = subprocess.run(
            [sys.executable, *args],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=60,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise OffScriptError(f"python {' '.join(args)} took over 60 s in the example repository") from None
    return CommandRun("python " + " ".join(args), result.returncode, result.stdout)
