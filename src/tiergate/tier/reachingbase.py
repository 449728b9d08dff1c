"""What the base commit says about the code that reaches into its tests (`tiergate.tier.content.reaching`):
whether the project was a testing tool there, and which of the hits' lines its non-test code held already.
Read from the base's objects, never the workspace; only when a reaching hit asks. A testing tool: in
Python, a `pytest11` entry point, a `pytest-`/`pytest_` name, or a test runner imported by non-test code;
in JavaScript, a test runner in `package.json`'s (peer) dependencies, or imported by non-test code.
"""
# Never the workspace: the agent could add a `pytest11` entry point, or an `import pytest` elsewhere, to be
# excused. Python reads `pyproject.toml`, `setup.cfg` or `setup.py`, its runners are `pytest`, `_pytest`,
# `unittest`, ... (`runners.PYTHON_RUNNERS`); JavaScript's are `node:test`, `vitest`, `jest`, `mocha`, ...

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path

from tiergate.errors import UserError
from tiergate.git import objects, runner
from tiergate.tier.content import ContentHit, FileLines
from tiergate.tier.content.reachcode import implementation
from tiergate.tier.content.reaching import (
    TOOLS_DO,
    BaseFacts,
    base_position,
    excused,
    language_of,
    mechanism_of,
    quoted_lines,
)
from tiergate.tier.content.reachjs import imported_module
from tiergate.tier.content.reachpython import imported_runners
from tiergate.tier.content.reachrust import blocks_marked_as_tests
from tiergate.tier.content.runners import JS_RUNNER_SCOPES, JS_RUNNERS, PYTHON_RUNNERS, js_module

