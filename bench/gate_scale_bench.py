"""A gate that scales with the project's suite (issue 33): how long a claim waits for its answer, in
multiples of T, the bare suite's time, measured in the same run.

    .venv/bin/python -m bench.gate_scale_bench [--sizes 30,90,240] [--long] [--quick] [--check]
        [--long-suite 200] [--stop-limit 120] [--work SECONDS] [--src DIR] [--keep]

For each size (a target T in seconds) a Python project is generated in a temporary git repository: 24
modules `calc/mod_00.py` .. `calc/mod_23.py` of pure functions, one test file per module with five
CPU-bound tests each (a loop calling the module's functions), sized so that the whole suite takes about
the target single-process, a conftest.py that notes each pytest run's test count (for the figures, never
a test's outcome), and a `.tiergate.toml` whose tests check is `python -m pytest -q -p no:cacheprovider`
(the venv's python: its bin comes first on the hooks' PATH). Each step then has its own state folder
(TIERGATE_STATE_DIR) and session, the workspace back at the base commit, and drives the real hook entry
point (`python -m tiergate hook <Event>`, JSON on stdin, as Claude Code runs it), the loop started with
`/tiergate:ralph` at UserPromptSubmit. The figures:

- `T`: the tests check run bare (no tiergate), once, wall clock.
- `wrong`: one module broken (its `offset()` returns a wrong value, so all five tests of its file fail),
  then the claim's Stop: the seconds from the claim's first Stop to the answer that refutes it, and that
  over T; whether the refutation (the block's reason, what Claude reads) names every failing test id;
  the Stops it took with each one's own duration, the `tiergate wait` runs between them, and the pytest
  runs the gate made (each one's test count: 120 is the whole suite).
- `honest`: one module refactored without changing what it does and a new passing test in its file, then
  the claim: the seconds until a Stop's answer asks for a verifier (a ```tiergate-spawn block), over T;
  the Stops, the longest one, the waits and the pytest runs.
- `base run`: the gate's run of the checks at the base commit (a worktree, the suite run with tiergate's
  per-test recording), alone in a fresh state folder: the wall time of
  `tiergate.gate.baseline.ensure_baseline`, over T, and the tests check's own duration.
- `import map`: `tiergate.gate.pertest.importmap.at_commit(top, commit)` on the generated repository,
  timed ("not available yet" where it does not exist).
- processes of a step still running after its answer: how many, for how long, and how many the bench had
  to end (printed only when there were some). Each step waits for them (up to 1.5 T, at least 30 s) and
  ends the rest by their id, so that nothing of one step runs into the next.

When a Stop answers that tiergate is still running the checks (its reason holds `tiergate is running
your checks` and names `tiergate wait`), the bench runs `python -m tiergate wait` in the project with the
hooks' environment, and sends the same claim's Stop again (also when `wait` gave up, exit 1), until the
answer refutes or asks for a verifier; every wait and every Stop counts in the figures. A Stop is held to
the Stop hook's time limit as tiergate reads it (the Stop entry's `timeout` in
`$CLAUDE_PLUGIN_ROOT/hooks/hooks.json`, 600 s when unset; this checkout's for the sizes): one still
running then is ended as Claude Code ends it and reported as killed (Claude Code would let that stop
through, the claim unchecked). Any other answer is reported as it comes, labelled: `refuted (timed out)`
for a refutation by a check that ran out of time, `let through`, `blocked: <decision>`, ...

`--long`: a project of sleeping tests (time.sleep: no CPU needed) whose suite takes `--long-suite`
seconds (200), under a Stop limit of `--stop-limit` seconds (120), set by pointing CLAUDE_PLUGIN_ROOT at
a temporary folder that holds only `hooks/hooks.json`. `--long` alone runs only that; give `--sizes` too
for both. `--quick`: one tiny size (T about 5 s), a smoke run. `--work`: seconds between the loop's start
and the change, as the agent's work would take (default 0, the claim at once: the worst case for anything
tiergate begins when the loop starts); `--work-t F` adds F times each size's measured T (1.2: the loop's
baseline, begun at its start, is done by the claim). `--src DIR`: the hooks run the tiergate package in DIR
(put first on PYTHONPATH) rather than the venv's, say `git archive HEAD src | tar -x -C /tmp/before` for
the figures of a commit while the work tree changes. `--keep`: the temporary folder is kept, to look at.

Goals, printed beside the figures (PASS/MISS): for T >= 60 s, the wrong change refuted within 0.25 T and
the honest one at a verifier within 1.3 T; for `--long`, no Stop longer than the limit, the honest claim
at a verifier and the wrong one refuted. `--check` exits 1 when a goal is missed. Other work on the
machine slows the suite and the gate alike, which is why T is measured in the same run; the load average
is printed with the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import textwrap
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from testing.gitrepo import GIT_ENV, commit_all, init_repo, write

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = REPO / ".venv" / "bin"
PYTHON = str(VENV_BIN / "python")
TEST_COMMAND = "python -m pytest -q -p no:cacheprovider"
MODULES = 24
TESTS = ("test_poly", "test_scale", "test_mix", "test_clamp", "test_digits")
BROKEN = 11  # the module the wrong change breaks
REFACTORED = 5  # the module the honest change refactors
WAITING = "tiergate is running your checks"
SPAWN = "```tiergate-spawn"
DEFAULT_STOP_LIMIT = 600.0  # tiergate's reading of a Stop entry without a timeout
MAX_STOPS = 30
GOAL_FROM_T = 60.0
GOAL_WRONG = 0.25
GOAL_HONEST = 1.3
MARK = "TIERGATE_SCALE_BENCH"  # in every process a step starts, to find those left behind
RUNS = "TIERGATE_SCALE_RUNS"  # the file where the project's conftest.py notes each pytest run's size
LEFTOVER_GRACE = 30.0  # at least; a step's processes may run on for 1.5 T before the bench ends them
KILL_GRACE = 10.0
STARTUP_GUESS = 0.6  # pytest's start-up, before the calibration measures it
CALIBRATION_N = 40_000
CLAIM_WRONG = "Made calc tidier; the tests pass.\n\n<promise>DONE</promise>"
CLAIM_HONEST = "Refactored calc.mod_05, same behaviour, with a new test.\n\n<promise>DONE</promise>"


# The generated project ----------------------------------------------------------------------------------


def module_source(index: int) -> str:
    return textwrap.dedent(f'''\
        """Module {index:02d} of the generated project: a few pure functions."""


        def offset():
            return {index + 3}


        def poly(x):
            return 3 * x * x + offset() * x + 1


        def scale(x):
            return x * offset()


        def mix(x):
            return (x ^ 0x5A) + offset()


        def clamp(x):
            return min(max(x, 10), 900) + offset()


        def digits(x):
            total = 0
            while x:
                total += x % 10
                x //= 10
            return total + offset()
        ''')


def refactored_module_source(index: int) -> str:
    """The honest change: the same behaviour, written another way."""
    return textwrap.dedent(f'''\
        """Module {index:02d} of the generated project: a few pure functions."""

        OFFSET = {index + 3}


        def offset():
            return OFFSET


        def poly(x):
            return (3 * x + OFFSET) * x + 1


        def scale(x):
            return OFFSET * x


        def mix(x):
            return OFFSET + (x ^ 0x5A)


        def clamp(x):
            return OFFSET + min(max(x, 10), 900)


        def digits(x):
            return OFFSET + sum(int(d) for d in str(x)) if x else OFFSET
        ''')


def references(index: int) -> dict[str, tuple[str, str]]:
    """Each test's reference for its function, written out with the module's constant."""
    k = index + 3
    return {
        "test_poly": ("mod.poly", f"lambda x: 3 * x * x + {k} * x + 1"),
        "test_scale": ("mod.scale", f"lambda x: x * {k}"),
        "test_mix": ("mod.mix", f"lambda x: (x ^ 0x5A) + {k}"),
        "test_clamp": ("mod.clamp", f"lambda x: min(max(x, 10), 900) + {k}"),
        "test_digits": ("mod.digits", f"lambda x: sum(int(d) for d in str(x)) + {k}"),
    }


def test_source(index: int, kind: str, size: float) -> str:
    """The test file of module `index`: CPU-bound tests of `size` iterations each (`kind` "cpu"), or tests
    that sleep `size` seconds each ("sleep")."""
    refs = references(index)
    lines = [f'"""The tests of calc.mod_{index:02d}."""', ""]
    if kind == "sleep":
        lines += ["import time", ""]
    lines += [f"from calc import mod_{index:02d} as mod", ""]
    if kind == "cpu":
        lines += [
            f"N = {int(size)}",
            "",
            "",
            "def _spin(f, ref):",
            "    got = want = 0",
            "    for i in range(N):",
            "        x = i % 1000",
            "        got += f(x)",
            "        want += ref(x)",
            "    return got, want",
        ]
    else:
        lines += [
            f"PAUSE = {size!r}",
            "",
            "",
            "def _spin(f, ref):",
            "    time.sleep(PAUSE)",
            "    values = range(200)",
            "    return sum(map(f, values)), sum(map(ref, values))",
        ]
    for name in TESTS:
        function, reference = refs[name]
        lines += [
            "",
            "",
            f"def {name}():",
            f"    got, want = _spin({function}, {reference})",
            "    assert got == want",
        ]
    return "\n".join(lines) + "\n"


NEW_TEST = textwrap.dedent("""\


    def test_poly_known_values():
        assert [mod.poly(x) for x in (0, 1, 2)] == [1, 3 + mod.offset() + 1, 12 + 2 * mod.offset() + 1]
    """)


CONFTEST = textwrap.dedent(f'''\
    """Notes each run of the suite, with how many tests it collected, for the bench (${RUNS})."""

    import os


    def pytest_collection_finish(session):
        path = os.environ.get("{RUNS}")
        if path:
            with open(path, "a") as runs:
                runs.write(f"{{len(session.items)}}\\n")
    ''')


def project_files(kind: str, size: float) -> dict[str, str]:
    files = {"calc/__init__.py": "", ".gitignore": "__pycache__/\n", "conftest.py": CONFTEST}
    for index in range(MODULES):
        files[f"calc/mod_{index:02d}.py"] = module_source(index)
        files[f"tests/test_mod_{index:02d}.py"] = test_source(index, kind, size)
    files[".tiergate.toml"] = f"[checks]\ntests = {json.dumps(TEST_COMMAND)}\n"
    return files


def failing_ids() -> list[str]:
    return [f"tests/test_mod_{BROKEN:02d}.py::{name}" for name in TESTS]


# Environments and processes ----------------------------------------------------------------------------


@dataclass
class Scratch:
    root: Path
    plugin_root: Path
    stop_limit: float
    src: Path | None = None  # a tiergate source tree the hooks run instead of the venv's

    def python(self, *args: str) -> list[str]:
        """The venv's python starting tiergate as the launcher does (-I), or, with another source tree on
        PYTHONPATH, with -P -s alone (the project's folder still kept off sys.path)."""
        return [PYTHON, "-I", *args] if self.src is None else [PYTHON, "-P", "-s", *args]

    def env(self, project: Path, state: Path, step: str) -> dict[str, str]:
        """What Claude Code gives a hook here: the venv's bin first on PATH (the check's `python`), a home
        and a temporary folder of the bench's own, the step's state folder and mark."""
        keep = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "TERM", "USER", "LOGNAME")}
        return (
            keep
            | GIT_ENV
            | {
                "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}",
                "HOME": str(self.root / "home"),
                "TMPDIR": str(self.root / "tmp"),
                "CLAUDE_PROJECT_DIR": str(project),
                "CLAUDE_PLUGIN_ROOT": str(self.plugin_root),
                "TIERGATE_STATE_DIR": str(state),
                "PYTHONDONTWRITEBYTECODE": "1",
                MARK: step,
                RUNS: str(self.root / f"runs-{step}"),
            }
            | ({} if self.src is None else {"PYTHONPATH": str(self.src)})
        )


