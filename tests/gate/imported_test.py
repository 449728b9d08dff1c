"""What a claim's checks read and whom they ask (`tiergate.gate.imported`): the rules on what the processes
told, the listening sockets, and what every Python process of a check tells the gate's socket (its
sitecustomize, run in a real interpreter, doing what an evasive test would)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tiergate.gate.imported import (
    Bounds,
    Told,
    Watch,
    listeners,
    read_outside,
)
from tiergate.gate.pertest.streamed import Streamed
from tiergate.gate.watchsocket import streams

ENVIRONMENT = ("/home/u/proj/.venv", "/usr/lib/python3.11")
BOUNDS = Bounds("/tmp/t/tree", "/home/u/proj", own=("/tmp/t/site",), environment=ENVIRONMENT, before=100.0)


def test_the_copy_tiergates_own_the_environment_and_the_kernel_are_let_be() -> None:
    reads = {
        "/tmp/t/tree/calc.py": 150.0,
        "/tmp/t/site/sitecustomize.py": 150.0,
        "/home/u/proj/.venv/lib/python3.11/site-packages/pytest/__init__.py": 150.0,
        "/usr/lib/python3.11/json/__pycache__/decoder.cpython-311.pyc": 1.0,  # a seed, from before
        "/proc/self/status": 150.0,
    }

    assert read_outside(Told(reads), BOUNDS) == ([], [])


def test_the_workspace_is_named_whenever_it_was_written_its_git_folder_too() -> None:
    reads = {"/home/u/proj/build/answers.py": 1.0, "/home/u/proj/.git/calc/fastdiv.py": 150.0}

    assert read_outside(Told(reads), BOUNDS) == (
        ["/home/u/proj/.git/calc/fastdiv.py", "/home/u/proj/build/answers.py"],
        [],
    )


def test_elsewhere_what_changed_since_the_loop_began_unless_the_check_made_it() -> None:
    reads = {
        "/opt/tools/old.py": 50.0,  # there before the loop: the machine's
        "/var/tmp/planted.txt": 150.0,  # any file, whatever its name
        "/dev/shm/planted.py": 150.0,  # under /dev, but anyone's to write
        "/tmp/t/tmp/made.json": 250.0,  # the check's temporary folder: made by it
        "/tmp/t/tmp/planted.json": 150.0,  # there before the check wrote to it
        "/tmp/t/pycache/tmp/t/tree/calc.cpython-311.pyc": 150.0,  # no check writes bytecode
        # The environment's folders its record leaves out are judged by time.
        "/home/u/proj/.venv/lib/python3.11/site-packages/__pycache__/fastdiv.py": 150.0,
    }
    writes = {"/tmp/t/tmp/made.json": False, "/tmp/t/tmp/planted.json": True}

    assert read_outside(Told(reads, writes), BOUNDS)[1] == [
        "/dev/shm/planted.py",
        "/home/u/proj/.venv/lib/python3.11/site-packages/__pycache__/fastdiv.py",
        "/tmp/t/pycache/tmp/t/tree/calc.cpython-311.pyc",
        "/tmp/t/tmp/planted.json",
        "/var/tmp/planted.txt",
    ]


def test_a_workspace_with_a_name_that_begins_another_is_not_inside_it() -> None:
    assert read_outside(Told({"/home/u/project2/x.py": 1.0}), BOUNDS) == ([], [])


def test_listeners_are_read_from_the_kernels_tables(tmp_path: Path) -> None:
    (tmp_path / "unix").write_text(
        "Num       RefCount Protocol Flags    Type St Inode Path\n"
        "0000: 00000002 00000000 00010000 0001 01 1 /home/u/.calc.sock\n"
        "0000: 00000002 00000000 00010000 0001 01 2 @tiergate-watch-1\n"
        "0000: 00000003 00000000 00000000 0001 03 3 /run/connected.sock\n"
    )
    (tmp_path / "tcp").write_text(
        "  sl  local_address rem_address   st\n"
        "   0: 0100007F:1F90 00000000:0000 0A\n"
        "   1: 0100007F:0050 0100007F:C350 01\n"
    )

    udp = "  sl  local_address rem_address   st\n   0: 0100007F:0035 00000000:0000 07\n"
    (tmp_path / "udp").write_text(udp)

    found = listeners(str(tmp_path))

    assert found == {"/home/u/.calc.sock", "@tiergate-watch-1", "localhost:8080", "localhost:53"}


def run_watched(tmp_path: Path, script: str, **env: str) -> tuple[Watch, Path]:
    """`script` run by a Python process of the check `tests` in a copy at tmp_path/holder/tree of the
    workspace tmp_path/ws; the watch, closed."""
    workspace, copy = tmp_path / "ws", tmp_path / "holder" / "tree"
    copy.mkdir(parents=True)
    (workspace / "build").mkdir(parents=True, exist_ok=True)
    bounds = Bounds(str(copy), str(workspace), own=(str(copy.parent / "site"),))
    with Watch(copy.parent, bounds, None) as watch:
        full = {**os.environ, **watch.env("tests"), **env}
        subprocess.run([sys.executable, "-c", script], env=full, cwd=copy, check=True, timeout=60)
    return watch, workspace


def test_a_process_tells_what_it_read_resolved_even_ending_without_its_exit_handlers(tmp_path: Path) -> None:
    (tmp_path / "ws" / "build").mkdir(parents=True)
    (tmp_path / "ws" / "build" / "answers.txt").write_text("def div(a, b):\n    return a / b\n")
    (tmp_path / "alias").symlink_to(tmp_path / "ws")
    script = (
        "import os, importlib.machinery as m\n"
        f"loader = m.SourceFileLoader('answers', {str(tmp_path / 'alias' / 'build' / 'answers.txt')!r})\n"
        "loader.load_module()\n"
        "os._exit(0)\n"
    )

    watch, workspace = run_watched(tmp_path, script)

    (reason,) = watch.reasons("tests")
    assert f"`{workspace}/build/answers.txt`" in reason and "from the workspace" in reason
    assert watch.reasons("lint") == ()


def test_a_path_with_a_line_break_in_it_is_told_whole(tmp_path: Path) -> None:
    folder = tmp_path / "out\nside"
    folder.mkdir()
    (folder / "fastdiv.py").write_text("X = 1\n")
    script = f"import sys; sys.path.insert(0, {str(folder)!r}); import fastdiv"

    watch, _ = run_watched(tmp_path, script)

    assert f"{folder}/fastdiv.py" in watch.told_by("tests").reads


def test_a_path_named_in_a_reason_stays_on_tiergates_line(tmp_path: Path) -> None:
    folder = tmp_path / "ws" / "out\n```\nside"
    folder.mkdir(parents=True)
    (folder / "fastdiv.py").write_text("X = 1\n")
    script = f"import sys; sys.path.insert(0, {str(folder)!r}); import fastdiv"

    watch, _ = run_watched(tmp_path, script)

    (reason,) = watch.reasons("tests")
    assert "fastdiv.py" in reason and "\n" not in reason and "```" not in reason


def test_a_server_listening_before_the_checks_began_is_named(tmp_path: Path) -> None:
    address = str(tmp_path / "calc.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(address)
    server.listen()
    try:
        script = f"import socket; socket.socket(socket.AF_UNIX).connect({address!r})"
        watch, _ = run_watched(tmp_path, script)
    finally:
        server.close()

    (reason,) = watch.reasons("tests")
    assert f"asked `{address}`" in reason


def test_a_unix_server_none_of_the_checks_processes_bound_is_named_one_they_bound_is_not(
    tmp_path: Path,
) -> None:
    theirs, own = str(tmp_path / "later.sock"), str(tmp_path / "own.sock")
    script = (
        "import socket\n"
        f"served = socket.socket(socket.AF_UNIX); served.bind({own!r}); served.listen()\n"
        f"socket.socket(socket.AF_UNIX).connect({own!r})\n"
        f"socket.socket(socket.AF_UNIX).connect({theirs!r})\n"
    )
    # Started after the watch began, as a process left running starts one when it sees the copy.
    workspace, copy = tmp_path / "ws", tmp_path / "holder" / "tree"
    copy.mkdir(parents=True)
    with Watch(copy.parent, Bounds(str(copy), str(workspace)), None) as watch:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(theirs)
        server.listen()
        try:
            env = {**os.environ, **watch.env("tests")}
            subprocess.run([sys.executable, "-c", script], env=env, cwd=copy, check=True, timeout=60)
        finally:
            server.close()

    (reason,) = watch.reasons("tests")
    assert f"asked `{theirs}`, a server none of their processes made" in reason and own not in reason


def test_shared_memory_mapped_is_a_file_read(tmp_path: Path) -> None:
    from multiprocessing import shared_memory

    shared = shared_memory.SharedMemory(create=True, size=16)
    try:
        script = (
            "from multiprocessing import shared_memory, resource_tracker\n"
            f"seen = shared_memory.SharedMemory(name={shared.name!r})\n"
            "resource_tracker.unregister(seen._name, 'shared_memory')\n"
            "bytes(seen.buf[:2]); seen.close()\n"
        )
        watch, _ = run_watched(tmp_path, script)
    finally:
        shared.close()
        shared.unlink()

    assert f"/dev/shm/{shared.name}" in watch.told_by("tests").reads


def test_a_sitecustomize_of_the_environments_own_still_runs(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "sitecustomize.py").write_text("import builtins\nbuiltins.THEIRS = 1\n")
    holder = tmp_path / "holder"
    holder.mkdir()
    with Watch(holder, Bounds(str(tmp_path / "copy"), str(tmp_path / "ws")), None) as watch:
        added = watch.env("tests")
        env = {**os.environ, **added, "PYTHONPATH": added["PYTHONPATH"] + os.pathsep + str(theirs)}
        script = "import builtins; print(builtins.THEIRS)"
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False
        )

    assert out.stdout.strip() == "1", out.stderr


def test_tiergates_own_files_rewritten_are_told(tmp_path: Path) -> None:
    holder = tmp_path / "holder"
    holder.mkdir()
    watch = Watch(holder, Bounds(str(holder / "tree"), str(tmp_path / "ws")), None)
    watch.env("tests")
    site = holder / "site" / "sitecustomize.py"

    assert watch.moved() == []
    site.write_text(site.read_text() + "\n")
    assert watch.moved() == [str(site)]


STREAMING = """
import json, os, socket, sys
where = os.environ["TIERGATE_IMPORTED"]


