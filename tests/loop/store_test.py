"""Loop state on disk: atomic, locked, per session; a pending loop binds to exactly one session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from testing.statefolder import state_dir

from tiergate import seal
from tiergate.config.settings import kept_config, validate_table
from tiergate.errors import UserError
from tiergate.loop import store as state
from tiergate.loop.claims import check_claim
from tiergate.loop.decision import decide
from tiergate.loop.events import ClaimFacts, Stop
from tiergate.loop.state import LoopState, VerifierRun, new_loop
from tiergate.project import Project

T0 = 1_800_000_000.0


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(root=tmp_path, state_dir=state_dir(tmp_path))


def stored_json(project: Project, name: str) -> dict[str, object]:
    """A state file's JSON body, its seal checked (every loop file carries one)."""
    data: dict[str, object] = json.loads(seal.open_file(name, (project.state_dir / name).read_bytes()))
    return data


def write_sealed(project: Project, name: str, body: bytes) -> None:
    """What only tiergate can write: `body` with its seal (a file tiergate once wrote)."""
    (project.state_dir / name).parent.mkdir(parents=True, exist_ok=True)
    (project.state_dir / name).write_bytes(seal.seal_file(name, body))


def a_loop(session_id: str = "s1", **changes: object) -> LoopState:
    new = new_loop(session_id, "Fix the parser", now=T0, base="b" * 40, promise="DONE")
    return replace(new, **changes)  # type: ignore[arg-type]


def put(project: Project, value: LoopState) -> None:
    state.update(project, value.session_id, lambda _: (value, None))


def test_a_session_without_a_loop_reads_as_none(project: Project) -> None:
    assert state.read(project, "s1") is None
    assert state.all_loops(project) == []
    assert not project.state_dir.exists()


def test_a_loop_round_trips_with_its_verification_and_runs(project: Project) -> None:
    after = decide(
        a_loop(),
        Stop(
            "done\n<promise>DONE</promise>",
            check_claim("done\n<promise>DONE</promise>"),
            "fp",
            claim_facts=ClaimFacts("LIGHT", "tiergate:architect-low", "haiku", ("x",), ("why",), 1, 20, 1, 2),
        ),
        T0 + 1,
    ).state
    assert after is not None and after.verification is not None
    run = VerifierRun("a1", "tiergate:architect-low", T0 + 2, "fp")
    value = replace(after, verification=replace(after.verification, runs=(run,)))
    put(project, value)
    assert state.read(project, "s1") == value
    stored = stored_json(project, "loops/s1.json")
    assert stored["schema"] == 1 and stored["active"] is True and stored["phase"] == "verifying"
    assert (project.state_dir / ".gitignore").read_text() == "*\n"


def test_a_loop_round_trips_with_the_configuration_it_kept(project: Project) -> None:
    rules = validate_table(
        ".tiergate.toml", {"checks": {"tests": "sh check.sh"}, "keywords": {"light": ["tiny"]}}
    )
    value = a_loop(config=rules.kept(), config_source=rules.source)
    put(project, value)
    back = state.read(project, "s1")
    assert back == value and back is not None
    assert kept_config(back.config_source, back.config or {}) == rules
    stored: dict[str, Any] = stored_json(project, "loops/s1.json")
    assert (
        stored["config"]["checks"] == {"tests": "sh check.sh"} and stored["config_source"] == ".tiergate.toml"
    )


def test_a_loop_stored_before_the_configuration_was_kept_reads_without_it(project: Project) -> None:
    put(project, a_loop())
    kept = stored_json(project, "loops/s1.json")
    older = {k: v for k, v in kept.items() if k not in ("config", "config_source")}
    write_sealed(project, "loops/s1.json", json.dumps(older).encode())
    back = state.read(project, "s1")
    assert back is not None and back.config is None and back.config_source is None


def test_update_writes_only_what_changed_and_returns_the_result(project: Project) -> None:
    put(project, a_loop())
    path = project.state_dir / "loops" / "s1.json"
    before = path.stat().st_mtime_ns
    assert state.update(project, "s1", lambda current: (current, "same")) == "same"
    assert path.stat().st_mtime_ns == before
    assert state.update(project, "s1", lambda current: (replace(current, iteration=2), "bumped")) == "bumped"  # type: ignore[type-var]
    assert state.read(project, "s1").iteration == 2  # type: ignore[union-attr]


