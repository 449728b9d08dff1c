"""Python code that reaches into its tests (see `reaching`): the added statements of an implementation
file, read with what the file's added lines say about names (which are bound to a test runner by an
import, which are module-level state, which a function declares `global`). Pure.

Imports are read with `ast` (one statement parses alone); the rest by patterns on the statement with its
string literals blanked, so that a word inside a string is never read as code.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from tiergate.tier.content.codelines import Statement, python_statements
from tiergate.tier.content.patch import FileLines
from tiergate.tier.content.pythonstate import judge_state, may_keep_state
from tiergate.tier.content.reaching import Mechanism, reach
from tiergate.tier.content.rule import ContentHit
from tiergate.tier.content.runners import (
    PYTHON_OUTCOMES,
    PYTHON_RUNNER_ENV,
    PYTHON_RUNNERS,
    gate_trace,
    python_runner,
)
from tiergate.tier.content.testfiles import names_test_path

_ID = r"[A-Za-z_][A-Za-z0-9_]*"
_STRING = re.compile(r"""[rRbBuU]{0,2}(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)')""")
_IMPORT = re.compile(r"^(?:import|from)[ \t]")
_DYNAMIC_IMPORT = re.compile(r"(?<![\w.])(?:importlib\.import_module|import_module|__import__)[ \t]*\(")
# An assignment to an attribute or item: `a.b = ...`, `a[k] += ...` (its target, its operator).
_TARGET = re.compile(
    rf"^(?P<target>{_ID}(?:\.{_ID}|\[[^\]\n]*\])*)[ \t]*"
    r"(?P<op>//|\*\*|<<|>>|[-+*/%&|^@])?=(?!=)"
)
_SETATTR = re.compile(rf"(?<![\w.])(?:setattr|delattr)[ \t]*\([ \t]*(?P<root>{_ID})")
_PATCHER = re.compile(
    r"(?<![\w])(?:monkeypatch\.setattr|patch(?:\.object|\.dict)?|mocker\.patch(?:\.object)?)[ \t]*\("
    rf"[ \t]*(?P<quote>[\"']?)(?P<root>{_ID})"
)
_OUTCOME_CALL = re.compile(rf"(?<![\w.])(?P<chain>{_ID}(?:\.{_ID})*)\.(?P<what>{_ID})[ \t]*\(")
_RAISE = re.compile(rf"^raise[ \t]+(?P<chain>{_ID}(?:\.{_ID})*)")
_BARE_CALL = re.compile(rf"(?<![\w.])(?P<name>{_ID})[ \t]*\(")
# An exit the runner would take for success: no status, 0, None, False, or one the line computes (a
# failing status fails the run, which the gate sees). A failing status, then the call's end:
_FAILING = r"""[ \t]*(?:[1-9][0-9]*|[rRbBuUfF]{0,2}(?:"[^"\n]*"|'[^'\n]*'))[ \t]*\)"""
_HARD_EXIT = re.compile(rf"(?<![\w.])os\._exit[ \t]*\((?!{_FAILING})")
_EXIT = re.compile(
    rf"(?<![\w.])(?P<what>sys\.exit|exit|quit)[ \t]*\((?!{_FAILING})"
    rf"|^raise[ \t]+(?P<raised>SystemExit)\b(?![ \t]*\({_FAILING})"
)
_ZERO_EXIT = re.compile(
    r"(?<![\w.])sys\.exit[ \t]*\([ \t]*(?:0|None|False)?[ \t]*\)"
    r"|^raise[ \t]+SystemExit[ \t]*(?:\([ \t]*(?:0|None|False)?[ \t]*\))?[ \t]*$"
)
_DEFINES = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]")
_CALLER = re.compile(
    r"(?<![\w.])(?P<what>sys\._getframe|sys\._current_frames|sys\.settrace|sys\.setprofile"
    r"|threading\.settrace|sys\.monitoring|gc\.get_referrers|gc\.get_objects"
    r"|inspect\.(?:stack|currentframe|getouterframes|getinnerframes|trace|getframeinfo)"
    r"|traceback\.(?:extract_stack|walk_stack|format_stack|print_stack|StackSummary)"
    r"|_getframe|currentframe)\b"
    r"|\.(?P<attribute>f_back|f_locals|f_globals)\b"
)
_READS = re.compile(
    r"\bsys\.modules\b|(?<![\w])(?:open|Path|PurePath|PosixPath|glob|iglob|listdir|scandir|walk|import_module|__import__"
    r"|run_path|run_module|spec_from_file_location|SourceFileLoader|getsource|getsourcelines|getlines)"
    r"[ \t]*\(|\.(?:read_text|read_bytes|joinpath|glob|rglob|iterdir|join)[ \t]*\(|__file__|/[ \t]*[\"']"
)
_PRESENCE_WORDS = re.compile(
    r"\b(?:modules|argv|orig_argv|find_spec|find_loader|environ|getenv|executable)\b"
)
# pytest's documented flag for code that asks whether it runs under test; the command line of the
# process that started this one (`psutil`'s, `/proc/<pid>/cmdline`).
_ASKS_RUNNER = re.compile(r"\b(?P<what>_called_from_test)\b|(?P<cmdline>\.cmdline[ \t]*\(|/cmdline\b)")
# The machinery every test's code is imported and built through: Python's import hooks and builtins.
_MACHINERY = re.compile(
    r"^(?P<what>(?:builtins|__builtins__)[ \t]*(?:\.[ \t]*\w+|\[[^\]\n]*\]))[ \t]*=(?!=)"
    r"|(?<![\w.])(?P<hook>sys\.(?:meta_path|path_hooks))[ \t]*"
    r"(?:\.[ \t]*(?:insert|append)[ \t]*\(|\[[^\]\n]*\][ \t]*=(?!=))"
    r"|(?<![\w.])setattr[ \t]*\([ \t]*(?P<set>builtins|__builtins__)\b"
)
_MENTIONED = re.compile(
    r"\b(?:pytest|_pytest|unittest|doctest|nose2?|xdist|py\.test|SkipTest|setattr|delattr|patch|builtins"
    r"|__builtins__|meta_path|path_hooks|modules|import_module|__import__)\b"
)
_CLI_NAMES = frozenset({"__main__.py", "cli.py", "main.py", "manage.py", "setup.py", "noxfile.py"})
_CLI_DIRS = frozenset({"bin", "scripts", "cli", "commands", "tools"})