def stop_limit_of(plugin_root: Path) -> float:
    """The Stop hook's time limit as tiergate reads it: the Stop entry's timeout in the plugin's
    hooks/hooks.json, 600 s when unset."""
    try:
        hooks = json.loads((plugin_root / "hooks" / "hooks.json").read_text())["hooks"]["Stop"]
        timeouts = [h["timeout"] for group in hooks for h in group["hooks"] if "timeout" in h]
    except (OSError, ValueError, KeyError, TypeError):
        return DEFAULT_STOP_LIMIT
    return float(timeouts[0]) if timeouts else DEFAULT_STOP_LIMIT


def short_limit_plugin(folder: Path, seconds: float) -> Path:
    """A plugin root holding only hooks/hooks.json, whose Stop entry's timeout is `seconds`."""
    entry = {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/tiergate-hook", "args": ["Stop"]}
    hooks = {"hooks": {"Stop": [{"hooks": [entry | {"timeout": int(seconds)}]}]}}
    (folder / "hooks").mkdir(parents=True)
    (folder / "hooks" / "hooks.json").write_text(json.dumps(hooks, indent=2) + "\n")
    return folder


@dataclass(frozen=True)
class Ran:
    seconds: float
    returncode: int | None  # None: ended by the bench at its time limit
    stdout: str
    stderr: str


def run_process(argv: list[str], env: dict[str, str], cwd: Path, stdin: str, limit: float) -> Ran:
    """`argv` run to its end or to `limit` seconds, when it is ended as Claude Code ends a hook (SIGTERM,
    then SIGKILL to its process group after a grace)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(stdin, timeout=limit)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGTERM)
        try:
            out, err = process.communicate(timeout=KILL_GRACE)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
        return Ran(time.perf_counter() - started, None, out, err)
    return Ran(time.perf_counter() - started, process.returncode, out, err)


def names_failing_tests(reason: str) -> str:
    """Whether `reason` names every test id the wrong change fails: "yes", "no" or "partly (k/n)"."""
    found = [test for test in failing_ids() if test in reason]
    if len(found) == len(TESTS):
        return "yes"
    return f"partly ({len(found)}/{len(TESTS)})" if found else "no"


def suite_runs(path: Path) -> list[int]:
    """The pytest runs the project's conftest.py noted in `path`: each one's number of tests."""
    try:
        return [int(line) for line in path.read_text().split()]
    except (OSError, ValueError):
        return []


def marked_processes(step: str) -> list[int]:
    """The processes (of this user) whose environment carries the step's mark."""
    needle = f"{MARK}={step}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


@dataclass(frozen=True)
class Leftovers:
    """The step's processes still running once it had its answer: how many, how long the last of them
    ran on, and how many the bench ended at the grace's end."""

    found: int = 0
    seconds: float = 0.0
    ended: int = 0


def settle(step: str, grace: float) -> Leftovers:
    """Wait up to `grace` seconds for the step's processes to end; those still there then are ended, by
    their id."""
    begin = time.monotonic()
    first = marked_processes(step)
    left = first
    while left and time.monotonic() - begin < grace:
        time.sleep(0.5)
        left = marked_processes(step)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return Leftovers(len(first), time.monotonic() - begin if first else 0.0, len(left))


# One project, one size ---------------------------------------------------------------------------------


@dataclass
class Claim:
    """What one claim met from its first Stop to its answer."""

    outcome: str = "not run"
    seconds: float = 0.0
    stops: list[float] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)
    names_tests: str = "-"
    reason: str = ""
    leftovers: Leftovers = field(default_factory=Leftovers)
    suite_runs: list[int] = field(default_factory=list)  # each pytest run's test count, in order

    @property
    def longest(self) -> float:
        return max(self.stops, default=0.0)


