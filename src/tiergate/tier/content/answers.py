"""Outwitting by literals: the inputs and expected values of tests written into the implementation's new
branches, returns and lookup tables (`if a == 2 and b == 3: return 5`), so that those tests pass whatever
the code computes for any other input. Architecture (THOROUGH). Pure: sources and changed lines in, hits
out. A hit needs two literals of one test on one line or on adjacent ones, since an honest fix can write
one: see docs/risk.md, "Outwitting by literals". Python and JavaScript are read here; Rust's tests and
lines by `tiergate.tier.content.rustanswers`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Sequence

from tiergate.frozen import frozen
from tiergate.tier.content.patch import FileLines
from tiergate.tier.content.rule import ContentHit
from tiergate.tier.content.testcode import hit
from tiergate.tier.content.testfiles import is_test
from tiergate.tier.testnames import JS_SUFFIXES, PYTHON_SUFFIXES

# A literal as a kind and a canonical text: ("num", "5"), ("str", "abc").
Value = tuple[str, str]
_DULL_NUMBERS = frozenset({"0", "1", "-1"})
_MIN_STRING = 3
_MAX_TESTS_NAMED = 5
_UNITTEST_ASSERTS = frozenset(
    {"assertEqual", "assertEquals", "assertIs", "assertAlmostEqual", "assertIn", "assert_equal"}
)


@frozen
class TestLiterals:
    """One test's telling literals: `path` (its file, as the tests' ids spell it), `name` (the test
    function's, or the `it`/`test` title), `inputs` (in its calls), `expected` (compared with a result)."""

    __test__ = False  # not a pytest test class, whatever its name

    path: str
    name: str
    inputs: frozenset[Value]
    expected: frozenset[Value]

    @property
    def values(self) -> frozenset[Value]:
        return self.inputs | self.expected

    @property
    def label(self) -> str:
        """The test as its runner names it: `tests/test_x.py::test_y`, `test/x.test.js > y`, cargo's
        `tests::test_y` (a Rust test's name is cargo's whole id)."""
        if _rust(self.path):
            return self.name
        python = self.path.lower().endswith(PYTHON_SUFFIXES)
        return f"{self.path}::{self.name}" if python else f"{self.path} > {self.name}"

    @property
    def key(self) -> tuple[str, str]:
        """(file, test name), as a runner's failing test is keyed (`handlers.testanswers.runner_key`):
        cargo's ids name no file, so a Rust test's file is ""."""
        return ("", self.name) if _rust(self.path) else (self.path, self.name)


def telling(kind: str, text: str) -> Value | None:
    """The literal as a `Value` when it can single out a tested input (None: 0, 1, -1, short strings)."""
    if kind == "num":
        text = _number(text)
        return None if text in _DULL_NUMBERS else ("num", text)
    return ("str", text) if len(text) >= _MIN_STRING else None


def _number(text: str) -> str:
    try:
        value = float(text)
    except ValueError:
        return text
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)


def shown(value: Value) -> str:
    return value[1] if value[0] == "num" else f'"{value[1]}"'


# --- The tests' literals ------------------------------------------------------------------------------


def read_tests(path: str, source: str) -> tuple[TestLiterals, ...]:
    """Every test in `source` (the file at `path`) with its telling literals; none for a file that is
    not Python, JavaScript or Rust, or that does not parse."""
    suffix = path[path.rfind(".") :].lower() if "." in path else ""
    if suffix in PYTHON_SUFFIXES:
        return tuple(_python_tests(path, source))
    if suffix in JS_SUFFIXES:
        return tuple(_javascript_tests(path, source))
    if _rust(path):
        from tiergate.tier.content.rustanswers import rust_tests

        return tuple(
            _rust_test(path, test.name, test.inputs, test.expected) for test in rust_tests(path, source)
        )
    return ()


def _rust(path: str) -> bool:
    return path.lower().endswith(".rs")


def _rust_test(
    path: str, name: str, inputs: Iterable[tuple[str, str]], expected: Iterable[tuple[str, str]]
) -> TestLiterals:
    telling_inputs = _telling(inputs)
    return TestLiterals(path, name, telling_inputs, _telling(expected) - telling_inputs)


def _telling(found: Iterable[tuple[str, str]]) -> frozenset[Value]:
    return frozenset(value for kind, text in found if (value := telling(kind, text)) is not None)


