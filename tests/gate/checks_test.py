"""Each check's kind and stage, and the key that names it by what it runs."""

from __future__ import annotations

import pytest

from tiergate.gate.checks import BEHAVIOUR_STAGE, COMPILE_STAGE, check_key, kind_of, make_check, signature


@pytest.mark.parametrize(
    ("name", "command", "kind"),
    [
        ("syntax", "python -m py_compile app.py", "syntax"),
        ("compile", "javac Main.java", "build"),
        ("build", "npm run build", "build"),
        ("type-check", "npm run tc", "types"),
        ("typecheck", "something", "types"),
        ("mypy", "mypy --strict", "types"),
        ("lint", "ruff check .", "lint"),
        ("golangci-lint", "golangci-lint run", "lint"),
        ("tests", "pytest -q", "tests"),
        ("tests-python", "pytest -q", "tests"),
        ("unit", "make unit", "tests"),
        ("probes", "./probe.sh", "tests"),
        # The name says nothing: the command's first words decide.
        ("a", "python -m compileall -q src", "syntax"),
        ("b", "go build ./...", "build"),
        ("c", "npx tsc --noEmit", "types"),
        ("d", "cargo clippy --all-targets", "lint"),
        ("e", "uv run pytest", "tests"),
        ("f", "go vet ./...", "lint"),
        # The earliest stage wins when several words match.
        ("build-and-test", "make all", "build"),
        # Words past the first three of a command are arguments, not what runs.
        ("g", "./run.sh --quiet --fast --build-dir out", "other"),
        ("h", "sleep 1", "other"),
    ],
)
def test_the_kind_comes_from_the_name_then_the_command(name: str, command: str, kind: str) -> None:
    assert kind_of(name, command) == kind


def test_syntax_and_build_are_the_compile_stage_the_rest_behaviour() -> None:
    assert make_check("syntax", "true", "t").stage == COMPILE_STAGE
    assert make_check("build", "true", "t").stage == COMPILE_STAGE
    for name in ("lint", "types", "tests", "whatever"):
        assert make_check(name, "true", "t").stage == BEHAVIOUR_STAGE


def test_the_key_names_the_command_too() -> None:
    assert make_check("tests", "pytest", "t").key == check_key("tests", "pytest")
    assert check_key("tests", "pytest") != check_key("tests", "pytest -x")
    assert check_key("tests", "pytest") != check_key("unit", "pytest")
    first = [make_check("a", "x", "t"), make_check("b", "y", "t")]
    assert signature(first) == signature(list(reversed(first)))
    assert signature(first) != signature(first[:1])
