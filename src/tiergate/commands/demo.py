"""`tiergate demo [--keep]`: watch tiergate do its job on an embedded example, offline, in seconds.

A scripted Claude Code session fixes a bug in a throw-away git repository while tiergate's real hooks
answer it: a wrong first attempt refuted by a verifier's FAIL, the fix, a PASS, the loop finalized.
Exits 1, naming the step, if any answer is not the one the script expects (see `tiergate.demo`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from typing import TextIO

from tiergate.claudecode.installation import GET_CLAUDE, claude_config_dir, claude_program, installed_as
from tiergate.demo import story
from tiergate.demo.story import NEXT_STEP


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--keep", action="store_true", help="keep the example repository and print where it is"
    )


def run(args: argparse.Namespace) -> int:
    return story.run(
        sys.stdout,
        keep=args.keep,
        color=wants_color(sys.stdout, os.environ),
        next_step=next_step(os.environ),
    )


def next_step(env: Mapping[str, str]) -> str:
    """The demo's closing line: a slash command only for someone who has Claude Code and the plugin."""
    claude, found = claude_program(env)
    if found is None:
        return (
            f"Next: tiergate runs inside Claude Code, and `{claude}` is not on PATH: get Claude Code with "
            f"`{GET_CLAUDE}`, then run install.sh again to register the plugin; then, in your own project, "
            "start a loop in Claude Code with /tiergate:ralph <task>."
        )
    if installed_as(claude_config_dir(env), "tiergate") is None:
        return (
            "Next: the tiergate plugin is not registered in Claude Code: run install.sh again (or see the "
            "README's Install section); then, in your own project, start a loop in Claude Code with "
            "/tiergate:ralph <task>."
        )
    return NEXT_STEP


def wants_color(stream: TextIO, env: Mapping[str, str]) -> bool:
    """Colour for a terminal only, and never when NO_COLOR is set and not empty (no-color.org)."""
    return stream.isatty() and not env.get("NO_COLOR")
