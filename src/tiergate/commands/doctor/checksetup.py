"""The project's checks, for `tiergate doctor`: configured or detected, each program located, the
candidates passed over and why, and whether the gate measures coverage as the tests run."""

from __future__ import annotations

from typing import Any

from tiergate.commands.doctor.finding import Finding
from tiergate.config.settings import load_config
from tiergate.errors import UserError
from tiergate.gate.coverage.measuring import describe_plan, project_plan
from tiergate.gate.detection.declared.declaration import Declared
from tiergate.gate.detection.projectchecks import detected_checks, locate_program, project_checks
from tiergate.gate.detection.rules import DetectedCheck, Detection
from tiergate.project import Project


def check_findings(project: Project, path: str | None = None) -> list[Finding]:
    """The configured checks, else those the simple per-ecosystem rules detect, each with its program
    looked up on `path` (None: this process's PATH): a check that cannot run fails, a detected one
    whose program is missing is skipped, saying why."""
    try:
        config = load_config(project.root)
    except UserError as exc:
        return [Finding("fail", "config", str(exc))]
    if config.checks:
        origin = f"configured in {config.source}"
        return [_configured(project, name, command, origin, path) for name, command in config.checks.items()]
    detection = detected_checks(project.root, path)
    found: list[Finding] = []
    for c in detection.offered:
        passed = _passed_over(detection, c)
        facts = _check_facts(c.name, c.command, f"detected: {c.reason}", skipped=False)
        detail = f"{c.command} (detected, not configured: {c.reason})"
        found += [Finding("ok", f"check {c.name}", detail, {**facts, **_detected_facts(c, passed)})]
        found += _passed_findings(c, passed)
    skipped: list[Finding] = []
    for c, why in detection.skipped:
        passed = _passed_over(detection, c)
        facts = _check_facts(c.name, c.command, f"detected: {c.reason}", skipped=True, problem=why)
        detail = f"{c.command} skipped: {why} (detected, not configured: {c.reason})"
        skipped += [Finding("warn", f"check {c.name}", detail, {**facts, **_detected_facts(c, passed)})]
        skipped += _passed_findings(c, passed)
    if not found:
        some = "and no detected check's program is on PATH" if skipped else "and none detected"
        hint = 'add a [checks] table to .tiergate.toml (for example tests = "pytest -q")'
        return [*skipped, Finding("warn", "checks", f"none configured {some}: {hint}")]
    return [*found, *skipped]


def _passed_over(detection: Detection, check: DetectedCheck) -> list[tuple[DetectedCheck, str]]:
    return [(other, why) for other, why in detection.passed_over if other.name == check.name]


def _passed_findings(check: DetectedCheck, passed: list[tuple[DetectedCheck, str]]) -> list[Finding]:
    """One line per candidate passed over for `check`: what it runs, where from, and why not."""
    name = f"check {check.name} passed over"
    return [Finding("ok", name, f"{other.command} ({_from(other)}): {why}") for other, why in passed]


def _from(check: DetectedCheck) -> str:
    """Where a passed-over candidate comes from, for a person."""
    if not check.declared:
        return f"tiergate's guess: {check.reason}"
    first = check.declared[0]
    return f"{first.origin}, as `{first.written}`" if first.written else first.origin


def _detected_facts(check: DetectedCheck, passed: list[tuple[DetectedCheck, str]]) -> dict[str, Any]:
    """A detected test check's facts for --json: where the project declares it, and the candidates
    passed over with why."""
    if not check.declared and not passed:
        return {}
    return {
        "declared": [_declaration(d) for d in check.declared],
        "passed_over": [
            {"command": other.command, "declared": [_declaration(d) for d in other.declared], "why": why}
            for other, why in passed
        ],
    }


def _declaration(declared: Declared) -> dict[str, Any]:
    return {
        "file": declared.file,
        "line": declared.line or None,
        "where": declared.where,
        "written": declared.written or None,
        "notes": list(declared.notes),
    }


def coverage_finding(project: Project) -> list[Finding]:
    """Whether the gate measures the change's line coverage as it runs the tests, with which check
    and tool, or why none can (then a code change never reaches LIGHT on measured coverage)."""
    try:
        checks = project_checks(project.root, load_config(project.root))
    except UserError:
        return []  # check_findings has said what is wrong with the configuration
    measured, said = describe_plan(project_plan(project.root, checks))
    if measured:
        return [Finding("ok", "coverage", f"measured at the gate as the tests run: {said}")]
    return [
        Finding(
            "warn",
            "coverage",
            f"not measured at the gate ({said}): a code change reaches LIGHT only on coverage data",
        )
    ]


def _configured(project: Project, name: str, command: str, origin: str, path: str | None) -> Finding:
    located = locate_program(command, project.root, path)
    facts = _check_facts(
        name, command, origin, program=located.program, location=located.location, problem=located.problem
    )
    if located.problem:
        return Finding(
            "fail", f"check {name}", f"{command}: could not run: {located.problem} ({origin})", facts
        )
    if located.program is None:
        where = "its program cannot be told before it runs"
    elif located.location == "shell builtin":
        where = f"{located.program} is a shell builtin"
    else:
        where = f"{located.program} is {located.location}"
    return Finding("ok", f"check {name}", f"{command} ({origin}; {where})", facts)


def _check_facts(name: str, command: str, source: str, **facts: object) -> dict[str, Any]:
    return {"name": name, "command": command, "source": source, **facts}