def test_sessions_are_separate_files(project: Project) -> None:
    put(project, a_loop("s1"))
    put(project, a_loop("s2", task="another task"))
    assert state.read(project, "s1").task == "Fix the parser"  # type: ignore[union-attr]
    assert state.read(project, "s2").task == "another task"  # type: ignore[union-attr]
    assert [s.session_id for s in state.all_loops(project)] == ["s1", "s2"]


@pytest.mark.parametrize("session_id", ["../escape", "a/b", "", "-x"])
def test_a_session_id_can_never_name_another_file(project: Project, session_id: str) -> None:
    with pytest.raises(UserError):
        state.read(project, session_id)


@pytest.mark.parametrize(
    ("content", "says"),
    [("{not json", "unreadable loop state"), ('{"schema": 99}', "schema 99"), ("[1]", "not a JSON object")],
)
def test_a_damaged_state_file_is_a_one_line_error(project: Project, content: str, says: str) -> None:
    write_sealed(project, "loops/s1.json", content.encode())
    with pytest.raises(state.StateError, match=says):
        state.read(project, "s1")


@pytest.mark.parametrize(
    ("tamper", "says"),
    [
        (lambda data: data.replace(b'"phase": "working"', b'"phase": "passed"'), "seal does not match"),
        (lambda data: data.split(b"\n#tiergate-seal ")[0], "carries no seal"),
        (lambda data: b"garbage", "carries no seal"),
    ],
)
def test_a_loop_file_tiergate_did_not_write_as_it_is_does_not_read(
    project: Project, tamper: Any, says: str
) -> None:
    put(project, a_loop())
    path = project.state_dir / "loops" / "s1.json"
    path.write_bytes(tamper(path.read_bytes()))
    with pytest.raises(state.StateError, match=f"is not as tiergate wrote it: .*{says}"):
        state.read(project, "s1")


def test_a_loop_file_copied_from_another_session_does_not_read(project: Project) -> None:
    put(project, a_loop("s1"))
    put(project, a_loop("s2"))
    (project.state_dir / "loops" / "s1.json").write_bytes(
        (project.state_dir / "loops" / "s2.json").read_bytes()
    )
    with pytest.raises(state.StateError, match="seal does not match"):
        state.read(project, "s1")


def test_each_loop_bound_to_a_session_is_named_once_in_the_ledger(project: Project) -> None:
    from tiergate.loop import ledger

    put(project, a_loop("s1"))
    assert state.update(project, "s1", lambda current: (replace(current, iteration=2), None)) is None  # type: ignore[type-var]
    lines = (project.state_dir / "loops" / "started.log").read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"s1 {ledger.loop_token(T0)} ")
    assert ledger.started(str(project.state_dir), "s1") == ledger.loop_token(T0)
    assert ledger.started(str(project.state_dir), "s2") is None


def test_a_pending_loop_binds_to_the_first_session_without_an_active_loop(project: Project) -> None:
    put(project, a_loop("busy"))
    assert state.write_pending(project, a_loop("")) is None
    assert state.take_pending(project, "busy", T0 + 50) is None  # has its own active loop
    assert state.read(project, "busy").task == "Fix the parser"  # type: ignore[union-attr]
    bound = state.take_pending(project, "free", T0 + 60)
    assert bound is not None and bound.session_id == "free" and bound.started_at == T0 + 60
    assert state.read(project, "free") == bound
    assert state.read_pending(project) is None
    assert state.take_pending(project, "third", T0 + 70) is None


def test_a_pending_loop_replaces_an_ended_loop_of_the_session(project: Project) -> None:
    put(project, a_loop("s1", phase="halted", ended_at=T0))
    state.write_pending(project, a_loop("", task="new task"))
    bound = state.take_pending(project, "s1", T0 + 1)
    assert bound is not None and bound.task == "new task" and bound.active


def test_write_pending_returns_the_one_it_replaces_and_drop_removes_it(project: Project) -> None:
    state.write_pending(project, a_loop("", task="first"))
    replaced = state.write_pending(project, a_loop("", task="second"))
    assert replaced is not None and replaced.task == "first"
    dropped = state.drop_pending(project)
    assert dropped is not None and dropped.task == "second"
    assert state.drop_pending(project) is None