@dataclass
class Size:
    label: str
    kind: str
    target: float
    stop_limit: float
    tests: int = 0
    bare: float = 0.0
    wrong: Claim = field(default_factory=Claim)
    honest: Claim = field(default_factory=Claim)
    base_run: str = "not measured"
    base_wall: float | None = None
    import_map: str = "not measured"
    notes: list[str] = field(default_factory=list)


class Project:
    def __init__(self, scratch: Scratch, name: str, kind: str, target: float) -> None:
        self.scratch = scratch
        self.kind = kind
        self.target = target
        self.root = scratch.root / name
        self.steps = 0
        self.grace = max(LEFTOVER_GRACE, 1.5 * target)
        self.work = 0.0  # seconds between the loop's start and the change (the agent's work)

    def step_env(self, step: str) -> tuple[dict[str, str], Path]:
        self.steps += 1
        state = self.scratch.root / f"state-{self.root.name}-{self.steps}-{step}"
        mark = f"{self.root.name}-{self.steps}-{step}-{uuid.uuid4().hex[:8]}"
        return self.scratch.env(self.root, state, mark), state

    # Generation and calibration.

    def generate(self) -> None:
        if self.kind == "sleep":
            pause = round(max(self.target - STARTUP_GUESS, 0.1) / (MODULES * len(TESTS)), 3)
            init_repo(self.root, project_files("sleep", pause))
            return
        init_repo(self.root)
        write(self.root, project_files("cpu", 1))
        overhead = self.bare_suite()[0]  # pytest's start-up and collection, the tests all but free
        per_iteration = self.calibrate()
        budget = max(self.target - overhead, 0.5)
        n = max(int(budget / (MODULES * len(TESTS) * per_iteration)), 100)
        write(self.root, project_files("cpu", n))
        commit_all(self.root, "a project whose suite takes about the target")

    def calibrate(self) -> float:
        """Seconds per iteration of one test's loop, measured on module 00's five tests."""
        code = textwrap.dedent(f"""\
            import sys, time
            sys.path.insert(0, ".")
            ns = {{}}
            path = "tests/test_mod_00.py"
            exec(compile(open(path).read(), path, "exec"), ns)
            ns["N"] = {CALIBRATION_N}
            begin = time.perf_counter()
            for name in {TESTS!r}:
                ns[name]()
            print((time.perf_counter() - begin) / ({CALIBRATION_N} * {len(TESTS)}))
            """)
        env, _ = self.step_env("calibrate")
        done = subprocess.run(
            [PYTHON, "-c", code], cwd=self.root, env=env, capture_output=True, text=True, check=True
        )
        return float(done.stdout.strip())

    def bare_suite(self) -> tuple[float, int, str]:
        """The tests check run bare, once: wall seconds, exit code, the output's last line."""
        env, _ = self.step_env("bare")
        begin = time.perf_counter()
        done = subprocess.run(
            TEST_COMMAND, shell=True, cwd=self.root, env=env, capture_output=True, text=True, check=False
        )
        seconds = time.perf_counter() - begin
        tail = (done.stdout.strip().splitlines() or [""])[-1]
        return seconds, done.returncode, tail

    def reset(self) -> None:
        """The workspace back at the base commit, nothing untracked left."""
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=self.root, check=True)
        subprocess.run(["git", "clean", "-qfdx"], cwd=self.root, check=True)

    # The hooks.

    def hook(self, env: dict[str, str], session: str, event: str, limit: float, **fields: Any) -> Ran:
        payload = {
            "session_id": session,
            "cwd": str(self.root),
            "transcript_path": str(self.scratch.root / f"{session}.jsonl"),
            "hook_event_name": event,
            "stop_hook_active": False,
            "background_tasks": [],
            **fields,
        }
        argv = self.scratch.python("-m", "tiergate", "hook", event)
        return run_process(argv, env, self.root, json.dumps(payload), limit)

    def start_loop(self, env: dict[str, str], session: str, task: str) -> None:
        prompt = f"/tiergate:ralph {task} --max-iterations 10"
        ran = self.hook(env, session, "UserPromptSubmit", 60, prompt=prompt)
        if "loop started" not in ran.stdout:
            raise RuntimeError(f"no loop started: {ran.stdout[-500:]} {ran.stderr[-500:]}")

    def claim(self, step: str, task: str, change: dict[str, str], message: str, wanted: str) -> Claim:
        """A fresh loop (its own state folder and session) on the base, `change` written, then the claim's
        Stop, again after each `tiergate wait` while tiergate says it is running the checks, until an
        answer that is not that (`wanted` names the one the bench hopes for: "refuted" or "verifier")."""
        self.reset()
        env, _ = self.step_env(step)
        session = str(uuid.uuid4())
        result = Claim()
        try:
            self.start_loop(env, session, task)
            time.sleep(self.work)
            write(self.root, change)
            begin = time.perf_counter()
            for attempt in range(MAX_STOPS):
                ran = self.hook(
                    env, session, "Stop", self.scratch.stop_limit,
                    last_assistant_message=message, stop_hook_active=attempt > 0,
                )  # fmt: skip
                result.seconds = time.perf_counter() - begin
                result.stops.append(ran.seconds)
                outcome, result.reason = self.read_answer(ran, env, session)
                if outcome != "waiting":
                    result.outcome = outcome
                    break
                wait = self.scratch.python("-m", "tiergate", "wait")
                waited = run_process(wait, env, self.root, "", max(600.0, 8 * self.target))
                result.waits.append(waited.seconds)
                # Exit 1: its own timeout came first; the agent claims again all the same.
                if waited.returncode not in (0, 1):
                    result.seconds = time.perf_counter() - begin
                    problem = (waited.stderr.strip().splitlines() or ["?"])[-1]
                    result.outcome = f"`tiergate wait` failed (exit {waited.returncode}): {problem}"
                    break
            else:
                result.outcome = f"still waiting after {MAX_STOPS} Stops"
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            result.outcome = f"error: {exc}"
        if wanted == "refuted":
            result.names_tests = names_failing_tests(result.reason)
        result.leftovers = settle(env[MARK], self.grace)
        result.suite_runs = suite_runs(Path(env[RUNS]))
        return result

    def read_answer(self, ran: Ran, env: dict[str, str], session: str) -> tuple[str, str]:
        """What a Stop answered: "verifier", "waiting", "refuted", "refuted (timed out)", or a label for
        anything else; and the block's reason (what Claude reads)."""
        outcome, reason = self.answer_of(ran)
        if outcome != "block":
            return outcome, reason
        record = self.last_stop(env, session)
        decision = str(record.get("decision", "?"))
        if decision in ("gate-refuted", "refuted-again"):
            timed_out = any(c.get("status") == "timed_out" for c in record.get("checks", ()))
            return ("refuted (timed out)" if timed_out else "refuted"), reason
        return f"blocked: {decision}", reason

    def answer_of(self, ran: Ran) -> tuple[str, str]:
        """The Stop's answer as Claude Code reads it: "block" (its reason then tells), "verifier",
        "waiting", or why there is none to read; and its reason."""
        if ran.returncode is None:
            return f"killed at the Stop limit ({self.scratch.stop_limit:.0f} s: the stop goes through)", ""
        if ran.returncode not in (0, 2):
            return f"hook failed (exit {ran.returncode}): {ran.stderr[-300:]}", ""
        try:
            answer = json.loads(ran.stdout) if ran.stdout.strip() else {}
        except ValueError:
            return f"unreadable answer: {ran.stdout[-300:]}", ""
        reason = str(answer.get("reason") or ran.stderr)
        if SPAWN in reason:
            outcome = "verifier"
        elif WAITING in reason and "tiergate wait" in reason:
            outcome = "waiting"
        elif answer.get("decision") != "block" and ran.returncode != 2:
            outcome = "let through"
        else:
            outcome = "block"
        return outcome, reason

    def last_stop(self, env: dict[str, str], session: str) -> dict[str, Any]:
        """The session's last Stop decision in the step's log, read by the tiergate the hooks run (its own
        reader: the log is sealed): the decision and each check the gate ran (status, duration)."""
        code = textwrap.dedent(f"""\
            import json, os
            from pathlib import Path
            from tiergate.log import read_records

            log = Path(os.environ["TIERGATE_STATE_DIR"]) / "log.jsonl"
            found = {{}}
            for r in read_records(log, os.environ):
                if r.get("session_id") == {session!r} and r.get("event") == "Stop" and "decision" in r:
                    gate = r.get("gate") or {{}}
                    gate = json.loads(gate) if isinstance(gate, str) else gate
                    keep = ("name", "status", "duration", "reason")
                    checks = [{{k: c.get(k) for k in keep}} for c in gate.get("checks", ())]
                    found = {{"decision": r["decision"], "checks": checks}}
            print(json.dumps(found))
            """)
        ran = run_process(self.scratch.python("-c", code), env, self.root, "", 120)
        try:
            return dict(json.loads(ran.stdout.strip().splitlines()[-1]))
        except (ValueError, IndexError):
            return {"decision": f"log unreadable: {ran.stderr.strip()[-200:]}"}

    # Step 4.

    def base_run(self) -> tuple[str, float | None]:
        """The gate's run at the base, alone in a fresh state folder; the wall time and each check's own."""
        self.reset()
        env, _ = self.step_env("base-run")
        code = textwrap.dedent(f"""\
            import json, os, time
            from pathlib import Path
            from tiergate.config.settings import load_config
            from tiergate.gate import baseline
            from tiergate.gate.detection.projectchecks import project_checks
            from tiergate.gate.processes import Running
            from tiergate.project import locate

            project = locate(Path.cwd(), os.environ)
            config = load_config(project.root)
            checks = project_checks(project.root, config)
            commit = baseline.base_commit(project.root, None)
            begin = time.perf_counter()
            running = Running(timeout={max(600.0, 8 * self.target)})
            entries = baseline.ensure_baseline(project, commit, checks, running)
            wall = time.perf_counter() - begin
            each = {{e.result.name: [e.result.duration, e.result.status] for e in entries.values()}}
            print(json.dumps({{"wall": wall, "checks": each}}))
            """)
        ran = run_process(self.scratch.python("-c", code), env, self.root, "", max(900.0, 10 * self.target))
        settle(env[MARK], self.grace)
        if ran.returncode != 0:
            return f"could not measure: {(ran.stderr.strip().splitlines() or ['?'])[-1]}", None
        data = json.loads(ran.stdout.strip().splitlines()[-1])
        checks = ", ".join(f"check {k}: {d:.1f} s, {s}" for k, (d, s) in data["checks"].items())
        return checks, float(data["wall"])

    def import_map(self) -> str:
        env, _ = self.step_env("import-map")
        code = textwrap.dedent("""\
            import json, subprocess, time
            from pathlib import Path
            try:
                from tiergate.gate.pertest.importmap import at_commit
            except ImportError as exc:
                print(json.dumps({"missing": str(exc)}))
                raise SystemExit(0)
            top = Path.cwd()
            head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True)
            commit = head.stdout.strip()
            begin = time.perf_counter()
            found = at_commit(top, commit)
            wall = time.perf_counter() - begin
            try:
                size = f"{len(found.files)} files, {len(found.tests)} of them tests"
            except (AttributeError, TypeError):
                size = type(found).__name__
            print(json.dumps({"wall": wall, "size": size}))
            """)
        ran = run_process(self.scratch.python("-c", code), env, self.root, "", 600)
        settle(env[MARK], self.grace)
        if ran.returncode != 0:
            return f"failed: {(ran.stderr.strip().splitlines() or ['?'])[-1]}"
        data = json.loads(ran.stdout.strip().splitlines()[-1])
        if "missing" in data:
            return "not available yet (tiergate.gate.pertest.importmap.at_commit)"
        return f"{data['wall']:.2f} s ({data['size']})"


