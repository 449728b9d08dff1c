"""What the loop's two costly hooks cost, as Claude Code runs them: a verifier's SubagentStop on a 50 MB
transcript, and the Stop that intercepts a claim on a 2,000-file change.

    .venv/bin/python -m bench.subagent_stop_bench [--runs N] [--check]

Every case is the whole hook process started as hooks/hooks.json registers it (the POSIX launcher,
CLAUDE_PLUGIN_ROOT set to this checkout, so the checkout's .venv), with the input Claude Code 2.1.332
sends, in a real git project whose loop was brought to that point through the real hooks:

- SubagentStop, tool-heavy: the verifier ran one command at its start, then read files for 50 MB (tool
  calls and their results); its verdict is a PASS that must be accepted. The command is as far from the
  end as it can be, so the backward search reads the whole window.
- SubagentStop, small lines: the same, with 50 MB of short records (~200 bytes each) after the command.
- Stop, claim on a 2,000-file change (1,500 modified, 100 deleted, 400 untracked): measured, tiered,
  fingerprinted and answered with the spawn directive. No project checks are configured.
- SessionEnd in that project, its loop active: one record in the log (Claude Code allows 1.5 s).
- A bare interpreter start (`python3 -c pass`, tiergate's venv) in the same run, as the floor.

Before each run the loop's state file is put back, so that every run decides the same thing; the answer
of every run is checked. Runs are interleaved so that machine noise hits every case alike; wall time is
from spawn to exit, peak RSS per process from wait4.

Goals (issue 4): SubagentStop under 0.2 s and 100 MB; the claim Stop under 2 s; SessionEnd under 1.5 s.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from testing.gitrepo import commit_all, init_repo

from bench.hook_bench import state_dir

REPO = Path(__file__).resolve().parents[1]
SESSION_ID = "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
AGENT_ID = "a0123456789abcdef"
TRANSCRIPT_BYTES = 50 * 1024 * 1024
SUBAGENT_GOAL_SECONDS = 0.2
SUBAGENT_GOAL_MIB = 100.0
STOP_GOAL_SECONDS = 2.0
SESSION_END_GOAL_SECONDS = 1.5
WARMUP_ROUNDS = 2
CLAIM = "The parser handles every input now; the tests pass.\n\n<promise>DONE</promise>"


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]
    stdin: bytes
    env: dict[str, str]
    cwd: Path
    before: Callable[[], object]  # puts the state back
    check: Callable[[Run], str | None]  # what is wrong with the answer, or None
    goal: tuple[float, float] | None  # seconds, MiB


@dataclass(frozen=True)
class Run:
    seconds: float
    rss_kib: int
    returncode: int
    stdout: bytes
    stderr: bytes
    # CPU seconds of the process and its reaped children (its git runs): what load does not inflate.
    cpu_seconds: float = 0.0


@dataclass
class Samples:
    seconds: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)
    cpu_seconds: list[float] = field(default_factory=list)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=20, help="measured runs per case (default 20)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a goal is missed")
    parser.add_argument(
        "--before", metavar="REV", help="also run the SubagentStop cases with tiergate's source at REV"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tiergate-bench-") as scratch:
        root = Path(scratch)
        home = root / "home"
        home.mkdir()
        print("building the projects and the 50 MB transcripts...", flush=True)
        claim = claim_case(root, home)
        cases = [*subagent_cases(root, home), claim, session_end_case(claim), baseline_case(home)]
        if args.before:
            cases[2:2] = [at_revision(case, args.before, root) for case in cases[:2]]
        for case in cases:
            problem = case.check(run_once(case))
            if problem is not None:
                sys.exit(f"subagent_stop_bench: {case.name}: {problem}")
        results = measure(cases, args.runs)
    missed = report(cases, results, args.runs)
    return 1 if args.check and missed else 0


# The SubagentStop cases ------------------------------------------------------------------------------


def subagent_cases(root: Path, home: Path) -> list[Case]:
    project = init_repo(
        root / "verified", {"README.md": "hi\n", "src/parser.py": "def parse(t):\n    return t\n"}
    )
    env = hook_env(project, home)
    state_dir(project, env).mkdir(parents=True)
    hook(env, project, "UserPromptSubmit", prompt="/tiergate:ralph fix the parser --max-iterations 5")
    (project / "src/parser.py").write_text("def parse(t):\n    return t.split() if t else []\n")
    spawn = hook(
        env, project, "Stop", last_assistant_message=CLAIM, stop_hook_active=False, background_tasks=[]
    )
    directive = json.loads(spawn.stdout)["reason"].split("```tiergate-spawn\n", 1)[1].split("\n```", 1)[0]
    agent_type = json.loads(directive)["subagent_type"]
    hook(env, project, "SubagentStart", agent_id=AGENT_ID, agent_type=agent_type)
    loop_file = state_dir(project, env) / "loops" / f"{SESSION_ID}.json"
    snapshot = loop_file.read_bytes()
    # The body of the sealed file (the bench only reads it; the hooks check the seal).
    labels = json.loads(snapshot.rsplit(b"\n#tiergate-seal ", 1)[0])["verification"]["evidence"]
    verdict = verdict_message(labels)
    cases = []
    for kind, filler in (("tool-heavy", read_calls), ("small lines", small_records)):
        transcript = root / f"agent-{kind.replace(' ', '-')}.jsonl"
        write_transcript(transcript, filler, verdict)
        payload = {
            "session_id": SESSION_ID,
            "transcript_path": str(home / f"{SESSION_ID}.jsonl"),
            "cwd": str(project),
            "permission_mode": "default",
            "hook_event_name": "SubagentStop",
            "stop_hook_active": False,
            "agent_id": AGENT_ID,
            "agent_type": agent_type,
            "agent_transcript_path": str(transcript),
            "last_assistant_message": verdict,
            "background_tasks": [],
        }
        cases.append(
            Case(
                f"SubagentStop, 50 MB {kind}",
                launcher("SubagentStop"),
                json.dumps(payload).encode(),
                env,
                project,
                before=lambda: loop_file.write_bytes(snapshot),
                check=expect_pass,
                goal=(SUBAGENT_GOAL_SECONDS, SUBAGENT_GOAL_MIB),
            )
        )
    return cases


def verdict_message(labels: list[str]) -> str:
    criteria = [
        {"criterion": label, "status": "VERIFIED", "evidence": "$ pytest -q -> 12 passed"} for label in labels
    ]
    block = json.dumps({"verdict": "PASS", "criteria": criteria, "critique": ""})
    return f"I ran the test suite myself.\n\n```tiergate-verdict\n{block}\n```"


def stamp() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def record(kind: str, content: list[Any], message_id: str) -> str:
    role = "assistant" if kind == "assistant" else "user"
    body = {
        "type": kind,
        "timestamp": stamp(),
        "message": {"id": message_id, "role": role, "content": content},
    }
    return json.dumps(body, separators=(",", ":")) + "\n"


def source_text() -> list[str]:
    """Real text for tool output: the standard library's own Python sources, so that the search meets
    the characters and words a verifier's transcript holds, not a synthetic pattern."""
    files = sorted(Path(os.__file__).parent.glob("*.py"))
    return [path.read_text(errors="replace")[:20_000] for path in files if path.stat().st_size > 2_000]


