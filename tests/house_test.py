"""The house's limits, read off the source: module and function sizes, signatures, docstrings, and where
an import may be deferred (docs/ARCHITECTURE.md, "Rules every module keeps")."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "tiergate"
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 60
MAX_PARAMETERS = 6
MAX_DOCSTRING_LINES = 6
# The hook's entry point reads the wire protocol in one place, so its one function may be long.
EXEMPT_FUNCTIONS = {("hook/entry.py", "main")}
# Where the hook starts (`python -m tiergate hook`), and the event adapters it imports by name
# (tiergate.handlers.handle): what they reach may defer an import, so a Stop pays only for what it uses.
HOOK_ROOTS = ("tiergate.__main__", "tiergate.handlers.")
# Run in the checks' own processes, not imported by tiergate: each defers for its host process's start.
IN_CHECKS = (
    *("tiergate.gate.checksite.", "tiergate.gate.mutation.pytest", "tiergate.gate.pytestoutcomes"),
    *("tiergate.gate.sandboxinit", "tiergate.gate.sandboxwatch"),
)

Function = ast.FunctionDef | ast.AsyncFunctionDef


def sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*") if p.suffix in {".py", ".cjs", ".mjs"})


def python_sources() -> list[Path]:
    return [p for p in sources() if p.suffix == ".py"]


def relative(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def functions(tree: ast.AST) -> Iterator[Function]:
    yield from (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))


def parameters(function: Function) -> list[str]:
    args = function.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return [n for n in names if n not in {"self", "cls"}]


def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_no_module_over_the_limit() -> None:
    over = {
        relative(p): n
        for p in sources()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert over == {}


def test_no_function_over_the_limits() -> None:
    long, wide = {}, {}
    for path in python_sources():
        for function in functions(parsed(path)):
            where = (relative(path), function.name)
            if where in EXEMPT_FUNCTIONS:
                continue
            size = (function.end_lineno or function.lineno) - function.lineno + 1
            if size > MAX_FUNCTION_LINES:
                long[f"{where[0]}:{function.lineno} {function.name}"] = size
            if len(names := parameters(function)) > MAX_PARAMETERS:
                wide[f"{where[0]}:{function.lineno} {function.name}"] = len(names)
    assert (long, wide) == ({}, {})


def test_docstrings_are_a_few_lines() -> None:
    long = {}
    for path in python_sources():
        tree = parsed(path)
        holders = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef | ast.FunctionDef))]
        for holder in holders:
            doc = ast.get_docstring(holder, clean=False)
            if doc is not None and (size := len(doc.strip().splitlines())) > MAX_DOCSTRING_LINES:
                long[f"{relative(path)} {getattr(holder, 'name', '<module>')}"] = size
    assert long == {}


def imported_modules(tree: ast.AST, name: str, is_package: bool) -> set[str]:
    """The tiergate modules an AST imports, wherever in it (a deferred import counts)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            package = name if is_package else name.rpartition(".")[0]
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = node.module if node.level == 0 else ".".join(p for p in (package, node.module) if p)
            found |= {base or ""} | {f"{base}.{a.name}" for a in node.names}
    return {m for m in found if m.startswith("tiergate")}


def hook_path(modules: dict[str, Path]) -> set[str]:
    reached: set[str] = set()
    todo = [m for m in modules if m == HOOK_ROOTS[0] or m.startswith(HOOK_ROOTS[1])]
    while todo:
        name = todo.pop()
        if name in reached or name not in modules:
            continue
        reached.add(name)
        path = modules[name]
        found = imported_modules(parsed(path), name, path.name == "__init__.py")
        todo += [m for m in found if m in modules]
        todo += [m.rpartition(".")[0] for m in found]  # a package's __init__ runs with its modules
    return reached


def deferred_imports(tree: ast.Module) -> int:
    inside = {
        id(node)
        for function in functions(tree)
        for node in ast.walk(function)
        if isinstance(node, ast.Import | ast.ImportFrom)
    }
    return len(inside)


@pytest.mark.parametrize("script", ["reaper.py", "gate/sandboxinit.py"])
def test_a_module_run_by_path_imports_nothing_of_tiergate(script: str) -> None:
    """Run as `python -I -S <file>` (the reaper's watcher, the sandbox's launcher): tiergate is not there."""
    tree = parsed(PACKAGE / script)
    for node in ast.walk(tree):  # what only mypy reads does not run
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            node.body = []
    assert imported_modules(tree, "tiergate", True) == set()


def test_only_the_hook_path_defers_imports() -> None:
    modules = {module_name(p): p for p in python_sources()}
    on_path = hook_path(modules)
    assert {"tiergate.handlers.stop", "tiergate.loop.decision"} <= on_path
    elsewhere = {
        name: count
        for name, path in modules.items()
        if name not in on_path
        and not name.startswith(IN_CHECKS)
        and (count := deferred_imports(parsed(path))) > 0
    }
    assert elsewhere == {}


@pytest.mark.parametrize(
    "source", ["def f():\n    def g():\n        import os\n", "async def f():\n    from . import x\n"]
)
def test_a_deferred_import_is_counted(source: str) -> None:
    assert deferred_imports(ast.parse(source)) == 1