@dataclass
class _Names:
    """The names the file's imports bind to a test runner (its added lines', and its removed ones: an
    import the change moved is still there)."""

    runner: dict[str, str] = field(default_factory=dict)  # bound to a runner's module or name: its root
    outcomes: set[str] = field(default_factory=set)  # names imported from a runner that decide outcomes
    # Any of those, a runner's own name, or what patches and imports by name: a statement without one
    # patches and calls no runner.
    mentioned: re.Pattern[str] = _MENTIONED


# What a mechanism's statements hold, one of these at least: a file whose added lines hold none is not
# searched for it (most files of a large change hold none of any).
_RUNNER_WORDS = (
    *("pytest", "unittest", "doctest", "nose", "xdist", "py.test", "SkipTest", "builtins", "meta_path"),
    *("path_hooks", "sys.modules", "import_module", "__import__"),
)
_EXIT_WORDS = ("exit", "quit", "SystemExit")
_CALLER_WORDS = (
    *("_getframe", "_current_frames", "settrace", "setprofile", "monitoring", "get_referrers"),
    *("get_objects", "inspect.", "traceback.", "currentframe", "f_back", "f_locals", "f_globals"),
)
# A string naming a test path (`tests/`, `test_*.py`, `x.spec.js`, "tests"), or a runner's presence asked for.
_LITERAL_WORDS = (
    *("tests", "test/", "/test", "test_", "_test", ".test.", ".spec.", "conftest", "'test'", '"test"'),
    *("spec/", "'spec'", '"spec"', "PYTEST", "_PYTEST", "UNITTEST_", "NOSE_", "cmdline"),
)


