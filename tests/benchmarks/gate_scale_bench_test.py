"""bench/gate_scale_bench.py: the project it generates, and how it drives a claim to its answer (the Stops,
`tiergate wait` in between, a Stop ended at its limit), against a stand-in tiergate."""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

import pytest
from bench import gate_scale_bench as bench
from testing.gitrepo import init_repo

# A stand-in for tiergate, run by the bench's hooks through --src: a Stop answers "running" until
# `tiergate wait` has run once, then what the file `answer` beside it says; its log is plain JSON lines.
FAKE_MAIN = textwrap.dedent("""\
    import json, os, sys, time
    from pathlib import Path

    state = Path(os.environ["TIERGATE_STATE_DIR"])
    state.mkdir(parents=True, exist_ok=True)
    args = sys.argv[1:]
    if args == ["wait"]:
        (state / "waited").write_text("yes")
    elif args == ["hook", "UserPromptSubmit"]:
        print(json.dumps({"systemMessage": "tiergate: loop started"}))
    elif args == ["hook", "Stop"]:
        payload = json.load(sys.stdin)
        answer = (Path(__file__).parents[2] / "answer").read_text()
        if answer == "hang":
            time.sleep(60)
        elif not (state / "waited").exists():
            running = "tiergate is running your checks; run `tiergate wait`"
            print(json.dumps({"decision": "block", "reason": running}))
        else:
            spawn = answer == "spawn"
            reason = "```tiergate-spawn\\n{}\\n```" if spawn else "FAILED tests/test_mod_11.py::test_poly"
            record = {"event": "Stop", "session_id": payload["session_id"],
                      "decision": "spawn" if spawn else "gate-refuted",
                      "gate": {"checks": [{"name": "tests", "status": "failed", "duration": 1.0}]}}
            with open(state / "log.jsonl", "a") as log:
                log.write(json.dumps(record) + "\\n")
            print(json.dumps({"decision": "block", "reason": reason}))
    """)
FAKE_LOG = textwrap.dedent("""\
    import json

    def read_records(path, env=None):
        return [json.loads(line) for line in open(path)]
    """)


@pytest.fixture
def fake(tmp_path: Path) -> tuple[bench.Project, Path]:
    src = tmp_path / "src"
    (src / "tiergate").mkdir(parents=True)
    (src / "tiergate" / "__init__.py").write_text("")
    (src / "tiergate" / "__main__.py").write_text(FAKE_MAIN)
    (src / "tiergate" / "log.py").write_text(FAKE_LOG)
    (tmp_path / "home").mkdir()
    (tmp_path / "tmp").mkdir()
    scratch = bench.Scratch(tmp_path, bench.REPO, 5.0, src)
    project = bench.Project(scratch, "project", "cpu", 1.0)
    init_repo(project.root, bench.project_files("cpu", 50))
    return project, src


def wrong_change(project: bench.Project) -> dict[str, str]:
    path = f"calc/mod_{bench.BROKEN:02d}.py"
    text = (project.root / path).read_text()
    return {path: text.replace(f"return {bench.BROKEN + 3}\n", f"return {bench.BROKEN + 4}\n", 1)}


def pytest_run(project: Path) -> subprocess.CompletedProcess[str]:
    # The project's tests use no plugin: none loaded from the environment (hypothesis alone is most of a
    # run's start, as testing/pytestcheck.py says).
    command = [bench.PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, check=False)


def test_the_project_passes_fails_in_the_broken_module_only_and_stays_green_when_refactored(
    fake: tuple[bench.Project, Path],
) -> None:
    project, _ = fake
    assert "120 passed" in pytest_run(project.root).stdout
    project.reset()
    for path, text in wrong_change(project).items():
        (project.root / path).write_text(text)
    broken = pytest_run(project.root).stdout
    assert "5 failed, 115 passed" in broken
    assert all(test in broken for test in bench.failing_ids())
    project.reset()
    refactored = f"calc/mod_{bench.REFACTORED:02d}.py"
    test_file = f"tests/test_mod_{bench.REFACTORED:02d}.py"
    (project.root / refactored).write_text(bench.refactored_module_source(bench.REFACTORED))
    (project.root / test_file).write_text((project.root / test_file).read_text() + bench.NEW_TEST)
    assert "121 passed" in pytest_run(project.root).stdout


def test_a_claim_waits_with_tiergate_wait_and_claims_again_until_the_answer(
    fake: tuple[bench.Project, Path],
) -> None:
    project, src = fake
    (src.parent / "answer").write_text("spawn")
    honest = project.claim("honest", "a task", {"calc/extra.py": "X = 1\n"}, bench.CLAIM_HONEST, "verifier")
    assert honest.outcome == "verifier"
    assert (len(honest.stops), len(honest.waits)) == (2, 1)
    assert honest.seconds >= sum(honest.stops)

    (src.parent / "answer").write_text("refute")
    wrong = project.claim("wrong", "a task", wrong_change(project), bench.CLAIM_WRONG, "refuted")
    assert (wrong.outcome, wrong.names_tests) == ("refuted", "partly (1/5)")
    assert len(wrong.stops) == 2
    # Each claim began on the base, in a state folder of its own.
    assert not (project.root / "calc" / "extra.py").exists()


def test_a_stop_past_its_limit_is_ended_and_reported(
    fake: tuple[bench.Project, Path],
) -> None:
    project, src = fake
    project.scratch.stop_limit = 1.0
    (src.parent / "answer").write_text("hang")
    hung = project.claim("honest", "a task", {}, bench.CLAIM_HONEST, "verifier")
    assert hung.outcome.startswith("killed at the Stop limit")
    assert hung.stops[0] < 10
    assert hung.leftovers.ended == 0


def test_the_stop_limit_is_read_from_the_plugins_hooks_json(tmp_path: Path) -> None:
    assert bench.stop_limit_of(bench.short_limit_plugin(tmp_path / "plugin", 120)) == 120.0
    assert bench.stop_limit_of(tmp_path / "nowhere") == bench.DEFAULT_STOP_LIMIT
    assert bench.stop_limit_of(bench.REPO) == 600.0
