"""The report's HTML: one self-contained page (inline CSS and SVG; no script, font, image or link that
would make a request), from the loops read from the log (pure: a `Report` in, text out).

Every string from the log goes through `_e` (html.escape, quotes included) wherever it lands: element
text, an attribute, SVG text. The agent wrote much of it (task, check names, paths, reasons, output).

Read without colour: every kind of step has its own marker shape and a text label, verdicts and outcomes
a symbol and a word, and the cost chart tells its two bars apart by fill pattern and label; each chart has
a text alternative (role="img", aria-label, <title>), and the timeline below it says the same in words.
"""

from __future__ import annotations

import html
from datetime import datetime

from tiergate.report.loops import TASK_KINDS, Check, Gate, Loop, Report, Step, Verifier
from tiergate.report.style import CSS

# Bounds that keep a night's page small enough to open: the steps of a loop shown before older ones are
# folded, the older steps kept in the fold (the oldest beyond it are left off, and counted), the verifiers
# of a loop listed, the markers of a loop's chart, the output lines of a check shown.
STEPS_SHOWN = 40
STEPS_FOLDED = 200
VERIFIERS_SHOWN = 50
MARKERS_SHOWN = 60
OUTPUT_LINES = 20
LOOPS_OPEN = 3  # the newest loops start unfolded; older ones are one click away
# A text symbol per outcome and verdict (aria-hidden: the word beside it says the same).
_OUTCOME = {"finished": "✓", "halted": "■", "cancelled": "✕", "running": "…"}
_VERDICT = {"PASS": "✓", "FAIL": "✗", "INCOMPLETE": "◐", "DISQUALIFIED": "⊘", "VOID": "○", "requested": "…"}
_STEP_SYMBOL = {
    "start": "▶", "claim": "◆", "refuted": "✗", "verifier": "•", "redo": "↻", "verdict": "●",
    "halt": "■", "finish": "★", "cancel": "✕", "error": "⚠", "note": "·", "task": "☑", "task-refused": "☒",
}  # fmt: skip
_MAJOR = frozenset({"start", "claim", "refuted", "redo", "verdict", "halt", "finish", "cancel", "error"})


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def page(report: Report, *, project: str, generated: str) -> str:
    """The whole HTML document for `report` of the project named `project`, made at `generated`."""
    title = f"tiergate report: {project}"
    loops = list(reversed(report.loops))  # newest first: the morning's question is how the night ended
    body = [
        _header(report, project, generated),
        _summary(report),
        *(_loop(loop, open_=index < LOOPS_OPEN) for index, loop in enumerate(loops)),
    ]
    if not report.loops:
        body.append('<p class="empty">No loop in the decision log yet.</p>')
    body.append(_footer(report))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # Nothing on this page may load anything: no script, style, image, font, frame, form or link.
        '<meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
        '<meta name="referrer" content="no-referrer">'
        f"<title>{_e(title)}</title><style>{CSS}</style></head>\n"
        f"<body><main>{''.join(body)}</main></body></html>\n"
    )


def _header(report: Report, project: str, generated: str) -> str:
    shown = len(report.loops)
    scope = f"{_count(shown, 'loop')}"
    if report.omitted_loops:
        scope = (
            f"the last {_count(shown, 'loop')} of {report.total_loops} "
            f"({report.omitted_loops} older left off: <code>tiergate report --loops N</code> shows more)"
        )
    return (
        '<header><p class="brand">tiergate report</p>'
        f"<h1>{_e(project)}</h1>"
        f'<p class="meta">Made {_e(_when(generated))} from the decision log '
        f"({_count(report.records, 'record')}); "
        f"showing {scope}.</p>{_left_out(report)}</header>"
    )


def _left_out(report: Report) -> str:
    parts = []
    if report.foreign:
        parts.append(
            f"{_count(report.foreign, 'record')} whose seal does not match (not written by tiergate, or "
            "edited since)"
        )
    if report.damaged:
        parts.append(f"{_count(report.damaged, 'damaged line')} (not whole records)")
    if not parts:
        return ""
    return (
        f'<p class="warning" id="left-out" role="note"><strong>⚠ Left out:</strong> {" and ".join(parts)}. '
        "This page shows only what tiergate itself logged.</p>"
    )


