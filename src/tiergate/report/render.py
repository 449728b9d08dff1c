"""The report's HTML: one self-contained page (inline CSS and SVG; no script, font, image or link that
would make a request), from the loops read from the log (pure: a `Report` in, text out). Read without
colour too: each marker, verdict and outcome has its own shape or symbol and a word."""

from __future__ import annotations

from tiergate.report.charts import MARKERS_SHOWN, cost_chart, track
from tiergate.report.gatechecks import OUTPUT_LINES
from tiergate.report.loops import Loop, Report
from tiergate.report.markup import OUTCOME_SYMBOL, count, esc, loop_name, times, when
from tiergate.report.style import CSS
from tiergate.report.timeline import STEPS_FOLDED, STEPS_SHOWN, VERIFIERS_SHOWN, timeline, verifiers_table

LOOPS_OPEN = 3  # the newest loops start unfolded; older ones are one click away


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
        f"<title>{esc(title)}</title><style>{CSS}</style></head>\n"
        f"<body><main>{''.join(body)}</main></body></html>\n"
    )


def _header(report: Report, project: str, generated: str) -> str:
    shown = len(report.loops)
    scope = f"{count(shown, 'loop')}"
    if report.omitted_loops:
        scope = (
            f"the last {count(shown, 'loop')} of {report.total_loops} "
            f"({report.omitted_loops} older left off: <code>tiergate report --loops N</code> shows more)"
        )
    return (
        '<header><p class="brand">tiergate report</p>'
        f"<h1>{esc(project)}</h1>"
        f'<p class="meta">Made {esc(when(generated))} from the decision log '
        f"({count(report.records, 'record')}); "
        f"showing {scope}.</p>{_left_out(report)}</header>"
    )


def _left_out(report: Report) -> str:
    parts = []
    if report.foreign:
        parts.append(
            f"{count(report.foreign, 'record')} whose seal does not match (not written by tiergate, or "
            "edited since)"
        )
    if report.damaged:
        parts.append(f"{count(report.damaged, 'damaged line')} (not whole records)")
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
            f"{count(_gate_runs(report), 'gate run')}",
        ),
        ("Verifiers", str(len(ran)), f"{passed} passed, {len(ran) - passed} did not"),
        ("Relative cost", f"{times(report.cost)}", f"always THOROUGH: {times(report.thorough_cost)}"),
    ]
    cells = "".join(
        f'<div class="tile"><p class="tile-label">{esc(label)}</p><p class="tile-value">{esc(value)}</p>'
        f'<p class="tile-note">{esc(note)}</p></div>'
        for label, value, note in tiles
    )
    return (
        f'<section class="summary" aria-label="summary"><div class="tiles">{cells}</div>'
        f"{cost_chart(report)}</section>"
    )


def _gate_runs(report: Report) -> int:
    return sum(loop.gate_runs for loop in report.loops)


def _loop(loop: Loop, *, open_: bool) -> str:
    outcome = loop.outcome
    head = (
        f'<summary><span class="outcome outcome-{esc(outcome)}"><span aria-hidden="true">'
        f"{OUTCOME_SYMBOL.get(outcome, '?')}</span> {esc(outcome)}</span>"
        f'<span class="task">{esc(loop_name(loop))}</span></summary>'
    )
    facts = [
        ("session", f"<code>{esc(loop.session_id)}</code>"),
        ("when", f"{esc(when(loop.started))} to {esc(when(loop.ended, time_only=True))}"),
        ("iterations", esc(loop.iterations)),
        ("claims", esc(loop.claims)),
        ("gate runs", esc(loop.gate_runs)),
        ("cost", _loop_cost(loop)),
    ]
    meta = "".join(f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in facts)
    end = ""
    if loop.end_reason and outcome in ("halted", "cancelled"):
        end = f'<p class="end-reason"><strong>Why it {esc(outcome)}:</strong> {esc(loop.end_reason)}</p>'
    return (
        f'<section class="loop" aria-label="loop {esc(loop.session_id)}"><details{" open" if open_ else ""}>'
        f'{head}<dl class="facts">{meta}</dl>{end}{track(loop)}{verifiers_table(loop.verifiers)}'
        f"{timeline(loop)}</details></section>"
    )


def _loop_cost(loop: Loop) -> str:
    if not loop.thorough_cost:
        return "no verifier ran"
    return f"{esc(times(loop.cost))} (always THOROUGH: {esc(times(loop.thorough_cost))})"


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
