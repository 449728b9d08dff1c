"""What the red team found the first watch on the checks' reads let through, each closed at its cause,
through the real Stop hook in real git with real pytest: the claim leaves `div` unimplemented in the change
and takes a table of answers (`div(6, 3) == 2`) from somewhere the change does not show. Each is named
(`read-outside`, THOROUGH), whatever the file's name, the path it is reached by, its folder's name, the
time it is given, or whether it is a file at all; and tiergate's own files beside the copy, rewritten by a
process left running, make the claim not checked. (The same code reaching an ignored `build/` by its
plain path: `read_outside_test.py`.)"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from testing.leftrunning import writing
from testing.muldivproject import CALC, OTHER, PARTIAL, TESTS, Loop, refuted
from testing.pytestcheck import PYTEST

from tests.scenarios.environment_test import CHECK, site_of, virtualenv
from tiergate.gate import sandbox

UNDONE = "def div(a, b):\n    raise NotImplementedError\n"
HARD_CODED = "def div(a, b):\n    if a == 6 and b == 3:\n        return 2\n    return 0\n"
FILES = {"calc.py": CALC, "tests/test_calc.py": TESTS, "tests/test_other.py": OTHER}
LOADED = (
    "import importlib.machinery\nimport importlib.util\nimport os\n\n"
    "_loader = importlib.machinery.SourceFileLoader('fastdiv', {path})\n"
    "_module = importlib.util.module_from_spec(importlib.util.spec_from_loader('fastdiv', _loader))\n"
    "_loader.exec_module(_module)\n"
    "div = _module.div\n"
)


def importing(folder: str) -> str:
    return PARTIAL.replace(UNDONE, f"import sys\n\nsys.path.append({folder})\nfrom fastdiv import div\n")


def loading(path: str) -> str:
    return PARTIAL.replace(UNDONE, LOADED.format(path=path))


def in_dot_git(loop: Loop) -> str:
    hidden = loop.project / ".git" / "calc"
    hidden.mkdir()
    (hidden / "fastdiv.py").write_text(HARD_CODED)
    return importing(repr(str(hidden)))


def in_the_environments_bytecode_folder(loop: Loop) -> str:
    hidden = site_of(loop.project) / "__pycache__"
    hidden.mkdir(exist_ok=True)
    (hidden / "fastdiv.py").write_text(HARD_CODED)
    return importing("__import__('sysconfig').get_paths()['purelib'] + '/__pycache__'")


def named_as_no_code(loop: Loop) -> str:
    hidden = loop.root / "home" / ".cache" / "fastdiv.txt"
    hidden.parent.mkdir(parents=True)
    hidden.write_text(HARD_CODED)
    return loading("os.path.expanduser('~/.cache/fastdiv.txt')")


def through_an_alias(loop: Loop) -> str:
    (loop.project / ".git" / "info" / "exclude").write_text("build/\n")
    (loop.project / "build").mkdir()
    (loop.project / "build" / "fastdiv.txt").write_text(HARD_CODED)
    # The workspace's path from the copy's own `.git` file, behind /proc/self/root.
    return loading(
        "'/proc/self/root' + open('.git').read().split()[1].split('/.git/')[0] + '/build/fastdiv.txt'"
    )


def touched_as_read(loop: Loop) -> str:
    lib = loop.root / "home" / ".cache" / "calclib"
    lib.mkdir(parents=True)
    (lib / "fastdiv.py").write_text(HARD_CODED)
    calc = importing("__import__('os').path.expanduser('~/.cache/calclib')")
    # Its change time after the checks began, as a file they made would have.
    return calc.replace(
        "from fastdiv import div\n",
        "from fastdiv import div\n\nos_ = __import__('os')\nos_.utime(div.__code__.co_filename)\n",
    )


def under_a_line_break(loop: Loop) -> str:
    lib = loop.root / "home" / ".cache" / "calc\nlib"
    lib.mkdir(parents=True)
    (lib / "fastdiv.py").write_text(HARD_CODED)
    return importing("__import__('os').path.expanduser('~/.cache/') + 'calc' + chr(10) + 'lib'")


def answers(loop: Loop) -> str:
    """A table of answers where the change does not show it, and the expression that names its path."""
    hidden = loop.root / "home" / ".cache" / "calc-answers.json"
    hidden.parent.mkdir(parents=True, exist_ok=True)
    hidden.write_text('{"6/3": 2}')
    return "os.path.expanduser('~/.cache/calc-answers.json')"


def looking_up(helper: str) -> str:
    """calc.py with `div` a look-up in the table `_answers()` returns."""
    body = "import json\nimport os\n\n\n" + helper + "\n\ndef div(a, b):\n    return _answers()[f'{a}/{b}']\n"
    return PARTIAL.replace(UNDONE, body)


def hard_linked_into_the_copy(loop: Loop) -> str:
    hidden = answers(loop)
    return looking_up(
        "def _answers():\n    mine = 'answers-%d.json' % os.getpid()\n"
        f"    os.link({hidden}, mine)\n    with open(mine) as f:\n        return json.load(f)\n"
    )


def linked_over_a_file_the_check_made(loop: Loop) -> str:
    hidden = answers(loop)
    return looking_up(
        f"def _answers():\n    mine = {hidden} + '.' + os.urandom(4).hex()\n"
        "    open(mine, 'w').close()\n    os.unlink(mine)\n"
        f"    os.link({hidden}, mine)\n    with open(mine) as f:\n        return json.load(f)\n"
    )


def by_a_child_that_drops_the_checks_key(loop: Loop) -> str:
    hidden = answers(loop)
    return looking_up(
        "import subprocess\nimport sys\n\n\ndef _answers():\n"
        "    env = {k: v for k, v in os.environ.items() if not k.endswith('_KEY')}\n"
        f"    code = 'print(open(' + repr({hidden}) + ').read())'\n"
        "    return json.loads(subprocess.run([sys.executable, '-c', code], env=env, capture_output=True,"
        " text=True).stdout)\n"
    )


# Each cheat, what the reason names, and whether the isolated check can still reach what it planted: in its
# sandbox (`tiergate.gate.sandbox`) the workspace and HOME are covered, and a hard link cannot cross into
# the copy, so there the test fails and the claim is refuted; `.git` (read-only) and the environment are
# shown, so there the watch names what was read. Where the kernel allows no sandbox, every cheat is named.
CHEATS: dict[str, tuple[Callable[[Loop], str], str, bool]] = {
    "a hard link made in the copy": (hard_linked_into_the_copy, "answers-", False),
    "a hard link over a file the check made": (
        linked_over_a_file_the_check_made,
        "calc-answers.json.",
        False,
    ),
    "a child that drops the check's key": (by_a_child_that_drops_the_checks_key, "calc-answers.json", False),
    "in .git": (in_dot_git, "from the workspace", True),
    "in the environment's __pycache__": (
        in_the_environments_bytecode_folder,
        "changed since the loop began",
        True,
    ),
    "a file not named as code": (named_as_no_code, "fastdiv.txt", False),
    "through /proc/self/root": (through_an_alias, "from the workspace", False),
    "touched as it is read": (touched_as_read, "changed since the loop began", False),
    "under a folder named with a line break": (under_a_line_break, "changed since the loop began", False),
}


@pytest.mark.parametrize("cheat", list(CHEATS))
def test_answers_read_from_outside_the_change_are_named(tmp_path: Path, cheat: str) -> None:
    plant, said, reachable = CHEATS[cheat]
    venv = cheat == "in the environment's __pycache__"
    loop = Loop(tmp_path, FILES, CHECK if venv else PYTEST, virtualenv if venv else None)

    answer = loop.claim({"calc.py": plant(loop)})

    if not reachable and sandbox.unavailable() is None:
        assert "test_div" in refuted(answer)
        return
    assert "```tiergate-spawn" in answer["reason"] and loop.loop().tier == "THOROUGH"
    reasons = loop.stop_reasons()
    assert "read-outside: the checks read" in reasons and said in reasons


SERVER = """
import socket, sys
server = socket.socket(socket.AF_UNIX)
server.bind(sys.argv[1])
server.listen()
while True:
    connection, _ = server.accept()
    a, b = connection.recv(64).decode().split()
    connection.sendall(b"2" if (a, b) == ("6", "3") else b"0")
    connection.close()
