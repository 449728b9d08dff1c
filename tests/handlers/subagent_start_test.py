"""SubagentStart: the requested verifier is recorded with the workspace's fingerprint and handed the
evidence packet; any other subagent, or a session without a verification, records nothing."""

from __future__ import annotations

from pathlib import Path

from testing.gitrepo import git, init_repo
from testing.loopfacts import verification
from testing.loopproject import a_project, payload, with_loop

from tiergate.handlers import subagent_start
from tiergate.loop import store

AGENT = "tiergate:architect-medium"


def test_the_requested_verifier_is_recorded_with_the_fingerprint_and_gets_the_packet(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    project = a_project(root)
    head = git(root, "rev-parse", "HEAD").strip()
    with_loop(project, base=head, phase="verifying", verification=verification())
    reply = subagent_start.handle(payload("SubagentStart", agent_id="a1", agent_type=AGENT), project)
    assert reply is not None and reply.additional_context
    loop = store.read(project, "s1")
    assert loop is not None and loop.verification is not None
    [run] = loop.verification.runs
    assert run.agent_id == "a1" and run.fingerprint


def test_another_subagent_or_no_verification_records_nothing(tmp_path: Path) -> None:
    project = a_project(tmp_path)
    with_loop(project)
    subagent_start.handle(payload("SubagentStart", agent_id="a1", agent_type="general-purpose"), project)
    loop = store.read(project, "s1")
    assert loop is not None and loop.verification is None
    assert (
        subagent_start.handle(payload("SubagentStart", "s2", agent_id="a1", agent_type=AGENT), project)
        is None
    )
