"""The sandbox a check runs in: the plan drawn from a copy's folders, and real processes started in it
(the workspace and the temporary folders covered, the copy shown, `.git` unwritable, no other process or
network in sight, the check's exit and signal kept, nothing of it left when it ends)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tiergate.gate import sandbox
from tiergate.gate.request import RunStart, Seed
from tiergate.gate.sandbox import Isolation, plan_words

pytestmark = pytest.mark.skipif(sandbox.unavailable() is not None, reason="no namespaces on this kernel")


def steps(words: list[str]) -> list[tuple[str, str]]:
    pairs = []
    for index, word in enumerate(words):
        if word in ("--hide", "--rw", "--ro"):
            pairs.append((word[2:], words[index + 1]))
    return pairs


def layout(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A workspace with `.git` and `.venv`, and a copy's holder: all under the covered /tmp or /dev/shm."""
    workspace, holder = tmp_path / "work", tmp_path / "holder"
    for folder in (workspace / ".git", workspace / ".venv" / "bin", workspace / "build", holder / "tree"):
        folder.mkdir(parents=True, exist_ok=True)
    (workspace / "build" / "answers.txt").write_text("42\n")
    (workspace / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return workspace.resolve(), holder.resolve(), workspace.resolve() / ".venv"


def test_the_plan_covers_the_workspace_and_shows_the_copy_the_environment_and_git(tmp_path: Path) -> None:
    workspace, holder, venv = layout(tmp_path)
    iso = sandbox.isolation(workspace, holder, [venv])
    reports = tmp_path / "reports"
    reports.mkdir()
    added = {"TIERGATE_TESTS_OUT": str(reports / "0"), "PYTHONPATH": f"{holder}/site:{workspace}/src"}

    state = tmp_path.parent / f"{tmp_path.name}-state"
    (state / "tiergate").mkdir(parents=True)
    environ = {
        "PATH": "/usr/bin",
        "HOME": "/nonexistent",
        "TMPDIR": str(tmp_path),
        "XDG_STATE_HOME": str(state),
    }
    plan = steps(plan_words(iso, str(holder / "tree"), added, environ))

    assert ("hide", str(workspace)) in plan and ("hide", str(tmp_path.resolve())) in plan
    assert ("hide", "/nonexistent") not in plan
    assert ("hide", str((state / "tiergate").resolve())) in plan  # tiergate's own state
    assert ("rw", str(holder)) in plan and ("rw", str(venv)) in plan and ("rw", str(reports)) in plan
    assert ("ro", str(workspace / ".git")) in plan
    # A folder of the workspace that tiergate's variables name (an editable install's) is not shown.
    assert not any(path.startswith(f"{workspace}/src") for _, path in plan)
    # Each folder is shown after the cover it sits in.
    order = [path for _, path in plan]
    assert order.index(str(workspace)) < order.index(str(workspace / ".git"))


def test_home_is_empty_but_for_its_tools_and_the_files_older_than_the_loop(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for folder in (home / ".cache", home / ".cargo" / "bin", home / "work"):
        folder.mkdir(parents=True)
    (home / ".gitconfig").write_text("[user]\n\tname = someone\n")
    time.sleep(0.05)
    began = time.time()
    time.sleep(0.05)
    (home / ".cache" / "answers.json").write_text("{}")
    (home / ".npmrc").write_text("written since the loop began\n")
    holder = tmp_path / "holder"
    holder.mkdir()
    iso = sandbox.isolation(home / "work", holder, [], RunStart(Seed((), began)))
    script = (
        "import os\n"
        "home = os.environ['HOME']\n"
        "print(sorted(os.listdir(home)))\n"
        "print(open(home + '/.gitconfig').read().split()[-1])\n"
        "try:\n    open(home + '/.gitconfig', 'a')\nexcept OSError as e:\n    print(e.errno)\n"
        "os.makedirs(home + '/.cache/tool'); print(os.listdir(home + '/.cache'))\n"
    )
    argv, own = sandbox.wrapped([sys.executable, "-c", script], holder, iso.variable())
    env = {**os.environ, **own, "HOME": str(home), "PATH": f"{home}/.cargo/bin:{os.environ['PATH']}"}

    done = subprocess.run(argv, check=False, cwd=holder, env=env, capture_output=True, text=True)

    assert done.stdout.splitlines() == ["['.cargo', '.gitconfig', 'work']", "someone", "30", "['tool']"], (
        done.stderr
    )
    assert not (home / ".cache" / "tool").exists()


def test_the_variable_carries_the_plan_and_leaves_the_checks_own_variables() -> None:
    iso = Isolation("/w", "/h", ("/w/.venv",), ("/w/.git",), network=False)

    assert sandbox.from_variable(iso.variable()[sandbox.VARIABLE]) == iso
    argv, own = sandbox.wrapped(["true"], Path("/h"), {**iso.variable(), "A": "1"})
    assert own == {"A": "1"} and argv[-2:] == ["--", "true"] and str(sandbox.LAUNCHER) in argv
    assert sandbox.wrapped(["true"], Path("/h"), {"A": "1"}) == (["true"], {"A": "1"})


def run(tmp_path: Path, script: str, *, network: bool = True) -> subprocess.CompletedProcess[str]:
    workspace, holder, venv = layout(tmp_path)
    iso = sandbox.isolation(workspace, holder, [venv], RunStart(own_network=network))
    argv, own = sandbox.wrapped([sys.executable, "-c", script], holder / "tree", iso.variable())
    env = {**os.environ, **own}
    return subprocess.run(argv, check=False, cwd=holder / "tree", env=env, capture_output=True, text=True)


def test_a_check_sees_the_copy_and_the_environment_but_not_the_workspace(tmp_path: Path) -> None:
    script = (
        "import os\n"
        "work = os.path.realpath({w!r})\n"
        "print(sorted(os.listdir(work)))\n"
        "print(os.path.exists(work + '/build/answers.txt'))\n"
        "open('made.txt', 'w').write('x')\n"
        "try:\n    open(work + '/.git/HEAD', 'a')\nexcept OSError as e:\n    print('git', e.errno)\n"
        "print(open(work + '/.git/HEAD').read().strip())\n"
        "print(os.listdir({t!r}))\n"
    ).format(w=str(tmp_path / "work"), t=str(tmp_path))

    done = run(tmp_path, script)

    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr
    assert lines[0] == "['.git', '.venv']" and lines[1] == "False"
    assert lines[2] == "git 30"  # EROFS
    assert lines[3] == "ref: refs/heads/main"
    assert "holder" in lines[4] and "work" in lines[4]
    assert (tmp_path / "holder" / "tree" / "made.txt").read_text() == "x"


def test_the_gates_own_runs_see_the_copy_but_not_what_the_check_left_beside_it() -> None:
    # Under /tmp, covered whatever HOME shows (the suite's own folders may be in HOME, shown without a loop).
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:
        own_runs_see_only_the_copy(Path(folder))


def own_runs_see_only_the_copy(tmp_path: Path) -> None:
    workspace, holder, venv = layout(tmp_path)
    (holder / ".answers").write_text("kept by the check's run\n")
    (holder / "tiergate-pytest.ini").write_text("[pytest]\n")
    iso = sandbox.isolation(workspace, holder, [venv])
    added = {**iso.variable(), "PYTEST_ADDOPTS": f"-c {holder / 'tiergate-pytest.ini'}", "A": "1"}

    own = sandbox.narrowed(added, holder / "tree")

    # The plan's holder is the copy; a variable naming a file beside it would show the folder: it is gone.
    assert sandbox.from_variable(own[sandbox.VARIABLE]).holder == str(holder / "tree")
    assert "PYTEST_ADDOPTS" not in own and own["A"] == "1"
    assert sandbox.narrowed({"A": "1"}, holder / "tree") == {"A": "1"}
    script = "import os\nprint(os.path.exists('../.answers'))\nopen('made.txt', 'w').write('x')\n"
    argv, env = sandbox.wrapped([sys.executable, "-c", script], holder / "tree", own)
    done = subprocess.run(
        argv, check=False, cwd=holder / "tree", env={**os.environ, **env}, capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.split() == ["False"], done.stderr
    assert (holder / "tree" / "made.txt").read_text() == "x"


def test_a_check_sees_its_own_processes_and_network_only(tmp_path: Path) -> None:
    outside = socket.socket()
    outside.bind(("127.0.0.1", 0))
    outside.listen()
    port = outside.getsockname()[1]
    script = (
        "import os, socket\n"
        "print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit())[:2])\n"
        f"try:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
        "    print('reached')\nexcept OSError:\n    print('refused')\n"
        "own = socket.socket(); own.bind(('127.0.0.1', 0)); own.listen()\n"
        "socket.create_connection(own.getsockname(), timeout=2); print('own')\n"
    )
    try:
        done = run(tmp_path, script)
    finally:
        outside.close()

    assert done.stdout.splitlines() == ["[1, 2]", "refused", "own"], done.stderr


def test_the_hosts_network_is_kept_where_asked(tmp_path: Path) -> None:
    outside = socket.socket()
    outside.bind(("127.0.0.1", 0))
    outside.listen()
    script = (
        f"import socket\nsocket.create_connection(('127.0.0.1', {outside.getsockname()[1]}), timeout=2)\n"
    )
    try:
        done = run(tmp_path, script, network=False)
    finally:
        outside.close()

    assert done.returncode == 0, done.stderr


def test_the_checks_exit_and_signal_are_its_own_and_nothing_of_it_outlives_it(tmp_path: Path) -> None:
    mark = f"left-{os.getpid()}-{time.monotonic_ns()}"
    script = (
        "import os, subprocess, sys\n"
        f"subprocess.Popen(['sleep', '30', '{mark}'], start_new_session=True)\n"
        "sys.exit(7)\n"
    )
    done = run(tmp_path, script.replace("{mark}", mark))
    killed = run(tmp_path, "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n")

    assert done.returncode == 7 and killed.returncode == -15
    time.sleep(0.2)
    left = subprocess.run(["pgrep", "-f", mark], check=False, capture_output=True, text=True)
    assert left.stdout == ""


def test_a_read_only_remount_keeps_the_flags_its_mount_was_locked_with(tmp_path: Path) -> None:
    """In a user namespace (tiergate run by a user other than root) a remount that drops a flag the mount
    had (nosuid, nodev, noexec) is refused: the flags read from the mount are kept. Read here from a tmpfs
    mounted with them, in a mount namespace of the test's own."""
    script = (
        "import sys\nsys.path.insert(0, sys.argv[1])\nimport sandboxinit as s\n"
        "k = s._kept_flags(sys.argv[2])\n"
        "print(bool(k & s.MS_NOSUID), bool(k & s.MS_NODEV), bool(k & s.MS_NOEXEC), bool(k & s.MS_RDONLY))\n"
    )
    mounted = f'mount -t tmpfs -o nosuid,nodev,noexec t {tmp_path} && exec {sys.executable} -c "$0" "$@"'
    argv = ["unshare", "--mount", "--propagation", "private", "sh", "-c", mounted, script]
    done = subprocess.run(
        [*argv, str(sandbox.LAUNCHER.parent), str(tmp_path)], check=False, capture_output=True, text=True
    )

    assert done.stdout.split() == ["True", "True", "True", "False"], done.stderr


def test_a_check_run_by_root_cannot_take_off_a_cover_nor_read_what_root_left_in_the_kernels_folders(
    tmp_path: Path,
) -> None:
    """What the red team read past the first sandbox: a plain file root left in /dev, a folder in the
    cgroups, the host's name; and the covers a check with root's powers took off (umount2 by ctypes)."""
    planted = Path(f"/dev/tiergate-planted-{os.getpid()}")
    planted.write_text("42")
    script = (
        "import ctypes, os, socket\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "print(libc.umount2(os.path.realpath({w!r}).encode(), 2), ctypes.get_errno())\n"
        "print(os.path.exists({p!r}), os.listdir('/sys/fs/cgroup'), socket.gethostname())\n"
        "print(open('/proc/self/status').read().split('CapBnd:')[1].split()[0])\n"
    ).format(w=str(tmp_path / "work"), p=str(planted))
    try:
        done = run(tmp_path, script)
    finally:
        planted.unlink()

    lines = done.stdout.splitlines()
    assert lines[0] == "-1 1", done.stderr  # EPERM: no power over mounts is left
    assert lines[1] == "False [] localhost"
    assert int(lines[2], 16) & (1 << 21) == 0  # CAP_SYS_ADMIN is not in its bounding set


def test_what_the_environments_record_leaves_out_is_not_shown_either(tmp_path: Path) -> None:
    """node's tool caches in a shown node_modules are no part of the record: a check sees them empty."""
    workspace, holder = tmp_path / "work", tmp_path / "holder"
    modules = workspace / "node_modules"
    (modules / ".cache").mkdir(parents=True)
    holder.mkdir()
    iso = sandbox.isolation(workspace, holder, [modules])

    plan = steps(plan_words(iso, str(holder), {}, {"TMPDIR": str(tmp_path)}))

    order = [path for _, path in plan]
    shown, cache = str(modules.resolve()), str((modules / ".cache").resolve())
    assert ("rw", shown) in plan and ("hide", cache) in plan and order.index(shown) < order.index(cache)


def test_kernel_state_the_agent_can_set_is_not_the_checks_to_read(tmp_path: Path) -> None:
    """The red team's third round: the host's domain name, an extended attribute on a folder the check is
    shown, a key in the kernel's one key table, a terminal of the host's, and with a network of its own
    the host's interfaces in /sys; and the kernel's log, which root can write (no user namespace but the
    machine's may read it). Each is the check's own, or refused as where there is none."""
    script = (
        "import ctypes, os\n"
        "try:\n    os.getxattr('.', 'user.tiergate')\nexcept OSError as e:\n    print(e.errno)\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "print(libc.syscall({keyctl}, 0, 0), ctypes.get_errno())\n"
        "print(open('/proc/sys/kernel/domainname').read().strip(), os.listdir('/sys/class/net'))\n"
        "print(sorted(os.listdir('/dev/pts')), repr(open('/proc/keys').read()))\n"
        "print(libc.klogctl(10, None, 0), ctypes.get_errno())\n"
    ).format(keyctl={"x86_64": 250, "aarch64": 219}[os.uname().machine])
    (tmp_path / "holder" / "tree").mkdir(parents=True)
    os.setxattr(tmp_path / "holder" / "tree", "user.tiergate", b"42")

    done = run(tmp_path, script, network=True)

    assert done.stdout.splitlines() == ["95", "-1 38", "(none) ['lo']", "['ptmx'] ''", "-1 1"], done.stderr


@pytest.mark.skipif(
    os.geteuid() != 0 or not Path("/usr/bin/python3").exists() or shutil.which("setpriv") is None,
    reason="needs root to become another user, and a Python that user can run",
)
def test_a_check_run_by_another_user_keeps_its_uid_and_gets_no_powers() -> None:
    """Most users run tiergate as themselves: the launcher then maps only that user, from inside its user
    namespace, and the check keeps its uid, with the same covers and none of the namespace's powers."""
    where = Path(tempfile.mkdtemp(prefix="tiergate-sandbox-user-", dir="/tmp"))
    try:
        where.chmod(0o777)
        launcher = where / "sandboxinit.py"
        shutil.copyfile(sandbox.LAUNCHER, launcher)
        (where / "keep").mkdir(mode=0o777)
        (where / "keep").chmod(0o777)
        (where / "hidden.txt").write_text("the agent's")
        script = (
            "import os, socket\n"
            f"print(os.getuid(), socket.gethostname(), sorted(os.listdir({str(where)!r})))\n"
            "print(open('/proc/self/status').read().split('CapEff:')[1].split()[0])\n"
        )
        plan = ["--hide", "/tmp", "--dev", "/dev", "--hide", "/dev/shm", "--rw", str(where / "keep")]
        argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-S", "-I"]
        argv += [str(launcher), *plan, "--net", "--cwd", str(where / "keep"), "--", "/usr/bin/python3", "-c"]
        done = subprocess.run([*argv, script], check=False, capture_output=True, text=True)
    finally:
        shutil.rmtree(where, ignore_errors=True)

    assert done.stdout.splitlines() == ["65534 localhost ['keep']", "0000000000000000"], done.stderr


def test_the_folders_a_user_can_write_are_found_whole_and_the_systems_are_left_alone(tmp_path: Path) -> None:
    """Run by a user other than root, every folder that user can write is covered: found among the top
    folders and their children, a writable one taken whole."""
    for folder in ("work/mine/deep", "work/theirs", "srv/data", "opt/tool", "etc/app"):
        (tmp_path / folder).mkdir(parents=True)
    mine = {"work/mine", "work/mine/deep", "srv", "srv/data", "etc/app"}

    found = sandbox.writable_roots(str(tmp_path), lambda p: os.path.relpath(p, tmp_path) in mine)

    assert found == (str(tmp_path / "etc" / "app"), str(tmp_path / "srv"), str(tmp_path / "work" / "mine"))
    assert sandbox.writable_roots("/", lambda p: p in ("/etc", "/usr")) == ()  # the system's: its owners'


# A 64-bit process can make the i386 system calls (`int 0x80`) where the kernel emulates IA32: a stub in a
# low page, run through ctypes, as the red team's fifth round did to read past a filter of x86_64's numbers.
INT80 = (
    "import ctypes\n"
    "libc = ctypes.CDLL(None)\n"
    "libc.mmap.restype = ctypes.c_void_p\n"
    "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t] + [ctypes.c_int] * 3 + [ctypes.c_long]\n"
    "low = libc.mmap(None, 8192, 7, 0x62, -1, 0)\n"
    "stub = '53554154' '89f8' '89f3' '4989ca' '89d1' '4489d2' '4489c6' '4489cf' 'cd80' '415c5d5bc3'\n"
    "ctypes.memmove(low, bytes.fromhex(stub), 29)\n"
    "i386 = ctypes.CFUNCTYPE(ctypes.c_int, *[ctypes.c_uint] * 6)(low)\n"
)


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the i386 calls of an x86_64 kernel")
def test_the_i386_calls_of_a_64_bit_process_are_refused_alike(tmp_path: Path) -> None:
    probe = INT80 + "import os\nassert i386(20, 0, 0, 0, 0, 0) == os.getpid()\n"  # getpid is i386's 20
    if subprocess.run([sys.executable, "-c", probe], check=False).returncode != 0:
        pytest.skip("this kernel emulates no IA32")
    (tmp_path / "holder" / "tree").mkdir(parents=True)
    os.setxattr(tmp_path / "holder" / "tree", "user.tiergate", b"42")
    script = INT80 + (
        "ctypes.memmove(low + 2048, b'.\\0', 2)\nctypes.memmove(low + 4096, b'user.tiergate\\0', 14)\n"
        "print(i386(229, low + 2048, low + 4096, low + 5120, 64, 0), i386(288, 0, 0, 0, 0, 0))\n"
    )

    done = run(tmp_path, script)

    assert done.stdout.split() == ["-95", "-38"], done.stderr  # getxattr EOPNOTSUPP, keyctl ENOSYS


def test_a_folder_the_gates_environment_names_inside_home_is_not_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HOME is covered on purpose, even when it is also a folder the user can write (root's /root, another
    user's /home/u): a folder its environment names there (XDG_CONFIG_HOME) does not come back."""
    home = tmp_path / "home"
    for folder in (home / ".config", tmp_path / "work", tmp_path / "holder", tmp_path / "tmp"):
        folder.mkdir(parents=True)
    monkeypatch.setattr(sandbox, "_writable", [(str(home.resolve()),)])
    iso = sandbox.isolation(tmp_path / "work", tmp_path / "holder", [])
    environ = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "TMPDIR": str(tmp_path / "tmp")}

    plan = steps(plan_words(iso, str(tmp_path / "holder"), {}, environ))

    assert ("hide", str(home.resolve())) in plan
    assert not any(path == str((home / ".config").resolve()) for _, path in plan)


@pytest.mark.skipif(os.geteuid() != 0, reason="the kernel's watch on what a check opens needs root")
def test_run_by_root_each_file_the_check_opened_that_changed_since_the_loop_began_is_told(
    tmp_path: Path,
) -> None:
    """Root can write where no cover reaches (/var/lib, /etc): what the check opens there, by any means (a
    C library's own read, `cat`, a memory map of a file opened to write), is told to the gate's watch if it
    changed since the loop began, a folder the check touched before it listed it too; what the check made
    itself, what is older, and `.git`, are not. Nor can the check mount its files again in a
    user namespace of its own, unwatched."""
    outside = Path(f"/var/lib/tiergate-watch-{os.getpid()}")
    outside.mkdir()
    (outside / "old.txt").write_text("1")
    time.sleep(0.05)
    began = time.time()
    # The kernel stamps change times from a coarse clock, up to a tick behind `time.time()`.
    time.sleep(0.05)
    (outside / "planted.txt").write_text("42")
    (outside / "mapped.txt").write_text("42")
    (outside / "listed").mkdir()
    (outside / "listed" / "answer-42").touch()
    workspace, holder, venv = layout(tmp_path)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(f"\0tiergate-test-{os.getpid()}")
    listener.listen()
    listener.settimeout(20)
    script = (
        "import os, subprocess\n"
        "subprocess.run(['cat', {o!r} + '/planted.txt', {o!r} + '/old.txt'], stdout=subprocess.DEVNULL)\n"
        "open({o!r} + '/own.txt', 'w').write('7')\n"
        "print(open({o!r} + '/own.txt').read(), open({g!r}).read().strip())\n"
        "print(subprocess.run(['unshare', '-U', 'true'], stderr=subprocess.DEVNULL).returncode)\n"
        # Opened to write and read through a memory map: no read the kernel tells, and named all the same.
        "import mmap\nwith open({o!r} + '/mapped.txt', 'r+b') as f:\n    mmap.mmap(f.fileno(), 0)[:2]\n"
        # A folder touched before it is listed: its change time is the check's, its birth is not.
        "os.mkdir({o!r} + '/listed/x'); os.rmdir({o!r} + '/listed/x'); os.listdir({o!r} + '/listed')\n"
    ).format(o=str(outside), g=str(workspace / ".git" / "HEAD"))
    iso = sandbox.isolation(workspace, holder, [venv], RunStart(Seed((), began)), secret="s3cret")
    added = {
        **iso.variable(),
        "TIERGATE_IMPORTED": f"@tiergate-test-{os.getpid()}",
        "TIERGATE_IMPORTED_KEY": "k",
    }
    argv, own = sandbox.wrapped([sys.executable, "-c", script], holder / "tree", added)
    try:
        done = subprocess.run(
            argv, check=False, cwd=holder / "tree", env={**os.environ, **own}, capture_output=True
        )
        told = listener.accept()[0].makefile().read().splitlines()
    finally:
        shutil.rmtree(outside)
        listener.close()

    assert done.stdout.decode().splitlines() == ["7 ref: refs/heads/main", "1"], done.stderr
    assert json.loads(told[0]) == {"key": "k", "kernel": "s3cret"}  # the plan's, in no check's variables
    lines = [json.loads(line) for line in told[1:]]
    named = [line["r"] for line in lines if "r" in line]
    # In `.git` and the copy, each file opened is told with its stamp, for the gate to judge.
    assert {line["t"] for line in lines if "t" in line} >= {str(workspace / ".git" / "HEAD")}
    assert named == [str(outside / "listed"), str(outside / "mapped.txt"), str(outside / "planted.txt")]


def test_a_tools_bookkeeping_is_an_empty_file_of_the_checks_own(tmp_path: Path) -> None:
    """cargo rewrites its last-use database at every run, the agent's runs too: a check gets an empty one
    it can write, and the agent's stays as it was."""
    workspace, holder, venv = layout(tmp_path)
    cargo = tmp_path / "cargo"
    cargo.mkdir()
    (cargo / ".global-cache").write_text("answers")
    iso = sandbox.isolation(workspace, holder, [venv], readonly=[cargo])
    script = (
        f"p = {str(cargo / '.global-cache')!r}\nprint(repr(open(p).read()))\nopen(p, 'w').write('mine')\n"
    )
    argv, own = sandbox.wrapped([sys.executable, "-c", script], holder / "tree", iso.variable())

    done = subprocess.run(
        argv, check=False, cwd=holder / "tree", env={**os.environ, **own}, capture_output=True
    )

    assert done.stdout.decode().splitlines() == ["''"], done.stderr
    assert (cargo / ".global-cache").read_text() == "answers"


@pytest.mark.skipif(os.geteuid() != 0, reason="the kernel's watch on what a check opens needs root")
def test_a_file_the_check_makes_at_once_is_its_own(tmp_path: Path) -> None:
    """The kernel stamps a birth from its coarse clock: a file the check makes as its first act, and reads
    back, is born after the check started by that clock, and is not told."""
    outside = Path(f"/var/lib/tiergate-first-{os.getpid()}")
    outside.mkdir()
    workspace, holder, venv = layout(tmp_path)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(f"\0tiergate-first-{os.getpid()}")
    listener.listen()
    listener.settimeout(20)
    iso = sandbox.isolation(workspace, holder, [venv], RunStart(Seed((), time.time() - 1)), secret="s")
    added = {
        **iso.variable(),
        "TIERGATE_IMPORTED": f"@tiergate-first-{os.getpid()}",
        "TIERGATE_IMPORTED_KEY": "k",
    }
    first = outside / "first.txt"
    argv, own = sandbox.wrapped(["sh", "-c", f"echo 7 > {first}; cat {first}"], holder / "tree", added)
    try:
        done = subprocess.run(
            argv, check=False, cwd=holder / "tree", env={**os.environ, **own}, capture_output=True
        )
        told = [json.loads(line) for line in listener.accept()[0].makefile().read().splitlines()]
    finally:
        shutil.rmtree(outside)
        listener.close()

    assert done.stdout == b"7\n", done.stderr
    assert [line["r"] for line in told if "r" in line] == []
