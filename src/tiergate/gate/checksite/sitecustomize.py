# mypy: ignore-errors
"""tiergate: what every Python process of a gate's check runs first (written for one run).

Copied as `sitecustomize.py` into a folder first on PYTHONPATH; never imported by tiergate itself. Stdlib
only, silent, any Python 3.8+; the sitecustomize it shadows runs after. Each part acts only where its
variable is set: TIERGATE_IMPORTED (`_tiergate_watch`), TIERGATE_COVERAGE_PLAN (`_tiergate_measure`).
"""


# TIERGATE_IMPORTED (`tiergate.gate.imported`, in a claim's copy): what the process reads and whom it talks
# to. An audit hook, which no code can take away once it is added, tells the gate's socket (named by the
# variable) each file the process opens, resolved, with its change time as it is opened (the import system
# opens every source and bytecode file through the same call), whether it opens it to write, each library
# it loads with ctypes, each file it maps (shared memory too), each address it connects to and each it
# binds; each as soon as it is seen, so that a process that ends without its exit handlers has still told.
# At exit the files of the modules loaded are told (a native extension is loaded without that call).
def _tiergate_watch():
    import json
    import os
    import socket
    import sys

    where = os.environ.get("TIERGATE_IMPORTED")
    if not where:
        return
    # The gate listens on a socket with no file (Linux's abstract names, "@..."): what a process sends
    # there no other process can take back, as it could a file beside the copy.
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect("\0" + where[1:] if where.startswith("@") else where)
    send = conn.sendall
    dumps = json.dumps
    send((dumps({"key": os.environ.get("TIERGATE_IMPORTED_KEY", "")}) + "\n").encode())
    seen = set()
    resolved = _tiergate_resolver()

    def tell(kind, path):
        try:
            told = _tiergate_told(kind, resolved(path))
            mark = (kind, told[kind], told["c"])
            if mark in seen:
                return
            seen.add(mark)
            send((dumps(told) + "\n").encode())
        except Exception:  # nothing there (nothing read), or the gate gone: never the check's error
            return

    def hook(event, args):
        if event == "open" and args and not isinstance(args[0], int):
            tell("w" if _tiergate_writes(*args[1:3]) else "r", args[0])
        elif event == "ctypes.dlopen" and args and args[0]:
            tell("r", args[0])
        elif event == "mmap.__new__" and args and isinstance(args[0], int) and args[0] >= 0:
            tell("r", "/proc/self/fd/%d" % args[0])  # shared memory, a file opened elsewhere: what it is
        elif event in _TIERGATE_SOCKETS and len(args) > 1:
            try:
                address = _tiergate_address(args[1])
                if isinstance(address, str) and not address.startswith("@"):
                    address = resolved(address)  # `~/./calc.sock` is `~/calc.sock`
                send((dumps({_TIERGATE_SOCKETS[event]: address}) + "\n").encode())
            except Exception:
                return

    def at_exit():
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if isinstance(path, str):
                tell("r", path)

    sys.addaudithook(hook)
    import atexit

    atexit.register(at_exit)


def _tiergate_resolver():
    """A function giving a path with every link resolved (`/proc/self/root/...`, a link into the
    workspace), this process's own `/proc/PID/` as `/proc/self/`; folders resolved once."""
    import os

    folders = {}
    own = "/proc/%d/" % os.getpid()

    def resolved(path):
        path = os.fspath(path)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        folder, name = os.path.split(os.path.abspath(path))
        found = folders.get(folder)
        if found is None:
            found = folders[folder] = os.path.realpath(folder)
        path = os.path.realpath(path) if os.path.islink(path) else os.path.join(found, name)
        return "/proc/self/" + path[len(own) :] if path.startswith(own) else path

    return resolved


def _tiergate_told(kind, path):
    """What to tell of `path` as it is opened: for a read, its change time and whether another name links
    to it (a hard link made to a file elsewhere); for a write, whether it was there (only a file a check
    makes is its own output). A file read again after it changed is told again."""
    import os

    if kind == "r":
        info = os.stat(path)
        return {"r": path, "c": info.st_ctime, "l": info.st_nlink > 1}
    return {"w": path, "c": os.path.lexists(path)}


_TIERGATE_SOCKETS = {"socket.connect": "n", "socket.sendto": "n", "socket.bind": "b"}


def _tiergate_writes(mode=None, flags=None):
    """Whether an open's mode (`open`'s) or flags (`os.open`'s) write."""
    import os

    if isinstance(mode, str):
        return any(c in mode for c in "wax+")
    return isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR))


def _tiergate_address(address):
    """A socket address as JSON takes it: an abstract Unix name as "@name", a host and port as a list."""
    if isinstance(address, bytes):
        address = address.decode("utf-8", "replace")
    if isinstance(address, str):
        return "@" + address[1:] if address.startswith("\0") else address
    return [str(part) for part in list(address)[:2]]


