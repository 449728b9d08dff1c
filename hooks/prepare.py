"""The plugin's self-setup: tiergate's Python environment in Claude Code's data folder for the plugin.

hooks/tiergate-hook runs this, with whichever python3 is on PATH, for a plugin that carries tiergate's
source (pyproject.toml and src/) while its environment is not ready yet or not yet announced:

    prepare.py <HookEvent>    answer a hook event: start the preparation, say how it stands, or (ready)
                              run tiergate's hook and say once that tiergate is ready
    prepare.py --build        the preparation itself, detached from the session that started it

The environment is `$CLAUDE_PLUGIN_DATA/env-<plugin version>/venv`, keyed by the plugin's version (an
update prepares a new one) and only counted while the Python it was made with still runs it. It is built
by `uv` when it is on PATH, by `python -m venv` and pip otherwise, from the plugin folder itself and the
package index (PIP_INDEX_URL, PIP_FIND_LINKS and pip's configuration apply). A lock file in the data folder
lets one build run at a time: two sessions starting together start one build.

Why detached: `claude -p` exits at its answer and ends the hooks still running, and a hook that waited a
minute for pip would hold up the session's start. The build runs in its own process session, so it outlives
the CLI; the hook answers at once, and a later hook (of this session or the next) finds the environment
ready. Meanwhile tiergate is fail-open: hooks answer nothing but a one-line notice at SessionStart.

Standard library only, and nothing newer than Python 3.7: it has to say "Python 3.11 or newer is needed" on
the very interpreter that is too old.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

MINIMUM = (3, 11)
ENTRY = "import sys; from tiergate.hook.entry import main; sys.exit(main(sys.argv[1:]))"
# Where the user is told how the preparation stands (a systemMessage): the first prompt of each session.
# Not SessionStart: `claude -p` never shows its notices (2.1.332), and a prompt comes before any work.
TOLD_AT = ("UserPromptSubmit",)
# Events that start a preparation: the session's start, and a prompt (a plugin installed mid-session).
STARTED_AT = ("SessionStart", "UserPromptSubmit")
# Events whose systemMessage Claude Code discards (or `claude -p` does not show): "ready" waits.
UNSHOWN = ("SessionStart", "SessionEnd", "PreCompact")
NO_INDEX_SIGNS = (
    "Failed to establish a new connection",
    "NewConnectionError",
    "Could not find a version that satisfies",
    "No matching distribution found",
    "Network is unreachable",
    "Temporary failure in name resolution",
    "Failed to fetch",
)
NO_VENV_SIGNS = ("ensurepip is not available", "No module named venv")


def plugin_root() -> Path:
    return Path(os.environ["CLAUDE_PLUGIN_ROOT"])


def data_dir() -> Path:
    return Path(os.environ["CLAUDE_PLUGIN_DATA"])


def plugin_version() -> str:
    manifest = json.loads((plugin_root() / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    return str(manifest.get("version") or "0")


def env_dir() -> Path:
    return data_dir() / ("env-" + plugin_version())


def venv_python(target: Path) -> Path:
    return target / "venv" / "bin" / "python"


def is_ready(target: Path) -> bool:
    return (target / "ready").is_file() and os.access(venv_python(target), os.X_OK)


def new_enough(python: str) -> bool:
    try:
        probe = subprocess.run(
            [python, "-c", "import sys; print(sys.version_info >= (3, 11))"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.stdout.strip() == "True"


def build_python() -> str | None:
    """A Python 3.11+ to build the environment with: this one, or a newer one on PATH."""
    if sys.version_info >= MINIMUM:
        return sys.executable
    for name in ("python3.13", "python3.12", "python3.11"):
        found = shutil.which(name)
        if found and new_enough(found):
            return found
    return None


def read_json(path: Path) -> dict[str, object] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_json(path: Path, data: dict[str, object]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data) + "\n", encoding="utf-8")
    temporary.replace(path)


def lock_path() -> Path:
    return data_dir() / "prepare.lock"


def building() -> bool:
    """Whether a build holds the lock now."""
    try:
        with lock_path().open("a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    return True
                raise
    except OSError:
        return False
    return False


def first_time_in(session: str) -> bool:
    """Whether this session has not been told yet (the last session told is kept, one line)."""
    told = data_dir() / "told-session"
    with contextlib.suppress(OSError):
        if told.read_text(encoding="utf-8").strip() == session:
            return False
    told.write_text(session + "\n", encoding="utf-8")
    return True


def say(message: str) -> None:
    sys.stdout.write(json.dumps({"systemMessage": message}) + "\n")


def answer(event: str) -> int:
    target = env_dir()
    if is_ready(target):
        return run_ready(target, event)
    # Read all of the hook's input, so the CLI never writes into a closed pipe; the session's id is used.
    try:
        session = str(json.loads(sys.stdin.read() or "{}").get("session_id") or "")
    except ValueError:
        session = ""
    data_dir().mkdir(parents=True, exist_ok=True)
    if event in TOLD_AT and not first_time_in(session):
        event = "told already"
    if build_python() is None:
        if event in TOLD_AT:
            say(
                "tiergate: inactive, it needs Python 3.11 or newer and python3 is {}.{}; install Python "
                "3.11+ (python3.11 on PATH is enough) and start a new session".format(*sys.version_info[:2])
            )
        return 0
    failed = read_json(data_dir() / "failed.json")
    if failed is not None and failed.get("version") != plugin_version():
        failed = None
    if not building():
        if failed is not None:
            # The last try failed: say so, and try again for the next session (the network may be back).
            if event in TOLD_AT:
                say(
                    f"tiergate: inactive, preparing its Python environment failed: {failed.get('reason')}; "
                    f"{failed.get('advice')}, then start a new session (log: {failed.get('log')})"
                )
                start_build()
            return 0
        if event not in STARTED_AT:
            return 0
        start_build()
    if event in TOLD_AT:
        started = read_json(data_dir() / "preparing.json") or {}
        since = max(0, int(time.time() - float(str(started.get("started", time.time())))))
        say(
            f"tiergate: preparing its Python environment in {target} (started {since} s ago; once per plugin "
            "version, about a minute); inactive until it is ready"
        )
    return 0


def start_build() -> None:
    log_path = data_dir() / "prepare.log"
    log_path.write_text("")
    with log_path.open("a") as log:
        subprocess.Popen(
            [sys.executable, "-I", str(Path(__file__).resolve()), "--build"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )


def run_ready(target: Path, event: str) -> int:
    """tiergate's own hook; the first event that can show it also says that tiergate is ready."""
    announced = target / "announced"
    first = False
    if event not in UNSHOWN:
        try:
            os.close(os.open(announced, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            first = True
        except FileExistsError:
            first = False
    command = [str(venv_python(target)), "-I", "-c", ENTRY, event]
    if not first:
        os.execv(command[0], command)
    hook = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
    facts = read_json(target / "ready") or {}
    ready = (
        f"tiergate: ready, its Python environment is prepared (tiergate {facts.get('version')}, "
        f"Python {facts.get('python_version')}, in {facts.get('seconds')} s)"
    )
    if hook.returncode != 0:
        # Exit 2 sends stderr to the CLI and drops stdout: the announcement waits for the next event.
        announced.unlink()
        sys.stdout.write(hook.stdout)
        return hook.returncode
    reply: dict[str, object] = {}
    if hook.stdout.strip():
        try:
            reply = json.loads(hook.stdout)
        except ValueError:
            sys.stdout.write(hook.stdout)
            return 0
    earlier = reply.get("systemMessage")
    reply["systemMessage"] = ready + (f"\n{earlier}" if earlier else "")
    sys.stdout.write(json.dumps(reply) + "\n")
    return 0


# The build -------------------------------------------------------------------------------------------------


def build() -> int:
    data_dir().mkdir(parents=True, exist_ok=True)
    lock = lock_path().open("a")  # held, and so the lock, until this process ends
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another session's build runs: it prepares the same environment
    target = env_dir()
    if is_ready(target):
        return 0
    started = time.time()
    write_json(data_dir() / "preparing.json", {"started": started, "pid": os.getpid()})
    python = build_python() or sys.executable
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    uv = shutil.which("uv")
    env = dict(os.environ)
    python_in_venv = str(venv_python(target))
    if uv:
        # uv reads its own variables: carry pip's index settings over.
        for pip_name, uv_name in (("PIP_INDEX_URL", "UV_INDEX_URL"), ("PIP_FIND_LINKS", "UV_FIND_LINKS")):
            if pip_name in env and uv_name not in env:
                env[uv_name] = env[pip_name]
        steps = [
            [uv, "venv", "--quiet", "--python", python, str(target / "venv")],
            [uv, "pip", "install", "--quiet", "--python", python_in_venv, str(plugin_root())],
        ]
    else:
        pip = [python_in_venv, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input"]
        steps = [[python, "-m", "venv", str(target / "venv")], [*pip, str(plugin_root())]]
    log_path = data_dir() / "prepare.log"
    for step in steps:
        print("$ " + " ".join(step), flush=True)
        with log_path.open("a") as log:
            code = subprocess.call(
                step, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env
            )
        if code != 0:
            return fail(target, step, code, log_path)
    probe = "import platform, tiergate; print(tiergate.__version__, platform.python_version())"
    version = subprocess.run(
        [python_in_venv, "-c", probe], stdout=subprocess.PIPE, text=True, check=False
    ).stdout.split()
    facts: dict[str, object] = {
        "version": version[0] if version else "?",
        "python": python,
        "python_version": version[1] if len(version) > 1 else "?",
        "installer": "uv" if uv else "pip",
        "plugin_root": str(plugin_root()),
        "seconds": round(time.time() - started, 1),
    }
    write_json(target / "ready", facts)
    for done in ("preparing.json", "failed.json"):
        with contextlib.suppress(FileNotFoundError):
            (data_dir() / done).unlink()
    print("ready: " + json.dumps(facts), flush=True)
    return 0


def fail(target: Path, step: list[str], code: int, log_path: Path) -> int:
    output = log_path.read_text(encoding="utf-8", errors="replace")
    if any(sign in output for sign in NO_VENV_SIGNS):
        reason = f"{step[0]} cannot make a virtualenv"
        advice = "install its venv module (Debian/Ubuntu: apt install python3-venv)"
    elif any(sign in output for sign in NO_INDEX_SIGNS):
        reason = "the package index could not be reached for tiergate's dependencies"
        advice = "check the network (or PIP_INDEX_URL)"
    else:
        reason = f"{Path(step[0]).name} {step[1]} exited with {code}"
        advice = "see the log"
    failure: dict[str, object] = {"version": plugin_version(), "reason": reason, "advice": advice}
    write_json(data_dir() / "failed.json", {**failure, "log": str(log_path)})
    shutil.rmtree(target, ignore_errors=True)
    with contextlib.suppress(FileNotFoundError):
        (data_dir() / "preparing.json").unlink()
    return 1


def main(argv: list[str]) -> int:
    if argv[:1] == ["--build"]:
        return build()
    return answer(argv[0] if argv else "")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
