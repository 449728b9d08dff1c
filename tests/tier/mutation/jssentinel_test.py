"""A JavaScript line's copy that behaves the same (`tiergate.tier.mutation.jssentinel`), checked by Node
itself: still JavaScript, the same answers, another source."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.tier.mutation.javascript_test import ALL, MODULE, NODE, node_checks
from tiergate.tier.mutation.javascript import mutants_of
from tiergate.tier.mutation.jssentinel import sentinels_of


def copies(content: bytes, per_line: int = 3) -> dict[int, str | None]:
    mutants = mutants_of("m.js", content, ALL, per_line)
    found = sentinels_of("m.js", content, mutants)
    assert set(found) == {m.line for m in mutants}
    return {line: None if c is None else c.apply(content).decode() for line, c in found.items()}


@pytest.mark.parametrize(
    ("line", "wanted"),
    [
        ("  if (score >= 50) {}", "  if ((score) >= (50)) {}"),
        ("  return 'pass';", "  return ('pass');"),
        ("const g = (s) => s > 1 ? s * 2 : 0;", "const g = (s) => s > (1) ? s * 2 : (0);"),
        ("function f(a, b = 1) {}", "function f(a, b = (1)) {}"),
        ("x = y;\nopened++;", "x = y;\nvoid 0; opened++;"),
        ("  log.clear();", "  void 0; log.clear();"),
        ("  return a.length >= b.length && !a.x;", "  return (a).length >= (b).length && !(a).x;"),
        ("const o = { k: a >= 1 };", "const o = { k: a >= (1) };"),
        ("try { f(1) } catch (e) { n += 2 }", "try { f((1)) } catch (e) { n += (2) }"),
    ],
)
def test_each_mutant_gets_parentheses_around_a_plain_operand_near_it(line: str, wanted: str) -> None:
    [found] = copies(f"{line}\n".encode()).values()
    assert found == f"{wanted}\n"


def test_a_function_read_as_source_without_comments_reads_a_change() -> None:
    # A test comparing `grade.toString()` with its comments taken out fails on the copy as on a mutant.
    module = "function grade(score) {\n  if (score >= 50) {\n    return 'pass';\n  }\n  return 'fail';\n}\n"
    [copy] = [c for c in copies(module.encode()).values() if c is not None][:1]
    strip = r"/\/\*[\s\S]*?\*\/|\/\/.*/g"
    assert NODE is not None
    script = (
        f"const f = (src) => new Function(src + '; return grade;')();"
        f"const a = f({json.dumps(module)}), b = f({json.dumps(copy)});"
        f"const bare = (g) => g.toString().replace({strip}, '');"
        "const same = [0, 49, 50, 51, 100].every((s) => a(s) === b(s));"
        "console.log(JSON.stringify([bare(a) !== bare(b), same]));"
    )
    out = subprocess.run([NODE, "-e", script], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [True, True]  # another source, the same answers


def test_every_copy_of_a_module_is_still_javascript_and_none_is_missing(tmp_path: Path) -> None:
    found = copies(MODULE.encode())
    assert len(found) > 30
    assert all(copy is not None and copy != MODULE for copy in found.values())
    files = {f"c{line}.js": copy.encode() for line, copy in found.items() if copy is not None}
    assert node_checks(tmp_path, files) == {}


def test_offsets_are_bytes_after_non_ascii_text() -> None:
    content = "const é = 'ü'; if (x >= 5) y();\n".encode()
    [copy] = copies(content).values()
    assert copy == "const é = 'ü'; if ((x) >= (5)) y();\n"