def measure(scratch: Scratch, label: str, kind: str, target: float, work: float, work_t: float = 0.0) -> Size:
    size = Size(label, kind, target, scratch.stop_limit)
    project = Project(scratch, f"project-{label.replace(' ', '-')}", kind, target)
    print(f"\n[{label}] generating a {kind} project for T about {target:g} s ...", flush=True)
    project.generate()
    size.bare, code, tail = project.bare_suite()
    # The agent's work before its claim: while it lasts, the loop's baseline (begun at its start) runs.
    project.work = work + work_t * size.bare
    if project.work:
        size.notes.append(f"the agent works {project.work:.0f} s between the loop's start and its claim")
    size.tests = MODULES * len(TESTS)
    print(f"[{label}] T = {size.bare:.1f} s bare ({tail})", flush=True)
    if code != 0:
        size.notes.append(f"the bare suite failed (exit {code}): {tail}")
        return size
    print(f"[{label}] wrong change ...", flush=True)
    broken = (project.root / f"calc/mod_{BROKEN:02d}.py").read_text()
    wrong = {
        f"calc/mod_{BROKEN:02d}.py": broken.replace(f"return {BROKEN + 3}\n", f"return {BROKEN + 4}\n", 1)
    }
    size.wrong = project.claim("wrong", "tidy the calc package", wrong, CLAIM_WRONG, "refuted")
    print(f"[{label}] wrong: {size.wrong.outcome} after {size.wrong.seconds:.1f} s", flush=True)
    print(f"[{label}] honest change ...", flush=True)
    test_path = f"tests/test_mod_{REFACTORED:02d}.py"
    honest = {
        f"calc/mod_{REFACTORED:02d}.py": refactored_module_source(REFACTORED),
        test_path: (project.root / test_path).read_text() + NEW_TEST,
    }
    task = f"refactor calc.mod_{REFACTORED:02d} without changing its behaviour, and add a test"
    size.honest = project.claim("honest", task, honest, CLAIM_HONEST, "verifier")
    print(f"[{label}] honest: {size.honest.outcome} after {size.honest.seconds:.1f} s", flush=True)
    print(f"[{label}] the gate's run at the base, and the import map ...", flush=True)
    size.base_run, size.base_wall = project.base_run()
    size.import_map = project.import_map()
    project.reset()
    return size


