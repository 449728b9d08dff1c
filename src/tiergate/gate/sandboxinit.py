"""Starts one check in namespaces of its own: run as a script (`python -S -I -B sandboxinit.py PLAN -- ARGV`).

Standard library only, few imports (no json, no socket: each costs milliseconds): every check the gate
runs in a copy pays for this process. The plan (`tiergate.gate.sandbox` writes it, `Plan` reads it) names
the folders to cover, to show again, the network, the folder to start in and the watch (`sandboxwatch`).
`--probe` tells whether this kernel lets the namespaces be made: exit 0 if so, else 1 and why on stderr.
"""

# os and open on purpose: pathlib is an import more for every check.
# ruff: noqa: PTH100, PTH102, PTH103, PTH108, PTH110, PTH115, PTH118, PTH120, PTH123, PTH211
from __future__ import annotations

import ctypes
import errno
import os
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
KEYCTL_JOIN_SESSION_KEYRING = 1
SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}
HOSTNAME = b"localhost"
# What a check run by root keeps of root's powers: over files (chown, permissions, owners), over its own
# processes and users, a low port. Not the namespaces', mounts', network's, tracing's, the kernel's.
KEPT_CAPS = frozenset({0, 1, 2, 3, 4, 5, 6, 7, 10, 29})
# The device nodes a check gets in its own /dev, each the host's (its terminals are a devpts of its own).
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
DEV_LINKS = (
    ("fd", "/proc/self/fd"),
    ("stdin", "/proc/self/fd/0"),
    ("stdout", "/proc/self/fd/1"),
    ("stderr", "/proc/self/fd/2"),
    ("ptmx", "pts/ptmx"),
)
MASKED = ("/proc/keys", "/proc/key-users")
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
EOPNOTSUPP = 95
ENOSYS = 38
# Kernel state the check could read that the agent can set and no namespace splits: extended attributes
# (on the folders shown, not in any record) and the kernel's key table (one for the machine, each key
# reachable by its serial). Refused as a file system without them, and a kernel without keys, would be;
# io_uring too (it reads extended attributes its own way), as where it is switched off. By the machine,
# each architecture a process there can call the kernel as (its audit number: a 64-bit process can make
# 32-bit calls), with that architecture's numbers: xattr reads, then the key calls and io_uring's, then
# unshare and clone (refused a new user namespace where the check is watched).
_I386 = (0x40000003, (229, 230, 231, 232, 233, 234), (286, 287, 288), (310, 120))
_ARM = (0x40000028, (229, 230, 231, 232, 233, 234), (309, 310, 311), (337, 120))
REFUSED = {
    "x86_64": (
        (0xC000003E, (191, 192, 193, 194, 195, 196, 464, 465), (248, 249, 250, 425, 426, 427), (272, 56)),
        _I386,
    ),
    "aarch64": (
        (0xC00000B7, (8, 9, 10, 11, 12, 13, 464, 465), (217, 218, 219, 425, 426, 427), (97, 220)),
        _ARM,
    ),
}
CLONE3 = 435  # the same number everywhere; its flags are in memory no filter reads: refused whole
EPERM = 1
SIGKILL = 9
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
EXIT_UNISOLATED = 125  # what the script itself answers when it cannot start the check

_libc = ctypes.CDLL(None, use_errno=True)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from tiergate.gate.sandboxwatch import Opened


def _call(name: str, *args: object) -> None:
    if getattr(_libc, name)(*args) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{name}: {os.strerror(code)}")


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str | None = None) -> None:
    encoded = [None if s is None else s.encode() for s in (source, target, kind, data)]
    _call("mount", encoded[0], encoded[1], encoded[2], ctypes.c_ulong(flags), encoded[3])


def _unshare(network: bool) -> None:
    """New namespaces, a user namespace among them even for root: in it every mount the check inherits is
    locked (none can be taken off to show what it covers), and it has a user keyring of its own."""
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP
    _call("unshare", flags | (CLONE_NEWNET if network else 0))


def _map(pid: str, uid: int, gid: int) -> None:
    """Every user is itself inside: root maps them all (files keep their owners), written from outside
    (only there does root have the power to); another user maps only itself, from inside."""
    maps = [("uid_map", f"0 0 {2**32 - 1}"), ("gid_map", f"0 0 {2**32 - 1}")]
    if uid != 0:
        maps = [("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")]
    for name, text in maps:
        with open(f"/proc/{pid}/{name}", "w") as f:
            f.write(text)


