"""JavaScript and TypeScript code that reaches into its tests (see `reaching`): the added statements of an
implementation file, read with what its added lines say about names (bound to a test runner or an assertion
library by `require` or `import`, declared with `let` at module level or in an enclosing function). Pure;
regular expressions on statements whose string literals are blanked (`codelines`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from tiergate.tier.content.codelines import Statement, javascript_statements
from tiergate.tier.content.jsstate import judge_state
from tiergate.tier.content.patch import FileLines
from tiergate.tier.content.reaching import Mechanism, reach
from tiergate.tier.content.rule import ContentHit
from tiergate.tier.content.runners import JS_RUNNER_ENV, JS_RUNNER_GLOBALS, gate_trace, js_module
from tiergate.tier.content.testfiles import names_test_path

_ID = r"[A-Za-z_$][\w$]*"
_STRING = re.compile(r""""((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\\n]|\\.)*)`""")
_MODULE = r"""[ \t]*["'`](?P<module>[^"'`\n]+)["'`]"""
_REQUIRE = re.compile(r"(?<![\w$.])require[ \t]*\(" + _MODULE + r"[ \t]*\)")
_IMPORT_FROM = re.compile(r"^(?:import|export)\b(?P<what>[^;]*?)\bfrom" + _MODULE)
_IMPORT_BARE = re.compile(r"^import" + _MODULE)
_IMPORT_CALL = re.compile(r"(?<![\w$.])import[ \t]*\(" + _MODULE)
_BINDING = re.compile(rf"^(?:export[ \t]+)?(?:const|let|var)[ \t]+(?P<binding>{_ID}|\{{[^}}]*\}})[ \t]*=")
# Names a test file uses for an assertion library or a runner's object, whatever they are bound to.
_USUAL = frozenset({"assert", "expect", "chai", "should", "jest", "vi", "mocha"})
_TARGET = re.compile(
    rf"^(?P<target>{_ID}(?:\??\.{_ID}|\[[^\]\n]*\])+)[ \t]*"
    r"(?P<op>\*\*|<<|>>>|>>|[-+*/%&|^])?=(?![=>])"
)
_GLOBAL_SET = re.compile(rf"^(?:global|globalThis|window|self)\.(?P<name>{_ID})[ \t]*=(?![=>])")
_OBJECT_SET = re.compile(
    rf"(?<![\w$.])(?:Object\.(?:assign|defineProperty|defineProperties|setPrototypeOf)|Reflect\.set)[ \t]*\("
    rf"[ \t]*(?P<root>{_ID}|require[ \t]*\()"
)
# What a runner reads its verdict through, in the process: its exit and its output (a forged report).
_PROCESS_SET = re.compile(
    r"^(?P<what>process\.(?:exit|reallyExit|emit|stdout\.write|stderr\.write))[ \t]*=(?![=>])"
    r"|\bObject\.defineProperty[ \t]*\([ \t]*process[ \t]*,[ \t]*[\"'`](?P<property>exitCode)"
)
_REQUIRED_SET = re.compile(r"(?<![\w$.])require[ \t]*\(" + _MODULE + rf"[ \t]*\)(?:\.{_ID})+[ \t]*=(?![=>])")
_LOADER = re.compile(
    r"(?<![\w$])(?P<what>Module\.(?:_load|_resolveFilename|_compile|_extensions|prototype\.require)"
    r"|require\.(?:cache|extensions)[ \t]*\[[^\]\n]*\])[ \t]*(?:\.[\w$]+[ \t]*)?=(?![=>])"
)
_RUNNER_CALL = re.compile(
    r"(?<![\w$.])(?P<what>(?:it|test|describe|suite|context|specify)\.(?:skip|todo|only|skipIf|runIf|fails)"
    rf"|this\.skip|(?:jest|vi)\.{_ID})\b"
)
_CALL = re.compile(rf"(?<![\w$.])(?P<name>{_ID})[ \t]*(?:\.[ \t]*{_ID}[ \t]*)*\(")
# An exit the runner would take for success: no status, 0, or one the line computes (a failing status
# fails the run, which the gate sees).
_STATUS = r"""(?![ \t]*(?:[1-9][0-9]*|"[^"\n]*"|'[^'\n]*')[ \t]*[);])"""
_EXIT = re.compile(
    r"(?<![\w$.])process\.(?P<what>exit|reallyExit)[ \t]*\("
    + _STATUS
    + r"|(?<![\w$.])process\.(?P<code>exitCode)[ \t]*=(?![=>])"
    + _STATUS
)
# The code's own stack, read for what called it: an error made here (or a stack captured into an object),
# its `.stack` searched or split; the stack's callsites; a function's caller.
_OWN_ERROR = re.compile(rf"(?:const|let|var)[ \t]+(?P<name>{_ID})[ \t]*=[ \t]*(?:new[ \t]+)?Error[ \t]*\(")
_OWN_STACK = re.compile(
    rf"(?:const|let|var)[ \t]+(?P<name>{_ID})[ \t]*=[ \t]*(?:new[ \t]+)?Error[ \t]*\([^;]{{0,200}}?\)"
    r"[ \t]*\.[ \t]*stack"
)
_CAPTURED = re.compile(rf"\bError\.captureStackTrace[ \t]*\([ \t]*(?P<name>{_ID})")
_INSPECT = (
    r"[ \t]*(?:\??\.[ \t]*(?:split|includes|match|matchAll|indexOf|lastIndexOf|search|startsWith|endsWith)"
    r"[ \t]*\(|\[)"
)
_STACK_READ = re.compile(r"Error(?<![\w$]Error)[ \t]*\([^;]{0,200}?\)[ \t]*\.[ \t]*stack" + _INSPECT)
_CALLER = re.compile(
    r"\b(?P<what>Error\.prepareStackTrace(?=[ \t]*=[^=])|arguments\.callee|getCallSites(?=[ \t]*\()"
    r"|callsites(?=[ \t]*\())"
)
_READS = re.compile(
    r"(?<![\w$.])(?:require|import)[ \t]*\(|^import\b|\bfrom[ \t]*[\"'`]|\b(?:readFileSync|readFile"
    r"|readdirSync|readdir|existsSync|createReadStream|opendirSync|glob|globSync|fg|join|resolve)[ \t]*\("
    r"|\b__dirname\b|\b__filename\b|\bimport\.meta\.(?:url|dirname|filename)\b|\bnew[ \t]+URL[ \t]*\("
)
_ENV = re.compile(rf"\bprocess\.env(?:\.(?P<name>{_ID})|\[)")
_TYPEOF = re.compile(
    rf"\btypeof[ \t]+(?P<name>{_ID})[ \t]*[!=]==?|[!=]==?[ \t]*typeof[ \t]+(?P<after>{_ID})\b"
)
_ARGV = re.compile(r"\bprocess\.(?:argv|execArgv)\b")
_MAIN = re.compile(
    r"(?P<what>\brequire\.main\b(?![ \t]*[!=]==?[ \t]*module\b)|\bmodule\.(?:parent|children)\b"
    r"|\bprocess\.mainModule\b|(?<![\w$.])require\.cache\b|\bimport\.meta\.vitest\b)"
)
# A script's guard, as `if __name__ == "__main__"` is Python's: `require.main === module`, `!module.parent`.
# What each check's statements hold, one of these at least (a substring is found at `str.find` speed; most
# patterns here are not literal-first).
_RUNNER_CALL_WORDS = ("skip", "only", "todo", "fails", "runIf", "jest.", "vi.")
_CALLER_WORDS = ("stack", "Stack", "callee", "caller", "allSites", "callsites")
_MAIN_WORDS = (
    "require.main",
    "module.parent",
    "module.children",
    "mainModule",
    "require.cache",
    "meta.vitest",
)
_MAIN_GUARD = re.compile(
    r"\bmodule[ \t]*[!=]==?[ \t]*require\.main\b|!\s*module\.parent\b"
    r"|\bmodule\.parent[ \t]*[!=]==?[ \t]*(?:null|undefined)\b"
)
_CLI_DIRS = frozenset({"bin", "cli", "scripts", "tools", "commands"})