def rust_literals(text: str) -> Iterator[Value]:
    """The telling literals written in one line of Rust (`tiergate.tier.content.rustanswers` reads them)."""
    from tiergate.tier.content.rustanswers import literals

    return iter(_telling(literals(text)))


def _python_tests(path: str, source: str) -> Iterator[TestLiterals]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            inputs, expected = _python_literals(node)
            yield TestLiterals(path, node.name, frozenset(inputs), frozenset(expected))


def _python_literals(function: ast.AST) -> tuple[set[Value], set[Value]]:
    inputs: set[Value] = set()
    expected: set[Value] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
            for operand in (node.test.left, *node.test.comparators):
                target = inputs if _holds_call(operand) else expected
                target.update(_constants(operand))
        elif isinstance(node, ast.Call):
            compared = _called_name(node) in _UNITTEST_ASSERTS
            for argument in (*node.args, *(k.value for k in node.keywords)):
                if _holds_call(argument):
                    continue  # its own literals are read when the walk reaches that call
                (expected if compared else inputs).update(_constants(argument))
    return inputs, expected - inputs


def _holds_call(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(node))


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _constants(node: ast.AST) -> Iterator[Value]:
    """The telling literals in `node`, outside the calls it holds (their arguments are inputs)."""
    if isinstance(node, ast.Call):
        return
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        found = _negative(node.operand)
        if found:
            yield found
        return
    if isinstance(node, ast.Constant):
        found = _constant(node.value)
        if found:
            yield found
        return
    for child in ast.iter_child_nodes(node):
        yield from _constants(child)


def _negative(operand: ast.expr) -> Value | None:
    value = operand.value if isinstance(operand, ast.Constant) else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return telling("num", repr(-value))
    return None


def _constant(value: object) -> Value | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return telling("num", repr(value))
    return telling("str", value) if isinstance(value, str) else None


_NUMBER = r"(?<![\w.$])-?[0-9]+(?:\.[0-9]+)?(?![\w.])"
_STRING = r""""((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`$\\\n]*)`"""
_LITERAL = re.compile(f"(?P<num>{_NUMBER})|{_STRING}")
_JS_TEST = re.compile(r"""^[ \t]*(?:it|test)(?:\.\w+)?[ \t]*\([ \t]*(["'`])(?P<name>[^"'`\n]*)\1""", re.M)
_JS_BLOCK_END = re.compile(r"^[ \t]*(?:it|test|describe)(?:\.\w+)?[ \t]*\(", re.M)
_JS_ASSERTS = re.compile(r"\b(?:assert|expect)\b")
_JS_INNER_CALL = re.compile(r"(?<![\w$.])(?!assert\b|expect\b)([A-Za-z_$][\w$.]*)[ \t]*\(([^()\n]*)\)")


def literals(text: str) -> Iterator[Value]:
    """The telling literals written in one line of code (Python or JavaScript)."""
    for found in _LITERAL.finditer(text):
        if found["num"] is not None:
            value = telling("num", found["num"])
        else:
            value = telling("str", next(g for g in found.groups()[1:] if g is not None))
        if value is not None:
            yield value


def _javascript_tests(path: str, source: str) -> Iterator[TestLiterals]:
    for found in _JS_TEST.finditer(source):
        end = _JS_BLOCK_END.search(source, found.end())
        body = source[found.end() : end.start() if end else len(source)]
        inputs: set[Value] = set()
        expected: set[Value] = set()
        for line in body.splitlines():
            if _JS_ASSERTS.search(line) is None:
                inputs.update(literals(line))
                continue
            called = "".join(f" {m[2]} " for m in _JS_INNER_CALL.finditer(line))
            inputs.update(literals(called))
            expected.update(literals(_JS_INNER_CALL.sub(" ", line)))
        yield TestLiterals(path, found["name"], frozenset(inputs), frozenset(expected - inputs))


# --- Where they are written into the code ------------------------------------------------------------