# The plan's words: `--hide` covers a folder with an empty one (the workspace, the temporary folders), `--rw`
# and `--ro` show one again inside them (the copy, the environment), `--net` gives the check a network of
# its own, `--cwd` is the folder to start in. Run by root, `--watch SOCKET KEY SINCE ...` names to the gate's
# watch each file the check opened through its own mounts that changed since SINCE (fanotify); in
# `--trusted` folders (the copy, tiergate's, `.git`), each file opened, with its stamp, for the gate to judge.
class Plan:
    """The plan's steps, in order: `("hide", folder)` covers it, `("rw" | "ro", folder)` shows it again,
    `("file", path)` a file, read-only; `("blank", path)`: an empty file of the check's own over it."""

    def __init__(self, args: list[str]) -> None:
        self.steps: list[tuple[str, str]] = []
        self.network = False
        self.cwd = "/"
        self.watch: tuple[str, str, float, str] | None = None
        self.trusted: list[str] = []
        # Run watched: the init tells the launcher its pid once the mounts are made, and waits until told
        # they are marked (`sandboxwatch`), before the check starts.
        self.sync: tuple[int, int] | None = None
        words = iter(args)
        for word in words:
            if word == "--net":
                self.network = True
            elif word in ("--hide", "--rw", "--ro", "--file", "--dev", "--sys", "--blank"):
                self.steps.append((word[2:], next(words)))
            elif word == "--cwd":
                self.cwd = next(words)
            elif word == "--watch":
                self.watch = (next(words), next(words), float(next(words)), next(words))
            elif word == "--trusted":
                self.trusted.append(next(words))
            else:
                raise ValueError(f"unknown word in the plan: {word!r}")


def _covered(plan: Plan) -> None:
    """The plan's steps taken, then a /proc of the new process namespace."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    # Opened before anything is covered: each is shown again from what its descriptor still reaches.
    held = {p: os.open(p, os.O_PATH) for step, p in plan.steps if step not in ("hide", "dev", "sys", "blank")}
    devices = {d: os.open(f"/dev/{d}", os.O_PATH) for d in DEVICES if os.path.exists(f"/dev/{d}")}
    for step, path in plan.steps:
        if step == "dev":
            _own_dev(path, devices)
            continue
        if step == "blank":  # made in the check's own /dev, bound, and let go: only the mount holds it
            source = "/dev/.tiergate-blank"
            os.close(os.open(source, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600))
            _mount(source, path, None, MS_BIND)
            os.unlink(source)
            continue
        if step == "sys":  # the sysfs of the check's own network: none of the host's interfaces
            _mount("sysfs", path, "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY)
            continue
        if step == "file":  # a file shown read-only: bound over an empty one made for it
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        else:
            os.makedirs(path, exist_ok=True)
        if step == "hide":
            _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
            continue
        _mount(f"/proc/self/fd/{held[path]}", path, None, MS_BIND | MS_REC)
        if step in ("ro", "file"):
            _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _kept_flags(path))
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    # The key table lists every key the check's uid may view, with its description: empty here.
    for listing in MASKED:
        if os.path.exists(listing) and "null" in devices:
            _mount(f"/proc/self/fd/{devices['null']}", listing, None, MS_BIND)
    for fd in (*held.values(), *devices.values()):
        os.close(fd)


def _own_dev(path: str, devices: dict[str, int]) -> None:
    """A /dev of the check's own: the usual device nodes and terminals, the host's, and nothing written in
    the host's /dev (root can leave plain files there)."""
    _mount("tmpfs", path, "tmpfs", MS_NOSUID, "mode=755")
    for name, fd in devices.items():
        target = os.path.join(path, name)
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o600))
        _mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
    os.mkdir(os.path.join(path, "pts"))
    _mount("devpts", os.path.join(path, "pts"), "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666")
    for name, target in DEV_LINKS:
        os.symlink(target, os.path.join(path, name))


# statvfs's flag -> mount's: a remount in a user namespace must keep the flags its mount was locked with.
_LOCKED = ((2, MS_NOSUID), (4, MS_NODEV), (8, MS_NOEXEC), (1024, 1024), (2048, 2048), (4096, 1 << 21))


def _kept_flags(path: str) -> int:
    found = os.statvfs(path).f_flag
    return sum(flag for bit, flag in _LOCKED if found & bit)


