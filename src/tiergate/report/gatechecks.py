"""A gate run in the report page: its checks (new failures first, each with its failing tests and the
first lines of its output), and the changed lines' mutation score with each survivor."""

from __future__ import annotations

from tiergate.report.loops import Check, Gate
from tiergate.report.markup import count, esc

OUTPUT_LINES = 20  # the output lines of a check shown


def gate_checks(gate: Gate, *, task: bool = False) -> str:
    verdict = "refute the claim" if gate.refuted else "do not refute the claim"
    if task:  # a completed task's gate is read for regressions only: the step's verdict is its own
        verdict = "were read for regressions only (the task's step claim)"
    reused = " (results reused: the workspace was checked before)" if gate.reused else ""
    # New failures first (what refutes a claim), then the ones that failed when the loop began, then the rest.
    ordered = sorted(gate.checks, key=lambda c: (not c.new_failure, c.status == "passed"))
    rows = "".join(_check_row(c) for c in ordered)
    return (
        f'<div class="gate"><p class="gate-head">Gate: {count(len(gate.checks), "check")} in '
        f"{gate.duration:.1f} s; they {verdict}{reused}</p>"
        f'<div class="table-wrap"><table class="checks"><thead><tr>{_CHECK_HEADS}</tr></thead>'
        f"<tbody>{rows}</tbody></table></div>{_mutants(gate)}</div>"
    )


def _mutants(gate: Gate) -> str:
    """The changed lines' mutation score, each survivor listed."""
    if not gate.mutants:
        return ""
    survivors = "".join(f"<li><code>{esc(s)}</code> survived every test</li>" for s in gate.survivors)
    listed = f'<ul class="survivors">{survivors}</ul>' if survivors else ""
    return f'<p class="mutants">Mutants: {esc(gate.mutants)}</p>{listed}'


_CHECK_HEADS = "".join(f'<th scope="col">{h}</th>' for h in ("check", "result", "failure", "time", "details"))


def _check_row(c: Check) -> str:
    if c.status == "passed":
        result, standing = '<span class="ok"><span aria-hidden="true">✓</span> passed</span>', "-"
    else:
        result = f'<span class="bad"><span aria-hidden="true">✗</span> {esc(c.status)}</span>'
        standing = (
            '<span class="new-failure">NEW</span>'
            if c.new_failure
            else f'<span class="old-failure">{esc(c.standing or "pre-existing")}</span>'
        )
    duration = "-" if c.duration is None else f"{c.duration:.2f} s"
    return (
        f'<tr><td><code class="check-name">{esc(c.name)}</code><br>'
        f'<span class="muted">{esc(c.command)}</span></td>'
        f"<td>{result}</td><td>{standing}{_check_why(c)}</td>"
        f"<td>{esc(duration)}</td><td>{_check_details(c)}</td></tr>"
    )


def _check_why(c: Check) -> str:
    return "" if c.status == "passed" or not c.why else f"<br><span class='muted'>{esc(c.why)}</span>"


def _check_details(c: Check) -> str:
    parts = []
    if c.new_tests:
        parts.append(f"<p>new failing tests: {', '.join(f'<code>{esc(t)}</code>' for t in c.new_tests)}</p>")
    old = [t for t in c.failed_tests if t not in c.new_tests]
    if old:
        parts.append(f"<p>failing before too: {', '.join(f'<code>{esc(t)}</code>' for t in old)}</p>")
    if c.output_lines:
        lines = c.output_lines
        shown = "\n".join(lines[:OUTPUT_LINES])
        more = f"\n… {len(lines) - OUTPUT_LINES} more lines" if len(lines) > OUTPUT_LINES else ""
        parts.append(
            f"<details><summary>output ({count(len(lines), 'line')})</summary>"
            f"<pre>{esc(shown)}{esc(more)}</pre></details>"
        )
    return "".join(parts) or "-"