def _summary(report: Report) -> str:
    outcomes: dict[str, int] = {}
    for loop in report.loops:
        outcomes[loop.outcome] = outcomes.get(loop.outcome, 0) + 1
    verifiers = [v for loop in report.loops for v in loop.verifiers]
    ran = [v for v in verifiers if v.ran]
    passed = sum(v.verdict == "PASS" for v in ran)
    tiles = [
        ("Loops", str(len(report.loops)), ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items())) or "-"),
        (
            "Claims",
            str(sum(loop.claims for loop in report.loops)),
            f"{_count(_gate_runs(report), 'gate run')}",
        ),
        ("Verifiers", str(len(ran)), f"{passed} passed, {len(ran) - passed} did not"),
        ("Relative cost", f"{_x(report.cost)}", f"always THOROUGH: {_x(report.thorough_cost)}"),
    ]
    cells = "".join(
        f'<div class="tile"><p class="tile-label">{_e(label)}</p><p class="tile-value">{_e(value)}</p>'
        f'<p class="tile-note">{_e(note)}</p></div>'
        for label, value, note in tiles
    )
    return (
        f'<section class="summary" aria-label="summary"><div class="tiles">{cells}</div>'
        f"{_cost_chart(report)}</section>"
    )


def _gate_runs(report: Report) -> int:
    return sum(loop.gate_runs for loop in report.loops)


def _cost_chart(report: Report) -> str:
    """Per loop, the verifiers' relative cost (solid bar) against what always THOROUGH would have cost
    (hatched bar), with both numbers written out: the `[costs]` weights, not money."""
    loops = [loop for loop in report.loops if loop.thorough_cost]
    if not loops:
        return '<p class="note">No verifier has run yet: no cost to compare.</p>'
    top = max(max(loop.thorough_cost, loop.cost) for loop in loops)
    row, label_w, bar_w = 34, 190, 460
    height, width = 40 + row * len(loops), label_w + bar_w + 120
    saving = 1 - report.cost / report.thorough_cost if report.thorough_cost else 0.0
    alt = (
        f"Relative cost of the verifiers: {_x(report.cost)} against {_x(report.thorough_cost)} had every "
        f"verification been THOROUGH ({saving:.0%} less)."
    )
    parts = [
        f'<svg class="chart" role="img" aria-label="{_e(alt)}" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}">',
        f"<title>{_e(alt)}</title>",
        '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/>'
        '<line x1="0" y1="0" x2="0" y2="6" stroke="#6b7280" stroke-width="2.5"/></pattern></defs>',
        _legend(label_w),
    ]
    for i, loop in enumerate(loops):
        y = 34 + i * row
        real = bar_w * loop.cost / top
        thorough = bar_w * loop.thorough_cost / top
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 14}" text-anchor="end" class="axis">'
            f"{_e(_short(_name(loop), 26))}</text>"
            f'<rect x="{label_w}" y="{y}" width="{thorough:.1f}" height="22" fill="url(#hatch)" '
            'stroke="#374151"/>'
            f'<rect x="{label_w}" y="{y + 5}" width="{real:.1f}" height="12" fill="#1d4ed8" '
            'stroke="#111827"/>'
            f'<text x="{label_w + thorough + 6:.1f}" y="{y + 15}" class="axis">'
            f"{_e(_x(loop.cost))} of {_e(_x(loop.thorough_cost))}</text>"
        )
    parts.append("</svg>")
    return (
        '<figure class="costs"><figcaption>Relative cost against always-THOROUGH, per loop '
        f"(<code>[costs]</code> weights, not money): {_e(_x(report.cost))} of "
        f"{_e(_x(report.thorough_cost))}, "
        f"{saving:.0%} less</figcaption>{''.join(parts)}</figure>"
    )


def _legend(x: int) -> str:
    return (
        f'<rect x="{x}" y="6" width="22" height="12" fill="#1d4ed8" stroke="#111827"/>'
        f'<text x="{x + 28}" y="16" class="axis">solid: the verifiers that ran</text>'
        f'<rect x="{x + 230}" y="4" width="22" height="16" fill="url(#hatch)" stroke="#374151"/>'
        f'<text x="{x + 258}" y="16" class="axis">hatched: always THOROUGH</text>'
    )


