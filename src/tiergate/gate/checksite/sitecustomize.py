# mypy: ignore-errors
"""tiergate: what every Python process of a gate's check runs first (written for one run).

Copied as `sitecustomize.py` into a folder the gate puts first on PYTHONPATH; never imported by tiergate
itself. It runs before the check's own code: stdlib only, silent, on any Python 3.8 or later; then the
sitecustomize it shadows runs too. Each part acts only where its variable is set:

- TIERGATE_IMPORTED (`tiergate.gate.imported`, in a claim's copy): which files the process reads its
  code from. An audit hook, which no code can take away once it is added, notes each code file the
  process opens (the import system opens every source and bytecode file it loads through the same call)
  and each file it opens under the folders TIERGATE_IMPORTED_WATCH names; each is written as soon as it
  is seen, so that a process that ends without its exit handlers has still told. At exit the files of
  the modules loaded are added (a native extension is loaded without that call).
- TIERGATE_COVERAGE_PLAN (`tiergate.gate.coverage.measuring`): line coverage of the change's files only.
  The change's modules get a probe before each statement (not coverage.py: its tracer cost over the
  gate's 25% budget); each process writes at exit the statement lines of each measured file and the ones
  that ran. See docs/ARCHITECTURE.md, "Coverage measured at the gate".
"""


def _tiergate_watch():
    import os
    import sys

    out = os.environ.get("TIERGATE_IMPORTED")
    if not out:
        return
    watched = tuple(
        p.rstrip("/") + "/" for p in os.environ.get("TIERGATE_IMPORTED_WATCH", "").split(os.pathsep) if p
    )
    code = (".py", ".pyc", ".pyw", ".so", ".pyd", ".pth")
    name = os.path.join(out, "%d-%s" % (os.getpid(), os.urandom(4).hex()))
    handle = open(name, "w", buffering=1, encoding="utf-8", errors="surrogateescape")
    seen = set()
    absolute = os.path.abspath
    fspath = os.fspath

    def note(path):
        if path not in seen:
            seen.add(path)
            handle.write(path + "\n")

    def hook(event, args):
        if event != "open" or not args:
            return
        path = args[0]
        if isinstance(path, int):
            return
        try:
            path = absolute(fspath(path))
        except Exception:
            return
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if path.endswith(code) or path.startswith(watched):
            note(path)

    def at_exit():
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if isinstance(path, str):
                note(absolute(path))
        handle.flush()

    sys.addaudithook(hook)
    import atexit

    atexit.register(at_exit)


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


def _tiergate_probes(plan, write):
    import ast
    import atexit
    import importlib.machinery
    import os
    import sys

    wanted = set(plan["include"])
    stems = set()
    for path in wanted:
        stem = os.path.splitext(os.path.basename(path))[0]
        stems.add(os.path.basename(os.path.dirname(path)) if stem == "__init__" else stem)
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


for _tiergate_part in (_tiergate_watch, _tiergate_measure):
    try:
        _tiergate_part()
    except Exception:
        pass
_tiergate_chain()