def judge_python(changed: FileLines) -> Iterator[ContentHit]:
    text = "\n".join(changed.added)
    runner = _holds(text, _RUNNER_WORDS) or _holds("\n".join(changed.removed), _RUNNER_WORDS)
    exits = _holds(text, _EXIT_WORDS) and not _cli(changed)
    caller = _holds(text, _CALLER_WORDS)
    literals = _holds(text, _LITERAL_WORDS) or runner or gate_trace(text) is not None
    state = may_keep_state(text)
    if not (runner or exits or caller or literals or state):
        return
    statements = [s for s in python_statements(changed) if not s.within("main")]
    names = _names(statements, changed) if runner else _Names()
    for statement in statements:
        if runner:
            yield from _runner(changed.path, statement, names)
        if exits:
            yield from _exits(changed.path, statement)
        if caller:
            yield from _caller(changed.path, statement)
        if literals:
            yield from _literal(changed.path, statement)
    if state:
        yield from judge_state(changed.path, statements)


def _holds(text: str, words: tuple[str, ...]) -> bool:
    return any(word in text for word in words)


def _names(statements: list[Statement], changed: FileLines) -> _Names:
    names = _Names()
    removed = [line.strip() for line in changed.removed if _IMPORT.match(line.strip())]
    for text in [*removed, *(s.text for s in statements if _IMPORT.match(s.code))]:
        for bound, root, imported in _imports(text):
            names.runner[bound] = root
            if imported in PYTHON_OUTCOMES:
                names.outcomes.add(bound)
    if names.runner:
        bound_names = "|".join(re.escape(n) for n in sorted(names.runner))
        names.mentioned = re.compile(f"{_MENTIONED.pattern}|\\b(?:{bound_names})\\b")
    return names


def imported_runners(text: str) -> frozenset[str]:
    """The runners (their roots) an import statement imports from."""
    return frozenset(root for _, root, _ in _imports(text))