def _loopback_up() -> None:
    import _socket
    import fcntl
    import struct

    s = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
    try:
        fcntl.ioctl(s.fileno(), SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", IFF_UP))
    finally:
        s.close()


def _init(plan: Plan, argv: list[str], report: int) -> int:
    """The namespace's first process: sets it up, starts the check, and answers with its wait status. When
    it ends, the kernel ends every process left in the namespace."""
    _call("prctl", PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)
    outside = os.readlink("/proc/self")  # this process's pid outside, while the host's /proc is there
    _covered(plan)
    if plan.network:
        _loopback_up()
    # The host's name and session keyring are the agent's to set: the check gets its own.
    _call("sethostname", HOSTNAME, len(HOSTNAME))
    _call("setdomainname", b"(none)", 6)
    _libc.syscall(SYS_KEYCTL.get(os.uname().machine, -1), KEYCTL_JOIN_SESSION_KEYRING, None)
    os.chdir(plan.cwd)
    if plan.sync is not None:
        told_mounted, marked = plan.sync
        os.write(told_mounted, outside.encode())
        os.read(marked, 1)
        os.close(told_mounted)
        os.close(marked)
    child = os.fork()
    if child == 0:
        os.close(report)
        try:
            _powerless(nested=plan.watch is None)
            os.execvp(argv[0], argv)
        except OSError as exc:
            print(f"could not run {argv[0]}: {exc}", file=sys.stderr)
            os._exit(127)
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            return 1
        if pid == child:
            os.write(report, str(status).encode())
            return 0


def _powerless(*, nested: bool) -> None:
    """No power over mounts, names or the kernel survives the exec, not even root's (its bounding set holds
    only `KEPT_CAPS`), and no program gains one: the check cannot take off a cover (in a user namespace of
    its own, made from there, every cover is locked to what it covers), set the name, or mount. Not
    `nested`: nor make a user namespace (where it could mount the files it sees again, unwatched)."""
    _call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    with open("/proc/sys/kernel/cap_last_cap") as f:
        last = int(f.read())
    for cap in range(last + 1):
        if cap not in KEPT_CAPS:
            _call("prctl", PR_CAPBSET_DROP, cap, 0, 0, 0)
    _refusing(nested)


def _refusing(nested: bool) -> None:
    """A seccomp filter refusing `REFUSED`'s calls, each architecture's (x32's calls all refused), and
    unless `nested`, a new user namespace (clone3 refused as a kernel without it: the C library falls
    back to clone); another machine's run as they are."""
    import struct

    arches = REFUSED.get(os.uname().machine)
    if arches is None:
        return
    allow, errno_of = 0x7FFF0000, 0x00050000
    load, equal, at_least, has, answer = 0x20, 0x15, 0x35, 0x45, 0x06  # BPF: ld [k], jeq, jge, jset, ret
    program: list[tuple[int, int, int, int]] = []
    for index, (arch, xattrs, keys, (unshare, clone)) in enumerate(arches):
        refused = [(nr, EOPNOTSUPP) for nr in xattrs] + [(nr, ENOSYS) for nr in keys]
        refused += [] if nested else [(CLONE3, ENOSYS)]
        x32 = [(at_least, 0, 1, 0x40000000), (answer, 0, 0, errno_of | ENOSYS)] if index == 0 else []
        rules = [(load, 0, 0, 0), *x32]  # the call's number
        for nr, code in refused:
            rules += [(equal, 0, 1, nr), (answer, 0, 0, errno_of | code)]
        if not nested:  # unshare or clone: their flags (the first argument's low half) ask a user namespace?
            rules += [(equal, 1, 0, unshare), (equal, 0, 3, clone), (load, 0, 0, 16)]
            rules += [(has, 0, 1, CLONE_NEWUSER), (answer, 0, 0, errno_of | EPERM)]
        rules.append((answer, 0, 0, allow))
        # This architecture's section, skipped whole when the call is another's.
        program += [(load, 0, 0, 4), (equal, 0, len(rules), arch), *rules]
    program.append((answer, 0, 0, allow))
    buffer = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *rule) for rule in program))
    fprog = ctypes.create_string_buffer(struct.pack("HxxxxxxP", len(program), ctypes.addressof(buffer)))
    _call("prctl", PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog, 0, 0)


