"""What Claude Code's own loops cost under tiergate (issue 32): a completed task (the TaskCompleted hook) and
a Stop under an adopted /goal, against the bare test run of a real suite, in one run with interleaved
rounds.

    .venv/bin/python -m bench.claude_loops_bench [--rounds N] [--suite PATHS] [--cases "A;B;..."]

The real suite is tiergate's own: this repository is cloned (`git clone`, its last commit) into a
temporary folder, and its `.tiergate.toml` (committed there, so that it is the loop's base too) sets
`[checks] tests` to this checkout's virtualenv's pytest over `SUITE`: the loop's and the gate's pure core
(tests/loop, the ruling, the per-test records, the output reader), some 430 tests in about 12 s on two
CPUs. That part because it needs neither the Claude Code CLI nor the network, makes few git
repositories of its own, and is long enough for a hook's own cost to be small beside it, as a project's
unit suite would be; the whole suite takes minutes and its end-to-end tests need the CLI. The clone's
`src` comes first on the tests' PYTHONPATH, so that a worktree of the base tests its own code.

Each round measures, in a rotating order:
- `bare`: the test command alone, as a developer would run it;
- `task, new workspace`: a code file edited (a new line each round, so the workspace is new), then the
  TaskCompleted hook of a loop begun before the rounds: the gate runs the suite, measuring the changed
  file's coverage as a claim's gate does (no baseline: nothing fails, no test file is touched);
- `task, unchanged workspace`: the TaskCompleted hook again, nothing changed: the gate's kept results;
- `task, test edited, fresh loop`: a loop begun just before on the clean clone (its own state folder, so
  nothing kept), a code file and a test file edited, then the TaskCompleted hook: the suite, its run at the
  loop's base in a worktree (a change that touches tests wants the base's tests, to tell lost ones), and
  its run with the base's tests on the claimed code.
- `goal stop, new workspace`: a goal adopted just before (`/goal ...` at UserPromptSubmit, its own state
  folder, so nothing kept), a code file edited, then the Stop, a claim under the goal: the gate runs the
  suite and asks for the tier's verifier (the transcript holds the goal and the evaluator's answer to this
  Stop, as Claude Code writes them, so the Stop waits for nothing);
- `task after a goal stop`: the same Stop first (not measured), then a TaskCompleted on that workspace:
  the task reuses what the claim's gate kept (a claim never reuses a task's run, the other way round).
The hooks run this checkout's `src` (the work tree, unfinished work included). Prints each case's median
seconds, the suite's runs it made, and its ratio to the bare run. Nothing is asserted: figures only.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SESSION = "bench032-1111-2222-3333-444444444444"
SUITE = "tests/loop tests/gate/ruling_test.py tests/gate/pertest tests/gate/output_test.py"
CODE = "src/tiergate/text.py"  # a module the suite imports: its coverage is measured at the gate
TEST = "tests/loop/claims_test.py"
CASES = (
    "bare",
    "task, new workspace",
    "task, unchanged workspace",
    "task, test edited, fresh loop",
    "goal stop, new workspace",
    "task after a goal stop",
)
GOAL = "the text helpers are tidy"
GIT = ("git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid")


def command(suite: str) -> str:
    """The tests check: counts its runs in $BENCH_COUNTER, then this checkout's pytest over `suite`."""
    pytest = f"{shlex.quote(str(ROOT / '.venv' / 'bin' / 'python'))} -m pytest -q -p no:cacheprovider"
    return f'echo run >> "$BENCH_COUNTER" && PYTHONPATH=src:$PYTHONPATH {pytest} {suite}'


def clone(folder: Path, suite: str) -> Path:
    """This repository's last commit, with the tests check configured and committed."""
    repo = folder / "tiergate"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True)
    (repo / ".tiergate.toml").write_text(f"[checks]\ntests = {json.dumps(command(suite))}\n")
    subprocess.run([*GIT, "add", ".tiergate.toml"], cwd=repo, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "bench: the tests check"], cwd=repo, check=True)
    return repo


