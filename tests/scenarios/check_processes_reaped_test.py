"""Nothing a check starts outlives the run that started it, through the real hook entry point in a real
git repository: a `setsid` daemon a check starts, in the workspace and in the baseline's worktree, is gone
when the hook answers; and a claim's checks, which run in the background gate rather than in the Stop
hook, outlive a hook killed by SIGKILL but not `tiergate cancel`: the check's shell, what it runs in its
group and the daemon that left it are gone then (each would run ten minutes or forever on its own), at the
claim and at the base alike, and the workspace is written no more."""

from __future__ import annotations

from pathlib import Path

from testing.gitrepo import init_repo, write
from testing.hooksession import HookSession
from testing.procwatch import gone_within, running, started_with, still_written, wait_for_text

SESSION = "77777777-2222-3333-4444-555555555555"
CLAIM = "value.txt is right now.\n\n<promise>DONE</promise>"

# A check that starts a daemon (its own session: out of the check's process group), waits until it runs,
# and fails: so that the gate also runs it at the base, in a worktree of its own. Its file is named at
# random: each check runs in a process namespace of its own (`tiergate.gate.sandbox`), where pids repeat.
DAEMON_CHECK = """\
mine="{root}/daemon.$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
setsid sh -c "echo \\$\\$ > $mine; while :; do pwd >> {root}/ticks; sleep 0.2; done" \\
    >/dev/null 2>&1 </dev/null &
until test -s "$mine"; do sleep 0.05; done
exit 1
"""

# A check that runs for ten minutes, writing into the workspace from its group and from a daemon outside it.
SLOW_CHECK = """\
echo $$ >> {root}/pids/shell
setsid sh -c "echo \\$\\$ >> {root}/pids/daemon; while :; do echo tick >> ticks.daemon; sleep 0.2; done" \\
    >/dev/null 2>&1 </dev/null &
(i=0; while [ $i -lt 3000 ]; do echo tick >> ticks; sleep 0.2; i=$((i+1)); done) &
echo $! >> {root}/pids/loop
wait
"""


def loop_with(root: Path, script: str) -> HookSession:
    files = {
        "value.txt": "good\n",
        "check.sh": script.format(root=root),
        ".tiergate.toml": '[checks]\ntests = "sh check.sh"\n',
        ".gitignore": ".tiergate/\n",
    }
    session = HookSession(root, init_repo(root / "project", files), SESSION)
    answer = session.hook("UserPromptSubmit", prompt="/tiergate:ralph make value.txt right")
    assert "loop started" in answer["systemMessage"]
    write(session.project, {"value.txt": "better\n"})
    return session


def test_a_daemon_a_check_starts_is_gone_when_the_stop_hook_answers_in_the_copy_and_the_baseline(
    tmp_path: Path,
) -> None:
    session = loop_with(tmp_path, DAEMON_CHECK)

    answer = session.hook("Stop", last_assistant_message=CLAIM)

    assert answer, "the claim was answered"
    daemons = list(tmp_path.glob("daemon.*"))
    places = set((tmp_path / "ticks").read_text().splitlines())
    assert len(daemons) == 2, "one daemon in the claim's copy, one in the baseline's worktree"
    assert any("tiergate-claim-" in place for place in places), places
    assert any("tiergate-baseline-" in place for place in places), places
    assert started_with(f"HOME={tmp_path / 'home'}", ("ticks",)) == []  # they loop forever unless killed
    assert not still_written(tmp_path / "ticks")


def test_a_claims_checks_outlive_a_killed_stop_hook_and_end_with_tiergate_cancel(tmp_path: Path) -> None:
    (tmp_path / "pids").mkdir()
    session = loop_with(tmp_path, SLOW_CHECK)
    hook = session.start_hook("Stop", last_assistant_message=CLAIM)
    for name in ("shell", "daemon", "loop"):
        wait_for_text(tmp_path / "pids" / name)
    hook.kill()
    hook.wait()
    # The check's shell, its loop (a subshell of it) and the daemon, found by what they run: their pids in
    # the files are their sandbox's own.
    pids = started_with(f"HOME={tmp_path / 'home'}", ("check.sh", "ticks.daemon"))
    assert len(pids) >= 3 and all(running(pid) for pid in pids)  # the background gate's, not the hook's

    cancelled = session.run("cancel")

    assert "stopped the checks running in the background" in cancelled.stdout
    assert gone_within(pids) == []
    assert not still_written(session.project / "ticks")
    assert not still_written(session.project / "ticks.daemon")


def lines(path: Path) -> list[str]:
    return path.read_text().split()