def _imports(text: str) -> Iterator[tuple[str, str, str]]:
    """(name bound, runner root, name imported) for each runner module or name an import statement binds."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = python_runner(alias.name)
                if root is not None:
                    yield alias.asname or alias.name.split(".")[0], root, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            root = python_runner(node.module)
            if root is not None:
                for alias in node.names:
                    yield alias.asname or alias.name, root, alias.name


def _runner(path: str, statement: Statement, names: _Names) -> Iterator[ContentHit]:
    code, text, number = statement.code, statement.text, statement.number
    if _IMPORT.match(code):
        if not statement.within("typing"):  # an annotation's import runs nothing
            roots = sorted(imported_runners(text))
            if roots:
                yield reach(path, number, Mechanism.IMPORTS, ", ".join(roots), statement.first)
        return
    if names.mentioned.search(text) is None:
        return
    for found in _DYNAMIC_IMPORT.finditer(code):
        literal = _first_literal(text[found.end() :])
        if literal is not None and python_runner(literal) is not None:
            yield reach(path, number, Mechanism.IMPORTS, literal, statement.first)
    patched = _patched(code, text, names)
    if patched is not None:
        yield reach(path, number, Mechanism.PATCHES, patched, statement.first)
        return
    called = _called(code, names)
    if called is not None:
        yield reach(path, number, Mechanism.CALLS, called, statement.first)


def _is_runner(name: str, names: _Names) -> bool:
    return name in names.runner or name in PYTHON_RUNNERS


def _patched(code: str, text: str, names: _Names) -> str | None:
    """What a statement patches of a runner: an attribute or item assigned, `setattr`, a patcher's target,
    or `sys.modules[...]` of a runner replaced."""
    target = _TARGET.match(code)
    if target is not None and ("." in target["target"] or "[" in target["target"]):
        chain = target["target"]
        root = chain.split(".")[0].split("[")[0].strip()
        if _is_runner(root, names):
            return _dotted(chain)
        if chain.replace(" ", "").startswith("sys.modules["):
            literal = _first_literal(text[target.start("target") : target.end("target")])
            if literal is not None and python_runner(literal) is not None:
                return literal
    for found in _SETATTR.finditer(code):
        if _is_runner(found["root"], names):
            return str(found["root"])
    machinery = _MACHINERY.search(code)
    if machinery is not None:
        return re.sub(r"[ \t]|\[.*", "", machinery["what"] or machinery["hook"] or machinery["set"])
    for found in _PATCHER.finditer(text):
        root = found["root"]
        if _is_runner(root, names) or (found["quote"] and python_runner(root) is not None):
            return root
    return None


def _called(code: str, names: _Names) -> str | None:
    """A runner's outcome decided from code: `pytest.skip(...)`, `raise unittest.SkipTest`, `skip(...)`
    imported from pytest."""
    for found in _OUTCOME_CALL.finditer(code):
        root = found["chain"].split(".")[0]
        if found["what"] in PYTHON_OUTCOMES and _is_runner(root, names):
            return f"{found['chain']}.{found['what']}"
    raised = _RAISE.match(code)
    if raised is not None:
        chain = raised["chain"]
        last, root = chain.split(".")[-1], chain.split(".")[0]
        if last in PYTHON_OUTCOMES and (
            _is_runner(root, names) or last == "SkipTest" or root in names.outcomes
        ):
            return chain
    for found in _BARE_CALL.finditer(code):
        if found["name"] in names.outcomes:
            return found["name"]
    return None


def _exits(path: str, statement: Statement) -> Iterator[ContentHit]:
    code = statement.code
    if _DEFINES.match(code):
        return
    if _HARD_EXIT.search(code) is not None:
        yield reach(path, statement.number, Mechanism.EXITS, "os._exit", statement.first)
        return
    if statement.module_level and not statement.within("class"):
        found = _EXIT.search(code)
        if found is not None:
            what = found["what"] or found["raised"]
            yield reach(path, statement.number, Mechanism.EXITS, what, statement.first)
            return
    if _ZERO_EXIT.search(code) is not None:
        yield reach(path, statement.number, Mechanism.EXITS, "a successful exit", statement.first)


def _cli(changed: FileLines) -> bool:
    """Whether the file is a command line's, where an exit is its job (by its name or folder, or a
    shebang the change writes on its first line)."""
    folders, _, name = changed.path.rpartition("/")
    if name in _CLI_NAMES or "cli" in re.split(r"[_.-]", name):
        return True
    if any(part in _CLI_DIRS for part in folders.split("/")):
        return True
    return bool(changed.added_numbers) and changed.added_numbers[0] == 1 and changed.added[0].startswith("#!")


def _caller(path: str, statement: Statement) -> Iterator[ContentHit]:
    found = _CALLER.search(statement.code)
    if found is not None:
        what = found["what"] or found["attribute"]
        yield reach(path, statement.number, Mechanism.CALLER, what, statement.first)


def _literal(path: str, statement: Statement) -> Iterator[ContentHit]:
    """The test files read, or the runner's presence asked for, by the strings a statement holds."""
    code, text, number = statement.code, statement.text, statement.number
    literals = _literals(text)
    dotted = "import" in code or "modules" in code
    named = next((lit for lit in literals if names_test_path(lit, dotted=dotted)), None)
    if named is not None and _READS.search(code) is not None:
        yield reach(path, number, Mechanism.READS, named, statement.first)
        return
    presence = _presence(code, text, literals)
    if presence is not None:
        yield reach(path, number, Mechanism.PRESENCE, presence, statement.first)


def _literals(text: str) -> list[str]:
    if '"' not in text and "'" not in text:
        return []
    return [m.group(1) if m.group(1) is not None else m.group(2) for m in _STRING.finditer(text)]


def _presence(code: str, text: str, literals: list[str]) -> str | None:
    for literal in literals:
        if literal.startswith(PYTHON_RUNNER_ENV):
            return literal
    traced = gate_trace(text)
    if traced is not None:
        return traced
    if "cmdline" in text or "_called_from_test" in text:
        asks = _ASKS_RUNNER.search(text)
        if asks is not None:
            return str(asks["what"] or "cmdline")
    runner = next((lit for lit in literals if python_runner(lit) is not None), None)
    if runner is not None and _PRESENCE_WORDS.search(code) is not None:
        return runner
    if "argv" in code:
        return next((lit for lit in literals if names_test_path(lit)), None)
    return None


def _first_literal(text: str) -> str | None:
    found = _STRING.search(text)
    if found is None:
        return None
    return found.group(1) if found.group(1) is not None else found.group(2)


def _dotted(chain: str) -> str:
    return re.sub(r"\[[^\]]*\]", "[]", chain.replace(" ", ""))