# The report --------------------------------------------------------------------------------------------


def verdict(met: bool) -> str:
    return "PASS" if met else "MISS"


def goals(size: Size) -> list[tuple[str, bool]]:
    """The goals that apply to `size`, each with whether it was met."""
    t = size.bare
    if size.kind == "sleep":
        limit = size.stop_limit
        stops = [*size.wrong.stops, *size.honest.stops]
        killed = "killed" in size.wrong.outcome + size.honest.outcome
        longest = max(stops, default=0.0)
        return [
            (
                f"no Stop longer than {limit:.0f} s (longest {longest:.1f} s)",
                bool(stops) and longest <= limit and not killed,
            ),
            ("honest reaches a verifier", size.honest.outcome == "verifier"),
            ("wrong is refuted", size.wrong.outcome == "refuted"),
        ]
    if t < GOAL_FROM_T:
        return []
    wrong = size.wrong.outcome == "refuted" and size.wrong.seconds <= GOAL_WRONG * t
    honest = size.honest.outcome == "verifier" and size.honest.seconds <= GOAL_HONEST * t
    return [(f"wrong refuted <= {GOAL_WRONG} T", wrong), (f"honest at a verifier <= {GOAL_HONEST} T", honest)]


def stops_text(claim: Claim) -> str:
    each = ", ".join(f"{s:.1f}" for s in claim.stops)
    waits = f"; waits {', '.join(f'{s:.1f}' for s in claim.waits)} s" if claim.waits else ""
    runs = "/".join(str(n) for n in claim.suite_runs) or "none"
    return f"Stops {len(claim.stops)} ({each} s{waits}); pytest runs {len(claim.suite_runs)} (tests: {runs})"


