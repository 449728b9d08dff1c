"""The added lines of a code file as statements: physical lines joined while a bracket stays open, prose
(comments, docstrings, block comments) left out, each with its indentation and the functions it sits in.
Pure; read by the rules that need more than one line at a time (`reaching`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from tiergate.tier.content.patch import FileLines

# Only the added lines are known (`git diff -U0`), so a statement is joined only across consecutive added
# lines, and scope is read from indentation: a `def` or `function` line opens a scope the deeper lines below
# it are in, until a line as shallow as it. A gap in the added lines keeps the scopes open (the lines not
# shown are most often the rest of the same function).


# A statement longer than this many lines is read from its first line alone (a long literal table).
MAX_JOINED = 40
_PY_STRING = re.compile(r"""[rRbBuUfF]{0,2}(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""")
_JS_STRING = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\\n]|\\.)*`""")


@dataclass(frozen=True, slots=True)
class Scope:
    """A function (or a `__main__` guard, `kind` "main"; a `TYPE_CHECKING` block, "typing") the lines below
    it are in: its indentation, name, parameters, and those whose default is a mutable value."""

    indent: int
    name: str
    kind: str = "function"
    params: frozenset[str] = frozenset()
    mutable_defaults: frozenset[str] = frozenset()
    # A JavaScript function passed as an argument (`items.map((x) => {`): it runs within the call around it.
    passed: bool = False


# The function a statement is in when its header is not among the added lines.
UNSHOWN = Scope(-1, "", "function")


@dataclass(slots=True)
class Statement:
    """One statement of added lines: its first line's number and text (`first`), the joined text (`text`,
    strings kept), the same with string literals blanked (`code`), its indentation and enclosing scopes."""

    number: int
    first: str
    text: str
    code: str
    indent: int
    scopes: tuple[Scope, ...] = field(default_factory=tuple)
    lines: int = 1  # the physical lines joined
    # The innermost function it is in; `UNSHOWN` when it is indented under no header the added lines show;
    # None at module level (set with `scopes`).
    function: Scope | None = None

    @property
    def module_level(self) -> bool:
        """Whether it runs when the module is imported: in no function (a `__main__` guard's body runs
        only as a script)."""
        return not any(s.kind in ("function", "main") for s in self.scopes)

    @property
    def in_function(self) -> bool:
        """Whether it is in a function, or may be: indented, under a header the added lines do not show
        (a line added to a function's body is the commonest change)."""
        return self.function is not None

    def within(self, kind: str) -> bool:
        return any(s.kind == kind for s in self.scopes)


def blank_strings(text: str, python: bool) -> str:
    """`text` with each string literal's content replaced by spaces (quotes kept), so that a word or a
    bracket inside a string is not read as code."""
    if "'" not in text and '"' not in text and (python or "`" not in text):
        return text
    pattern = _PY_STRING if python else _JS_STRING
    return pattern.sub(lambda m: _blanked(m.group()), text)


def _blanked(literal: str) -> str:
    quote_at = next(i for i, c in enumerate(literal) if c in "\"'`")
    return literal[: quote_at + 1] + " " * (len(literal) - quote_at - 2) + literal[-1]


def _depth(code: str, python: bool) -> int:
    """How many brackets the line leaves open: in JavaScript only parentheses and square brackets, since a
    brace opens a block whose lines are statements of their own."""
    depth = code.count("(") - code.count(")") + code.count("[") - code.count("]")
    return depth + code.count("{") - code.count("}") if python else depth


def python_statements(changed: FileLines) -> list[Statement]:
    """The added lines of a Python file as statements (see the module)."""
    return list(_scoped(_joined(changed, python=True), python=True))


def javascript_statements(changed: FileLines) -> list[Statement]:
    """The added lines of a JavaScript or TypeScript file as statements (see the module)."""
    return list(_scoped(_joined(changed, python=False), python=False))


def _joined(changed: FileLines, python: bool) -> Iterator[Statement]:
    pending: Statement | None = None
    depth, previous, prose = 0, -1, ""
    for number, raw in zip(changed.added_numbers, changed.added, strict=True):
        if number != previous + 1:
            if pending is not None:
                yield pending
            pending, depth, prose = None, 0, ""
        previous = number
        if prose:
            prose = "" if prose in raw else prose
            continue
        line, prose = _without_prose(raw, python)
        code = blank_strings(line, python)
        if pending is not None:
            pending.text += " " + line.strip()
            pending.code += " " + code.strip()
            pending.lines += 1
            depth += _depth(code, python)
            if (
                (depth > 0 or _continued(code, python))
                and pending.lines < MAX_JOINED
                and not _opens_block(code, python)
            ):
                continue
            yield pending
            pending, depth = None, 0
            continue
        if not line.strip():
            continue
        statement = Statement(number, raw, line.strip(), code.strip(), len(raw) - len(raw.lstrip(" \t")))
        depth = _depth(code, python)
        if (depth > 0 or _continued(code, python)) and not _opens_block(code, python):
            pending = statement
        else:
            yield statement
    if pending is not None:
        yield pending


def _opens_block(code: str, python: bool) -> bool:
    """Whether a JavaScript line ends by opening a block (`(req, res) => {`): a callback's body is not one
    statement with the call around it."""
    return not python and code.rstrip().endswith(("{", "=>"))


def _continued(code: str, python: bool) -> bool:
    return python and code.rstrip().endswith("\\")


_DOCSTRING_STARTS = frozenset("\"'rRbBuU")
_DOCSTRING = re.compile(r"""^[ \t]*[rRbBuU]?(\"\"\"|''')""")