def connect(report, *lines):
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect("\\0" + where[1:] if where.startswith("@") else where)
    conn.sendall(b'{"key": "tests"}\\n' + json.dumps({"report": report}).encode() + b"\\n")
    assert conn.recv(16) == b"heard\\n"  # the gate heard of the report before it is written
    conn.sendall(b"".join(json.dumps(line).encode() + b"\\n" for line in lines))
    return conn


out = sys.argv[1]
kept = connect(out + "/pytest-1-a.json", {"o": ["t.py::a", "passed"]}, {"o": ["t.py::b", "failed"]},
               {"p": ["_pytest.python.Function.runtest"]}, {"w": "gw0"}, {"d": ["gw0", "crashed"]},
               {"c": ["gw0", "t.py::b"]}, {"d": ["gw1", "done"]}, {"end": True})
connect(out + "/pytest-1-a.json", {"o": ["t.py::b", "passed"]}, {"o": ["t.py::b", "passed"], "end": True})
connect("/elsewhere/pytest-2-b.json", {"o": ["t.py::c", "passed"]})
connect(out + "/pytest-3-c.json", {"d": ["gw0", "exploded"]})
os._exit(0)  # no exit handler: what was sent is heard all the same
"""


def test_a_stream_is_heard_to_its_end_by_its_report_folder_and_a_line_not_the_plugins_spoils_it(
    tmp_path: Path,
) -> None:
    copy, out = tmp_path / "holder" / "tree", tmp_path / "out"
    copy.mkdir(parents=True)
    with Watch(copy.parent, Bounds(str(copy), str(tmp_path / "ws")), None) as watch:
        env = {**os.environ, **watch.env("tests")}
        command = [sys.executable, "-c", STREAMING, str(out)]
        subprocess.run(command, env=env, cwd=copy, check=True, timeout=60)
        heard = streams(watch.name, str(out))
    after = streams(watch.name, str(out))

    assert heard == (
        Streamed(
            f"{out}/pytest-1-a.json",
            (("t.py::a", "passed"), ("t.py::b", "failed")),
            ("_pytest.python.Function.runtest",),
            ended=True,
            workers=("gw0",),
            down=(("gw0", "crashed"), ("gw1", "done")),
            crashes=(("gw0", "t.py::b"),),
        ),
        Streamed(f"{out}/pytest-1-a.json", (("t.py::b", "passed"),), garbled=True),
        # A worker said gone down in no way the plugin says.
        Streamed(f"{out}/pytest-3-c.json", garbled=True),
    )
    assert after is None  # the watch closed: no socket of this process's is there any more


SPEAKS = """
import json, os, socket
where = os.environ["TIERGATE_IMPORTED"]
conn = socket.socket(socket.AF_UNIX)
conn.connect("\\0" + where[1:] if where.startswith("@") else where)
lines = [{{"key": "tests", "kernel": {secret!r}}}]
lines += [{{"t": {planted!r}, "s": [1, 2]}}, {{"m": {planted!r}, "s": [1, 2]}}]
lines += [{{"r": "/srv/answers.json", "c": 1e12}}, {{"w": "/srv/answers.json", "c": False}}]
conn.sendall("".join(json.dumps(line) + "\\n" for line in lines).encode())
conn.close()
"""


@pytest.mark.parametrize("secret", ["", "a guess"])
def test_only_the_launcher_speaks_for_the_kernel(tmp_path: Path, secret: str) -> None:
    """A check's process knows the watch's address and key, not the launcher's secret (in its plan, not its
    variables): a stamp it tells is not heard, and a write it tells excuses no read the kernel saw."""
    planted = str(tmp_path / "holder" / "tree" / "answers.json")
    watch, _ = run_watched(tmp_path, SPEAKS.format(secret=secret, planted=planted))
    told = watch.told_by("tests")

    assert told.trusted == {} and told.made == {} and told.kernel == {}
    kernel = Told(kernel={"/srv/answers.json": 1e12}, writes=told.writes)
    assert read_outside(kernel, BOUNDS) == ([], ["/srv/answers.json"])
