"""The content rules' reading and search: git's patch format read right, hits placed by file, line and
side, reasons quoted and clipped, and a change written to be slow to scan is not. Pure: synthetic diffs,
no git."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

import pytest
from testing.regexshape import has_atomic_group, reads_a_newline
from testing.unifieddiff import one_line_patch

from tiergate.tier import content
from tiergate.tier.content import ContentRule, Ecosystem, scan, scan_patch
from tiergate.tier.content.scan import excerpt

# Patch parsing ------------------------------------------------------------------------------------------

MULTI = b"""diff --git a/a.py b/a.py
index 1111111..2222222 100644
--- a/a.py
+++ b/a.py
@@ -3 +3 @@ def f():
-    r = get(u, verify=True)
+    r = get(u)
@@ -10,0 +11,2 @@
+x = 1
+os.system(cmd)
\\ No newline at end of file
diff --git a/old name.py b/new name.py
similarity 90%
rename from old name.py
rename to new name.py
index 1111111..2222222 100644
--- a/old name.py\t
+++ b/new name.py\t
@@ -1,2 +1 @@
--- a/x.py
-eval(s)
+eval(s)
diff --git a/img.png b/img.png
index 1111111..2222222 100644
Binary files a/img.png and b/img.png differ
diff --git "a/q\\"uote\\tx.py" "b/q\\"uote\\tx.py"
new file mode 100644
index 0000000..2222222
--- /dev/null
+++ "b/q\\"uote\\tx.py"
@@ -0,0 +1 @@
+pickle.loads(b)
diff --git a/gone.py b/gone.py
deleted file mode 100644
index 2222222..0000000
--- a/gone.py
+++ /dev/null
@@ -1 +0,0 @@
-subprocess.call(x)
"""


def hits_of(patch: bytes) -> list[tuple[str, int, str, str]]:
    return [(h.path, h.line, h.side, h.construct) for h in scan_patch(patch, content.DEFAULT)]


def test_a_patch_of_several_files_gives_each_hit_its_file_line_and_side() -> None:
    assert hits_of(MULTI) == [
        ("a.py", 12, "added", "process execution"),
        ("a.py", 3, "removed", "TLS verification switch"),
        ("gone.py", 1, "removed", "process execution"),
        ("new name.py", 1, "added", "eval or unsafe deserialisation"),
        ("new name.py", 2, "removed", "eval or unsafe deserialisation"),
        ('q"uote\tx.py', 1, "added", "eval or unsafe deserialisation"),
    ]


def test_a_removed_line_that_looks_like_a_header_is_a_line() -> None:
    files = content.parse_patch(MULTI)
    renamed = next(f for f in files if f.path == "new name.py")
    assert renamed.removed == ["-- a/x.py", "eval(s)"]
    assert renamed.removed_numbers == [1, 2]


def test_crlf_and_invalid_utf8_lines_are_read() -> None:
    patch = one_line_patch("w.py", "os.system(x)\r").replace(b"x)", b"\xff)")
    (hit,) = scan_patch(patch, content.DEFAULT)
    assert hit.excerpt == "os.system(\ufffd)"


def test_an_untracked_file_is_all_added_lines() -> None:
    lines = content.added_file("new.py", "a = 1\r\nos.system(x)\n")
    assert lines.added == ["a = 1", "os.system(x)"]
    (hit,) = content.scan_files([lines], content.DEFAULT)
    assert (hit.line, hit.side) == (2, "added")


def test_sides_and_near_restrict_a_rule() -> None:
    eco = Ecosystem(
        "x",
        rules=(
            ContentRule("only added", "alpha", sides="added"),
            ContentRule("beside beta", "gamma", near="beta"),
        ),
        names=("*",),
    )
    patch = one_line_patch("f.txt", "alpha gamma", "-") + one_line_patch("g.txt", "alpha gamma beta")
    assert {(h.path, h.construct) for h in scan_patch(patch, (eco,))} == {
        ("g.txt", "only added"),
        ("g.txt", "beside beta"),
    }


# Reasons -------------------------------------------------------------------------------------------------


def test_an_excerpt_is_clipped_at_word_edges() -> None:
    line = "    " + " ".join(f"word{i}" for i in range(30)) + " os.system(cmd) " + "tail " * 30
    start = line.index("os.system")
    cut = excerpt(line, start, start + len("os.system("))
    assert cut.startswith("…word") and cut.endswith("…")
    assert "os.system(cmd)" in cut and len(cut) <= 84
    words = line.split()
    assert all(w in words for w in cut.strip("…").split())


def test_a_secret_is_not_repeated_in_its_reason() -> None:
    token = "ghp_" + "a1B2" * 9
    (hit,) = scan_patch(one_line_patch("ci.txt", f"TOKEN={token}"), content.DEFAULT)
    assert token not in hit.describe()


def test_a_change_written_to_be_slow_to_scan_is_not() -> None:
    # Each line opens a string no line closes, 20,000 times: every candidate must cost its line, not the
    # rest of the change. The rules' patterns are searched over the whole change's text at once, so none
    # may read a newline (their classes stop at one); a rule's `near` is only ever asked of one line.
    assert [r.pattern for eco in content.DEFAULT for r in eco.rules if reads_a_newline(r.pattern)] == []
    files = [
        content.added_file(f"x{suffix}", "\n".join([f"{opener}" + "x" * 50] * 20_000) + "\n")
        for suffix, opener in (
            (".js", "db.query(`"),
            (".js", "s.replace(/"),
            (".py", "cur.execute('"),
            (".txt", 'password = "'),
        )
    ]
    assert content.scan_files(files, content.DEFAULT) == ()


class CountedSearches:
    """A compiled pattern as the scanner sees it, counting the searches of one line (a rule's `near`)."""

    def __init__(self, pattern: str, searches: Counter[str]) -> None:
        self._compiled = re.compile(pattern, re.MULTILINE)
        self._pattern, self._searches = pattern, searches

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self._compiled.finditer(text)

    def search(self, line: str) -> re.Match[str] | None:
        self._searches[self._pattern] += 1
        return self._compiled.search(line)


def test_a_long_line_of_matches_is_searched_once_not_once_per_match(monkeypatch: pytest.MonkeyPatch) -> None:
    # A package name of 3,000 whole words that never closes, and a Go line of 3,000 `rand.` calls without
    # a secret word: each rule's `near` and name check cost the line once (minutes when they cost it per
    # match), and a name's words are found once.
    lines = {
        "package.json": '"' + "cookie-" * 3000,
        "requirements.txt": "cookie-" * 3000,
        "go.mod": "cookie/" * 3000,
        "Cargo.toml": "cookie-" * 3000,
        "x.go": "rand.Intn " * 3000,
    }
    files = [content.added_file(name, "\n".join([line] * 20) + "\n") for name, line in lines.items()]
    searches: Counter[str] = Counter()
    monkeypatch.setattr(scan, "_regex", lambda pattern: CountedSearches(pattern, searches))
    assert content.scan_files(files, content.DEFAULT)
    rules_with = Counter(r.near for eco in content.DEFAULT for r in eco.rules if r.near)
    changed_lines = 20 * len(files)
    assert searches  # the lines were asked about
    assert [p for p, n in searches.items() if n > rules_with[p] * changed_lines] == []
    # The name is read once from where its word was found, never tried again from further on.
    dependencies = [
        r for eco in content.DEFAULT for r in eco.rules if r.construct.startswith("dependency on")
    ]
    assert dependencies
    assert [r.near for r in dependencies if not has_atomic_group(r.near)] == []


def test_a_users_anchored_pattern_means_the_start_and_end_of_one_line() -> None:
    eco = Ecosystem("x", rules=(ContentRule("debug route", r"^@app\.route\(.*debug.*\)$"),), names=("*",))
    patch = one_line_patch("a.py", "x = 1") + one_line_patch("b.py", "@app.route('/debug')")
    assert [h.path for h in scan_patch(patch + one_line_patch("c.py", " @app.route('/debug')"), (eco,))] == [
        "b.py"
    ]