def _loop(loop: Loop, *, open_: bool) -> str:
    outcome = loop.outcome
    head = (
        f'<summary><span class="outcome outcome-{_e(outcome)}"><span aria-hidden="true">'
        f"{_OUTCOME.get(outcome, '?')}</span> {_e(outcome)}</span>"
        f'<span class="task">{_e(_name(loop))}</span></summary>'
    )
    facts = [
        ("session", f"<code>{_e(loop.session_id)}</code>"),
        ("when", f"{_e(_when(loop.started))} to {_e(_when(loop.ended, time_only=True))}"),
        ("iterations", _e(loop.iterations)),
        ("claims", _e(loop.claims)),
        ("gate runs", _e(loop.gate_runs)),
        ("cost", _loop_cost(loop)),
    ]
    meta = "".join(f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in facts)
    end = ""
    if loop.end_reason and outcome in ("halted", "cancelled"):
        end = f'<p class="end-reason"><strong>Why it {_e(outcome)}:</strong> {_e(loop.end_reason)}</p>'
    return (
        f'<section class="loop" aria-label="loop {_e(loop.session_id)}"><details{" open" if open_ else ""}>'
        f'{head}<dl class="facts">{meta}</dl>{end}{_track(loop)}{_verifiers(loop.verifiers)}'
        f"{_timeline(loop)}</details></section>"
    )


def _loop_cost(loop: Loop) -> str:
    if not loop.thorough_cost:
        return "no verifier ran"
    return f"{_e(_x(loop.cost))} (always THOROUGH: {_e(_x(loop.thorough_cost))})"


def _track(loop: Loop) -> str:
    """The loop at a glance: one marker per major step, its shape saying its kind, a label under it."""
    steps = [s for s in loop.steps if s.kind in _MAJOR]
    folded = max(0, len(steps) - MARKERS_SHOWN)
    steps = steps[folded:]
    if not steps:
        return ""
    gap, left = 96, 52
    width = left * 2 + gap * (len(steps) - 1)
    said = "; ".join(_marker_text(s) for s in steps)
    alt = f"Timeline of the loop: {said}" + (f" ({folded} earlier steps not drawn)" if folded else "")
    parts = [
        f'<svg class="track" role="img" aria-label="{_e(alt)}" viewBox="0 0 {width} 92" width="{width}" '
        'height="92">',
        f"<title>{_e(alt)}</title>",
        f'<line x1="{left}" y1="30" x2="{width - left}" y2="30" stroke="#9ca3af" stroke-width="2"/>',
    ]
    last_iteration: int | None = None
    for i, s in enumerate(steps):
        x = left + i * gap
        if s.iteration is not None and s.iteration != last_iteration:
            parts.append(f'<text x="{x}" y="10" text-anchor="middle" class="iter">it. {s.iteration}</text>')
            last_iteration = s.iteration
        parts.append(f"<g><title>{_e(_marker_text(s))}</title>{_shape(s, x, 30)}</g>")
        for n, text in enumerate(_marker_words(s)):
            parts.append(
                f'<text x="{x}" y="{62 + n * 14}" text-anchor="middle" class="mark">'
                f"{_e(_short(text, 12))}</text>"
            )
    parts.append("</svg>")
    note = f'<p class="note">{folded} earlier steps are not drawn.</p>' if folded else ""
    return f'<div class="track-wrap">{"".join(parts)}</div>{note}'


# The markers, drawn around (0, 0): each kind its own shape, so that the shape alone tells it (the colour
# only repeats it).
_CROSS = (
    '<circle r="12" fill="#fff" stroke="#b91c1c" stroke-width="2"/>'
    '<path d="M-6 -6L6 6M6 -6L-6 6" stroke="#b91c1c" stroke-width="3"/>'
)
_TRIANGLE = '<path d="M0 -12L12 9L-12 9Z" fill="#fff" stroke="#92400e" stroke-width="2.5"/>'
_SHAPES = {
    "refuted": _CROSS,
    "FAIL": _CROSS,
    "DISQUALIFIED": _CROSS,
    "PASS": (
        '<circle r="12" fill="#15803d"/>'
        '<path d="M-6 0L-1 5L7 -5" stroke="#fff" stroke-width="3" fill="none"/>'
    ),
    "verdict": _TRIANGLE,
    "claim": '<path d="M0 -12L12 0L0 12L-12 0Z" fill="#1d4ed8"/>',
    "start": '<path d="M-8 -11L11 0L-8 11Z" fill="#374151"/>',
    "halt": '<rect x="-11" y="-11" width="22" height="22" fill="#7f1d1d"/>',
    "cancel": (
        '<rect x="-10" y="-10" width="20" height="20" fill="#fff" stroke="#374151" stroke-width="2.5"/>'
    ),
    "finish": (
        '<circle r="13" fill="#fff" stroke="#15803d" stroke-width="2.5"/><circle r="7" fill="#15803d"/>'
    ),
    "redo": '<circle r="11" fill="#fff" stroke="#92400e" stroke-width="2.5" stroke-dasharray="4 3"/>',
    "error": (
        '<path d="M0 -12L12 9L-12 9Z" fill="#fde68a" stroke="#92400e" stroke-width="2"/>'
        '<text y="6" text-anchor="middle" class="bang">!</text>'
    ),
}


