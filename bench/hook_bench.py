"""What a Stop costs when no loop is active: tiergate's hook against its closest peer's, in one run.

    .venv/bin/python bench/hook_bench.py [--runs N] [--check]

tiergate runs exactly as hooks/hooks.json registers it (the POSIX sh launcher, CLAUDE_PLUGIN_ROOT set to
this checkout, which picks the checkout's .venv); the peer is oh-my-claudecode's Stop hook,
`scripts/persistent-mode.mjs` from the npm package oh-my-claude-sisyphus (installed under
.cache/bench-peer on first use), run with node, and also as its own hooks.json runs it (through a shell
and its run.cjs wrapper). All get the same Stop input, for the same fresh git project and HOME, with no
state of either tool: the pass-through path every Stop of every session pays. Runs are interleaved
(A, B, C, A, B, C, ...) so that machine noise hits all alike; wall time is measured from spawn to exit,
peak RSS per run with wait4. Bare interpreter starts are the floor.

The goal: tiergate's median at most a third of the peer's, and under 80 ms.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PEER_PACKAGE = "oh-my-claude-sisyphus"
PEER_VERSION = "5.5.0"  # pinned so that figures from different days compare
PEER_PREFIX = REPO / ".cache" / "bench-peer"
PEER_ROOT = PEER_PREFIX / "node_modules" / PEER_PACKAGE
GOAL_RATIO = 1 / 3
GOAL_MS = 80.0
WARMUP_ROUNDS = 3
SESSION_ID = "3f2b8c1e-9d7a-4c1b-8e2f-5a6b7c8d9e0f"


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]
    env: dict[str, str]


@dataclass
class Samples:
    seconds: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Run:
    seconds: float
    rss_kib: int
    returncode: int
    stdout: bytes
    stderr: bytes


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=40, help="measured runs per case (default 40)")
    parser.add_argument("--check", action="store_true", help="exit 1 if tiergate misses the goal")
    args = parser.parse_args()

    ensure_peer()
    with tempfile.TemporaryDirectory(prefix="tiergate-bench-") as scratch:
        project, home = make_project(Path(scratch))
        stdin = stop_input(project, home)
        env = base_env(project, home)
        cases = make_cases(env, used_project(Path(scratch), env))
        check_answers(cases, stdin, project)
        results = measure(cases, stdin, args.runs)
    report(results, args.runs)
    tiergate = statistics.median(results[cases[0].name].seconds)
    peer = statistics.median(results[cases[1].name].seconds)
    met = tiergate <= peer * GOAL_RATIO and tiergate * 1000 < GOAL_MS
    print(
        f"\ngoal (median <= 1/3 of the peer's and < {GOAL_MS:.0f} ms): "
        f"{'met' if met else 'MISSED'}: {tiergate * 1000:.1f} ms vs {peer * 1000:.1f} ms, "
        f"ratio {tiergate / peer:.2f}"
    )
    return 1 if args.check and not met else 0


def ensure_peer() -> None:
    script = PEER_ROOT / "scripts" / "persistent-mode.mjs"
    if script.is_file():
        return
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("hook_bench: npm is needed to install the peer (oh-my-claude-sisyphus) once")
    print(f"installing {PEER_PACKAGE}@{PEER_VERSION} into {PEER_PREFIX} (once; a few minutes)...", flush=True)
    PEER_PREFIX.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(PEER_PREFIX),
         f"{PEER_PACKAGE}@{PEER_VERSION}"],
        check=True,
    )  # fmt: skip
    if not script.is_file():
        sys.exit(f"hook_bench: {script} is missing after the install; the package layout changed")


def make_project(scratch: Path) -> tuple[Path, Path]:
    project = scratch / "project"
    home = scratch / "home"
    home.mkdir()
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "README.md").write_text("A project with neither tool active.\n")
    return project, home


def state_dir(project: Path, env: dict[str, str]) -> Path:
    """The project's state folder as tiergate's hook finds it under `env`: in the state home under the
    bench's HOME (named outright: the state home falls back to this process's own HOME, not env's)."""
    from tiergate.project import locate

    state_home = env.get("XDG_STATE_HOME") or str(Path(env["HOME"]) / ".local" / "state")
    return locate(project, env | {"XDG_STATE_HOME": state_home}).state_dir


def used_project(scratch: Path, env: dict[str, str]) -> Path:
    """A project where tiergate ran a loop once: its state folder stays, and other sessions' loops with
    it. Every Stop there goes past the fast path to the handlers, which must answer as cheaply."""
    project = scratch / "used-project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    state = state_dir(project, env | {"CLAUDE_PROJECT_DIR": str(project)})
    (state / "loops").mkdir(parents=True)
    (state / ".gitignore").write_text("*\n")
    (state / "loops" / "another-session.json").write_text('{"active": false, "phase": "passed"}')
    return project


def stop_input(project: Path, home: Path) -> bytes:
    """A Stop input as CLI 2.1.332 sends it (field for field, from the protocol reference)."""
    transcript = home / ".claude" / "projects" / str(project).replace("/", "-") / f"{SESSION_ID}.jsonl"
    payload = {
        "session_id": SESSION_ID,
        "transcript_path": str(transcript),
        "cwd": str(project),
        "permission_mode": "default",
        "effort": {"level": "medium"},
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": "I changed the parser and the tests pass.",
        "background_tasks": [],
        "session_crons": [],
    }
    return json.dumps(payload).encode()


