"""The text helpers every message uses: counts with their noun, and cutting a text to a size.

Pure and cheap to import (the hook's error line goes through `one_line`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def plural(n: int, noun: str) -> str:
    """'1 file', '2 files'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def listed(items: Sequence[str], shown: int, sep: str = ", ", each: Callable[[str], str] = str) -> str:
    """The first `shown` of `items` (each written by `each`) joined by `sep`, then how many more are
    left out: "a, b, c (+2 more)"."""
    return sep.join(each(item) for item in items[:shown]) + more_than(len(items), shown)


# The forms of "and K more" in tiergate's messages ({} is K); `more_than` writes each.
PLUS_MORE = " (+{} more)"
AND_MORE = " and {} more"
PAREN_AND_MORE = " (and {} more)"
SEMI_AND_MORE = "; and {} more"
ITEM_AND_MORE = "- ... and {} more"


def more_than(count: int, shown: int, form: str = PLUS_MORE) -> str:
    """`form` with how many of `count` are left out when only `shown` are listed, else "":
    " (+2 more)"."""
    return form.format(count - shown) if count > shown else ""


def more_line(count: int, shown: int, form: str) -> list[str]:
    """As `more_than`, as the one line to add to a listing, or none."""
    more = more_than(count, shown, form)
    return [more] if more else []


def cut(text: str, limit: int) -> str:
    """`text` cut to `limit` characters (at a word boundary), saying how much was left out."""
    if len(text) <= limit:
        return text
    kept = _words_within(text, max(0, limit - 40))
    return f"{kept} [... {len(text) - len(kept)} more characters]"


DETAIL_INDENT = "  "


def fit(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, cutting only its details: tiergate's own sentences start at
    column 0, and the indented lines under them (quoted output, listed failures) are what is left out,
    whole, the last lines of the longest run first, each run that lost lines ending in a line that says
    how many. Only a text whose own lines alone are over `limit` (none that tiergate writes) is `cut`."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    runs = _detail_runs(lines)
    dropped = [0] * len(runs)
    fitted = text
    while len(fitted) > limit:
        sizes = [_kept_size(lines, run, n) for run, n in zip(runs, dropped, strict=True)]
        if not sizes or max(sizes) == 0:
            return cut(fitted, limit)
        dropped[sizes.index(max(sizes))] += 1
        fitted = _rejoined(lines, runs, dropped)
    return fitted


def _detail_runs(lines: list[str]) -> list[tuple[int, int]]:
    """The [start, end) ranges of consecutive indented lines."""
    runs: list[tuple[int, int]] = []
    for i, line in enumerate(lines):
        if not line.startswith(DETAIL_INDENT):
            continue
        if runs and runs[-1][1] == i:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    return runs


def _kept_size(lines: list[str], run: tuple[int, int], dropped: int) -> int:
    start, end = run
    return sum(len(line) + 1 for line in lines[start : end - dropped])


def _left_out(n: int) -> str:
    return f"{DETAIL_INDENT}[... {plural(n, 'more line')}]"


def _lines_in(line: str) -> int:
    """How many lines `line` stands for: a note of lines left out by an earlier cut, its count."""
    count, _, rest = line.removeprefix(f"{DETAIL_INDENT}[... ").partition(" ")
    return int(count) if rest in {"more line]", "more lines]"} and count.isdigit() else 1


def _rejoined(lines: list[str], runs: list[tuple[int, int]], dropped: list[int]) -> str:
    out: list[str] = []
    last = 0
    for (_, end), n in zip(runs, dropped, strict=True):
        out += lines[last : end - n]
        if n:
            out.append(_left_out(sum(_lines_in(line) for line in lines[end - n : end])))
        last = end
    out += lines[last:]
    return "\n".join(out)


def minutes(seconds: float) -> str:
    """'1 minute', '30 minutes': a duration in whole minutes, with its noun."""
    return plural(round(seconds / 60), "minute")


def duration(seconds: float) -> str:
    """'45 s', '3 min 5 s', '1 h 2 min': a time for a person, to the second below ten minutes."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    hours, rest = divmod(whole, 3600)
    mins, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {mins} min" if mins else f"{hours} h"
    return f"{mins} min {secs} s" if secs and whole < 600 else f"{mins} min"


def clip(text: str, limit: int, ellipsis: str = "…") -> str:
    """`text` in at most `limit` characters: whole, or its first words and `ellipsis`. A word is cut only
    when it alone fills more than half the room (a long path, a hash): else a reader sees half a word
    (`a workt…`) and guesses."""
    if len(text) <= limit:
        return text
    return _words_within(text, max(0, limit - len(ellipsis))) + ellipsis


def clip_start(text: str, limit: int, ellipsis: str = "…") -> str:
    """`text`'s last words in at most `limit` characters, `ellipsis` first (an output's tail)."""
    if len(text) <= limit:
        return text
    room = max(0, limit - len(ellipsis))
    return ellipsis + _words_within(text[::-1], room)[::-1]


def _words_within(text: str, room: int) -> str:
    """The longest start of `text` within `room` characters that ends at a word's end, stripped."""
    kept = text[:room]
    if room < len(text) and not text[room].isspace():
        space = max(kept.rfind(" "), kept.rfind("\t"), kept.rfind("\n"))
        if space >= room // 2:
            kept = kept[:space]
    return kept.rstrip()