@dataclass
class _Names:
    bound: dict[str, str] = field(default_factory=dict)  # name -> "runner" or "assertion"
    errors: set[str] = field(default_factory=set)  # errors made (or stacks captured) by the code itself
    stacks: set[str] = field(default_factory=set)  # their stacks, bound to a name


# The words a mechanism's statements hold, one of them at least: a file whose added lines hold none is not
# searched for it (most files of a large change).
_RUNNER_WORDS = frozenset(
    {
        *("require", "import", "assert", "expect", "chai", "should", "jest", "vi", "mocha", "global"),
        *("globalThis", "window", "self", "Object", "Reflect", "Module", "process", "skip", "only", "todo"),
        *("fails", "skipIf", "runIf"),
    }
)
_EXIT_WORDS = frozenset({"exit", "reallyExit", "exitCode"})
_WORD = re.compile(r"[\w$]+")


def judge_javascript(changed: FileLines) -> Iterator[ContentHit]:
    statements = javascript_statements(changed)
    if not statements:
        return
    names = _names(statements)
    cli = _cli(changed)
    words = set(_WORD.findall("\n".join(changed.added)))
    runner = not words.isdisjoint(_RUNNER_WORDS)
    exits = not cli and not words.isdisjoint(_EXIT_WORDS)
    for statement in statements:
        if runner:
            yield from _runner(changed.path, statement, names)
        if exits:
            yield from _exits(changed.path, statement)
        yield from _inspection(changed.path, statement, names)
    if not cli:  # a script's own counters are not what the tests call
        yield from judge_state(changed.path, statements)


