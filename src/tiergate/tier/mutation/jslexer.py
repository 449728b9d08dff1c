"""JavaScript read into tokens for the mutants (`javascript`) and their copies that behave the same
(`jssentinel`). Pure: no I/O.

A small tokenizer, not a parser: it reads strings, template literals, comments and regular expressions
whole, and tells operands from operators by the token before. What it cannot read with confidence (JSX,
Flow, an unclosed literal, unbalanced brackets) raises `UnreadableError`.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

_Kind = Literal["name", "number", "string", "template", "regex", "punct"]
# What an opening bracket is: a statement's head `if (...)`, a `{` of members (an object literal, a class
# body), or anything else (a block, a call's arguments, an array).
_Role = Literal["head", "members", "other"]

_LINE_BREAK = re.compile("[\n\r\u2028\u2029]")
_BLANK = re.compile(r"(?:[\s\ufeff]+|//[^\n\r\u2028\u2029]*|/\*[\s\S]*?\*/)*")
_HASHBANG = re.compile(r"#![^\n\r\u2028\u2029]*")
_STRING = {
    quote: re.compile(rf"{quote}(?:[^{quote}\\\n\r]|\\(?:\r\n|[\s\S]))*{quote}") for quote in ("'", '"')
}
_TEMPLATE_TEXT = re.compile(r"(?:[^`\\$]|\\[\s\S]|\$(?!\{))*")
_REGEX_CHAR = r"[^/\\\[\n\r\u2028\u2029]|\\[^\n\r\u2028\u2029]"
_CLASS_CHAR = r"[^\]\\\n\r\u2028\u2029]|\\[^\n\r\u2028\u2029]"
_REGEX = re.compile(rf"/(?:{_REGEX_CHAR}|\[(?:{_CLASS_CHAR})*\])+/[\w$]*")
_NUMBER = re.compile(r"0[xXoObB][\da-fA-F_]+n?|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?n?")
_NAME = re.compile(r"#?(?:[^\W\d]|\$)[\w$\u200c\u200d]*")
_PUNCTUATORS = (
    *(">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=", "=>", "==", "!="),
    *("<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="),
    *("**", "<<", ">>", "{", "}", "(", ")", "[", "]", ";", ",", "<", ">", "+", "-", "*", "/", "%"),
    *("&", "|", "^", "!", "~", "?", ":", "=", ".", "@"),
)
# Longest first; `?.` is not optional chaining before a digit (`a?.5:1` is a conditional).
_PUNCTUATOR = re.compile("|".join(r"\?\.(?!\d)" if p == "?." else re.escape(p) for p in _PUNCTUATORS))
# Two characters that side by side would be read as one token (or open a comment).
JOINED = frozenset({p[:2] for p in _PUNCTUATORS if len(p) > 1} | {"//", "/*"})

# Words after which an expression starts: a `/` there opens a regex, a `+` is unary, a `<` opens JSX.
NOT_OPERANDS = frozenset(
    {
        *("break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do"),
        *("else", "enum", "export", "extends", "finally", "for", "function", "if", "import", "in"),
        *("instanceof", "new", "return", "switch", "throw", "try", "typeof", "var", "void", "while"),
        *("with", "yield", "let", "static", "await", "async", "of"),
    }
)
RESERVED = NOT_OPERANDS | {"this", "super", "null", "true", "false"}
# The parenthesised head of these is not an operand: `if (x) /re/.test(s)` holds a regex.
_HEADS = frozenset({"if", "while", "for", "with", "switch", "catch"})
# What before a `{` makes it a block rather than an object literal.
_BEFORE_BLOCK = frozenset({";", "{", "}", ")", "=>", "else", "do", "try", "finally", "static"})
_PAIRS = {")": "(", "]": "[", "}": "{"}
_BRACKETS = frozenset({"(", "[", "{", *_PAIRS})


class UnreadableError(Exception):
    """The text is not JavaScript this tokenizer reads with confidence."""


class Token(NamedTuple):
    kind: _Kind
    text: str
    start: int  # offsets into the decoded text, in characters
    end: int
    newline: bool  # a line terminator before it (automatic semicolon insertion)
    operand_end: bool  # it ends an operand: an operator after it is binary, a `/` divides
    in_members: bool  # directly in an object literal or a class body, not in a block


class Source(NamedTuple):
    text: str
    tokens: list[Token]
    closing: dict[int, int]  # the index of each opening bracket's token to its closing one's
    # Each template literal's `${...}`, read as code of its own (offsets into the same text).
    parts: tuple[Source, ...] = ()


class _Opened(NamedTuple):
    at: int  # its token's index
    text: str
    role: _Role


class Lexer:
    """Reads a whole text into tokens; raises UnreadableError where it is not sure of what it reads."""

    def __init__(self, text: str) -> None:
        self.text = text
        hashbang = _HASHBANG.match(text)
        self.pos = hashbang.end() if hashbang else 0
        self.flow = False
        self.started = False  # whether a token was read

    def read(self) -> Source:
        self.parts: list[Source] = []
        tokens, closing = self._scan(nested=False)
        if self.flow:  # Flow's annotations: `Array<string>` is no comparison
            raise UnreadableError("a Flow file")
        return Source(self.text, tokens, closing, tuple(self.parts))

    def _scan(self, nested: bool) -> tuple[list[Token], dict[int, int]]:
        """The tokens to the end of the text or, `nested`, to the `}` that closes a template's `${`."""
        tokens: list[Token] = []
        closing: dict[int, int] = {}
        opened: list[_Opened] = []
        classes: list[int] = []  # the bracket depth of each `class` whose body is still to come
        while True:
            newline = self._blank()
            if self.pos >= len(self.text):
                if nested or opened:
                    raise UnreadableError("an unclosed bracket or template")
                return tokens, closing
            if nested and not opened and self.text[self.pos] == "}":
                self.pos += 1
                return tokens, closing
            prev = tokens[-1] if tokens else None
            members = bool(opened) and opened[-1].role == "members"
            token = self._token(prev, newline, members)
            if token.kind == "name" and token.text == "class" and not token.operand_end:
                classes.append(len(opened))
            if token.kind == "punct" and token.text in _BRACKETS:
                token = _bracket(token, prev, len(tokens), (opened, closing, classes))
            tokens.append(token)

    def _blank(self) -> bool:
        """Skips blanks and comments; whether they held a line terminator."""
        skipped = _BLANK.match(self.text, self.pos)
        assert skipped is not None  # (it matches the empty string)
        self.pos, blank = skipped.end(), skipped[0]
        if not blank:
            return False
        if "@flow" in blank and not self.started:  # Flow's pragma is in the file's first comment
            self.flow = True
        return _LINE_BREAK.search(blank) is not None

    def _token(self, prev: Token | None, newline: bool, members: bool) -> Token:
        start, self.started = self.pos, True
        kind, end = self._kind_and_end(prev)
        self.pos = end
        text = self.text[start:end]
        if text == "<" and not (prev is not None and prev.operand_end):
            raise UnreadableError("JSX")  # a `<` where an expression starts is no comparison
        return Token(kind, text, start, end, newline, _ends_operand(kind, text, prev, newline), members)

    def _kind_and_end(self, prev: Token | None) -> tuple[_Kind, int]:
        text, start = self.text, self.pos
        char = text[start]
        if char in _STRING:
            return "string", _end(_STRING[char].match(text, start), "an unclosed string")
        if char == "`":
            return "template", self._template()
        if char.isdigit() or (char == "." and text[start + 1 : start + 2].isdigit()):
            return "number", _end(_NUMBER.match(text, start), "a number")
        if text.startswith("/*", start):  # (a closed one is a blank)
            raise UnreadableError("an unclosed comment")
        if char == "/" and (prev is None or not prev.operand_end):
            return "regex", _end(_REGEX.match(text, start), "an unclosed regular expression")
        name = _NAME.match(text, start)
        if name is not None:
            return "name", name.end()
        return "punct", _end(_PUNCTUATOR.match(text, start), f"the character {char!r}")

    def _template(self) -> int:
        """The end of the template literal at `pos`, each of its `${...}` read as code of its own
        (`parts`)."""
        at = self.pos + 1
        while True:
            at = _end(_TEMPLATE_TEXT.match(self.text, at), "a template")
            if self.text.startswith("`", at):
                return at + 1
            if not self.text.startswith("${", at):
                raise UnreadableError("an unclosed template")
            self.pos = at + 2
            self.parts.append(Source(self.text, *self._scan(nested=True)))
            at = self.pos