_BRANCHES = re.compile(
    r"^[ \t]*(?:\}[ \t]*)?(?:(?:else[ \t]+)?if\b|elif\b|case\b|when\b|switch\b|match\b|return\b|yield\b)"
)
_COMPARES = re.compile(r"[=!]==?|\bin\b|\bis\b")
_DEFINES = re.compile(r"^[ \t]*(?:export[ \t]+)?(?:async[ \t]+)?(?:def|function|class)\b")
_KEYED = re.compile(f"(?:{_NUMBER}|{_STRING})[ \t]*[)\\]]?[ \t]*:(?!:)")
# Answers seeded at import, on a line that neither branches nor compares: a table bound at module level
# (`_ANSWERS = [(2, 3, 6)]`, `const ANSWERS = new Map([[2, 6]])`), or a row of literals in one
# (`    (2, 3, 6),`).
_TABLE = re.compile(
    r"^(?:export[ \t]+)?(?:(?:const|let|var)[ \t]+)?[A-Za-z_$][\w$]*(?:[ \t]*:[^=\n]+)?[ \t]*=(?![=>])"
    r"[ \t]*(?:(?:new[ \t]+)?[\w.$]+[ \t]*\([ \t]*)?[\[({]"
)
_ONE = f"(?:{_NUMBER}|{_STRING})"
_ROW = re.compile(f"^[ \t]*[\\[(][ \t]*(?:{_ONE}[ \t]*,[ \t]*)+{_ONE}?[ \t]*[\\])][ \t]*,?[ \t]*$")


def branches(text: str) -> bool:
    """Whether a line of code branches, returns or maps on literals, or seeds a table of them at module level
    (the lines answers are written on)."""
    if _DEFINES.match(text):
        return False  # a default argument is not a branch
    return bool(
        _BRANCHES.match(text)
        or _COMPARES.search(text)
        or _KEYED.search(text)
        or _TABLE.match(text)
        or _ROW.match(text)
    )


def find_answers(
    tests: Sequence[TestLiterals], files: Iterable[FileLines], *, failing_note: str = ""
) -> tuple[ContentHit, ...]:
    """A hit per (test, implementation file) whose added branching lines hold two or more of the test's
    telling literals on one line or adjacent ones, at the first such line. `failing_note` is said of the
    tests in the reason ("failing when the loop began")."""
    wanted = [t for t in tests if len(t.values) >= 2]  # one literal can never make a pair
    hits: list[ContentHit] = []
    for changed in files:
        if not wanted or is_test(changed.path) or not _code(changed.path):
            continue
        lines = _branch_lines(changed)
        for test in wanted:
            found = _first_pair(lines, test.values)
            if found is not None and len(hits) < _MAX_TESTS_NAMED:
                number, text, matched = found
                hits.append(hit(changed.path, number, "added", _reason(test, matched, failing_note), text))
    return tuple(hits)


def _code(path: str) -> bool:
    suffix = path[path.rfind(".") :].lower() if "." in path else ""
    return suffix in PYTHON_SUFFIXES or suffix in JS_SUFFIXES or _rust(path)


def _branch_lines(changed: FileLines) -> dict[int, tuple[str, frozenset[Value]]]:
    """The file's added branching lines by number, with the telling literals new to the file."""
    read, branching = literals, branches
    if _rust(changed.path):  # a Rust file's added lines are its code's alone (`rustanswers.code_lines`)
        from tiergate.tier.content.rustanswers import branches as rust_branches

        read, branching = rust_literals, rust_branches
    old = {value for text in changed.removed for value in read(text)}
    return {
        number: (text, frozenset(read(text)) - old)
        for number, text in zip(changed.added_numbers, changed.added, strict=True)
        if branching(text)
    }


def _first_pair(
    lines: dict[int, tuple[str, frozenset[Value]]], values: frozenset[Value]
) -> tuple[int, str, frozenset[Value]] | None:
    for number, (text, held) in sorted(lines.items()):
        here = held & values
        if not here:
            continue
        near = lines.get(number - 1, ("", frozenset()))[1] | lines.get(number + 1, ("", frozenset()))[1]
        matched = here | (near & values)
        if len(matched) >= 2:
            return number, text, matched
    return None


def _reason(test: TestLiterals, matched: frozenset[Value], note: str) -> str:
    expected = sorted(matched & test.expected, key=_order)
    inputs = sorted(matched - test.expected, key=_order)
    parts = []
    if expected:
        parts.append(f"the expected value{'s' if len(expected) > 1 else ''} {_joined(expected)}")
    if inputs:
        parts.append(f"input{'s' if len(inputs) > 1 and not expected else ''} {_joined(inputs)}")
    what = " and ".join(parts) if expected else f"the {parts[0]}"
    when = f" ({note})" if note else ""
    return f"outwitting: {what} of {test.label}{when} written into the code"


def _order(value: Value) -> tuple[int, float, str]:
    return (0, float(value[1]), "") if value[0] == "num" else (1, 0.0, value[1])


def _joined(values: Sequence[Value]) -> str:
    return ", ".join(shown(v) for v in values)