def _names(statements: list[Statement]) -> _Names:
    names = _Names()
    for statement in statements:
        code, text = statement.code, statement.text
        module = imported_module(text)
        kind = js_module(module) if module is not None else None
        if kind is not None:
            for name in _bound_names(text):
                names.bound[name] = kind
        for pattern, into in (
            (_OWN_STACK, names.stacks),
            (_OWN_ERROR, names.errors),
            (_CAPTURED, names.errors),
        ):
            into.update(m["name"] for m in pattern.finditer(code) if m["name"] != "this")
    return names


def imported_module(text: str) -> str | None:
    """The module a statement requires or imports, if any."""
    for pattern in (_REQUIRE, _IMPORT_FROM, _IMPORT_BARE, _IMPORT_CALL):
        found = pattern.search(text)
        if found is not None:
            return found["module"]
    return None


def _bound_names(text: str) -> set[str]:
    """The names an import or a `require` binds: `x`, `* as x`, `{ a, b as c }`, `const { a } = ...`."""
    bound: set[str] = set()
    found = _IMPORT_FROM.match(text)
    head = found["what"] if found is not None else ""
    binding = _BINDING.match(text)
    if binding is not None:
        head = binding["binding"]
    for part in re.split(r"[,{}]", head):
        words = part.replace("*", " ").split()
        if words and words[0] != "type":
            name = words[-1].split(":")[-1]
            if re.fullmatch(_ID, name):
                bound.add(name)
    return bound


def _runner(path: str, statement: Statement, names: _Names) -> Iterator[ContentHit]:
    code, text, number = statement.code, statement.text, statement.number
    module = imported_module(text)
    if module is not None and js_module(module) == "runner" and not text.startswith("import type"):
        yield reach(path, number, Mechanism.IMPORTS, module, statement.first)
        return
    patched = _patched(code, text, names)
    if patched is not None:
        yield reach(path, number, Mechanism.PATCHES, patched, statement.first)
        return
    found = _RUNNER_CALL.search(code) if _holds(code, _RUNNER_CALL_WORDS) else None
    if found is not None:
        yield reach(path, number, Mechanism.CALLS, found["what"], statement.first)
        return
    for call in _CALL.finditer(code) if "runner" in names.bound.values() else ():
        if names.bound.get(call["name"]) == "runner":
            yield reach(path, number, Mechanism.CALLS, call["name"], statement.first)
            return


def _patched(code: str, text: str, names: _Names) -> str | None:
    """What a statement patches of a runner or an assertion library: a property assigned (on a name bound
    to one, or one a test file would use: `assert`, `expect`), a global of theirs replaced, the object
    changed through `Object`, or the module loader the tests import through."""
    target = _TARGET.match(code)
    if target is not None:
        root = re.match(_ID, target["target"])
        if root is not None and (root.group() in names.bound or root.group() in _USUAL):
            return _shown(target["target"].replace(" ", ""))
    found = _GLOBAL_SET.match(code)
    if found is not None and found["name"] in JS_RUNNER_GLOBALS:
        return str(found["name"])
    return _patched_through(code, text, names)


def _patched_through(code: str, text: str, names: _Names) -> str | None:
    for found in _OBJECT_SET.finditer(code) if "Object." in code or "Reflect." in code else ():
        root = found["root"]
        if root in ("global", "globalThis", "window", "self"):
            named = _STRING.search(text, found.end())
            if named is not None and next(g for g in named.groups() if g is not None) in JS_RUNNER_GLOBALS:
                return f"{root}.{next(g for g in named.groups() if g is not None)}"
        elif root.startswith("require"):
            module = _REQUIRE.search(text, found.start("root"))
            if module is not None and js_module(module["module"]) is not None:
                return str(module["module"])
        elif root in names.bound or root in _USUAL:
            return str(root)
    process = _PROCESS_SET.search(text) if "process" in code else None
    if process is not None:
        return str(process["what"] or f"process.{process['property']}")
    required = _REQUIRED_SET.search(text)
    if required is not None and js_module(required["module"]) is not None:
        return str(required["module"])
    loader = _LOADER.search(code) if "Module" in code or "require." in code else None
    return _shown(loader["what"]) if loader is not None else None


def _holds(code: str, words: tuple[str, ...]) -> bool:
    return any(word in code for word in words)