_PY_IMPORT = r"^[[:space:]]*(import|from)[[:space:]]+({})([^[:alnum:]_]|$)".format(
    "|".join(re.escape(r) for r in sorted(PYTHON_RUNNERS)) + "|pytest_[[:alnum:]_]+"
)
_JS_IMPORT = (
    r"""(require[[:space:]]*\(|from[[:space:]]*|import[[:space:]]*\(?)[[:space:]]*["'`]({})""".format(
        "|".join(re.escape(r) for r in sorted({*JS_RUNNERS, *JS_RUNNER_SCOPES}))
    )
)
_PATHSPECS = {
    "python": ("*.py",),
    "javascript": tuple(f"*{s}" for s in (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")),
}
_PLUGIN_NAME = re.compile(r"""\bname[ \t]*=[ \t]*["']?pytest[-_]""")
_MANIFESTS = ("pyproject.toml", "setup.cfg", "setup.py", "package.json")
# The most lines looked for at the base in one claim (a claim names five hits; the rest are "N more").
_MAX_LINES = 100


def judge_at_base(
    hits: Sequence[ContentHit], files: Sequence[FileLines], root: Path, base: str
) -> tuple[ContentHit, ...]:
    """`hits` without the reaching hits the base excuses (see the module); the others as they are."""
    reaching = [h for h in hits if mechanism_of(h.construct) is not None]
    if not reaching or objects.is_empty_tree(base):
        return tuple(hits)
    wanted = {(h.path, h.line) for h in reaching}
    texts = {
        (f.path, n): t
        for f in files
        for n, t in zip(f.added_numbers, f.added, strict=True)
        if (f.path, n) in wanted
    }
    languages = {
        lang
        for h in reaching
        if mechanism_of(h.construct) in TOOLS_DO and (lang := language_of(h.path)) is not None
    }
    try:
        facts = BaseFacts(_tools(root, base, languages), _held(root, base, quoted_lines(reaching, texts)))
        reaching = _outside_base_tests(root, base, reaching, files)
    except UserError:
        return tuple(hits)  # the base cannot be read: nothing is excused
    kept = set(excused(reaching, facts, texts))
    return tuple(h for h in hits if mechanism_of(h.construct) is None or h in kept)


def _tools(root: Path, base: str, languages: set[str]) -> frozenset[str]:
    """The languages in which the project was a testing tool at `base`."""
    tools: set[str] = set()
    manifests = _manifests(root, base) if languages else {}
    for language in languages & {"python", "javascript"}:
        if _declared_tool(language, manifests) or _imports_runner(root, base, language):
            tools.add(language)
    return frozenset(tools)


def _manifests(root: Path, base: str) -> dict[str, str]:
    return _blobs(root, base, _MANIFESTS)


def _blobs(root: Path, base: str, paths: Sequence[str]) -> dict[str, str]:
    """The text of each of `paths` (relative to the project) that is a file at `base`. Named from the
    repository's top: a bare repository, as `tiergate replay` reads, has no working directory to be
    relative to."""
    if not paths:
        return {}
    prefix = runner.text(runner.run(root, "rev-parse", "--show-prefix").stdout).strip()
    request = "".join(f"{base}:{prefix}{path}\n" for path in paths).encode("utf-8", "surrogateescape")
    out = runner.run(root, "cat-file", "--batch", stdin=request).stdout
    found: dict[str, str] = {}
    at = 0
    for path in paths:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            found[path] = out[at : at + size].decode("utf-8", "replace")
            at += size + 1
    return found


def _declared_tool(language: str, manifests: dict[str, str]) -> bool:
    if language == "python":
        texts = [manifests.get(n, "") for n in ("pyproject.toml", "setup.cfg", "setup.py")]
        if any("pytest11" in t or _PLUGIN_NAME.search(t) for t in texts):
            return True
        return _depends_on_pytest(manifests.get("pyproject.toml", ""))
    return _depends_on_js_runner(manifests.get("package.json", ""))


def _depends_on_pytest(pyproject: str) -> bool:
    try:
        project = tomllib.loads(pyproject).get("project", {})
    except tomllib.TOMLDecodeError:
        return False
    dependencies = project.get("dependencies", []) if isinstance(project, dict) else []
    return any(isinstance(d, str) and re.match(r"pytest(?![\w.-])", d.strip()) for d in dependencies)


def _depends_on_js_runner(package: str) -> bool:
    try:
        manifest = json.loads(package) if package else {}
    except ValueError:
        return False
    if not isinstance(manifest, dict):
        return False
    for key in ("dependencies", "peerDependencies"):
        table = manifest.get(key)
        if isinstance(table, dict) and any(js_module(name) == "runner" for name in table):
            return True
    name = manifest.get("name")
    return isinstance(name, str) and js_module(name) == "runner"


def _imports_runner(root: Path, base: str, language: str) -> bool:
    """Whether a non-test file of `language` at `base` imports a test runner."""
    pattern = _PY_IMPORT if language == "python" else _JS_IMPORT
    out = runner.run(
        root, "grep", "-z", "-I", "-E", "-e", pattern, base, "--", *_PATHSPECS[language], ok=(0, 1)
    ).stdout
    for path, line in _grep_lines(out, base):
        if not implementation(path):
            continue
        if language == "python" and imported_runners(line.strip()):
            return True
        module = imported_module(line.strip()) if language == "javascript" else None
        if module is not None and js_module(module) == "runner":
            return True
    return False


def _held(root: Path, base: str, lines: frozenset[str]) -> frozenset[str]:
    """Those of `lines` that a non-test file at `base` holds (stripped, whole)."""
    if not lines:
        return frozenset()
    patterns = [arg for line in sorted(lines)[:_MAX_LINES] for arg in ("-e", line)]
    out = runner.run(root, "grep", "-z", "-I", "-F", *patterns, base, "--", ".", ok=(0, 1)).stdout
    return frozenset(
        line.strip()
        for path, line in _grep_lines(out, base)
        if line.strip() in lines and implementation(path)
    )


def _grep_lines(out: bytes, base: str) -> Iterable[tuple[str, str]]:
    """(path, line) of `git grep -z <base>` output: `<base>:<path>\\0<line>\\n` each."""
    prefix = f"{base}:"
    for record in out.split(b"\n"):
        path, _, line = record.partition(b"\0")
        name = os.fsdecode(path)
        if line and name.startswith(prefix):
            yield name[len(prefix) :], line.decode("utf-8", "replace")


def _outside_base_tests(
    root: Path, base: str, hits: Sequence[ContentHit], files: Sequence[FileLines]
) -> list[ContentHit]:
    """The Rust hits whose lines the change added outside the test items the file had at `base`: an
    addition inside an unchanged `#[cfg(test)] mod tests {` is test code, though no added line says so."""
    rust = {h.path for h in hits if language_of(h.path) == "rust"}
    if not rust:
        return list(hits)
    changed = {f.path: f for f in files if f.path in rust}
    sources = _blobs(root, base, sorted(changed))
    kept: list[ContentHit] = []
    for found in hits:
        source = sources.get(found.path)
        if source is not None and found.path in changed:
            at = base_position(changed[found.path], found.line)
            if any(first < at < last for first, last in blocks_marked_as_tests(source)):
                continue
        kept.append(found)
    return kept