def one_line(text: str, limit: int = 600) -> str:
    """`text` on a single line, cut to `limit` characters at a word boundary: a message, not a dump."""
    return clip(" ".join(text.split()), limit)


# Untrusted text --------------------------------------------------------------------------------------------
# File names, check output, test names, commands and task text are written by the agent under verification
# as much as by anyone: once in a packet or a block reason they must stay data. None may end a line (and so
# open a line of its own that reads like one of tiergate's headings), move the cursor (ANSI, carriage
# return) or open or close a fenced block (a ```tiergate-spawn or ```tiergate-verdict of its own).

BLOCK_MARKER = "  | "
_FENCE = "```"
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\", '"': '\\"', "`": "\\x60"}


def _escape(char: str) -> str:
    named = _NAMED_ESCAPES.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _unsafe(char: str) -> bool:
    # Not printable: every control character, the line and paragraph separators, NEL, and the rest
    # that str.splitlines() (or a terminal) would treat as a break or a command.
    return not char.isprintable() and char != " "


def quote_path(path: str) -> str:
    """`path` as it may be shown: unchanged when it is plain printable text, else in double quotes
    with newlines, control characters, backticks, quotes and backslashes escaped (like `repr`), so
    that it stays one recognisable name on one line."""
    if path and not path.startswith('"') and "`" not in path and not any(_unsafe(c) for c in path):
        return path
    body = "".join(_escape(c) if c in _NAMED_ESCAPES or _unsafe(c) else c for c in path)
    return f'"{body}"'


def quote_inline(text: str) -> str:
    """One piece of untrusted text inside a line of tiergate's own (a check's name or command, a test
    name, a failure message): line breaks and control characters escaped (a tab is kept), and runs of
    backticks that could make a fence broken up, so that the line stays one line of tiergate's."""
    out = "".join(_escape(c) if _unsafe(c) and c != "\t" else c for c in text)
    return _unfence(out)


def brief(text: str, limit: int = 60) -> str:
    """A task (or any untrusted text) as one short line of a listing: its whitespace, newlines
    included, flattened to single spaces, clipped at a word, control characters escaped."""
    return quote_inline(one_line(text, limit))


def quote_block(text: str, marker: str = BLOCK_MARKER) -> str:
    """Multi-line untrusted text (a task, a check's output), each line after `marker`, so that no line
    starts at column 0 (where tiergate's headings are), each line as `quote_inline` makes it."""
    return "\n".join(marker + quote_inline(line) for line in text.splitlines())


def _unfence(text: str) -> str:
    # Three backticks in a row open or close a fence wherever a reader (or a regular expression) looks
    # for one; an escaped backtick in between keeps the text readable and fences nothing.
    while _FENCE in text:
        text = text.replace(_FENCE, "``\\x60")
    return text
