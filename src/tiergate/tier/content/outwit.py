"""Outwitting in code: implementation files (not tests) whose added lines make a value equal to anything
(an `__eq__` returning a constant, a `valueOf()` returning a literal, a jest asymmetric matcher), so that
a test's comparison passes whatever the code computed. Architecture (THOROUGH). See docs/risk.md,
"Outwitting in code".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from tiergate.tier.content.patch import FileLines
from tiergate.tier.content.rule import BUILT_DIRS, BUILT_NAMES, ContentHit, Ecosystem, literal, word
from tiergate.tier.content.testcode import added, hit
from tiergate.tier.content.testfiles import is_test
from tiergate.tier.testnames import JS_SUFFIXES, PYTHON_SUFFIXES

EQUALITY = "outwitting: {name} ignores its argument"
PRIMITIVE = "outwitting: {name} returns a constant"
MATCHER = "outwitting: an object that tells jest it matches anything"

_DEF = re.compile(
    r"^(?P<indent>[ \t]*)(?:async[ \t]+)?def[ \t]+(?P<name>__eq__|__ne__)[ \t]*\([^)\n]*\)[^:\n]*:"
    r"[ \t]*(?P<rest>[^\n]*)$"
)
_LAMBDA = re.compile(r"^[ \t]*(?P<name>__eq__|__ne__)[ \t]*=[ \t]*lambda[^:\n]*:[ \t]*(?P<rest>[^\n]*)$")
_PY_CONSTANT = r"(?:True|False|1|0|not[ \t]+(?:True|False))[ \t]*(?:#[^\n]*)?$"
_RETURNS_CONSTANT = re.compile(r"^return[ \t]+" + _PY_CONSTANT)
_CONSTANT = re.compile(r"^" + _PY_CONSTANT)
_DOCSTRING = re.compile(r"""^[rRbBuU]?(?:\"\"\"|''')""")

_JS_LITERAL = r"""(?:-?[0-9]+(?:\.[0-9]+)?|true|false|"[^"\n]*"|'[^'\n]*')"""
_PRIMITIVE = re.compile(
    r"(?P<name>\bvalueOf|\[[ \t]*Symbol\.toPrimitive[ \t]*\])[ \t]*(?::[ \t]*(?:function[ \t]*)?)?"
    r"\([^)\n]*\)[ \t]*(?:=>[ \t]*(?P<arrow>[^\n]*)|\{[ \t]*(?P<body>[^\n]*))"
)
_JS_RETURNS = re.compile(r"^return[ \t]+" + _JS_LITERAL + r"[ \t]*;?[ \t]*\}?")
_JS_VALUE = re.compile(r"^" + _JS_LITERAL + r"[ \t]*(?:[,;})]|$)")


def judge_outwitting(changed: FileLines) -> Iterable[ContentHit]:
    name = changed.path.rpartition("/")[2]
    suffix = name[name.rfind(".") :].lower() if "." in name else ""
    if suffix in PYTHON_SUFFIXES:
        yield from _python(changed)
    elif suffix in JS_SUFFIXES:
        yield from _javascript(changed)


def _python(changed: FileLines) -> Iterator[ContentHit]:
    lines = _added_lines(changed, ("__eq__", "__ne__"))
    for at, (number, text) in enumerate(lines):
        lam = _LAMBDA.match(text)
        if lam is not None and _CONSTANT.match(lam["rest"].strip()):
            yield hit(changed.path, number, "added", EQUALITY.format(name=lam["name"]), text)
            continue
        found = _DEF.match(text)
        if found is None:
            continue
        first = found["rest"].strip() or _first_statement(lines, at, len(found["indent"]))
        if first is not None and _RETURNS_CONSTANT.match(first):
            yield hit(changed.path, number, "added", EQUALITY.format(name=found["name"]), text)


def _added_lines(changed: FileLines, needles: tuple[str, ...]) -> list[tuple[int, str]]:
    """The file's added lines with their numbers; none when no line holds one of `needles` (most files:
    every implementation file of a change is read)."""
    if not any(needle in text for text in changed.added for needle in needles):
        return []
    return list(zip(changed.added_numbers, changed.added, strict=True))


def _first_statement(lines: list[tuple[int, str]], at: int, indent: int) -> str | None:
    """The first statement of the body of the def at line `at`, when the added lines right below show it."""
    expected = lines[at][0] + 1
    in_docstring = ""
    for number, text in lines[at + 1 :]:
        if number != expected:
            return None
        expected += 1
        stripped = text.strip()
        if in_docstring:
            in_docstring = "" if in_docstring in stripped else in_docstring
            continue
        if not stripped or stripped.startswith("#"):
            continue
        if len(text) - len(text.lstrip(" \t")) <= indent:
            return None
        docstring = _DOCSTRING.match(stripped)
        if docstring is not None:
            quotes = docstring.group()[-3:]
            in_docstring = "" if stripped.count(quotes) >= 2 else quotes
            continue
        return stripped
    return None


def _javascript(changed: FileLines) -> Iterator[ContentHit]:
    lines = _added_lines(changed, ("valueOf", "toPrimitive"))
    for at, (number, text) in enumerate(lines):
        found = _PRIMITIVE.search(text)
        if found is None:
            continue
        if found["arrow"] is not None:
            constant = _JS_VALUE.match(found["arrow"].strip()) is not None
        else:
            body = found["body"].strip()
            if not body:
                following = lines[at + 1] if at + 1 < len(lines) else None
                body = following[1].strip() if following and following[0] == number + 1 else ""
            constant = _JS_RETURNS.match(body) is not None
        if constant:
            named = "valueOf" if found["name"].endswith("valueOf") else "Symbol.toPrimitive"
            yield hit(changed.path, number, "added", PRIMITIVE.format(name=named), text)


def _implementation(path: str) -> bool:
    return not is_test(path)


OUTWITTING = Ecosystem(
    "outwitting",
    rules=added(MATCHER, literal("jest.asymmetricMatcher"), word("asymmetricMatch")),
    suffixes=(*PYTHON_SUFFIXES, *JS_SUFFIXES),
    ignore_dirs=BUILT_DIRS,
    ignore_names=BUILT_NAMES,
    comments=("#", "//", "/*", "* "),
    accepts=_implementation,
    judge=judge_outwitting,
    judge_replaces_path_floor=False,
)
