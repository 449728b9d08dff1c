"""What the content rules cost a claim: the claim Stop on a 2,000-file, 100,000-line change of realistic
code, with content rules on and off, in the same run.

    .venv/bin/python -m bench.content_rules [--runs N] [--check]

Two identical projects, each brought to its claim through the real hooks, as hooks/hooks.json runs them
(the POSIX launcher, this checkout's .venv); one kept `[risk] content = false` at its loop's start. The
change: 1,500 modified files (25 lines replaced in each), 100 deleted (60 lines each), 400 untracked
(50 lines each): 2,000 files, about 101,000 lines. The code is Python written here from templates (calls,
conditions, `os.path.join`, headers, sessions, URLs: the words the rules' needles are made of, so that
most rules get their pass), with a few risky lines among them (a `subprocess.run` per 200 files), so that
the claim goes THOROUGH with capped reasons. No project checks are configured. Runs are interleaved;
wall time from spawn to exit.

The goal (issue 12): the claim Stop under 1 s with content rules on. Printed: both medians of wall time
and of CPU time (the hook process and its git runs: on a machine other work shares, CPU time is the
figure that load does not inflate), the ratios on/off and the differences.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from testing.gitrepo import commit_all, init_repo

from bench.hook_bench import state_dir
from bench.subagent_stop_bench import (
    CLAIM,
    SESSION_ID,
    WARMUP_ROUNDS,
    Case,
    Run,
    hook,
    hook_env,
    launcher,
    run_once,
    write,
)

GOAL_SECONDS = 1.0
FILES, MODIFIED, DELETED = 2_000, 1_500, 100
UNTRACKED = FILES - MODIFIED - DELETED
# Code lines, in the shape of a web project's: they name requests, headers, paths, sessions and URLs
# the way ordinary code does, which the rules must pass over.
TEMPLATES = (
    "    result = compute_{a}(value, {n})",
    "    if request.method == 'POST' and form.is_valid():",
    "    headers = dict(response.headers)",
    "    url = urljoin(base_url, '/api/v{n}/items')",
    "    logger.debug('loaded %s in %d ms', name, elapsed_{a})",
    "    session = make_session(config, timeout={n})",
    "    path = os.path.join(root, 'static', name_{a})",
    "    return render_template('page_{a}.html', items=items)",
    "    for item in items_{a}:",
    "        total += item.size * {n}",
    "    cookie_jar = load_jar(path_{a})",
    "    data = json.loads(body_{a})",
    "    token_count = len(tokens) + {n}",
    '    raise ValueError(f"bad value: {{value!r}} ({n})")',
    "    location = resolve_location(query, limit={n})",
    "    self.redirect_count_{a} = {n}",
    "    params = {{'page': page, 'size': {n}}}",
    "    user = get_user(user_id_{a})",
    "    cache.set(key_{a}, value, ttl={n})",
    "    stream = open_stream(path, mode='rb')",
)
RISKY = "    subprocess.run(['convert', name_{a}], check=True)"


def code(i: int, lines: int, salt: int) -> str:
    out = [f"def handler_{i}_{salt}(request, value):"]
    for n in range(lines - 1):
        template = TEMPLATES[(i * 7 + n * 3 + salt) % len(TEMPLATES)]
        out.append(template.format(a=f"{i}_{n}_{salt}", n=n))
    if salt and i % 200 == 0:
        out[1] = RISKY.format(a=i)
    return "\n".join(out) + "\n"


def project(root: Path, home: Path, name: str, config: str) -> Path:
    repo = init_repo(root / name, {".tiergate.toml": config})
    for i in range(MODIFIED + DELETED):
        write(repo / f"src/pkg{i % 40}/mod{i:04}.py", code(i, 60, 0))
    commit_all(repo, "base")
    # A project's files are older than its loop: an index entry written in the seconds before a loop
    # begins is read again by every measurement of it (`tiergate.git.indexcopy.read_again_since`).
    time.sleep(2.5)
    env = hook_env(repo, home)
    state_dir(repo, env).mkdir(parents=True)
    hook(env, repo, "UserPromptSubmit", prompt="/tiergate:ralph rework every module --max-iterations 5")
    for i in range(MODIFIED):
        path = repo / f"src/pkg{i % 40}/mod{i:04}.py"
        lines = path.read_text().splitlines(keepends=True)
        lines[10:35] = code(i, 25, 1).splitlines(keepends=True)
        path.write_text("".join(lines))
    for i in range(MODIFIED, MODIFIED + DELETED):
        (repo / f"src/pkg{i % 40}/mod{i:04}.py").unlink()
    for i in range(UNTRACKED):
        write(repo / f"new/n{i:04}.py", code(i, 50, 2))
    return repo


def claim_case(root: Path, home: Path, name: str, config: str) -> Case:
    return case_of(project(root, home, name, config), home, name, "2000 files")


def case_of(repo: Path, home: Path, name: str, files: str) -> Case:
    """The claim Stop of the loop begun in `repo`, its state put back before each run; its answer must ask
    for a verifier on `files` ("2000 files")."""
    env = hook_env(repo, home)
    loop_file = state_dir(repo, env) / "loops" / f"{SESSION_ID}.json"
    snapshot = loop_file.read_bytes()
    payload = {
        "session_id": SESSION_ID,
        "transcript_path": str(home / f"{SESSION_ID}.jsonl"),
        "cwd": str(repo),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": CLAIM,
    }

    def expect_spawn(run: Run) -> str | None:
        if run.returncode != 0 or b"tiergate-spawn" not in run.stdout or files.encode() not in run.stdout:
            answer = (run.stdout + run.stderr).decode(errors="replace")[:600]
            return f"no spawn directive on {files}: {answer}"
        return None

    return Case(
        name,
        launcher("Stop"),
        json.dumps(payload).encode(),
        env,
        repo,
        before=lambda: loop_file.write_bytes(snapshot),
        check=expect_spawn,
        goal=(GOAL_SECONDS, float("inf")),
    )


def claim_cases(scratch: Path) -> tuple[Case, Case]:
    """The two projects under `scratch`, brought to their claims: content rules on, and off."""
    home = scratch / "home"
    home.mkdir()
    print("building two 2,000-file projects and their claims...", flush=True)
    on = claim_case(scratch, home, "content on", "[risk]\ncontent = true\n")
    return on, claim_case(scratch, home, "content off", "[risk]\ncontent = false\n")


def measure(cases: list[Case], runs: int) -> dict[str, tuple[list[float], list[float]]]:
    """Wall and CPU seconds per case, interleaved, after warm-up rounds; every answer checked."""
    results: dict[str, tuple[list[float], list[float]]] = {case.name: ([], []) for case in cases}
    for round_ in range(WARMUP_ROUNDS + runs):
        for case in cases:
            run = run_once(case)
            problem = case.check(run)
            if problem is not None:
                sys.exit(f"content_rules: {case.name}, round {round_}: {problem}")
            if round_ >= WARMUP_ROUNDS:
                results[case.name][0].append(run.seconds)
                results[case.name][1].append(run.cpu_seconds)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=10, help="measured runs per case (default 10)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the goal is missed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tiergate-bench-") as scratch:
        on, off = claim_cases(Path(scratch))
        first = run_once(on)
        for case, run in ((on, first), (off, run_once(off))):
            problem = case.check(run)
            if problem is not None:
                sys.exit(f"content_rules: {case.name}: {problem}")
        if b"process execution" not in first.stdout:
            sys.exit("content_rules: content on found no risky line: the bench measures nothing")
        results = measure([on, off], args.runs)
    wall_on, cpu_on = (statistics.median(v) for v in results[on.name])
    wall_off, cpu_off = (statistics.median(v) for v in results[off.name])
    print(f"\n{args.runs} interleaved runs each; claim Stop on 2,000 files, ~101,000 lines;")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs. Medians:")
    print(f"{'':20} {'wall ms':>8} {'CPU ms':>8}  (CPU: the hook and its git runs)")
    print(f"{'content rules on':20} {wall_on * 1000:8.0f} {cpu_on * 1000:8.0f}")
    print(f"{'content rules off':20} {wall_off * 1000:8.0f} {cpu_off * 1000:8.0f}")
    print(f"{'on / off':20} {wall_on / wall_off:7.2f}x {cpu_on / cpu_off:7.2f}x")
    print(f"{'on - off':20} {(wall_on - wall_off) * 1000:+8.0f} {(cpu_on - cpu_off) * 1000:+8.0f}")
    met = wall_on < GOAL_SECONDS
    print(f"goal: on < {GOAL_SECONDS:g} s wall: {'met' if met else 'MISSED'}")
    return 1 if args.check and not met else 0


if __name__ == "__main__":
    sys.exit(main())
