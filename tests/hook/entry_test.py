from __future__ import annotations

import ast
import io
import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from testing import tiergatecli
from testing.claude.cli import RunClaude
from testing.claude.probe_plugin import HookAnswer as ProbeAnswer
from testing.claude.probe_plugin import make_probe_plugin
from testing.claude.scripted_api import ScriptedApi, agent, text
from testing.gitrepo import init_repo
from testing.heavymodules import HEAVY
from testing.statefolder import state_dir, state_env

import tiergate
from tiergate import handlers, project
from tiergate.errors import UserError
from tiergate.hook import entry as hook
from tiergate.hook.inputs import parse_input
from tiergate.hook.protocol import HookReply, render
from tiergate.hook.registry import EVENTS
from tiergate.log import read_records

SESSION_ID = "3f2b8c1e-9d7a-4c1b-8e2f-5a6b7c8d9e0f"
MIB = 1024 * 1024
NOT_BEFORE_THE_INPUT_IS_NEEDED = {"json", "re", "pathlib", "dataclasses", "typing", "inspect", "subprocess"}


@dataclass(frozen=True)
class Sandbox:
    """A HOME, a git project and the environment Claude Code would give the hook in it."""

    root: Path
    home: Path
    project: Path
    env: dict[str, str]

    @property
    def state_dir(self) -> Path:
        return state_dir(self.project)

    @property
    def state_prefix(self) -> str:
        """The state folder's path relative to the sandbox, as `snapshot` names it."""
        return self.state_dir.relative_to(self.root).as_posix() + "/"

    def activate(self) -> Path:
        self.state_dir.mkdir(parents=True)
        return self.state_dir

    def payload(self, event: str = "Stop", **fields: Any) -> dict[str, Any]:
        base: dict[str, Any] = {
            "session_id": SESSION_ID,
            "transcript_path": str(self.home / ".claude" / "projects" / "p" / f"{SESSION_ID}.jsonl"),
            "cwd": str(self.project),
            "hook_event_name": event,
        }
        if event in ("Stop", "SubagentStop"):
            base |= {"stop_hook_active": False, "last_assistant_message": "Done.\n<promise>DONE</promise>"}
        if event in ("SubagentStart", "SubagentStop"):
            base |= {"agent_id": "a3d98629b342db2b6", "agent_type": "tiergate:architect-low"}
        if event == "UserPromptSubmit":
            base["prompt"] = "hello"
        if event == "TaskCompleted":
            base |= {"task_id": "1", "task_subject": "Fix add", "task_description": "make add() correct"}
        if event == "PostToolUse":
            goal = {"condition": "the tests pass"}
            base |= {"tool_name": "SetGoal", "tool_input": goal, "tool_response": {**goal, "askUser": True}}
        return base | fields


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    home = tmp_path / "home"
    home.mkdir()
    # The state home inside the sandbox, so that a snapshot of the sandbox sees what tiergate wrote there.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    proj = init_repo(tmp_path / "project", {"README.md": "hi\n"})
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        **state_env(),
        "CLAUDE_PROJECT_DIR": str(proj),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    return Sandbox(tmp_path, home, proj, env)


