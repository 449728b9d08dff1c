"""tiergate in the real CLI beside the loop plugins users already run (issue 11): Anthropic's ralph-loop (as
the stand-in in testing/ralphloop/, written from its documented behaviour) and oh-my-claudecode (OMC, the
npm package oh-my-claude-sisyphus, pinned, which scripts/test.sh installs under .cache/omc).

What these neighbours do, and how that was established, is in docs/interop.md.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from testing import installs
from testing.claude.cli import DEFAULT_TOOLS, TIERGATE_PLUGIN, ClaudeRun, HookRun, RunClaude
from testing.claude.scripted_api import ApiRequest, Reply, bash, tool_use

REPO_ROOT = Path(__file__).resolve().parents[2]
RALPH_LOOP_PLUGIN = REPO_ROOT / "testing" / "ralphloop"
# ralph-loop's state file, relative to the project (the hook's working directory).
RALPH_LOOP_STATE = Path(".claude") / "ralph-loop.local.md"
# A --plugin-dir plugin's commands are namespaced in -p: `/ralph-loop` alone is not found (2.1.332).
RALPH_LOOP_COMMAND = "/ralph-loop:ralph-loop"

OMC_PACKAGE = "oh-my-claude-sisyphus"
OMC_VERSION = "5.5.0"
OMC_PREFIX = REPO_ROOT / ".cache" / "omc"
OMC_PLUGIN_NAME = "oh-my-claudecode"
# OMC's tool that clears a mode's state (deferred: a ToolSearch loads it first), and the tools a scripted
# model needs to confirm a mode (Skill) and clear it.
OMC_STATE_CLEAR = "mcp__plugin_oh-my-claudecode_t__state_clear"
OMC_CLEARING_TOOLS = (*DEFAULT_TOOLS, "Skill", "ToolSearch", OMC_STATE_CLEAR)
# The model's steps before it clears a mode as OMC's cancel does: see the session's folder, load the tool.
LIST_OMC_SESSIONS = bash("ls -d .omc/state/sessions/*/")
LOAD_OMC_STATE_CLEAR = tool_use("ToolSearch", {"query": f"select:{OMC_STATE_CLEAR}"})

# What each plugin's hook commands contain: every OMC hook goes through its runner script.
TIERGATE_HOOK = "/hooks/tiergate-hook"
OMC_HOOK = "/scripts/run.cjs"
RALPH_LOOP_HOOK = "/hooks/ralph_loop_stop.py"


class NeighbourInstallError(RuntimeError):
    """The pinned OMC package is not installed: the tests fail rather than skip."""


def omc_plugin_dir(prefix: Path = OMC_PREFIX) -> Path:
    """The OMC plugin folder (the npm package itself is the plugin), which scripts/test.sh installs beside
    the tests (waited for here): a test never installs anything, so that tests running side by side share
    one install and time no download."""
    installs.awaited("omc")
    package = prefix / "node_modules" / OMC_PACKAGE
    found = _installed_version(package)
    if found != OMC_VERSION:
        raise NeighbourInstallError(
            f"{package} is {'missing' if found is None else f'version {found}'}, not {OMC_PACKAGE} "
            f"{OMC_VERSION}: run the tests through scripts/test.sh, which installs it"
        )
    return package


def _installed_version(package: Path) -> str | None:
    try:
        return str(json.loads((package / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


def run_beside(
    run_claude: RunClaude,
    prompt: str | Sequence[str],
    neighbours: Sequence[Path],
    *,
    tiergate: bool = True,
    env: Mapping[str, str] | None = None,
    **options: Any,
) -> ClaudeRun:
    """`claude -p` with tiergate's plugin (this checkout) and each neighbour plugin folder loaded."""
    plugins = [TIERGATE_PLUGIN, *neighbours] if tiergate else list(neighbours)
    if not plugins:
        raise ValueError("run_beside needs at least one plugin")
    extra = [arg for plugin in plugins[1:] for arg in ("--plugin-dir", str(plugin))]
    options.setdefault("output_format", "stream-json")
    return run_claude(
        prompt,
        plugin_dir=plugins[0],
        env={"TIERGATE_PYTHON": sys.executable, **(env or {})},
        extra_args=[*extra, *options.pop("extra_args", ())],
        **options,
    )


def ralph_loop_command(task: str, *, promise: str | None = None, max_iterations: int | None = None) -> str:
    """The prompt a user types to start a ralph-loop, with the task quoted the way a shell reads it."""
    words = [RALPH_LOOP_COMMAND, shlex.quote(task)]
    if promise is not None:
        words += ["--completion-promise", shlex.quote(promise)]
    if max_iterations is not None:
        words += ["--max-iterations", str(max_iterations)]
    return " ".join(words)


@dataclass(frozen=True)
class RalphLoopState:
    """`.claude/ralph-loop.local.md` read back: its frontmatter fields as written, and its prompt."""

    fields: Mapping[str, str]
    prompt: str


def ralph_loop_state(project: Path) -> RalphLoopState | None:
    path = project / RALPH_LOOP_STATE
    if not path.is_file():
        return None
    _, frontmatter, body = path.read_text().split("---\n", 2)
    fields = dict(line.split(": ", 1) for line in frontmatter.splitlines() if ": " in line)
    return RalphLoopState(fields, body.strip("\n"))


def omc_files(project: Path) -> list[str]:
    """Every file OMC left under the project's `.omc/`, relative to the project, sorted."""
    root = project / ".omc"
    if not root.is_dir():
        return []
    return sorted(str(p.relative_to(project)) for p in root.rglob("*") if p.is_file())


def clear_omc_state(mode: str) -> Callable[[ApiRequest], Reply]:
    """The model's `state_clear` call for `mode`, as OMC's cancel skill has it, for the session it saw in
    its listing (LIST_OMC_SESSIONS)."""

    def reply(request: ApiRequest) -> Reply:
        found = re.search(r"\.omc/state/sessions/([0-9a-f-]{36})/", request.conversation_text())
        assert found, "the scripted model listed no OMC session folder"
        return tool_use(OMC_STATE_CLEAR, {"mode": mode, "session_id": found.group(1)})

    return reply


def hook_runs_of(run: ClaudeRun, hook: str, event: str | None = None) -> list[HookRun]:
    """The runs of one plugin's hooks, told by the script in their command (`TIERGATE_HOOK`, `OMC_HOOK`,
    `RALPH_LOOP_HOOK`): the debug log's end-of-session lines name no plugin."""
    return [h for h in run.hook_runs(event) if hook in h.command]