# TIERGATE_COVERAGE_PLAN (`tiergate.gate.coverage.measuring`): line coverage of the change's files only.
# The change's modules get a probe before each statement (not coverage.py: its tracer cost over the gate's
# 25% budget); each process writes at exit the statement lines of each measured file and the ones that ran.
# See docs/ARCHITECTURE.md, "Coverage measured at the gate".
def _tiergate_measure():
    import json
    import os

    plan_path = os.environ.get("TIERGATE_COVERAGE_PLAN")
    if not plan_path:
        return
    with open(plan_path) as f:
        plan = json.load(f)
    tag = "%d-%s" % (os.getpid(), os.urandom(4).hex())

    def write(files, tool):
        with open(os.path.join(plan["out"], "report-" + tag), "w") as f:
            f.write(json.dumps({"tool": tool, "files": files}))

    _tiergate_probes(plan, write)


_TIERGATE_FUNCTIONS = ("FunctionDef", "AsyncFunctionDef", "ClassDef")


def _tiergate_instrument(statements, lines, docstring):
    """`statements` with a probe before each one (docstrings and __future__ imports aside), inner
    bodies too; their lines added to `lines`."""
    import ast

    out = []
    for index, node in enumerate(statements):
        is_doc = docstring and index == 0 and isinstance(node, ast.Expr)
        is_doc = is_doc and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if not (is_doc or future):
            lines.add(node.lineno)
            probe = ast.parse("__tiergate_lines__[%d] = 1" % node.lineno).body[0]
            for part in ast.walk(probe):
                ast.copy_location(part, node)
            out.append(probe)
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(node, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                defines = field == "body" and type(node).__name__ in _TIERGATE_FUNCTIONS
                setattr(node, field, _tiergate_instrument(inner, lines, defines))
        for holder in getattr(node, "handlers", []) + getattr(node, "cases", []):
            holder.body = _tiergate_instrument(holder.body, lines, False)
        out.append(node)
    return out


def _tiergate_stems(paths):
    import os

    stems = set()  # the last part of each module's name: a package's folder, or the file's stem
    for path in paths:
        stem = os.path.splitext(os.path.basename(path))[0]
        stems.add(os.path.basename(os.path.dirname(path)) if stem == "__init__" else stem)
    return stems


def _tiergate_probes(plan, write):
    import ast
    import atexit
    import importlib.machinery
    import os
    import sys

    wanted = set(plan["include"])
    stems = _tiergate_stems(wanted)
    probed = {}  # file -> (statement lines, {line run: 1})

    class Loader(importlib.machinery.SourceFileLoader):
        def get_code(self, fullname):
            # Never from or to __pycache__: the probes are for this run only.
            path = self.get_filename(fullname)
            tree = ast.parse(self.get_data(path), path)
            lines = set()
            tree.body = _tiergate_instrument(tree.body, lines, True)
            probed.setdefault(os.path.realpath(path), (lines, {}))
            return compile(tree, path, "exec", dont_inherit=True)

        def exec_module(self, module):
            code = self.get_code(module.__name__)
            module.__dict__["__tiergate_lines__"] = probed[os.path.realpath(self.path)][1]
            exec(code, module.__dict__)
            for call in list(on_load):
                call(module)

    class Finder:
        @classmethod
        def find_spec(cls, name, path=None, target=None):
            if name.rpartition(".")[2] not in stems:
                return None
            spec = None
            for finder in sys.meta_path:  # as the import would find it (an editable install's finder, say)
                if finder is not cls and hasattr(finder, "find_spec"):
                    spec = finder.find_spec(name, path, target)
                    if spec is not None:
                        break
            loader = getattr(spec, "loader", None)
            if not isinstance(loader, importlib.machinery.SourceFileLoader):
                return None
            if os.path.realpath(spec.origin) not in wanted:
                return None
            spec.loader = Loader(loader.name, loader.path)
            return spec

    def report():
        write(
            {name: [sorted(lines), sorted(ran)] for name, (lines, ran) in probed.items()},
            "tiergate line probes",
        )

    on_load = []
    # For tiergate_mutants: which tests ran which lines, and who is told as each module's import ends.
    globals().update(_tiergate_probed=probed, _tiergate_on_load=on_load)
    atexit.register(report)
    sys.meta_path.insert(0, Finder)


def _tiergate_chain():
    # The sitecustomize this one shadows on sys.path runs too (the environment's, the system's).
    import importlib.machinery
    import importlib.util
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


# The measurement first: it reads its plan, a file of tiergate's, before the watch begins.
for _tiergate_part in (_tiergate_measure, _tiergate_watch):
    try:
        _tiergate_part()
    except Exception:
        pass
_tiergate_chain()
