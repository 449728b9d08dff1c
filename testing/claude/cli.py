"""Run the pinned Claude Code CLI in print mode against the scripted Messages API, in a throw-away HOME."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from testing import installs
from testing.statefolder import state_env

CLAUDE_BIN_ENV = "TIERGATE_CLAUDE_BIN"
# tiergate's plugin is the repository itself (.claude-plugin/, hooks/, agents/, commands/).
TIERGATE_PLUGIN = Path(__file__).resolve().parents[2]
PINNED_VERSION = "2.1.332"
# What the scripted agents use. Root may not pass --dangerously-skip-permissions: tools are allowed by name.
DEFAULT_TOOLS = ("Bash", "Read", "Write", "Edit", "Agent")
# Settings a developer's shell (or an enclosing Claude Code session) may carry that would leak into the run.
_LEAKY_PREFIXES = ("CLAUDE", "ANTHROPIC", "TIERGATE_", "XDG_", "OTEL_")

# Two shapes in 2.1.332's debug log: "Hooks: Stop [cmd] (plugin p@inline) finished with status 0 (12ms)" for
# most events, "StopFailure:invalid_request [cmd] completed with status 0" for the end-of-session ones.
_HOOK_LINE = re.compile(
    r"\[DEBUG\] (?:Hooks: )?(?P<event>[A-Z][A-Za-z]+)(?::(?P<matcher>\S*))? \[(?P<command>[^\]]*)\]"
    r"(?: \(plugin (?P<plugin>[^)]+)\))? (?:finished|completed) with status (?P<status>-?\d+)"
    r"(?: \((?P<ms>\d+)ms\))?"
)
_debug_files = itertools.count(1)


class ClaudeNotFoundError(RuntimeError):
    """The pinned CLI is not where TIERGATE_CLAUDE_BIN says: the e2e tests fail rather than skip."""


class ClaudeTimeoutError(RuntimeError):
    """The CLI did not finish in time (its whole process group was killed); the message has its output."""


def claude_bin() -> Path:
    installs.awaited("claude")
    configured = os.environ.get(CLAUDE_BIN_ENV)
    if not configured:
        raise ClaudeNotFoundError(
            f"{CLAUDE_BIN_ENV} is not set: run the tests through scripts/test.sh, which installs the pinned "
            f"Claude Code CLI {PINNED_VERSION} under .cache/claude-code and sets it"
        )
    path = Path(configured)
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise ClaudeNotFoundError(f"{CLAUDE_BIN_ENV}={configured} is not an executable file")
    return path


@dataclass(frozen=True)
class HookRun:
    """One hook command the CLI ran, as its debug log reports it."""

    event: str
    matcher: str | None
    command: str
    plugin: str | None
    status: int
    ms: int | None


@dataclass(frozen=True)
class ClaudeRun:
    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    debug_log: str
    seconds: float

    @property
    def events(self) -> list[dict[str, Any]]:
        """The stream-json events, or the single json result, in order."""
        return [json.loads(line) for line in self.stdout.splitlines() if line.startswith("{")]

    @property
    def results(self) -> list[dict[str, Any]]:
        """One `result` object per prompt answered."""
        return [event for event in self.events if event.get("type") == "result"]

    @property
    def result(self) -> dict[str, Any]:
        """The last prompt's `result` object (--output-format json or stream-json)."""
        if not self.results:
            raise AssertionError(f"the CLI printed no result object:\n{self.describe()}")
        return self.results[-1]

    @property
    def notices(self) -> list[str]:
        """What hooks told the user (`systemMessage`), as stream-json reports it: "<Event> says: <text>"."""
        return [
            str(event.get("content"))
            for event in self.events
            if event.get("type") == "system" and event.get("subtype") == "informational"
        ]

    @property
    def session_id(self) -> str:
        return str(self.result["session_id"])

    def hook_runs(self, event: str | None = None) -> list[HookRun]:
        runs = [_hook_run(match) for match in _HOOK_LINE.finditer(self.debug_log)]
        return [run for run in runs if event is None or run.event == event]

    def describe(self) -> str:
        """Everything needed to understand a failed run, for assertion messages."""
        return (
            f"$ {' '.join(self.args)}\nexit {self.returncode} after {self.seconds:.1f}s\n"
            f"--- stdout\n{self.stdout[-4000:]}\n--- stderr\n{self.stderr[-4000:]}"
        )


def _hook_run(match: re.Match[str]) -> HookRun:
    return HookRun(
        event=match["event"],
        matcher=match["matcher"],
        command=match["command"],
        plugin=match["plugin"],
        status=int(match["status"]),
        ms=int(match["ms"]) if match["ms"] else None,
    )


class RunClaude(Protocol):
    """The `run_claude` fixture: `run_claude` bound to the test's HOME, project and scripted API."""

    def __call__(
        self, prompt: str | Sequence[str], *, plugin_dir: Path | None = ..., **options: Any
    ) -> ClaudeRun: ...


def run_tiergate(run_claude: RunClaude, prompt: str | Sequence[str], **options: Any) -> ClaudeRun:
    """`run_claude` with tiergate's plugin (or `plugin_dir`), its hooks on this interpreter, and streamed
    JSON output; `env` adds to the hooks' environment, other options go to `run_claude` as they are."""
    env = {"TIERGATE_PYTHON": sys.executable, **options.pop("env", {})}
    options.setdefault("output_format", "stream-json")
    return run_claude(prompt, plugin_dir=options.pop("plugin_dir", TIERGATE_PLUGIN), env=env, **options)