def run_hook(
    sandbox: Sandbox,
    args: list[str],
    stdin: bytes,
    *,
    env: dict[str, str] | None = None,
    python_flags: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[bytes]:
    """The real entry point, as the launcher runs it: `python -m tiergate hook <Event>`. Forked warm
    (`testing.warmstart`) where the test is about the answer; cold with interpreter flags, which are about
    the process's own start, and with input that is not UTF-8, which the warm start only takes as text."""
    environ = sandbox.env if env is None else env
    decoded = _utf8(stdin)
    if python_flags or decoded is None:
        return subprocess.run(
            [sys.executable, *python_flags, "-m", "tiergate", "hook", *args],
            input=stdin,
            env=environ,
            cwd=sandbox.project,
            capture_output=True,
            timeout=120,
            check=False,
        )
    run = tiergatecli.tiergate(sandbox.project, "hook", *args, stdin=decoded, environ=environ, timeout=120)
    # Back to bytes: a UTF-8 answer round-trips exactly, and one that is not fails the decoding loudly.
    return subprocess.CompletedProcess(run.args, run.returncode, run.stdout.encode(), run.stderr.encode())


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode()
    except UnicodeDecodeError:
        return None


def as_json(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode()


def snapshot(root: Path) -> dict[str, tuple[int, int] | None]:
    """Every directory and file under root, with size and mtime for files."""
    tree: dict[str, tuple[int, int] | None] = {}
    for path in [root, *root.rglob("*")]:
        status = path.lstat()
        relative = path.relative_to(root).as_posix()
        if path.is_dir() and not path.is_symlink():
            tree[relative + "/"] = None
        else:
            tree[relative] = (status.st_size, status.st_mtime_ns)
    return tree


# The user's sealing key (`tiergate.seal`), made once on first use in the user's state home (the
# sandbox's XDG_STATE_HOME), outside every project.
SEALING_KEY = {"state/tiergate/key"}


def changed(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    keys = before.keys() | after.keys()
    return {key for key in keys if before.get(key, "gone") != after.get(key, "gone")} - SEALING_KEY


def only_message(result: subprocess.CompletedProcess[bytes]) -> str:
    """The one systemMessage a fail-open answer consists of (and nothing else anywhere)."""
    assert result.returncode == 0, result
    assert result.stderr == b"", result.stderr.decode(errors="replace")
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1, result.stdout
    answer = json.loads(lines[0])
    assert list(answer) == ["systemMessage"]
    message: str = answer["systemMessage"]
    assert message.startswith("tiergate: ")
    return message


def imported_modules(result: subprocess.CompletedProcess[bytes]) -> set[str]:
    """Module names from `python -X importtime` output."""
    names = set()
    for line in result.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    names.discard("package")  # the header line
    return names


# The fast path ----------------------------------------------------------------------------------------


def test_each_module_kept_off_the_fast_path_is_one_tiergate_imports() -> None:
    # A name no module of tiergate imports could never show up on the path: the check on it could not fail.
    imported: set[str] = set()
    for source in Path(hook.__file__).parents[1].rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module.split(".")[0])

    assert imported >= HEAVY, HEAVY - imported


@pytest.mark.parametrize("event", EVENTS)
def test_no_state_folder_no_output_no_files(sandbox: Sandbox, event: str) -> None:
    before = snapshot(sandbox.root)

    result = run_hook(sandbox, [event], as_json(sandbox.payload(event)))

    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert snapshot(sandbox.root) == before


def test_the_fast_path_imports_almost_nothing(sandbox: Sandbox) -> None:
    result = run_hook(sandbox, ["Stop"], as_json(sandbox.payload()), python_flags=("-X", "importtime"))

    assert (result.returncode, result.stdout) == (0, b"")
    modules = imported_modules(result)
    assert {"tiergate.hook.entry", "tiergate.project"} <= modules, "the test must see the hook's imports"
    assert modules & (HEAVY | NOT_BEFORE_THE_INPUT_IS_NEEDED) == set()
    lean = {
        "tiergate.main",
        "tiergate.hook",
        "tiergate.hook.entry",
        "tiergate.hook.registry",
        "tiergate.project",
        "tiergate.seal",  # the user's state home, where the state folder is (os only)
    }
    assert not any(name.startswith("tiergate.") for name in modules - lean)


def test_without_claude_project_dir_the_fast_path_locates_from_cwd_and_stays_light(sandbox: Sandbox) -> None:
    env = {k: v for k, v in sandbox.env.items() if k != "CLAUDE_PROJECT_DIR"}
    sub = sandbox.project / "sub" / "dir"
    sub.mkdir(parents=True)
    before = snapshot(sandbox.root)

    result = run_hook(
        sandbox, ["Stop"], as_json(sandbox.payload(cwd=str(sub))), env=env, python_flags=("-X", "importtime")
    )

    assert (result.returncode, result.stdout) == (0, b"")
    assert imported_modules(result) & (HEAVY | {"dataclasses", "typing", "subprocess"}) == set()
    assert snapshot(sandbox.root) == before


def test_without_claude_project_dir_a_state_folder_at_the_git_top_level_is_found(sandbox: Sandbox) -> None:
    env = {k: v for k, v in sandbox.env.items() if k != "CLAUDE_PROJECT_DIR"}
    sandbox.activate()
    sub = sandbox.project / "sub"
    sub.mkdir()

    # Past the fast path, an unsafe session id is reported: proof the state folder was found from `sub`.
    result = run_hook(sandbox, ["Stop"], as_json(sandbox.payload(cwd=str(sub), session_id="../x")), env=env)

    assert "session_id" in only_message(result)


def test_no_state_folder_means_silence_even_for_garbage(sandbox: Sandbox) -> None:
    # Claude Code always sets CLAUDE_PROJECT_DIR: tiergate stays invisible in projects that do not use it.
    result = run_hook(sandbox, ["Stop"], b"\xff garbage {")

    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_tiergate_state_dir_elsewhere_is_the_one_checked(sandbox: Sandbox) -> None:
    sandbox.activate()  # the project's state folder exists, but the environment points elsewhere
    env = sandbox.env | {"TIERGATE_STATE_DIR": str(sandbox.root / "elsewhere")}

    result = run_hook(sandbox, ["Stop"], b"not json", env=env)

    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


# Hostile and malformed input ----------------------------------------------------------------------------

HOSTILE: dict[str, Callable[[Sandbox], bytes]] = {
    "empty": lambda s: b"",
    "not json": lambda s: b"this is not json",
    "truncated json": lambda s: as_json(s.payload())[:-5],
    "array": lambda s: b"[1, 2, 3]",
    "null": lambda s: b"null",
    "string": lambda s: b'"a string"',
    "number": lambda s: b"42",
    "invalid utf-8": lambda s: b'{"session_id": "\xff\xfe", "cwd": "/"}',
    "deep nesting": lambda s: b"[" * 200_000,
    "giant integer": lambda s: b'{"n": 1' + b"0" * 20_000 + b"}",
    "no session_id": lambda s: as_json({k: v for k, v in s.payload().items() if k != "session_id"}),
    "session_id not a string": lambda s: as_json(s.payload(session_id=["a"])),
    "no cwd": lambda s: as_json({k: v for k, v in s.payload().items() if k != "cwd"}),
    "cwd not a string": lambda s: as_json(s.payload(cwd={"path": "/"})),
    "cwd relative": lambda s: as_json(s.payload(cwd="project")),
    "cwd missing": lambda s: as_json(s.payload(cwd=str(s.root / "nowhere"))),
    "cwd is a file": lambda s: as_json(s.payload(cwd=str(s.project / "README.md"))),
    "cwd with nul": lambda s: as_json(s.payload(cwd=str(s.project) + "\0/x")),
    "session_id traversal": lambda s: as_json(s.payload(session_id="../../outside")),
    "session_id absolute": lambda s: as_json(s.payload(session_id="/etc/passwd")),
    "session_id with slash": lambda s: as_json(s.payload(session_id="a/b")),
    "session_id too long": lambda s: as_json(s.payload(session_id="a" * 129)),
    "session_id empty": lambda s: as_json(s.payload(session_id="")),
    "session_id newline": lambda s: as_json(s.payload(session_id="abc\n")),
    # An input for another event: a SubagentStop's verdict must never be read as a Stop's claim.
    "another event's input": lambda s: as_json(s.payload(hook_event_name="SubagentStop")),
    "no hook_event_name": lambda s: as_json({k: v for k, v in s.payload().items() if k != "hook_event_name"}),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_input_is_one_line_and_writes_nothing(sandbox: Sandbox, case: str) -> None:
    sandbox.activate()
    before = snapshot(sandbox.root)

    message = only_message(run_hook(sandbox, ["Stop"], HOSTILE[case](sandbox)))

    assert message.startswith("tiergate: ignored the Stop event: ")
    assert "Traceback" not in message
    assert snapshot(sandbox.root) == before


def test_input_over_16_mib_is_refused_without_parsing(sandbox: Sandbox) -> None:
    sandbox.activate()
    payload = as_json(sandbox.payload(last_assistant_message="x" * (20 * MIB)))

    message = only_message(run_hook(sandbox, ["Stop"], payload))

    assert message == "tiergate: ignored the Stop event: its input is over 16 MiB"


def test_input_of_exactly_16_mib_is_accepted(sandbox: Sandbox) -> None:
    sandbox.activate()
    payload = as_json(sandbox.payload())
    padded = payload + b" " * (hook.MAX_INPUT_BYTES - len(payload))
    before = snapshot(sandbox.root)

    result = run_hook(sandbox, ["Stop"], padded)

    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert snapshot(sandbox.root) == before


@pytest.mark.parametrize("event", ["Stop", "SubagentStop", "UserPromptSubmit"])
def test_megabytes_of_text_pass_through(sandbox: Sandbox, event: str) -> None:
    sandbox.activate()
    big = "lorem ipsum \u00e9\u4e2d\U0001f600 " * (6 * MIB // 24)
    field = "prompt" if event == "UserPromptSubmit" else "last_assistant_message"
    payload = json.dumps(sandbox.payload(event, **{field: big}), ensure_ascii=False).encode()
    assert 5 * MIB < len(payload) < hook.MAX_INPUT_BYTES

    result = run_hook(sandbox, [event], payload)

    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_an_unreadable_transcript_path_is_no_problem(sandbox: Sandbox) -> None:
    sandbox.activate()
    payload = sandbox.payload(
        "SubagentStop", transcript_path=str(sandbox.root), agent_transcript_path="/dev/zero"
    )

    result = run_hook(sandbox, ["SubagentStop"], as_json(payload))

    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.parametrize("args", [[], ["Nope"], ["stop"], ["Stop", "extra"], ["PreToolUse"]])
def test_a_wrong_event_name_is_one_line(sandbox: Sandbox, args: list[str]) -> None:
    message = only_message(run_hook(sandbox, args, as_json(sandbox.payload())))

    assert "needs one hook event name" in message


def test_a_reader_that_went_away_gets_no_traceback(sandbox: Sandbox) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "tiergate", "hook", "Nope"],
            input=b"",
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=sandbox.env,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)

    assert (result.returncode, result.stderr) == (0, b"")


# Dispatch to the real handlers (subprocess) ----------------------------------------------------------


def only_under_state_dir(sandbox: Sandbox, before: dict[str, Any]) -> None:
    changes = changed(before, snapshot(sandbox.root))
    assert changes, "the event was expected to change something"
    # The state folder and what is in it, and the folders of the user's state home above it: nothing else.
    assert all(
        path.startswith(sandbox.state_prefix) or sandbox.state_prefix.startswith(path) for path in changes
    ), sorted(changes)
    assert not any(path.startswith("project/") for path in changes), sorted(changes)


def test_the_ralph_command_reaches_the_handlers_in_a_project_without_state(sandbox: Sandbox) -> None:
    before = snapshot(sandbox.root)
    payload = sandbox.payload("UserPromptSubmit", prompt="/tiergate:ralph make the parser strict")

    result = run_hook(sandbox, ["UserPromptSubmit"], as_json(payload))

    assert (result.returncode, result.stderr) == (0, b""), result
    answer = json.loads(result.stdout)
    assert answer["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "make the parser strict" in answer["hookSpecificOutput"]["additionalContext"]
    assert (sandbox.state_dir / ".gitignore").read_text() == "*\n"
    only_under_state_dir(sandbox, before)


def test_other_prompts_stay_on_the_fast_path(sandbox: Sandbox) -> None:
    payload = sandbox.payload("UserPromptSubmit", prompt="what is a ralph loop?")

    result = run_hook(sandbox, ["UserPromptSubmit"], as_json(payload), python_flags=("-X", "importtime"))

    assert (result.returncode, result.stdout) == (0, b"")
    assert imported_modules(result) & (HEAVY | NOT_BEFORE_THE_INPUT_IS_NEEDED) == set()
    assert not sandbox.state_dir.exists()


def test_a_session_without_a_loop_in_a_project_with_state_stays_light(sandbox: Sandbox) -> None:
    (sandbox.activate() / "loops").mkdir()
    (sandbox.state_dir / "loops" / "other-session.json").write_text('{"active": true}')
    before = snapshot(sandbox.root)

    for event in EVENTS:
        result = run_hook(
            sandbox, [event], as_json(sandbox.payload(event)), python_flags=("-X", "importtime")
        )

        assert (result.returncode, result.stdout) == (0, b""), (event, result)
        # Nor the redaction patterns: only a hook that writes a record or runs a check pays for them.
        assert imported_modules(result) & (HEAVY | {"tiergate.redact"}) == set(), event
    assert snapshot(sandbox.root) == before


def test_a_loop_started_from_the_shell_is_taken_up_by_the_next_session(sandbox: Sandbox) -> None:
    start = tiergatecli.tiergate(sandbox.project, "ralph", "start", "tidy the README", environ=sandbox.env)
    assert start.returncode == 0, start
    assert start.stdout or start.stderr
    before = snapshot(sandbox.root)

    result = run_hook(sandbox, ["SessionStart"], as_json(sandbox.payload("SessionStart", source="startup")))

    assert (result.returncode, result.stderr) == (0, b""), result
    answer = json.loads(result.stdout)
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "tidy the README" in answer["hookSpecificOutput"]["additionalContext"]
    assert answer["systemMessage"].startswith("tiergate: ")
    only_under_state_dir(sandbox, before)


def test_unreadable_loop_state_is_reported_in_one_line_and_logged(sandbox: Sandbox) -> None:
    (sandbox.activate() / "loops").mkdir()
    (sandbox.state_dir / "loops" / f"{SESSION_ID}.json").write_text("{ not json")

    payload = sandbox.payload("UserPromptSubmit")
    message = only_message(run_hook(sandbox, ["UserPromptSubmit"], as_json(payload)))

    assert message.startswith("tiergate: ignored the UserPromptSubmit event: ")
    [record] = list(read_records(sandbox.state_dir / "log.jsonl", sandbox.env))
    assert (record["event"], record["hook_event"], record["session_id"]) == (
        "event_ignored",
        "UserPromptSubmit",
        SESSION_ID,
    )


def test_unreadable_loop_state_at_a_stop_fails_closed_instead(sandbox: Sandbox) -> None:
    """Not "ignored": a stop let through on a broken loop file would be a claim let through unchecked
    (tests/handlers/failclosed_test.py has the whole sequence)."""
    (sandbox.activate() / "loops").mkdir()
    (sandbox.state_dir / "loops" / f"{SESSION_ID}.json").write_text("{ not json")

    result = run_hook(sandbox, ["Stop"], as_json(sandbox.payload()))

    answer = json.loads(result.stdout)
    assert answer["decision"] == "block" and "is not trustworthy" in answer["reason"]


# Dispatch to the handlers (in process, with `handle` replaced by the test) -----------------------------


@pytest.fixture
def in_process(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sandbox]:
    for key in list(os.environ):
        if key.startswith(("CLAUDE", "TIERGATE_", "XDG_")):
            monkeypatch.delenv(key)
    for key, value in sandbox.env.items():
        monkeypatch.setenv(key, value)
    sandbox.activate()
    yield sandbox


def call_hook(monkeypatch: pytest.MonkeyPatch, event: str, payload: dict[str, Any]) -> int:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(as_json(payload))))
    return hook.main([event])


def answer_with(
    monkeypatch: pytest.MonkeyPatch, handle: Callable[..., HookReply | None]
) -> list[tuple[Any, ...]]:
    calls: list[tuple[Any, ...]] = []

    def recording(event_name: str, payload: dict[str, Any], proj: project.Project) -> HookReply | None:
        calls.append((event_name, payload, proj))
        return handle(event_name, payload, proj)

    monkeypatch.setattr(handlers, "handle", recording)
    return calls


def test_the_handler_gets_the_event_the_payload_and_the_project(
    in_process: Sandbox, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    calls = answer_with(monkeypatch, lambda *_: None)
    payload = in_process.payload("SubagentStop", unknown_future_field=[1])

    assert call_hook(monkeypatch, "SubagentStop", payload) == 0

    assert calls == [("SubagentStop", payload, project.Project(in_process.project, in_process.state_dir))]
    assert capfd.readouterr() == ("", "")


@pytest.mark.parametrize(
    ("event", "reply", "exit_code", "stdout", "stderr"),
    [
        ("Stop", HookReply(block_reason="Not yet."), 0, {"decision": "block", "reason": "Not yet."}, ""),
        (
            "SubagentStop",
            HookReply(redo_feedback="Quote the test output."),
            2,
            None,
            "Quote the test output.",
        ),
        (
            "SubagentStart",
            HookReply(additional_context="packet"),
            0,
            {"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "packet"}},
            "",
        ),
        ("SessionEnd", HookReply(system_message="bye"), 0, {"systemMessage": "bye"}, ""),
    ],
)
def test_the_reply_is_rendered_for_its_event(
    in_process: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    event: str,
    reply: HookReply,
    exit_code: int,
    stdout: dict[str, Any] | None,
    stderr: str,
) -> None:
    answer_with(monkeypatch, lambda *_: reply)

    assert call_hook(monkeypatch, event, in_process.payload(event)) == exit_code

    out, err = capfd.readouterr()
    assert (json.loads(out) if out else None) == stdout
    assert err == stderr


def test_whatever_a_handler_prints_stays_off_stdout(
    in_process: Sandbox, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    def noisy(*_: Any) -> HookReply:
        print("stray print")
        subprocess.run(["echo", "stray child output"], check=True)
        return HookReply(block_reason="blocked")

    answer_with(monkeypatch, noisy)

    assert call_hook(monkeypatch, "Stop", in_process.payload()) == 0

    out, err = capfd.readouterr()
    assert json.loads(out) == {"decision": "block", "reason": "blocked"}
    assert "stray print" in err and "stray child output" in err


def raise_(exc: BaseException) -> Callable[..., HookReply | None]:
    def handle(*_: Any) -> HookReply | None:
        raise exc

    return handle


@pytest.mark.parametrize("event", EVENTS)
def test_a_crashing_handler_fails_open_with_one_line_and_a_logged_traceback(
    in_process: Sandbox, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], event: str
) -> None:
    answer_with(monkeypatch, raise_(RuntimeError("the handler fell over")))
    before = snapshot(in_process.root)

    assert call_hook(monkeypatch, event, in_process.payload(event)) == 0

    out, err = capfd.readouterr()
    assert err == ""
    log = in_process.state_dir / "log.jsonl"
    happened = EVENTS[event]
    assert json.loads(out) == {
        "systemMessage": f"tiergate: internal error in the {event} hook; {happened}; details in {log}"
    }
    [record] = list(read_records(log))
    assert record["event"] == "internal_error"
    assert record["hook_event"] == event
    assert record["session_id"] == SESSION_ID
    assert record["error"] == "RuntimeError: the handler fell over"
    assert "Traceback" in record["traceback"] and "the handler fell over" in record["traceback"]
    assert record["tiergate_version"] == tiergate.__version__
    assert record["python"] == platform.python_version()
    assert record["platform"] == platform.platform()
    state = in_process.state_prefix
    notices = f"{state}notices/{SESSION_ID}.txt"
    expected = {f"{state}log.jsonl"}
    if event not in hook.VISIBLE_EVENTS:
        expected |= {f"{state}notices/", notices}
    assert changed(before, snapshot(in_process.root)) == expected


def test_what_an_unseen_event_said_is_repeated_once_at_the_next_stop(
    in_process: Sandbox, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    answer_with(monkeypatch, raise_(RuntimeError("verdict reader broke")))
    call_hook(monkeypatch, "SubagentStop", in_process.payload("SubagentStop"))
    first = json.loads(capfd.readouterr().out)["systemMessage"]
    answer_with(monkeypatch, lambda *_: HookReply(block_reason="keep going", system_message="loop 2/10"))

    assert call_hook(monkeypatch, "Stop", in_process.payload()) == 0

    answer = json.loads(capfd.readouterr().out)
    assert answer["decision"] == "block"
    assert (
        answer["systemMessage"]
        == f"tiergate: (at SubagentStop) {first.removeprefix('tiergate: ')}\nloop 2/10"
    )
    answer_with(monkeypatch, lambda *_: None)
    assert call_hook(monkeypatch, "Stop", in_process.payload()) == 0
    assert capfd.readouterr().out == "", "a notice is repeated once"
    assert not list((in_process.state_dir / "notices").iterdir())


def test_a_handlers_message_at_an_unseen_event_is_repeated_at_the_next_prompt(
    in_process: Sandbox, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    reply = HookReply(additional_context="loop context", system_message="tiergate: the loop now runs here")
    answer_with(monkeypatch, lambda *_: reply)
    call_hook(monkeypatch, "SessionStart", in_process.payload("SessionStart"))
    assert json.loads(capfd.readouterr().out)["systemMessage"] == "tiergate: the loop now runs here"
    answer_with(monkeypatch, lambda *_: None)

    assert call_hook(monkeypatch, "UserPromptSubmit", in_process.payload("UserPromptSubmit")) == 0

    assert json.loads(capfd.readouterr().out) == {
        "systemMessage": "tiergate: (at SessionStart) the loop now runs here"
    }


def test_notices_stay_with_their_session(
    in_process: Sandbox, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    answer_with(monkeypatch, raise_(UserError("bad config")))
    call_hook(monkeypatch, "SessionStart", in_process.payload("SessionStart"))
    capfd.readouterr()
    answer_with(monkeypatch, lambda *_: None)

    assert call_hook(monkeypatch, "Stop", in_process.payload(session_id="another-session")) == 0
    assert capfd.readouterr().out == ""
    assert call_hook(monkeypatch, "UserPromptSubmit", in_process.payload("UserPromptSubmit")) == 0
    assert json.loads(capfd.readouterr().out) == {
        "systemMessage": "tiergate: (at SessionStart) ignored the SessionStart event: bad config"
    }


def test_the_stop_message_reads_as_the_brief_says(
    in_process: Sandbox, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    answer_with(monkeypatch, raise_(KeyError("x")))

    call_hook(monkeypatch, "Stop", in_process.payload())

    message = json.loads(capfd.readouterr().out)["systemMessage"]
    assert message == (
        "tiergate: internal error in the Stop hook; the stop was allowed; "
        f"details in {in_process.state_dir / 'log.jsonl'}"
    )


def test_a_reply_the_event_cannot_carry_is_an_internal_error_not_a_block(
    in_process: Sandbox, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    answer_with(monkeypatch, lambda *_: HookReply(block_reason="no"))

    assert call_hook(monkeypatch, "SessionStart", in_process.payload("SessionStart")) == 0

    assert "internal error in the SessionStart hook" in json.loads(capfd.readouterr().out)["systemMessage"]
    [record] = list(read_records(in_process.state_dir / "log.jsonl"))
    assert record["error"] == "ValueError: a SessionStart hook cannot block"


def test_an_unusable_state_folder_sends_the_crash_to_the_user_errors_log(
    in_process: Sandbox, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    (in_process.state_dir / "log.jsonl").mkdir()  # the log cannot be appended to, even by root
    answer_with(monkeypatch, raise_(RuntimeError("boom")))

    assert call_hook(monkeypatch, "Stop", in_process.payload()) == 0

    errors_log = in_process.root / "state" / "tiergate" / "errors.log"
    message = json.loads(capfd.readouterr().out)["systemMessage"]
    assert message.endswith(f"details in {errors_log}")
    [record] = list(read_records(errors_log))
    assert record["error"] == "RuntimeError: boom"


def test_a_crash_that_cannot_be_logged_still_says_so(
    in_process: Sandbox, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    (in_process.state_dir / "log.jsonl").mkdir()
    blocker = in_process.root / "a-file"
    blocker.write_text("")
    # The state folder stays where it is; only the user's state home, where errors.log is, is unusable.
    monkeypatch.setenv("TIERGATE_STATE_DIR", str(in_process.state_dir))
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker / "state"))
    answer_with(monkeypatch, raise_(RuntimeError("boom")))

    assert call_hook(monkeypatch, "Stop", in_process.payload()) == 0

    out, err = capfd.readouterr()
    assert err == ""
    assert out.count("\n") == 1
    message = json.loads(out)["systemMessage"]
    assert "the stop was allowed; the error could not be logged" in message
    assert "RuntimeError: boom" in message


def test_a_bug_in_the_hook_itself_fails_open_too(
    in_process: Sandbox, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    def broken_locate(*_: Any) -> project.Project:
        raise OSError("stat failed")

    monkeypatch.setattr(project, "locate", broken_locate)

    assert call_hook(monkeypatch, "Stop", in_process.payload()) == 0

    errors_log = in_process.root / "state" / "tiergate" / "errors.log"
    assert json.loads(capfd.readouterr().out)["systemMessage"].endswith(f"details in {errors_log}")
    [record] = list(read_records(errors_log))
    assert record["error"] == "OSError: stat failed"
    assert record["session_id"] is None


def test_a_payload_the_handler_finds_malformed_is_ignored_and_logged(
    in_process: Sandbox, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    def strict(event_name: str, payload: dict[str, Any], _: project.Project) -> HookReply | None:
        parse_input(event_name, payload)
        return HookReply(block_reason="unreachable")

    answer_with(monkeypatch, strict)

    assert call_hook(monkeypatch, "Stop", in_process.payload(stop_hook_active="perhaps")) == 0

    message = json.loads(capfd.readouterr().out)["systemMessage"]
    assert message.startswith("tiergate: ignored the Stop event: Stop input: stop_hook_active: ")
    [record] = list(read_records(in_process.state_dir / "log.jsonl"))
    assert (record["event"], record["level"], record["session_id"]) == (
        "event_ignored",
        "warning",
        SESSION_ID,
    )


def test_a_user_error_is_its_own_message(
    in_process: Sandbox, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    answer_with(monkeypatch, raise_(UserError(".tiergate.toml: [checks] tests must be a string")))

    assert call_hook(monkeypatch, "UserPromptSubmit", in_process.payload("UserPromptSubmit")) == 0

    message = json.loads(capfd.readouterr().out)["systemMessage"]
    assert message == (
        "tiergate: ignored the UserPromptSubmit event: .tiergate.toml: [checks] tests must be a string"
    )


def test_an_interrupt_is_quiet(
    in_process: Sandbox, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    answer_with(monkeypatch, raise_(KeyboardInterrupt()))

    assert call_hook(monkeypatch, "Stop", in_process.payload()) == 130

    assert capfd.readouterr() == ("", "")


# What render() writes, as the pinned Claude Code CLI takes it ----------------------------------------


@pytest.mark.e2e
def test_every_reply_kind_does_in_the_real_cli_what_it_promises(
    tmp_path: Path, scripted_api: ScriptedApi, run_claude: RunClaude
) -> None:
    probe = make_probe_plugin(tmp_path / "probe-plugin")
    probe.add_agent("checker", model="haiku", body="You are the probe checker.")

    def answer(event: str, *replies: HookReply) -> None:
        rendered = [render(event, reply) for reply in replies]
        probe.answer(event, *(ProbeAnswer(a.stdout, a.stderr, a.exit_code) for a in rendered))

    answer("SessionStart", HookReply(additional_context="CTX-SESSION", system_message="NOTE-SESSION"))
    answer("UserPromptSubmit", HookReply(additional_context="CTX-PROMPT", system_message="NOTE-PROMPT"))
    answer("SubagentStart", HookReply(additional_context="CTX-SUBAGENT", system_message="NOTE-SUBAGENT"))
    # Exit code 2 with a JSON systemMessage beside it: the CLI must still take the redo text from stderr.
    answer("SubagentStop", HookReply(redo_feedback="REDO-QUOTE-THE-OUTPUT", system_message="NOTE-REDO"))
    answer("Stop", HookReply(block_reason="BLOCK-NOT-DONE", system_message="NOTE-BLOCK"))
    answer("SessionEnd", HookReply(system_message="NOTE-END"))
    scripted_api.sequence(
        agent("probe:checker", "check"), text("main thinks it is done"), text("main final"), thread="main"
    )
    scripted_api.sequence(text("first verdict"), text("second verdict"), thread="subagent")

    run = run_claude("go", plugin_dir=probe.root, output_format="stream-json")

    assert run.returncode == 0, run.describe()
    first_main, after_agent, after_block = scripted_api.messages_calls("main")
    assert "SessionStart hook additional context: CTX-SESSION" in first_main.conversation_text()
    assert "UserPromptSubmit hook additional context: CTX-PROMPT" in first_main.conversation_text()
    first_sub, redo_sub = scripted_api.messages_calls("subagent")
    assert "SubagentStart hook additional context: CTX-SUBAGENT" in first_sub.conversation_text()
    assert "REDO-QUOTE-THE-OUTPUT" in redo_sub.last_user_text()
    assert [h.status for h in run.hook_runs("SubagentStop")] == [2, 0]
    assert "second verdict" in after_agent.last_user_text()
    assert "first verdict" not in after_agent.last_user_text()
    assert "BLOCK-NOT-DONE" in after_block.last_user_text()
    assert [s["stop_hook_active"] for s in probe.records("Stop")] == [False, True]
    assert run.result["result"] == "main final"
    assert all("NOTE-" not in request.conversation_text() for request in scripted_api.requests)
    # Only these events' notices reach a print-mode user: hook.VISIBLE_EVENTS, where the others' are
    # repeated.
    assert run.notices == ["UserPromptSubmit says: NOTE-PROMPT", "Stop says: NOTE-BLOCK"]
    assert {notice.split(" says: ")[0] for notice in run.notices} == hook.VISIBLE_EVENTS