def _cli(changed: FileLines) -> bool:
    folders, _, name = changed.path.rpartition("/")
    if "cli" in re.split(r"[._-]", name) or any(part in _CLI_DIRS for part in folders.split("/")):
        return True
    return bool(changed.added_numbers) and changed.added_numbers[0] == 1 and changed.added[0].startswith("#!")


def _exits(path: str, statement: Statement) -> Iterator[ContentHit]:
    found = _EXIT.search(statement.code) if "process" in statement.code else None
    if found is not None:
        what = f"process.{found['what'] or found['code'] or 'kill'}"
        yield reach(path, statement.number, Mechanism.EXITS, what, statement.first)


def _inspection(path: str, statement: Statement, names: _Names) -> Iterator[ContentHit]:
    code, text, number = statement.code, statement.text, statement.number
    what = _caller(statement, names)
    if what is not None:
        yield reach(path, number, Mechanism.CALLER, what, statement.first)
    literals = [next(g for g in m.groups() if g is not None) for m in _STRING.finditer(text)]
    named = next((lit for lit in literals if names_test_path(lit)), None)
    if named is not None and _READS.search(code) is not None:
        yield reach(path, number, Mechanism.READS, named, statement.first)
        return
    presence = _presence(code, literals)
    if presence is not None:
        yield reach(path, number, Mechanism.PRESENCE, presence, statement.first)


def _caller(statement: Statement, names: _Names) -> str | None:
    code = statement.code
    if not (_holds(code, _CALLER_WORDS) or names.errors or names.stacks):
        return None
    found = _CALLER.search(code)
    if found is not None:
        return found["what"]
    if "Error" in code and _STACK_READ.search(code) is not None:
        return "Error().stack"
    held = _held_stack(code, names)
    if held is not None:
        return held
    functions = {s.name for s in statement.scopes if s.name}
    found = re.search(rf"(?<![\w$.])(?P<fn>{_ID})\.caller\b", code)
    if found is not None and found["fn"] in functions:
        return f"{found['fn']}.caller"
    return None


def _held_stack(code: str, names: _Names) -> str | None:
    """A stack the code made itself, kept in a name, searched here."""
    for name in names.errors:
        if re.search(rf"(?<![\w$.]){re.escape(name)}\??\.stack" + _INSPECT, code):
            return f"{name}.stack"
    for name in names.stacks:
        if re.search(rf"(?<![\w$.]){re.escape(name)}" + _INSPECT, code):
            return name
    return None


def _presence(code: str, literals: list[str]) -> str | None:
    return _environment(code, literals) or _runner_around(code, literals) or _gate_traced(literals)


def _gate_traced(literals: list[str]) -> str | None:
    """A trace of the gate's runs in the code's strings (`runners.GATE_TRACES`)."""
    return next((found for lit in literals if (found := gate_trace(lit)) is not None), None)


def _environment(code: str, literals: list[str]) -> str | None:
    """A runner's environment variable read (`process.env.JEST_WORKER_ID`), or `NODE_ENV` compared
    with "test" (jest sets it)."""
    for found in _ENV.finditer(code) if "process" in code else ():
        name = found["name"]
        if name is not None and (name.startswith(JS_RUNNER_ENV) or gate_trace(name) is not None):
            return f"process.env.{name}"
        if name == "NODE_ENV" and "test" in literals:
            return "NODE_ENV"
    return next((lit for lit in literals if lit.startswith(JS_RUNNER_ENV)), None)


def _runner_around(code: str, literals: list[str]) -> str | None:
    """The runner looked for: its globals' type, its flags in the arguments, the module that loaded this
    one (a script's own guard, `require.main === module`, is not)."""
    for found in _TYPEOF.finditer(code) if "typeof" in code else ():
        name = found["name"] or found["after"]
        if name in JS_RUNNER_GLOBALS:
            return f"typeof {name}"
    if "rgv" in code and _ARGV.search(code) is not None:
        said = next((lit for lit in literals if _names_runner(lit)), None)
        if said is not None:
            return said
    loader = _MAIN.search(code) if _holds(code, _MAIN_WORDS) else None
    if loader is not None and not _MAIN_GUARD.search(code):
        return str(loader["what"]).replace(" ", "")
    return None


def _names_runner(literal: str) -> bool:
    """Whether a string names a runner or a test path: `--test`, `.bin/jest`, `test/calc.test.js`."""
    words = set(re.split(r"[^A-Za-z0-9]+", literal))
    return bool(words & {"test", "jest", "mocha", "vitest", "ava", "tap"}) or names_test_path(literal)


def _shown(chain: str) -> str:
    return re.sub(r"\[[^\]]*\]", "[]", chain)