def _shape(s: Step, x: int, y: int) -> str:
    key = s.verdict if s.kind == "verdict" and s.verdict in _SHAPES else s.kind
    return f'<g transform="translate({x} {y})">{_SHAPES.get(key, _SHAPES["error"])}</g>'


def _marker_words(s: Step) -> list[str]:
    """The one or two words under a marker."""
    first = {
        "start": "start", "claim": s.tier or "again", "refuted": "checks ✗", "redo": "redo",
        "verdict": s.verdict or "verdict", "halt": "HALT", "finish": "finished", "cancel": "cancel",
        "error": "error",
    }.get(s.kind, s.kind)  # fmt: skip
    words = [first]
    if s.rollback is not None:
        words.append("rollback")
    elif s.intervention and s.kind != "halt":
        words.append(s.intervention.split("-")[0])
    return words


def _marker_text(s: Step) -> str:
    text = f"iteration {s.iteration}: {s.label}" if s.iteration is not None else s.label
    if s.tier:
        text += f" (tier {s.tier})"
    if s.intervention:
        text += f", then {s.intervention}"
    if s.rollback is not None:
        text += f" (backup {s.rollback.backup})"
    return text


def _verifiers(verifiers: tuple[Verifier, ...]) -> str:
    if not verifiers:
        return ""
    head = "".join(
        f'<th scope="col">{h}</th>'
        for h in ("id", "tier", "agent", "model", "verdict", "change", "ran", "redos", "cost", "note")
    )
    left_off = max(0, len(verifiers) - VERIFIERS_SHOWN)
    rows = "".join(_verifier_row(v) for v in verifiers[left_off:])
    note = (
        f'<p class="note">{left_off} earlier verifiers left off (<code>tiergate history</code> lists them '
        "all).</p>"
        if left_off
        else ""
    )
    return (
        '<h3>Verifiers</h3><div class="table-wrap"><table class="verifiers">'
        f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>{note}"
    )


def _verifier_row(v: Verifier) -> str:
    change = (
        "-"
        if v.files_changed is None
        else f"{_count(v.files_changed, 'file')}, {_count(v.lines_changed or 0, 'line')}"
    )
    ran = "-" if v.duration_s is None else f"{v.duration_s:.1f} s"
    cost = f"{_x(v.relative_cost)} of {_x(v.thorough_cost)}" if v.ran else "not run"
    return (
        f"<tr><td><code>{_e(v.id)}</code></td><td>{_tier(v.tier)}</td><td>{_e(v.agent)}</td><td>{_e(v.model)}</td>"
        f"<td>{_verdict(v.verdict)}</td><td>{_e(change)}</td><td>{_e(ran)}</td><td>{_e(v.redos)}</td>"
        f"<td>{_e(cost)}</td><td>{_e(v.why)}</td></tr>"
    )


def _verdict(verdict: str) -> str:
    return (
        f'<span class="verdict verdict-{_e(verdict)}"><span aria-hidden="true">{_VERDICT.get(verdict, "?")}'
        f"</span> {_e(verdict)}</span>"
    )


def _tier(tier: str) -> str:
    return f'<span class="tier tier-{_e(tier)}">{_e(tier)}</span>' if tier else "-"


def _timeline(loop: Loop) -> str:
    steps = loop.steps
    verifiers = {v.id: v for v in loop.verifiers}
    left_off = max(0, len(steps) - STEPS_SHOWN - STEPS_FOLDED)
    steps = steps[left_off:]
    folded = max(0, len(steps) - STEPS_SHOWN)
    items = [_step(s, verifiers.get(s.verifier or "")) for s in steps]
    older = ""
    if left_off:
        older = (
            f'<li class="folded note">{left_off} earlier steps left off (<code>tiergate history</code>)</li>'
        )
    if folded:
        older += (
            f'<li class="folded"><details><summary>{folded} earlier steps (folded)</summary>'
            f'<ol class="timeline">{"".join(items[:folded])}</ol></details></li>'
        )
    return f'<h3>Timeline</h3><ol class="timeline">{older}{"".join(items[folded:])}</ol>'


