"""What a claim on a workspace already refuted costs: no checks, no spawn, against the pass-through Stop.

    .venv/bin/python -m bench.refuted_again_bench [--runs N] [--check]

Four cases, through the launcher exactly as hooks/hooks.json registers it, interleaved so that machine
noise hits all alike:

    pass-through        a Stop in a project without tiergate state (the floor every Stop pays)
    no claim            an active loop's Stop without a claim: the loop's state read and updated, the
                        workspace fingerprinted (git)
    refuted again       a claim on the workspace the gate refuted: answered from the loop's state alone
    claim, gate runs    the same claim on a changed workspace: measured, checked (the check is `true`),
                        sent to a verifier: what the refuted-again path spares

Every run of an active-loop case starts from the same loop file (restored before the run, outside the
timing), so each measures the same decision. The goal: the refuted-again Stop costs no more than the
active loop's Stop without a claim (a pass-through plus reading the loop's state and fingerprinting the
workspace), within 10%, and clearly less than a claim whose gate runs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.hook_bench import REPO, SESSION_ID, Case, Run, base_env, registered_command, run_once, state_dir

GOAL_RATIO = 1.10
WARMUP_ROUNDS = 3
CLAIM = "Fixed the value.\n\n<promise>DONE</promise>"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=30, help="measured runs per case (default 30)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the goal is missed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tiergate-bench-") as scratch:
        root = Path(scratch)
        home = root / "home"
        home.mkdir()
        bare = _git_project(root / "bare")
        refuted, refuted_state = _refuted_project(root / "refuted", home)
        changed, changed_state = _refuted_project(root / "changed", home)
        (changed / "value.txt").write_text("good\n")  # a change: the claim earns a gate run
        hook = registered_command(REPO / "hooks" / "hooks.json", "tiergate-hook", REPO)
        env = base_env(bare, home) | {"CLAUDE_PLUGIN_ROOT": str(REPO)}
        cases = [
            (Case("pass-through", hook, env), bare, _stop(bare, "I looked around."), None),
            (_at(hook, env, refuted, "no claim"), refuted, _stop(refuted, "Still on it."), refuted_state),
            (_at(hook, env, refuted, "refuted again"), refuted, _stop(refuted, CLAIM), refuted_state),
            (_at(hook, env, changed, "claim, gate runs"), changed, _stop(changed, CLAIM), changed_state),
        ]
        seconds = _measure(cases, args.runs)
    return _report(seconds, args.runs, args.check)


def _git_project(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def _refuted_project(path: Path, home: Path) -> tuple[Path, bytes]:
    """A project whose loop's gate refuted the claim on its workspace; returns its loop file's bytes."""
    project = _git_project(path)
    (project / "value.txt").write_text("good\n")
    (project / "check.sh").write_text("grep -qx good value.txt || { echo 'FAIL: test_value'; exit 1; }\n")
    (project / ".tiergate.toml").write_text('[checks]\ntests = "sh check.sh"\n')
    (project / ".gitignore").write_text(".tiergate/\n")
    for args in (["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base"]):
        subprocess.run(["git", "-C", str(project), *args], check=True)
    env = base_env(project, home)
    tiergate = [sys.executable, "-m", "tiergate"]
    # The loop starts on the user's uncommitted edit, its green point: the refuted workspace is clean
    # against it, so answering the claim again rolls nothing back and every run decides the same.
    (project / "value.txt").write_text("bad\n")
    started = [*tiergate, "ralph", "start", "make value.txt right"]
    subprocess.run(started, cwd=project, env=env, check=True, capture_output=True)
    subprocess.run(
        [*tiergate, "hook", "Stop"],
        input=_stop(project, CLAIM),
        cwd=project,
        env=env,
        check=True,
        capture_output=True,
    )
    loop_file = _state(project) / "loops" / f"{SESSION_ID}.json"
    loop = json.loads(loop_file.read_bytes().rsplit(b"\n#tiergate-seal ", 1)[0])  # the sealed file's body
    if not loop["refuted"]:
        sys.exit("refuted_again_bench: the gate did not refute the first claim")
    return project, loop_file.read_bytes()


def _state(project: Path) -> Path:
    """The project's state folder, in the state home under the bench's HOME (beside every project)."""
    return state_dir(project, base_env(project, project.parent / "home"))


def _at(hook: tuple[str, ...], env: dict[str, str], project: Path, name: str) -> Case:
    return Case(name, hook, env | {"CLAUDE_PROJECT_DIR": str(project)})


def _stop(project: Path, message: str) -> bytes:
    payload = {
        "session_id": SESSION_ID,
        "transcript_path": str(project / "no-transcript.jsonl"),
        "cwd": str(project),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": message,
        "background_tasks": [],
    }
    return json.dumps(payload).encode()


Entry = tuple[Case, Path, bytes, bytes | None]


def _restore(project: Path, loop_file: bytes | None) -> None:
    if loop_file is None:
        return
    (_state(project) / "loops" / f"{SESSION_ID}.json").write_bytes(loop_file)
    shutil.rmtree(_state(project) / "evidence", ignore_errors=True)  # no reused check results


EXPECTED = {"no claim": "continue", "refuted again": "refuted-again", "claim, gate runs": "spawn"}


def _check(case: Case, project: Path, run: Run) -> None:
    """Benchmark what users get: every run must decide what its case is named for."""
    if run.returncode != 0:
        sys.exit(f"refuted_again_bench: {case.name} failed: {run}")
    if case.name in EXPECTED:
        last = (_state(project) / "log.jsonl").read_text().splitlines()[-1]
        decided = json.loads(last)["decision"]
        if decided != EXPECTED[case.name]:
            sys.exit(f"refuted_again_bench: {case.name} decided {decided!r}, not {EXPECTED[case.name]!r}")


def _measure(cases: list[Entry], runs: int) -> dict[str, list[float]]:
    seconds: dict[str, list[float]] = {case.name: [] for case, *_ in cases}
    for round_ in range(WARMUP_ROUNDS + runs):
        for case, project, stdin, loop_file in cases:
            _restore(project, loop_file)
            run = run_once(case, stdin, project)
            _check(case, project, run)
            if round_ >= WARMUP_ROUNDS:
                seconds[case.name].append(run.seconds)
    return seconds


def _report(seconds: dict[str, list[float]], runs: int, check: bool) -> int:
    print(f"{runs} interleaved runs per case after {WARMUP_ROUNDS} warm-up rounds\n")
    median = {name: statistics.median(values) * 1000 for name, values in seconds.items()}
    print(f"{'case':<20} {'median ms':>10} {'min ms':>8} {'vs pass-through':>16}")
    for name, values in seconds.items():
        ratio = median[name] / median["pass-through"]
        print(f"{name:<20} {median[name]:>10.1f} {min(values) * 1000:>8.1f} {ratio:>15.2f}x")
    again, no_claim = median["refuted again"], median["no claim"]
    met = again <= no_claim * GOAL_RATIO and again < median["claim, gate runs"]
    print(
        f"\ngoal (refuted again <= {GOAL_RATIO:.2f} x an active loop's Stop without a claim, and less than a "
        f"claim whose gate runs): {'met' if met else 'MISSED'}: {again:.1f} ms vs {no_claim:.1f} ms "
        f"(ratio {again / no_claim:.2f}); the gate's claim {median['claim, gate runs']:.1f} ms; "
        f"over the pass-through: +{again - median['pass-through']:.1f} ms"
    )
    return 1 if check and not met else 0


if __name__ == "__main__":
    raise SystemExit(main())
