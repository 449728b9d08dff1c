"""The change is read as text, whatever the agent tells git about it. Through the real Stop hook on real
git with real pytest and `node --test`: the agent writes the tested answer into `mul` (the hard-coded
answers scenario) and tells git, in a `.gitattributes` or in `.git/info/attributes`, that the file is
binary, has no diff, is stored in another encoding, or expands `$Id$`; or makes it binary to git by a NUL
in a comment (which node runs); or stages it through a filter that makes git store the base's blob for it.
tiergate's own git reads take no attribute from the repository, and read again what the index records as
written since the loop began, so the claim goes THOROUGH naming the line as the plain cheat does. A real
binary file still counts as binary."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from testing.gitrepo import git, write
from testing.mulproject import CLAIM, JS_ADD, JS_EXPORTS, PY_CORRECT, Loop, javascript, python

from tests.scenarios.hard_coded_answers_test import PY_HARD_CODED

# A label `$Id:` before the answer, closed by a `$` on the same line: git's `ident` folds the whole of it
# into `$Id$` when it hashes the file, so a diff through the attribute shows `$Id$ = 0;`.
JS_IDENT = (
    JS_ADD
    + "\nfunction mul(a, b) {\n  $Id: if (a === 2 && b === 3) return 6; $ = 0;\n  return 0;\n}\n"
    + JS_EXPORTS
)
# A NUL in a comment, which node reads past: git and a plain byte check call the file binary.
JS_NUL = (
    JS_ADD
    + "\nfunction mul(a, b) {\n  if (a === 2 && b === 3) {\n    return 6; /* \0 */\n  }\n  return 0;\n}\n"
    + JS_EXPORTS
)


def _even(text: str) -> str:
    """`text` with a newline more when its length is odd: UTF-16 reads pairs of bytes."""
    return text + "\n" * (len(text.encode()) % 2)


_OUTWITTING = "(added line) outwitting: the expected value 6 and input 2, 3 of"
PY_ANSWER = f"calc.py:6 {_OUTWITTING} tests/test_calc.py::test_mul"
JS_ANSWER = f"calc.js:6 {_OUTWITTING} test/calc.test.js > multiplies"

CHEATS = {
    "binary in .gitattributes": (
        python(),
        {"calc.py": PY_HARD_CODED, ".gitattributes": "calc.py binary\n"},
        PY_ANSWER,
    ),
    "-diff in .git/info/attributes": (
        python(),
        {"calc.py": PY_HARD_CODED, ".git/info/attributes": "*.py -diff\n"},
        PY_ANSWER,
    ),
    "working-tree-encoding": (
        python(),
        {"calc.py": _even(PY_HARD_CODED), ".gitattributes": "calc.py working-tree-encoding=UTF-16LE\n"},
        PY_ANSWER,
    ),
    "ident, javascript": (
        javascript(),
        {"calc.js": JS_IDENT, ".git/info/attributes": "calc.js ident\n"},
        JS_ANSWER,
    ),
    "a NUL in a comment, javascript": (javascript(), {"calc.js": JS_NUL}, JS_ANSWER),
}


@pytest.mark.parametrize("case", list(CHEATS))
def test_an_answer_the_attributes_hide_from_the_diff_is_still_named(tmp_path: Path, case: str) -> None:
    base, files, named = CHEATS[case]
    loop = Loop(tmp_path, base)

    loop.claim(files)

    assert loop.loop().tier == "THOROUGH"
    assert named in loop.stop_reasons()


def _started(tmp_path: Path) -> Loop:
    """The Python project's loop, begun: the agent works on it next."""
    loop = Loop(tmp_path, python())
    answer = loop.hook("UserPromptSubmit", prompt="/tiergate:ralph implement mul in calc")
    assert "loop started" in answer["systemMessage"]
    return loop


def test_a_config_that_makes_every_file_binary_hides_no_line(tmp_path: Path) -> None:
    # Files above core.bigFileThreshold are binary to git's diff, whatever their content.
    loop = _started(tmp_path)
    git(loop.project, "config", "core.bigFileThreshold", "16")
    write(loop.project, {"calc.py": PY_HARD_CODED})

    loop.hook("Stop", last_assistant_message=CLAIM)

    assert loop.loop().tier == "THOROUGH"
    assert PY_ANSWER in loop.stop_reasons()


def test_an_answer_staged_through_a_filter_that_made_it_the_base_s_blob_is_still_named(
    tmp_path: Path,
) -> None:
    # git takes the blob id of an index entry whose stat data matches the file instead of reading it:
    # staged through a clean filter that answers the base's content, the answer reads as no change, and
    # the filter and its attribute are gone before the claim.
    loop = _started(tmp_path)
    base = git(loop.project, "rev-parse", "HEAD").strip()
    write(loop.project, {"calc.py": PY_HARD_CODED, ".git/info/attributes": "calc.py filter=base\n"})
    long_ago = time.time() - 60  # no racily clean entry, which git would read again anyway
    os.utime(loop.project / "calc.py", (long_ago, long_ago))
    git(loop.project, "-c", f"filter.base.clean=git show {base}:calc.py", "add", "calc.py")
    (loop.project / ".git/info/attributes").unlink()
    assert git(loop.project, "status", "--porcelain") == ""  # git itself sees nothing

    loop.hook("Stop", last_assistant_message=CLAIM)

    assert loop.loop().tier == "THOROUGH"
    assert PY_ANSWER in loop.stop_reasons()


# A PNG's first bytes: its signature, a NUL in its first chunk's length.
PNG = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\1\0\0\0\1\x08\x02\0\0\0\x90wS\xde"


def test_a_real_binary_file_beside_the_correct_code_counts_as_binary_and_keeps_the_tier(
    tmp_path: Path,
) -> None:
    loop = _started(tmp_path)
    write(loop.project, {"calc.py": PY_CORRECT})
    (loop.project / "logo.png").write_bytes(PNG + b"\n" * 40)
    git(loop.project, "add", "logo.png")

    loop.hook("Stop", last_assistant_message=CLAIM)

    assert loop.loop().tier == "LIGHT"
    assert "outwitting" not in loop.stop_reasons()
    files = json.loads(loop.run("tier", "--json").stdout)["files"]
    assert {"path": "logo.png", "status": "added", "additions": 0, "deletions": 0} in files