_SOURCES = source_text()
_LINES = [line for text in _SOURCES[:40] for line in text.splitlines() if line.strip()]


def read_calls(i: int) -> str:
    """A Read call and its result (up to 20 KB of a real source file): a verifier going through code."""
    use = {"type": "tool_use", "id": f"toolu_r{i}", "name": "Read", "input": {"file_path": f"/p/src/m{i}.py"}}
    content = _SOURCES[i % len(_SOURCES)]
    result = {"type": "tool_result", "tool_use_id": f"toolu_r{i}", "content": content}
    return record("assistant", [use], f"msg_r{i}") + record("user", [result], f"msg_u{i}")


def small_records(i: int) -> str:
    """A short record (~200 bytes) of streamed command output."""
    line = _LINES[i % len(_LINES)][:120]
    body = {"type": "progress", "timestamp": stamp(), "toolUseID": f"toolu_{i}", "data": {"output": line}}
    return json.dumps(body, separators=(",", ":")) + "\n"


def write_transcript(path: Path, filler: Callable[[int], str], verdict: str) -> None:
    """The verifier's command first, then 50 MB of `filler`, then its final message."""
    bash = {"type": "tool_use", "id": "toolu_bash", "name": "Bash", "input": {"command": "pytest -q"}}
    with path.open("w") as f:
        f.write(record("user", [{"type": "text", "text": "verify"}], "msg_0"))
        f.write(record("assistant", [bash], "msg_1"))
        i = 0
        while f.tell() < TRANSCRIPT_BYTES:
            f.write(filler(i))
            i += 1
        f.write(record("assistant", [{"type": "text", "text": verdict}], "msg_final"))


