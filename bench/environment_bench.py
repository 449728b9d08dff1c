"""What recording and comparing the environment the checks run with costs (`tiergate.gate.environment`),
against the Stop hook's own time on a small claim, measured in the same run.

    .venv/bin/python -m bench.environment_bench [--rounds N] [--files N]

A project with its own virtualenv (`venv --without-pip`) holding a copy of pytest and what it imports, and
installed packages of generated modules up to `--files` files in all (4,000 by default, a middling
project's virtualenv); its check is pytest run by that virtualenv's Python. Each round begins a loop
(`/tiergate:ralph` through the real UserPromptSubmit hook, which keeps the record) and claims a one-line
change through the real Stop hook (the checks run, and the environment is compared); in between, in this
process, the record is taken and kept, and then compared with the environment as it is, as the hooks do.
Prints the medians and the comparison's share of the Stop.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import iniconfig
import packaging
import pluggy
import pytest

ROOT = Path(__file__).resolve().parent.parent
COMMAND = "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 .venv/bin/python -m pytest -q -p no:cacheprovider"
SESSION = "e7e7e7e7-1111-2222-3333-444444444444"
CODE = "def scaled(a, b):\n    return a * b\n"
TEST = "from calc import scaled\n\n\ndef test_scaled():\n    assert scaled(2, 3) == 6\n"
PER_PACKAGE = 100


def make_project(where: Path, files: int) -> Path:
    project = where / "project"
    (project / "tests").mkdir(parents=True)
    (project / "calc.py").write_text(CODE)
    (project / "tests" / "test_calc.py").write_text(TEST)
    (project / ".tiergate.toml").write_text(f"[checks]\ntests = {json.dumps(COMMAND)}\n")
    (project / ".gitignore").write_text("__pycache__/\n.venv/\n")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=project, check=True)
    subprocess.run([*git, "add", "-A"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], cwd=project, check=True)
    make_venv(project / ".venv", files)
    return project


def make_venv(venv: Path, files: int) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    ignored = shutil.ignore_patterns("__pycache__")
    for module in (pytest, iniconfig, packaging, pluggy):
        folder = Path(module.__file__ or "").parent
        shutil.copytree(folder, site / folder.name, ignore=ignored)
        for metadata in folder.parent.glob(f"{folder.name}-*.dist-info"):
            shutil.copytree(metadata, site / metadata.name, ignore=ignored)
    internal = Path(pytest.__file__ or "").parent.parent / "_pytest"
    shutil.copytree(internal, site / "_pytest", ignore=ignored)
    for name in ("py.py",):
        if (internal.parent / name).is_file():
            shutil.copy(internal.parent / name, site / name)
    have = sum(1 for p in venv.rglob("*") if not p.is_dir())
    for n in range(max(0, files - have) // PER_PACKAGE):
        package = site / f"generated{n}"
        package.mkdir()
        for i in range(PER_PACKAGE - 2):
            (package / f"module{i}.py").write_text(f"VALUE = {i}\n")
        (site / f"generated{n}-1.0.dist-info").mkdir()
        (site / f"generated{n}-1.0.dist-info" / "METADATA").write_text(f"Name: generated{n}\nVersion: 1.0\n")


def hook(event: str, payload: Mapping[str, object], project: Path, env: dict[str, str]) -> float:
    body = {"session_id": SESSION, "cwd": str(project), "hook_event_name": event, **payload}
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "tiergate", "hook", event],
        input=json.dumps(body),
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 2):
        raise SystemExit(f"{event} exited {result.returncode}: {result.stderr[-2000:]}")
    return elapsed


def in_process(project: Path) -> tuple[float, float, int]:
    """The record taken and kept, then compared with the environment now: seconds each, and its size."""
    from tiergate.gate.environment import difference, keptrecord, places, walk
    from tiergate.project import locate

    root = str(project)
    start = time.perf_counter()
    where = places.at_start(root, root, None, [COMMAND])
    taken = walk.take(where)
    kept = locate(project, os.environ)
    digest = keptrecord.keep(kept, "bench", "1.0", taken)
    recorded = time.perf_counter()
    assert digest is not None
    loaded = keptrecord.load(kept, "bench", "1.0", digest)
    assert loaded is not None
    now = walk.take(places.at_claim(loaded, root, root, None, ()))
    found = difference.differences(loaded, now, walk.owners(loaded, now), root)
    compared = time.perf_counter()
    assert found == (), found
    return recorded - start, compared - recorded, taken.size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--files", type=int, default=4000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        project = make_project(where, args.files)
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT / "src"),
            "XDG_STATE_HOME": str(where / "state"),
            "HOME": str(where / "home"),
            "CLAUDE_PROJECT_DIR": str(project),
            "TIERGATE_BASELINE_AT_START": "0",
        }
        env.pop("TIERGATE_STATE_DIR", None)
        os.environ.update({k: env[k] for k in ("XDG_STATE_HOME", "HOME")})
        starts, stops, records, compares, size = [], [], [], [], 0
        for n in range(args.rounds):
            prompt = {
                "prompt": "/tiergate:ralph scale by a factor",
                "transcript_path": str(where / "t.jsonl"),
            }
            starts.append(hook("UserPromptSubmit", prompt, project, env))
            record, compare, size = in_process(project)
            records.append(record)
            compares.append(compare)
            (project / "calc.py").write_text(CODE.replace("a * b", f"b * a + {n} - {n}"))
            claim = {"last_assistant_message": "Done.\n\n<promise>DONE</promise>", "stop_hook_active": False}
            stops.append(hook("Stop", {**claim, "transcript_path": str(where / "t.jsonl")}, project, env))
    print(f"environment: {size} files")
    print(f"loop start (UserPromptSubmit hook)   {show(starts)}")
    print(f"claim (Stop hook, checks included)   {show(stops)}")
    print(f"record taken and kept                {show(records)}")
    print(f"compared at a claim, nothing changed {show(compares)}")
    share = statistics.median(compares) / statistics.median(stops)
    at_start = statistics.median(records) / statistics.median(starts)
    print(f"comparison / Stop: {share:.3f}; record / loop start: {at_start:.2f}")


def show(times: list[float]) -> str:
    return f"median {statistics.median(times) * 1000:.0f} ms ({', '.join(f'{t * 1000:.0f}' for t in times)})"


if __name__ == "__main__":
    main()