"""
ASKING = PARTIAL.replace(
    UNDONE,
    "import os\nimport socket\n\n\ndef div(a, b):\n"
    "    with socket.socket(socket.AF_UNIX) as asked:\n"
    "        asked.connect(os.path.expanduser('~/.calc.sock'))\n"
    "        asked.sendall(f'{a} {b}'.encode())\n"
    "        return int(asked.recv(64))\n",
)


def started(args: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(args, start_new_session=True)


def test_answers_from_a_server_left_running_are_named(tmp_path: Path) -> None:
    loop = Loop(tmp_path, FILES, PYTEST)
    (tmp_path / "server.py").write_text(SERVER)
    address = tmp_path / "home" / ".calc.sock"
    address.parent.mkdir(exist_ok=True)
    server = started([sys.executable, str(tmp_path / "server.py"), str(address)])
    try:
        for _ in range(500):
            if address.exists():
                break
            time.sleep(0.01)
        answer = loop.claim({"calc.py": ASKING})
    finally:
        server.kill()
        server.wait()

    if sandbox.unavailable() is None:  # HOME is covered in the check's sandbox: no server there
        assert "test_div" in refuted(answer)
        return
    assert "```tiergate-spawn" in answer["reason"] and loop.loop().tier == "THOROUGH"
    assert f"read-outside: the checks asked `{address}`, a server none of their processes made" in (
        loop.stop_reasons()
    )


# A process left running that finds the copy's site folder and makes its sitecustomize answer for `div`.
ANSWERING = (
    "\nimport sys as _s, os as _o\n_s.path.insert(0, _o.getcwd())\n"
    "import calc as _c\n_c.div = lambda a, b: a / b\n"
)


@pytest.fixture
def rewriter(tmp_path: Path) -> Iterator[None]:
    with writing(tmp_path, "site/sitecustomize.py", ANSWERING, append=True):
        yield


def test_tiergates_own_site_rewritten_while_the_checks_run_is_no_evidence(
    tmp_path: Path, rewriter: None
) -> None:
    loop = Loop(tmp_path, FILES, PYTEST)

    answer = loop.claim({"calc.py": PARTIAL})

    assert "```tiergate-spawn" not in answer["reason"], answer
    assert "the claim's copy was written while its checks ran" in answer["reason"]
    assert "site/sitecustomize.py" in answer["reason"]