def _end(found: re.Match[str] | None, what: str) -> int:
    if found is None:
        raise UnreadableError(f"not read: {what}")
    return found.end()


def _ends_operand(kind: _Kind, text: str, prev: Token | None, newline: bool) -> bool:
    if kind == "name":
        return text not in NOT_OPERANDS or is_member(prev)
    if kind == "punct":
        if text in ("++", "--"):  # postfix only right after an operand on its line
            return prev is not None and prev.operand_end and not newline
        return text in (")", "]")
    return True


def is_member(token: Token | None) -> bool:
    """Whether `token` is the `.` before a property's name (which may be any word: `x.return`)."""
    return token is not None and token.kind == "punct" and token.text in (".", "?.")


def _bracket(
    token: Token,
    prev: Token | None,
    index: int,
    state: tuple[list[_Opened], dict[int, int], list[int]],
) -> Token:
    """Keeps the brackets' matching: pairs them in `closing`, says which `{` holds members (an object
    literal, a class body) and which `)` closes a statement's head (no operand)."""
    opened, closing, classes = state
    if token.text not in _PAIRS:
        opened.append(_Opened(index, token.text, _role(token.text, prev, opened, classes)))
        return token
    if not opened or opened[-1].text != _PAIRS[token.text]:
        raise UnreadableError("unbalanced brackets")
    open_ = opened.pop()
    closing[open_.at] = index
    return token._replace(operand_end=False) if open_.role == "head" else token


def _role(text: str, prev: Token | None, opened: list[_Opened], classes: list[int]) -> _Role:
    if text == "(":
        head = prev is not None and prev.kind == "name" and prev.text in _HEADS and not prev.operand_end
        return "head" if head else "other"
    if text == "[":
        return "other"
    if classes and classes[-1] == len(opened):  # the body of the `class` read at this depth
        classes.pop()
        return "members"
    if prev is None or prev.operand_end or prev.text in _BEFORE_BLOCK:
        return "other"
    if prev.text == ":":  # a property's value in an object literal, else a label's or a case's block
        return "members" if opened and opened[-1].role == "members" else "other"
    return "members"  # after an operator, `(`, `,`, `return`: an object literal