def test_only_whole_loop_files_are_listed(project: Project) -> None:
    put(project, a_loop("s1"))
    folder = project.state_dir / "loops"
    (folder / ".s2.json.123.tmp").write_text("{half")
    assert (folder / "s1.json.lock").exists()
    assert [s.session_id for s in state.all_loops(project)] == ["s1"]


def test_the_latest_active_loop_is_the_last_started_still_active(project: Project) -> None:
    put(project, a_loop("s1", base="a" * 40, started_at=T0))
    put(project, a_loop("s2", base="c" * 40, started_at=T0 + 5))
    put(project, a_loop("s3", base="d" * 40, started_at=T0 + 9, phase="cancelled", ended_at=T0 + 10))
    latest = state.latest_active(project)
    assert latest is not None
    assert latest.session_id == "s2"


# Concurrency with real processes ---------------------------------------------------------------------------

_INCREMENT = textwrap.dedent(
    """
    import os, sys
    from dataclasses import replace
    from pathlib import Path
    from tiergate.loop import store as state
    from tiergate.project import locate

    project = locate(sys.argv[1], os.environ)
    for _ in range(int(sys.argv[2])):
        state.update(project, "s1", lambda current: (replace(current, iteration=current.iteration + 1), None))
    """
)


def test_many_processes_updating_one_session_lose_no_update(project: Project) -> None:
    put(project, a_loop(max_iterations=10_000))
    processes, rounds = 8, 25
    children = [
        subprocess.Popen([sys.executable, "-c", _INCREMENT, str(project.root), str(rounds)])
        for _ in range(processes)
    ]
    assert [child.wait(timeout=120) for child in children] == [0] * processes
    assert state.read(project, "s1").iteration == 1 + processes * rounds  # type: ignore[union-attr]


_BIND = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from tiergate.loop import store as state
    from tiergate.project import locate

    project = locate(sys.argv[1], os.environ)
    bound = state.take_pending(project, sys.argv[2], time.time())
    print("bound" if bound is not None else "none")
    """
)


def test_a_pending_loop_is_taken_by_exactly_one_of_many_racing_sessions(project: Project) -> None:
    state.write_pending(project, a_loop(""))
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _BIND, str(project.root), f"session{i}"], stdout=subprocess.PIPE, text=True
        )
        for i in range(10)
    ]
    answers = [child.communicate(timeout=120)[0].strip() for child in children]
    assert sorted(answers) == ["bound"] + ["none"] * 9
    assert len(state.all_loops(project)) == 1
    assert state.read_pending(project) is None


_REWRITE = textwrap.dedent(
    """
    import os, sys
    from dataclasses import replace
    from pathlib import Path
    from tiergate.loop import store as state
    from tiergate.project import locate

    project = locate(sys.argv[1], os.environ)
    for i in range(200):
        task = str(i) * (1000 + i * 50)
        state.update(project, "s1", lambda current: (replace(current, task=task), None))
    """
)


def test_a_reader_never_sees_half_a_file(project: Project) -> None:
    put(project, a_loop())
    writer = subprocess.Popen([sys.executable, "-c", _REWRITE, str(project.root)])
    reads = 0
    while writer.poll() is None:
        current = state.read(project, "s1")  # a torn file would raise StateError
        assert current is not None
        assert current.task == "Fix the parser" or len(set(current.task)) <= 3
        reads += 1
    assert writer.returncode == 0 and reads > 0
    leftovers = [p.name for p in (project.state_dir / "loops").iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_writes_are_atomic_replacements(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    put(project, a_loop())
    path = project.state_dir / "loops" / "s1.json"
    before = path.read_bytes()

    def fail(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError, match="disk full"):
        state.update(project, "s1", lambda current: (replace(current, iteration=9), None))  # type: ignore[type-var]
    assert path.read_bytes() == before


def test_texts_that_may_quote_check_output_are_stored_redacted_but_the_task_is_kept(project: Project) -> None:
    token = "ghp_" + "a1B2c3D4" * 4 + "e5F6"  # made up, in the format of a GitHub token
    put(project, a_loop(task=f"use token {token}", feedback=f"the check printed {token}"))

    stored = state.read(project, "s1")
    assert stored is not None
    assert stored.feedback == "the check printed ghp_[redacted: github token]"
    assert stored.task == f"use token {token}"  # the loop's identity, read back as given
    assert state.loop_path(project, "s1").stat().st_mode & 0o777 == 0o600