def _without_prose(raw: str, python: bool) -> tuple[str, str]:
    """The line without its comment, and the quotes of the docstring or block comment it opens and leaves
    open ('' if none): what follows it up to the closing quotes is prose."""
    if python:
        stripped = raw.lstrip()
        if stripped.startswith("#"):
            return "", ""
        opened = _DOCSTRING.match(raw) if stripped[:1] in _DOCSTRING_STARTS else None
        if opened is not None:
            quotes = opened.group(1)
            return "", "" if raw.count(quotes) >= 2 else quotes
        return _cut_comment(raw, "#", python), ""
    stripped = raw.lstrip()
    if stripped.startswith(("//", "* ", "*/")) or stripped == "*":
        return "", ""
    if stripped.startswith("/*"):
        return "", "" if "*/" in stripped else "*/"
    return _cut_comment(raw, "//", python), ""


def _cut_comment(raw: str, marker: str, python: bool) -> str:
    if marker not in raw:
        return raw
    code = blank_strings(raw, python)
    at = code.find(marker)
    if not python:
        # `//` inside a regular expression literal or a URL in code is rare; `://` is a URL's.
        while at > 0 and code[at - 1] == ":":
            at = code.find(marker, at + 2)
    return raw if at < 0 else raw[:at]


_PY_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+(?P<name>\w+)[ \t]*\((?P<params>.*)\)[^)]*:")
_PY_MAIN = re.compile(r"""^if[ \t]+__name__[ \t]*==[ \t]*["']__main__["'][ \t]*:""")
_PY_TYPING = re.compile(r"^if[ \t]+(?:typing\.)?TYPE_CHECKING[ \t]*:")
_PY_CLASS = re.compile(r"^class[ \t]+(?P<name>\w+)")
_JS_FUNCTION = re.compile(
    r"(?:\bfunction\b[ \t]*\*?[ \t]*(?P<name>[\w$]*)[ \t]*\((?P<params>[^)]*)\)"
    r"|(?P<arrow>\((?P<arrow_params>(?:[^()]|\([^()]*\))*)\)|[A-Za-z_$][\w$]*)[ \t]*(?::[^=;]*)?=>"
    r"|^(?:(?:async|static|get|set)[ \t]+)*(?P<method>[A-Za-z_$][\w$]*)[ \t]*\([^)]*\)[ \t]*\{)"
)
_JS_NOT_METHODS = frozenset({"if", "for", "while", "switch", "catch", "with", "return", "function"})
_JS_NAMED_ARROW = re.compile(r"^(?:export[ \t]+)?(?:const|let|var)[ \t]+(?P<name>[\w$]+)[ \t]*=")
_MUTABLE = re.compile(
    r"^(?:\[|\{|(?:collections\.)?(?:deque|defaultdict|Counter|OrderedDict)\(|list\(|dict\(|set\(|"
    r"(?:itertools\.)?(?:count|cycle)\(|iter\()"
)


def _scoped(statements: Iterator[Statement], python: bool) -> Iterator[Statement]:
    stack: list[Scope] = []
    for statement in statements:
        while stack and stack[-1].indent >= statement.indent:
            stack.pop()
        statement.scopes = tuple(stack)
        statement.function = _function(statement)
        yield statement
        opened = _python_scope(statement) if python else _javascript_scope(statement)
        if opened is not None:
            stack.append(opened)


def _function(statement: Statement) -> Scope | None:
    found = next((s for s in reversed(statement.scopes) if s.kind == "function"), None)
    if found is None and statement.indent > 0 and not statement.scopes:
        return UNSHOWN
    return found


def _python_scope(statement: Statement) -> Scope | None:
    code = statement.code
    if not code.startswith(("if", "def", "async", "class")):
        return None
    if _PY_MAIN.match(statement.text):
        return Scope(statement.indent, "__main__", "main")
    if _PY_TYPING.match(code):
        return Scope(statement.indent, "TYPE_CHECKING", "typing")
    found = _PY_DEF.match(code)
    if found is not None:
        params, mutable = _python_params(statement.text, found)
        return Scope(statement.indent, found["name"], "function", params, mutable)
    found = _PY_CLASS.match(code)
    if found is not None:
        return Scope(statement.indent, found["name"], "class")
    return None


def _python_params(text: str, found: re.Match[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The parameters of a def, and those whose default is mutable (`cache=[]`, `seen=set()`); read from
    the text with strings (a default may be one)."""
    inner = text[found.start("params") : found.end("params")]
    params: set[str] = set()
    mutable: set[str] = set()
    for part in split_top(inner):
        name, _, default = part.partition("=")
        name = name.split(":")[0].strip().lstrip("*")
        if not name.isidentifier():
            continue
        params.add(name)
        if default and _MUTABLE.match(default.strip()):
            mutable.add(name)
    return frozenset(params), frozenset(mutable)


def split_top(text: str) -> list[str]:
    """`text` split at its commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _javascript_scope(statement: Statement) -> Scope | None:
    code = statement.code
    if not code.rstrip().endswith("{") and "=>" not in code:
        return None
    found = _JS_FUNCTION.search(code)
    if found is None:
        return None
    name = found["name"] or found["method"] or ""
    if found["method"] and found["method"] in _JS_NOT_METHODS:
        return None
    if not name:
        named = _JS_NAMED_ARROW.match(code)
        name = named["name"] if named is not None else ""
    arrow = found["arrow"]
    params = found["params"] or found["arrow_params"] or (arrow if arrow and "(" not in arrow else "")
    before = re.sub(r"\basync[ \t]*$", "", code[: found.start()].rstrip()).rstrip()
    return Scope(
        statement.indent, name, "function", _javascript_params(params), passed=before.endswith(("(", ","))
    )


def _javascript_params(text: str) -> frozenset[str]:
    return frozenset(p.split("=")[0].strip() for p in split_top(text) if p.strip())