def claude_env(home: Path, api_url: str, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The CLI's environment (its hooks inherit it): isolated HOME, the scripted API, no outside traffic."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(_LEAKY_PREFIXES)}
    return {
        **base,
        "HOME": str(home),
        # The test's state home (tests/conftest.py), so that the hooks' state is where the test looks.
        **state_env(),
        "ANTHROPIC_BASE_URL": api_url,
        "ANTHROPIC_API_KEY": "sk-ant-scripted-test-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        # The scripted API never fails by accident; a scripted error must surface at once, not after
        # ten backed-off retries.
        "CLAUDE_CODE_MAX_RETRIES": "0",
        **(env or {}),
    }


def run_claude(
    prompt: str | Sequence[str],
    *,
    plugin_dir: Path | None,
    cwd: Path,
    home: Path,
    api_url: str,
    extra_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    timeout: float = 60.0,
    output_format: str = "json",
    session_id: str | None = None,
    resume: str | None = None,
    allowed_tools: Sequence[str] = DEFAULT_TOOLS,
    await_hooks: Sequence[str] = (),
) -> ClaudeRun:
    """`claude -p` in `cwd`; returns whatever happened (a non-zero exit is the test's to judge).

    Several prompts, or `await_hooks`, switch to stream-json input: each prompt is sent once the previous
    one has its result, in one session, and the CLI is kept alive until every event in `await_hooks` has
    finished its hooks. (In plain `-p` the CLI exits right after the result, killing hooks such as
    StopFailure that it starts only then.)
    """
    prompts = [prompt] if isinstance(prompt, str) else list(prompt)
    streaming = len(prompts) > 1 or bool(await_hooks)
    debug_file = home / f"claude-debug-{next(_debug_files)}.log"
    args = [str(claude_bin()), "-p"]
    if streaming:
        args += ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]
    else:
        args += [prompts[0], "--output-format", output_format]
        if output_format == "stream-json":
            args.append("--verbose")
    args += ["--allowedTools", ",".join(allowed_tools), "--debug-file", str(debug_file)]
    args += _optional("--plugin-dir", plugin_dir) + _optional("--session-id", session_id)
    args += _optional("--resume", resume) + list(extra_args)

    started = time.monotonic()
    deadline = started + timeout
    process = subprocess.Popen(
        args,
        cwd=cwd,
        env=claude_env(home, api_url, env),
        stdin=subprocess.PIPE if streaming else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Its own process group, so a timeout also ends the hooks and tools it started.
        start_new_session=True,
    )
    output = _Output(process)
    try:
        if streaming:
            _converse(process, output, prompts, debug_file, await_hooks, deadline)
        process.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        run = output.run(args, -signal.SIGKILL, debug_file, started)
        raise ClaudeTimeoutError(f"the CLI ran past its {timeout}s timeout\n{run.describe()}") from None
    return output.run(args, process.returncode, debug_file, started)


def _optional(flag: str, value: object | None) -> list[str]:
    return [] if value is None else [flag, str(value)]


class _Output:
    """Drains the CLI's stdout and stderr in threads, so a streaming conversation can read as it goes."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.stdout_lines: list[str] = []
        self.stderr_chunks: list[str] = []
        self.events: queue.Queue[dict[str, Any] | None] = queue.Queue()
        assert process.stdout is not None and process.stderr is not None
        self._threads = [
            threading.Thread(target=self._read_stdout, args=(process.stdout,), daemon=True),
            threading.Thread(target=self._read_stderr, args=(process.stderr,), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read_stdout(self, stream: IO[str]) -> None:
        for line in stream:
            self.stdout_lines.append(line)
            if line.startswith("{"):
                with contextlib.suppress(ValueError):
                    self.events.put(json.loads(line))
        self.events.put(None)

    def _read_stderr(self, stream: IO[str]) -> None:
        for chunk in stream:
            self.stderr_chunks.append(chunk)

    def run(self, args: list[str], returncode: int, debug: Path, started: float) -> ClaudeRun:
        for thread in self._threads:
            thread.join(timeout=5)
        return ClaudeRun(
            args=tuple(args),
            returncode=returncode,
            stdout="".join(self.stdout_lines),
            stderr="".join(self.stderr_chunks),
            debug_log=debug.read_text(errors="replace") if debug.exists() else "",
            seconds=time.monotonic() - started,
        )


def _converse(
    process: subprocess.Popen[str],
    output: _Output,
    prompts: Sequence[str],
    debug_file: Path,
    await_hooks: Sequence[str],
    deadline: float,
) -> None:
    assert process.stdin is not None
    try:
        for prompt in prompts:
            message = {"type": "user", "message": {"role": "user", "content": prompt}}
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            if not _await_result(output, deadline):
                break
        _await_hooks(debug_file, await_hooks, deadline)
        process.stdin.close()
    except BrokenPipeError:
        # The CLI ended early; what it printed tells the test why.
        pass


def _await_result(output: _Output, deadline: float) -> bool:
    """Wait for the current turn's result; False if the CLI closed its output first."""
    while True:
        try:
            event = output.events.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise subprocess.TimeoutExpired("claude", 0) from None
        if event is None:
            return False
        if event.get("type") == "result":
            return True


def _await_hooks(debug_file: Path, events: Sequence[str], deadline: float) -> None:
    pending = set(events)
    while pending:
        log = debug_file.read_text(errors="replace") if debug_file.exists() else ""
        pending -= {match["event"] for match in _HOOK_LINE.finditer(log)}
        if not pending:
            return
        if time.monotonic() > deadline:
            raise subprocess.TimeoutExpired("claude", 0)
        time.sleep(0.05)