def _step(s: Step, verifier: Verifier | None) -> str:
    major = s.kind in _MAJOR
    iteration = f'<span class="iteration">it. {_e(s.iteration)}</span>' if s.iteration is not None else ""
    title = _e(s.label)
    if s.tier:
        title = f"claim sent to a verifier: tier {_tier(s.tier)} {_by(s)}"
    if s.verdict:
        title = (
            f"verdict {_verdict(s.verdict)} <span class='muted'>for {_e(s.verifier or '?')} {_by(s)}</span>"
        )
    body = []
    if s.tier:
        body.append(
            f'<p class="why"><strong>Why {_e(s.tier)}:</strong> {_e("; ".join(s.tier_reasons) or "-")}</p>'
        )
    if s.verdict and verifier is not None:
        body.append(_verifier_facts(verifier))
    body.append(_reasons(s, open_=major and not s.tier))
    if s.gate is not None:
        body.append(_gate(s.gate, task=s.kind in TASK_KINDS))
    if s.intervention and s.kind != "halt":
        body.append(f'<p class="intervention"><strong>Intervention:</strong> {_e(s.intervention)}</p>')
    if s.rollback is not None:
        r = s.rollback
        body.append(
            f'<p class="rollback"><strong>↺ Rolled back</strong> to {_e(r.to)}; the work is saved as backup '
            f"<code>{_e(r.backup)}</code> (<code>{_e(r.backup_ref)}</code>): "
            f"<code>tiergate restore {_e(r.backup)}</code> brings it back.</p>"
        )
    if s.halt_reason:
        body.append(f'<p class="halt-reason"><strong>■ Halted:</strong> {_e(s.halt_reason)}</p>')
    if s.error:
        body.append(f'<p class="error"><strong>⚠ Error:</strong> {_e(s.error)}</p>')
    return (
        f'<li class="step step-{_e(s.kind)}{"" if major else " minor"}">'
        f'<span class="symbol" aria-hidden="true">{_symbol(s)}</span>'
        f'<div class="step-body"><p class="step-head"><time>{_e(_when(s.timestamp, time_only=True))}</time>'
        f'{iteration}<span class="step-title">{title}</span>'
        f'<span class="event">{_e(s.event)}</span></p>{"".join(body)}</div></li>'
    )


def _symbol(s: Step) -> str:
    if s.verdict:
        return _VERDICT.get(s.verdict, "●")
    return _STEP_SYMBOL.get(s.kind, "·")


def _by(s: Step) -> str:
    if not s.agent:
        return ""
    return f"<span class='muted'>by {_e(s.agent)} ({_e(s.model or '?')})</span>"


def _verifier_facts(v: Verifier) -> str:
    facts = []
    if v.duration_s is not None:
        facts.append(f"ran {v.duration_s:.1f} s")
    facts.append(f"{_count(v.redos, 'redo')} (sent back for a better verdict)" if v.redos else "no redo")
    if v.ran:
        facts.append(f"cost {_x(v.relative_cost)} (THOROUGH: {_x(v.thorough_cost)})")
    why = f'<p class="disqualified"><strong>⊘ Why:</strong> {_e(v.why)}</p>' if v.why else ""
    return f'<p class="verifier-facts">{_e(", ".join(facts))}</p>{why}'


def _reasons(s: Step, *, open_: bool) -> str:
    if not s.reasons:
        return ""
    items = "".join(f"<li>{_e(r)}</li>" for r in s.reasons)
    if open_:
        return f'<ul class="reasons">{items}</ul>'
    return (
        f'<details class="reasons-fold"><summary>reasons</summary><ul class="reasons">{items}</ul></details>'
    )


