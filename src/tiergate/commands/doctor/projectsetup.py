"""This project, for `tiergate doctor`: its git repository, whether the gate's checks can be isolated,
its state folder writable, and an older tiergate's state folder left behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from tiergate.commands.doctor.finding import Finding
from tiergate.gate import sandbox
from tiergate.project import ROOT_FILE, Project, git_top_level, legacy_state_dir


def git_finding(project: Project) -> Finding:
    if git_top_level(str(project.root)) is None:
        return Finding("warn", "project", f"{project.root} is not in a git repository: loops need one")
    return Finding("ok", "project", f"{project.root} (git)")


def isolation_finding() -> Finding:
    """Whether the checks the gate runs can be isolated here (`tiergate.gate.sandbox`)."""
    why = sandbox.unavailable()
    if why is None and (unwatched := sandbox.unwatched()) is not None:
        return Finding(
            "warn",
            "isolation",
            f"the gate's checks run in namespaces of their own, but the kernel cannot watch what they open "
            f"({unwatched}): run by root, what the agent wrote outside the covers, read by a check other "
            "than through Python, goes unnamed",
        )
    if why is None:
        return Finding("ok", "isolation", "the gate's checks run in namespaces of their own")
    return Finding(
        "warn",
        "isolation",
        f"the gate's checks cannot be isolated here ({why}): they run watched only, and a read the watch "
        "cannot see (a C call, a child that is not Python) goes unnamed",
    )


def legacy_state_finding(project: Project) -> list[Finding]:
    """One line about an older tiergate's `<root>/.tiergate/`: no longer read, so no problem."""
    legacy = legacy_state_dir(project)
    if legacy is None:
        return []
    detail = f"{legacy} is an older tiergate's state folder, no longer read: delete it when you like"
    return [Finding("ok", "old state", detail)]


def state_finding(project: Project) -> Finding:
    """Whether tiergate can write its state folder; a folder made for the test is removed again."""
    target = project.state_dir
    created: list[Path] = []
    try:
        missing = [target, *(p for p in target.parents if not p.exists())] if not target.exists() else []
        for folder in sorted(missing, key=lambda p: len(p.parts)):
            folder.mkdir()
            created.append(folder)
        handle, probe = tempfile.mkstemp(dir=target, prefix=".doctor-")
        os.close(handle)
        Path(probe).unlink()
    except OSError as exc:
        return Finding("fail", "state", f"{target} is not writable: {exc.strerror or exc}")
    finally:
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                folder.rmdir()
    made = " (it does not exist yet; created and removed again for this test)" if created else ""
    owner = _state_owner(target)
    if owner is not None and owner != os.path.realpath(project.root):
        detail = f"{target} is writable, but its root file names another project: {owner}"
        return Finding("warn", "state", detail)
    return Finding("ok", "state", f"{target} is writable{made}")


def _state_owner(state_dir: Path) -> str | None:
    """The project root the state folder's `root` file names, if it has one."""
    try:
        return (state_dir / ROOT_FILE).read_text(encoding="utf-8", errors="surrogateescape").rstrip("\n")
    except OSError:
        return None