def expect_pass(run: Run) -> str | None:
    if run.returncode != 0:
        return f"exit {run.returncode}: {run.stderr.decode(errors='replace')}"
    if b"returned PASS" not in run.stdout:
        return f"the PASS was not accepted: {run.stdout.decode(errors='replace')}"
    return None


# The claim Stop --------------------------------------------------------------------------------------


def claim_case(root: Path, home: Path) -> Case:
    project = init_repo(root / "claimed")
    for i in range(2_000):
        write(project / f"src/pkg{i % 40}/mod{i:04}.py", "".join(f"value_{i}_{n} = {n}\n" for n in range(40)))
    commit_all(project, "base")
    env = hook_env(project, home)
    state_dir(project, env).mkdir(parents=True)
    hook(env, project, "UserPromptSubmit", prompt="/tiergate:ralph rework every module --max-iterations 5")
    for i in range(1_500):
        path = project / f"src/pkg{i % 40}/mod{i:04}.py"
        path.write_text(path.read_text().replace(" = 1", " = 100"))
    for i in range(1_500, 1_600):
        (project / f"src/pkg{i % 40}/mod{i:04}.py").unlink()
    for i in range(400):
        write(project / f"new/n{i:04}.py", "".join(f"added_{i}_{n} = {n}\n" for n in range(30)))
    loop_file = state_dir(project, env) / "loops" / f"{SESSION_ID}.json"
    snapshot = loop_file.read_bytes()
    payload = {
        "session_id": SESSION_ID,
        "transcript_path": str(home / f"{SESSION_ID}.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": CLAIM,
        "background_tasks": [],
        "session_crons": [],
    }

    def expect_spawn(run: Run) -> str | None:
        if run.returncode != 0 or b"tiergate-spawn" not in run.stdout:
            answer = (run.stdout + run.stderr).decode(errors="replace")
            return f"no spawn directive: {answer}"
        if b"2000 files" not in run.stdout:
            return f"not a 2,000-file change: {run.stdout.decode(errors='replace')[:400]}"
        return None

    return Case(
        "Stop, claim on a 2,000-file change",
        launcher("Stop"),
        json.dumps(payload).encode(),
        env,
        project,
        before=lambda: loop_file.write_bytes(snapshot),
        check=expect_spawn,
        goal=(STOP_GOAL_SECONDS, math.inf),
    )


def session_end_case(claim: Case) -> Case:
    """SessionEnd in the claim's project, its loop active: one record, within Claude Code's 1.5 s."""
    payload = json.loads(claim.stdin) | {"hook_event_name": "SessionEnd", "reason": "other"}

    def expect_silence(run: Run) -> str | None:
        quiet = (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
        return None if quiet else f"not silent: {run}"

    return Case(
        "SessionEnd, active loop",
        launcher("SessionEnd"),
        json.dumps(payload).encode(),
        claim.env,
        claim.cwd,
        before=claim.before,
        check=expect_silence,
        goal=(SESSION_END_GOAL_SECONDS, math.inf),
    )


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# Running ---------------------------------------------------------------------------------------------


def baseline_case(home: Path) -> Case:
    python = str(REPO / ".venv" / "bin" / "python")
    return Case(
        "python3 -c pass (tiergate's venv)",
        (python, "-c", "pass"),
        b"",
        hook_env(home, home),
        home,
        before=lambda: None,
        check=lambda run: None if run.returncode == 0 else "failed",
        goal=None,
    )


def at_revision(case: Case, rev: str, root: Path) -> Case:
    """`case` with tiergate's source as it was at `rev`, in the same venv: the launcher's TIERGATE_PYTHON
    is a wrapper that puts that source first on the path (the hook runs isolated, -I: no PYTHONPATH)."""
    source = root / f"source-{rev}"
    source.mkdir(exist_ok=True)
    archive = subprocess.run(["git", "archive", rev, "src"], cwd=REPO, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive.stdout, check=True)
    wrapper = root / f"python-{rev}"
    first = f"import sys; sys.path.insert(0, {str(source / 'src')!r}); "
    python = REPO / ".venv" / "bin" / "python"
    wrapper.write_text(f'#!/bin/sh\nexec {python} -I -c "{first}$3" "$4"\n')
    wrapper.chmod(0o755)
    env = case.env | {"TIERGATE_PYTHON": str(wrapper)}
    return replace(case, name=f"{case.name} at {rev}", env=env)


def hook_env(project: Path, home: Path) -> dict[str, str]:
    """What Claude Code gives a hook, minus anything of the developer's that could change tiergate's."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "TIERGATE_", "XDG_"))}
    return keep | {
        "HOME": str(home),
        "CLAUDE_PROJECT_DIR": str(project),
        "CLAUDE_PLUGIN_ROOT": str(REPO),
        "CLAUDE_CODE_SESSION_ID": SESSION_ID,
        "CLAUDECODE": "1",
    }


def launcher(event: str) -> tuple[str, ...]:
    """The hook command for `event` as hooks/hooks.json registers it (exec form: command and args)."""
    for group in json.loads((REPO / "hooks" / "hooks.json").read_text())["hooks"][event]:
        for handler in group["hooks"]:
            argv = (handler["command"], *handler.get("args", []))
            return tuple(part.replace("${CLAUDE_PLUGIN_ROOT}", str(REPO)) for part in argv)
    sys.exit(f"subagent_stop_bench: no {event} hook in hooks/hooks.json")


def hook(
    env: dict[str, str], project: Path, event: str, **fields: object
) -> subprocess.CompletedProcess[bytes]:
    """Run one hook to bring the loop to the point measured; it must succeed."""
    payload = {"session_id": SESSION_ID, "cwd": str(project), "hook_event_name": event, **fields}
    result = subprocess.run(
        launcher(event),
        input=json.dumps(payload).encode(),
        env=env,
        cwd=project,
        capture_output=True,
        check=False,
    )
    if result.returncode != 0 or b"internal error" in result.stdout:
        sys.exit(f"subagent_stop_bench: setting up, {event} failed: {result}")
    return result


def run_once(case: Case) -> Run:
    case.before()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(
            case.argv, stdin=subprocess.PIPE, stdout=out, stderr=err, env=case.env, cwd=case.cwd
        )
        assert process.stdin is not None
        try:
            process.stdin.write(case.stdin)
            process.stdin.close()
        except BrokenPipeError:
            pass  # the baseline never reads its input
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status)
        cpu = usage.ru_utime + usage.ru_stime
        return Run(seconds, usage.ru_maxrss, code, out.read(), err.read(), cpu)


def measure(cases: list[Case], runs: int) -> dict[str, Samples]:
    results = {case.name: Samples() for case in cases}
    for round_ in range(WARMUP_ROUNDS + runs):
        for case in cases:
            run = run_once(case)
            problem = case.check(run)
            if problem is not None:
                sys.exit(f"subagent_stop_bench: {case.name}, round {round_}: {problem}")
            if round_ >= WARMUP_ROUNDS:
                results[case.name].seconds.append(run.seconds)
                results[case.name].rss_kib.append(run.rss_kib)
                results[case.name].cpu_seconds.append(run.cpu_seconds)
    return results


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[math.ceil(0.9 * len(ordered)) - 1]


def report(cases: list[Case], results: dict[str, Samples], runs: int) -> bool:
    """Print the figures; whether a goal was missed."""
    print(
        f"\n{runs} interleaved runs per case after {WARMUP_ROUNDS} warm-up rounds; "
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"{platform.platform()}; load average {os.getloadavg()[0]:.1f}\n"
    )
    # CPU time beside wall time: on a busy machine the wall time is the scheduler's, the CPU time the hook's.
    print(f"{'case':<46} {'median ms':>10} {'p90 ms':>8} {'CPU ms':>7} {'peak RSS MiB':>13}  goal")
    missed = False
    for case in cases:
        samples = results[case.name]
        ms = [s * 1000 for s in samples.seconds]
        rss = max(samples.rss_kib) / 1024
        verdict = ""
        if case.goal is not None:
            seconds, mib = case.goal
            met = statistics.median(samples.seconds) < seconds and rss < mib
            missed = missed or not met
            limit = f"< {seconds * 1000:.0f} ms" + ("" if mib == math.inf else f", < {mib:.0f} MiB")
            verdict = f"{limit}: {'met' if met else 'MISSED'}"
        cpu = statistics.median(samples.cpu_seconds) * 1000
        wall = f"{statistics.median(ms):>10.1f} {p90(ms):>8.1f}"
        print(f"{case.name:<46} {wall} {cpu:>7.1f} {rss:>13.1f}  {verdict}")
    return missed


if __name__ == "__main__":
    raise SystemExit(main())