class Bench:
    def __init__(self, repo: Path, scratch: Path, suite: str) -> None:
        self.repo, self.scratch, self.suite = repo, scratch, suite
        self.counter = scratch / "runs"
        self.originals = {p: (repo / p).read_text() for p in (CODE, TEST)}
        self.edits = 0
        self.loop_env = self.begin()

    def env(self, state: Path) -> dict[str, str]:
        return {
            "PATH": os.environ["PATH"],
            "HOME": str(self.scratch / "home"),
            "CLAUDE_PROJECT_DIR": str(self.repo),
            "PYTHONDONTWRITEBYTECODE": "1",
            "TIERGATE_STATE_DIR": str(state),
            "BENCH_COUNTER": str(self.counter),
            "TMPDIR": str(self.scratch),
        }

    def begin(
        self, prompt: str = "/tiergate:ralph tidy the text helpers", says: str = "loop started"
    ) -> dict[str, str]:
        """A loop begun on the clone as it is: its own state folder, nothing kept."""
        env = self.env(Path(tempfile.mkdtemp(prefix="state-", dir=self.scratch)))
        started = self.hook(env, "UserPromptSubmit", prompt=prompt)
        if says not in started.stdout:
            raise RuntimeError(f"no loop started: {started.stdout[:300]} {started.stderr[-300:]}")
        return env

    def goal(self) -> dict[str, str]:
        """A goal adopted on the clone as it is, and the transcript Claude Code writes for it: the goal set,
        then, at the Stop to come, the final message and the evaluator's answer (not yet)."""
        env = self.begin(f"/goal {GOAL}", says="verifying")
        records = [
            {
                "type": "attachment",
                "attachment": {"type": "goal_status", "met": False, "sentinel": True, "condition": GOAL},
            },
            {"type": "assistant", "message": {"id": "m1", "content": [{"type": "text", "text": "Tidied."}]}},
            {
                "type": "attachment",
                "attachment": {"type": "goal_status", "met": False, "condition": GOAL, "reason": "not yet"},
            },
        ]
        (self.scratch / "session.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
        return env

    def stop(self, env: dict[str, str]) -> float:
        begin = time.perf_counter()
        done = self.hook(env, "Stop", last_assistant_message="Tidied.")
        seconds = time.perf_counter() - begin
        if "tiergate-spawn" not in done.stdout:
            raise RuntimeError(f"the goal's stop did not ask for a verifier: {done.stdout[-800:]}")
        return seconds

    def hook(self, env: dict[str, str], event: str, **fields: str) -> subprocess.CompletedProcess[str]:
        payload = {
            "session_id": SESSION,
            "cwd": str(self.repo),
            "transcript_path": str(self.scratch / "session.jsonl"),
            "hook_event_name": event,
            **fields,
        }
        return subprocess.run(
            [sys.executable, "-m", "tiergate", "hook", event],
            input=json.dumps(payload),
            env={**env, "PYTHONPATH": str(ROOT / "src")},
            cwd=self.repo,
            capture_output=True,
            text=True,
            check=False,
        )

    def edit(self, *paths: str) -> None:
        """A new line in each of `paths`: a workspace no gate run has seen."""
        self.edits += 1
        for path in paths:
            (self.repo / path).write_text(f"{self.originals[path]}\n# bench edit {self.edits}\n")

    def reset(self) -> None:
        for path, text in self.originals.items():
            (self.repo / path).write_text(text)

    def task(self, env: dict[str, str]) -> float:
        begin = time.perf_counter()
        done = self.hook(env, "TaskCompleted", task_id="1", task_subject="Tidy", task_description="tidy")
        seconds = time.perf_counter() - begin
        if done.returncode != 0 or done.stderr:
            raise RuntimeError(f"the task was not accepted: exit {done.returncode}: {done.stderr[-800:]}")
        return seconds

    def runs(self) -> int:
        return len(self.counter.read_text().splitlines()) if self.counter.exists() else 0

    def case(self, name: str) -> tuple[float, int]:
        """One measurement of case `name`: seconds, and the suite's runs it made."""
        before = self.runs()
        if name == "bare":
            env = {**self.env(self.scratch / "unused"), "PYTHONPATH": ""}
            begin = time.perf_counter()
            subprocess.run(
                command(self.suite), shell=True, cwd=self.repo, env=env, capture_output=True, check=True
            )
            seconds = time.perf_counter() - begin
        elif name == "task, new workspace":
            self.edit(CODE)
            seconds = self.task(self.loop_env)
        elif name == "task, unchanged workspace":
            seconds = self.task(self.loop_env)
        elif name == "task, test edited, fresh loop":
            self.reset()
            fresh = self.begin()
            self.edit(CODE, TEST)
            seconds = self.task(fresh)
            self.reset()
        else:
            self.reset()
            goal = self.goal()
            self.edit(CODE)
            seconds = self.stop(goal)
            if name == "task after a goal stop":
                before = self.runs()
                seconds = self.task(goal)
            self.reset()
        return seconds, self.runs() - before


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="measured rounds (default 3; one more warms up)"
    )
    parser.add_argument("--suite", default=SUITE, help=f"the test paths the check runs (default {SUITE})")
    parser.add_argument(
        "--cases", default=";".join(CASES), help="the cases to measure, separated by ';' (default: all)"
    )
    args = parser.parse_args()
    cases = tuple(name for name in CASES if name in (c.strip() for c in args.cases.split(";")))
    if "bare" not in cases:
        parser.error("the cases must include bare: every figure is a ratio to it")
    with tempfile.TemporaryDirectory(prefix="tiergate-bench-") as folder:
        scratch = Path(folder)
        bench = Bench(clone(scratch, args.suite), scratch, args.suite)
        samples: dict[str, list[tuple[float, int]]] = {name: [] for name in cases}
        for round_ in range(args.rounds + 1):  # the first round warms up, unmeasured
            shift = round_ % len(cases)
            # Rotated, but a kept result is only ever measured right after the run that kept it.
            order = [*cases[shift:], *cases[:shift]]
            if "task, unchanged workspace" in order and "task, new workspace" in order:
                order.remove("task, unchanged workspace")
                order.insert(order.index("task, new workspace") + 1, "task, unchanged workspace")
            for name in order:
                measured = bench.case(name)
                if round_:
                    samples[name].append(measured)
        report(samples, args.rounds, args.suite)
    return 0


def report(samples: dict[str, list[tuple[float, int]]], rounds: int, suite: str) -> None:
    bare = statistics.median(s for s, _ in samples["bare"])
    print(f"Claude Code's loops on tiergate's own suite ({suite}), median of {rounds}, interleaved:")
    for name, measured in samples.items():
        seconds = statistics.median(s for s, _ in measured)
        runs = "/".join(str(n) for n in sorted({n for _, n in measured}))
        each = ", ".join(f"{s:.2f}" for s, _ in measured)
        print(f"  {name:30} {seconds:7.2f} s  suite runs {runs:3}  {seconds / bare:5.2f} x bare  ({each})")


if __name__ == "__main__":
    raise SystemExit(main())