def report(sizes: list[Size]) -> list[bool]:
    load = os.getloadavg()
    print(f"\nload average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} CPUs")
    met_all: list[bool] = []
    for size in sizes:
        t = size.bare
        limit = f"Stop limit {size.stop_limit:.0f} s"
        print(f"\n{size.label}: T = {t:.1f} s ({size.tests} tests, {size.kind}; {limit})")
        for note in size.notes:
            print(f"  note: {note}")
        if not t:
            continue
        wrong, honest = size.wrong, size.honest
        print(
            f"  wrong   {wrong.outcome:<24} after {wrong.seconds:7.1f} s = {wrong.seconds / t:5.2f} T;"
            f"  names the failing tests: {wrong.names_tests};  {stops_text(wrong)}"
        )
        print(
            f"  honest  {honest.outcome:<24} after {honest.seconds:7.1f} s = {honest.seconds / t:5.2f} T;"
            f"  {stops_text(honest)}, longest {honest.longest:.1f} s"
        )
        if size.base_wall is not None:
            print(f"  base run  {size.base_wall:.1f} s = {size.base_wall / t:.2f} T wall ({size.base_run})")
        else:
            print(f"  base run  {size.base_run}")
        print(f"  import map  {size.import_map}")
        for name, claim in (("wrong", wrong), ("honest", honest)):
            left = claim.leftovers
            if left.found:
                print(
                    f"  {name}: {left.found} process(es) still running after the answer, for"
                    f" {left.seconds:.1f} s more; {left.ended} ended by the bench"
                )
        for claim, name in ((wrong, "wrong"), (honest, "honest")):
            expected = "refuted" if name == "wrong" else "verifier"
            if claim.outcome != expected and claim.reason:
                print(f"  {name}'s last answer: {' '.join(claim.reason.split())[:400]}")
        checks = goals(size)
        if not checks and size.kind == "cpu":
            print(f"  goals: apply from T >= {GOAL_FROM_T:.0f} s")
        for text, met in checks:
            print(f"  goal {text}: {verdict(met)}")
            met_all.append(met)
    return met_all


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", help="target T values in seconds, comma-separated (default 30,90,240)")
    parser.add_argument("--long", action="store_true", help="the sleeping suite longer than a Stop's limit")
    parser.add_argument("--long-suite", type=float, default=200.0, help="--long: the suite's seconds (200)")
    parser.add_argument("--stop-limit", type=float, default=120.0, help="--long: the Stop limit (120 s)")
    parser.add_argument("--quick", action="store_true", help="one tiny size, T about 5 s: a smoke run")
    parser.add_argument(
        "--src", type=Path, help="run the hooks on this tiergate source folder (a `git archive` of a commit)"
    )
    parser.add_argument(
        "--work",
        type=float,
        default=0.0,
        help="seconds from the loop's start to the change, the agent's work (default 0: the claim at once)",
    )
    parser.add_argument(
        "--work-t",
        type=float,
        default=0.0,
        help="more work, as a multiple of each size's measured T (1.2: the baseline begun at the loop's "
        "start is done when the agent claims)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder, to look at")
    parser.add_argument("--check", action="store_true", help="exit 1 if a goal is missed")
    args = parser.parse_args()
    if args.sizes:
        targets = [float(s) for s in args.sizes.split(",") if s.strip()]
    elif args.quick:
        targets = [5.0]
    elif args.long:
        targets = []
    else:
        targets = [30.0, 90.0, 240.0]
    sizes: list[Size] = []
    src = args.src.resolve() if args.src else None
    if src is not None and not (src / "tiergate" / "__init__.py").is_file():
        parser.error(f"--src {src}: no tiergate package there")
    root = Path(tempfile.mkdtemp(prefix="tiergate-scale-"))
    try:
        (root / "home").mkdir()
        (root / "tmp").mkdir()
        scratch = Scratch(root, REPO, stop_limit_of(REPO), src)
        for target in targets:
            sizes.append(measure(scratch, f"T~{target:g} s", "cpu", target, args.work, args.work_t))
        if args.long:
            plugin = short_limit_plugin(root / "short-limit-plugin", args.stop_limit)
            limited = Scratch(root, plugin, stop_limit_of(plugin), src)
            long = f"long {args.long_suite:g} s"
            sizes.append(measure(limited, long, "sleep", args.long_suite, args.work, args.work_t))
        where = str(src) if src else "the venv's, this checkout's work tree"
        print(f"\ntiergate run by the hooks: {where}")
        met = report(sizes)
    finally:
        if args.keep:
            print(f"kept: {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 1 if args.check and not all(met) else 0


if __name__ == "__main__":
    raise SystemExit(main())