def base_env(project: Path, home: Path) -> dict[str, str]:
    """What Claude Code gives a hook, minus anything of the developer's that could change a tool's path."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "TIERGATE_", "OMC", "XDG_"))}
    return keep | {
        "HOME": str(home),
        "CLAUDE_PROJECT_DIR": str(project),
        "CLAUDE_CODE_SESSION_ID": SESSION_ID,
        "CLAUDECODE": "1",
    }


def make_cases(env: dict[str, str], used: Path) -> list[Case]:
    ours = registered_command(REPO / "hooks" / "hooks.json", "tiergate-hook", REPO)
    peer_script = PEER_ROOT / "scripts" / "persistent-mode.mjs"
    peer_registered = registered_command(PEER_ROOT / "hooks" / "hooks.json", "persistent-mode", PEER_ROOT)
    node = shutil.which("node") or "node"
    python = str(REPO / ".venv" / "bin" / "python")
    tiergate_env = env | {"CLAUDE_PLUGIN_ROOT": str(REPO)}
    peer_env = env | {"CLAUDE_PLUGIN_ROOT": str(PEER_ROOT)}
    return [
        Case("tiergate (hooks.json)", ours, tiergate_env),
        Case("peer persistent-mode.mjs (node)", (node, str(peer_script)), peer_env),
        Case("peer as its hooks.json runs it", peer_registered, peer_env),
        Case("tiergate without the launcher", (python, "-m", "tiergate", "hook", "Stop"), tiergate_env),
        Case("tiergate, state folder, no loop", ours, tiergate_env | {"CLAUDE_PROJECT_DIR": str(used)}),
        Case("python3 -c pass (tiergate's venv)", (python, "-c", "pass"), env),
        Case("python3 -S -c pass", (python, "-S", "-c", "pass"), env),
        Case("node -e 0", (node, "-e", "0"), env),
    ]


def registered_command(hooks_json: Path, needle: str, plugin_root: Path) -> tuple[str, ...]:
    """The Stop hook of a plugin whose command mentions `needle`, as Claude Code would start it:
    exec form (command + args) as is; a bare command string through a shell."""
    hooks = json.loads(hooks_json.read_text())["hooks"]["Stop"]
    for group in hooks:
        for handler in group["hooks"]:
            if needle not in handler["command"] + " ".join(handler.get("args", [])):
                continue
            if "args" in handler:
                argv = (handler["command"], *handler["args"])
                return tuple(part.replace("${CLAUDE_PLUGIN_ROOT}", str(plugin_root)) for part in argv)
            return ("/bin/sh", "-c", handler["command"])
    sys.exit(f"hook_bench: no Stop hook mentioning {needle!r} in {hooks_json}")


def run_once(case: Case, stdin: bytes, cwd: Path) -> Run:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(
            case.argv, stdin=subprocess.PIPE, stdout=out, stderr=err, env=case.env, cwd=cwd
        )
        assert process.stdin is not None
        try:
            process.stdin.write(stdin)
            process.stdin.close()
        except BrokenPipeError:
            pass  # a baseline that never reads its input
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(seconds, usage.ru_maxrss, process.returncode, out.read(), err.read())


def check_answers(cases: list[Case], stdin: bytes, project: Path) -> None:
    """Benchmark what users get: tiergate must pass the stop through silently, the peer must succeed."""
    for case in cases:
        run = run_once(case, stdin, project)
        if case.name.startswith("tiergate") and (run.returncode, run.stdout, run.stderr) != (0, b"", b""):
            sys.exit(f"hook_bench: {case.name} does not pass the stop through silently: {run}")
        if case.name.startswith("peer"):
            if run.returncode != 0:
                sys.exit(f"hook_bench: {case.name} failed: {run}")
            print(f"{case.name} answers: {run.stdout.decode(errors='replace').strip() or '(nothing)'}")
    if state_dir(project, cases[0].env).exists():
        sys.exit("hook_bench: tiergate created a state folder on the pass-through path")


def measure(cases: list[Case], stdin: bytes, runs: int) -> dict[str, Samples]:
    cwd = Path(cases[0].env["CLAUDE_PROJECT_DIR"])
    results = {case.name: Samples() for case in cases}
    for round_ in range(WARMUP_ROUNDS + runs):
        for case in cases:
            run = run_once(case, stdin, cwd)
            if round_ >= WARMUP_ROUNDS:
                results[case.name].seconds.append(run.seconds)
                results[case.name].rss_kib.append(run.rss_kib)
    return results


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[math.ceil(0.9 * len(ordered)) - 1]


def report(results: dict[str, Samples], runs: int) -> None:
    print(
        f"\n{runs} interleaved runs per case after {WARMUP_ROUNDS} warm-up rounds; "
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"{platform.platform()}; peer {PEER_PACKAGE}@{PEER_VERSION}; load average "
        f"{os.getloadavg()[0]:.1f} (others' work on this machine inflates every figure alike)\n"
    )
    print(f"{'case':<36} {'median ms':>10} {'p90 ms':>8} {'min ms':>8} {'peak RSS MiB':>13}")
    for name, samples in results.items():
        ms = [s * 1000 for s in samples.seconds]
        rss = statistics.median(samples.rss_kib) / 1024
        print(f"{name:<36} {statistics.median(ms):>10.1f} {p90(ms):>8.1f} {min(ms):>8.1f} {rss:>13.1f}")


if __name__ == "__main__":
    raise SystemExit(main())