def _run(plan: Plan, argv: list[str]) -> int:
    uid, gid = os.geteuid(), os.getegid()
    if uid != 0:
        _unshare(plan.network)
        _map("self", uid, gid)
        return _started(plan, argv)
    watch = _watch(plan)
    ready, told_ready = os.pipe()
    go, told_go = os.pipe()
    if watch is not None:
        mounted, told_mounted = os.pipe()
        marked, told_marked = os.pipe()
        plan.sync = (told_mounted, marked)
    inside = os.fork()
    if inside == 0:
        os.close(ready)
        os.close(told_go)
        if watch is not None:
            for fd in (watch.fd, mounted, told_marked):
                os.close(fd)
        code = EXIT_UNISOLATED
        try:
            _call("prctl", PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)
            _unshare(plan.network)
            os.write(told_ready, b"1")
            if os.read(go, 1) == b"1":
                code = _started(plan, argv)
        except BaseException as exc:  # the namespace's maker must always end
            print(f"tiergate could not isolate the check: {exc}", file=sys.stderr)
        os._exit(code)
    os.close(told_ready)
    os.close(go)
    if os.read(ready, 1) == b"1":
        _map(str(inside), 0, 0)
        os.write(told_go, b"1")
    os.close(told_go)
    if watch is not None:
        os.close(told_mounted)
        os.close(marked)
        watch = watch if watch.marked(mounted, told_marked) else None
    if watch is not None:
        watch.read_until(inside)
    _, status = os.waitpid(inside, 0)
    if watch is not None and plan.watch is not None:
        watch.tell_and_close(plan.watch)
    return _mirrored(status)


def _watch(plan: Plan) -> Opened | None:
    """The watch on what the check opens, where the plan asks for one and the kernel gives it."""
    if plan.watch is None:
        return None
    # Run as a script, isolated: this folder is not on the search path; imported, the module is there.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import sandboxwatch  # type: ignore[import-not-found, unused-ignore]

    covers = [path for step, path in plan.steps if step == "hide"]
    blanks = [path for step, path in plan.steps if step == "blank"]
    try:
        watch: Opened = sandboxwatch.Opened(plan.watch[2], covers, blanks, plan.trusted)
        return watch
    except OSError as exc:
        print(f"tiergate could not watch the check's files: {exc}", file=sys.stderr)
        return None


def _started(plan: Plan, argv: list[str]) -> int:
    """The check started in the namespaces made, by their first process; its exit, mirrored."""
    readable, report = os.pipe()
    init = os.fork()
    if init == 0:
        os.close(readable)
        try:
            code = _init(plan, argv, report)
        except BaseException as exc:  # the namespace's init must always end
            print(f"tiergate could not isolate the check: {exc}", file=sys.stderr)
            code = EXIT_UNISOLATED
        os._exit(code)
    os.close(report)
    _, init_status = os.waitpid(init, 0)
    told = os.read(readable, 32)
    return _mirrored(int(told) if told else init_status)


def _mirrored(status: int) -> int:
    """The exit code for the wait `status`; ended by the same signal where Python left its default (not
    SIGINT's, SIGPIPE's)."""
    if os.WIFSIGNALED(status):
        os.kill(os.getpid(), os.WTERMSIG(status))
        return 128 + os.WTERMSIG(status)
    return os.waitstatus_to_exitcode(status)


def _probe() -> int:
    """Exit 0 where the namespaces can be made, with, run by root, why the kernel's watch cannot be had on
    stdout (nothing: it can)."""
    uid, gid = os.geteuid(), os.getegid()  # before: in the namespace, unmapped, they are no one's
    if uid == 0:
        plan = Plan(["--watch", "", "", "0", ""])
        watch = _watch(plan)
        if watch is None:
            print("fanotify refused")
        else:
            watch.close()
    try:
        _unshare(network=True)
        if uid != 0:
            _map("self", uid, gid)
        _mount(None, "/", None, MS_REC | MS_PRIVATE)
    except OSError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


def main(args: list[str]) -> int:
    if args[:1] == ["--probe"]:
        return _probe()
    if "--" not in args or args.index("--") == len(args) - 1:
        print("usage: sandboxinit.py PLAN -- ARGV", file=sys.stderr)
        return 2
    split = args.index("--")
    try:
        return _run(Plan(args[:split]), args[split + 1 :])
    except OSError as exc:
        if exc.errno in (errno.EPERM, errno.EINVAL, errno.ENOSYS):
            print(f"tiergate could not isolate the check: {exc}", file=sys.stderr)
        raise


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