def _gate(gate: Gate, *, task: bool = False) -> str:
    verdict = "refute the claim" if gate.refuted else "do not refute the claim"
    if task:  # a completed task's gate is read for regressions only: the step's verdict is its own
        verdict = "were read for regressions only (the task's step claim)"
    reused = " (results reused: the workspace was checked before)" if gate.reused else ""
    # New failures first (what refutes a claim), then the ones that failed when the loop began, then the rest.
    ordered = sorted(gate.checks, key=lambda c: (not c.new_failure, c.status == "passed"))
    rows = "".join(_check_row(c) for c in ordered)
    return (
        f'<div class="gate"><p class="gate-head">Gate: {_count(len(gate.checks), "check")} in '
        f"{gate.duration:.1f} s; they {verdict}{reused}</p>"
        f'<div class="table-wrap"><table class="checks"><thead><tr>{_CHECK_HEADS}</tr></thead>'
        f"<tbody>{rows}</tbody></table></div>{_mutants(gate)}</div>"
    )


def _mutants(gate: Gate) -> str:
    """The changed lines' mutation score, each survivor listed."""
    if not gate.mutants:
        return ""
    survivors = "".join(f"<li><code>{_e(s)}</code> survived every test</li>" for s in gate.survivors)
    listed = f'<ul class="survivors">{survivors}</ul>' if survivors else ""
    return f'<p class="mutants">Mutants: {_e(gate.mutants)}</p>{listed}'


_CHECK_HEADS = "".join(f'<th scope="col">{h}</th>' for h in ("check", "result", "failure", "time", "details"))


def _check_row(c: Check) -> str:
    if c.status == "passed":
        result, standing = '<span class="ok"><span aria-hidden="true">✓</span> passed</span>', "-"
    else:
        result = f'<span class="bad"><span aria-hidden="true">✗</span> {_e(c.status)}</span>'
        standing = (
            '<span class="new-failure">NEW</span>'
            if c.new_failure
            else f'<span class="old-failure">{_e(c.standing or "pre-existing")}</span>'
        )
    duration = "-" if c.duration is None else f"{c.duration:.2f} s"
    return (
        f'<tr><td><code class="check-name">{_e(c.name)}</code><br>'
        f'<span class="muted">{_e(c.command)}</span></td>'
        f"<td>{result}</td><td>{standing}{_check_why(c)}</td>"
        f"<td>{_e(duration)}</td><td>{_check_details(c)}</td></tr>"
    )


def _check_why(c: Check) -> str:
    return "" if c.status == "passed" or not c.why else f"<br><span class='muted'>{_e(c.why)}</span>"


def _check_details(c: Check) -> str:
    parts = []
    if c.new_tests:
        parts.append(f"<p>new failing tests: {', '.join(f'<code>{_e(t)}</code>' for t in c.new_tests)}</p>")
    old = [t for t in c.failed_tests if t not in c.new_tests]
    if old:
        parts.append(f"<p>failing before too: {', '.join(f'<code>{_e(t)}</code>' for t in old)}</p>")
    if c.output_lines:
        lines = c.output_lines
        shown = "\n".join(lines[:OUTPUT_LINES])
        more = f"\n… {len(lines) - OUTPUT_LINES} more lines" if len(lines) > OUTPUT_LINES else ""
        parts.append(
            f"<details><summary>output ({_count(len(lines), 'line')})</summary>"
            f"<pre>{_e(shown)}{_e(more)}</pre></details>"
        )
    return "".join(parts) or "-"


def _footer(report: Report) -> str:
    limit = report.limits.get("loops", 0)
    return (
        "<footer><p>Read from the decision log only (<code>log.jsonl</code> in the project's state folder); "
        f"each record's seal checked. Bounded for long nights: at most {limit} loops, "
        f"{STEPS_SHOWN} steps per loop before older ones fold ({STEPS_FOLDED} in the fold), "
        f"{VERIFIERS_SHOWN} verifiers per loop, {MARKERS_SHOWN} markers per chart, "
        f"{OUTPUT_LINES} output lines per check. Markers: ▶ start, ◆ claim sent to a verifier (its tier), "
        "✗ refuted, ● PASS (tick) / ✗ FAIL, ◌ redo (dashed), ■ halt, ◎ finished, □ cancelled, "
        "△ error.</p></footer>"
    )


def _name(loop: Loop) -> str:
    return loop.task or f"session {loop.session_id[:12]}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _x(value: float) -> str:
    return f"{value:g}x"


def _short(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word where there is one (the full text is in the title)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut) + "…"


def _when(timestamp: str, *, time_only: bool = False) -> str:
    """`2026-12-01 14:25:21 UTC` (or the time alone) from the log's ISO timestamp; as it is if not one."""
    try:
        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return timestamp
    return moment.strftime("%H:%M:%S" if time_only else "%Y-%m-%d %H:%M:%S UTC")
