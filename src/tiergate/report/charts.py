"""The report page's two charts, drawn in inline SVG with a text alternative each (role="img",
aria-label, <title>): the verifiers' relative cost per loop against always THOROUGH (its bars told apart
by fill pattern and label), and a loop's major steps as markers whose shape alone tells their kind."""

from __future__ import annotations

from tiergate.report.loops import Loop, Report, Step
from tiergate.report.markup import MAJOR_KINDS, esc, loop_name, short, times

MARKERS_SHOWN = 60  # the markers of a loop's chart: a night's page stays small enough to open


def cost_chart(report: Report) -> str:
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
        f"Relative cost of the verifiers: {times(report.cost)} against {times(report.thorough_cost)} "
        f"had every verification been THOROUGH ({saving:.0%} less)."
    )
    parts = [
        f'<svg class="chart" role="img" aria-label="{esc(alt)}" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}">',
        f"<title>{esc(alt)}</title>",
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
            f"{esc(short(loop_name(loop), 26))}</text>"
            f'<rect x="{label_w}" y="{y}" width="{thorough:.1f}" height="22" fill="url(#hatch)" '
            'stroke="#374151"/>'
            f'<rect x="{label_w}" y="{y + 5}" width="{real:.1f}" height="12" fill="#1d4ed8" '
            'stroke="#111827"/>'
            f'<text x="{label_w + thorough + 6:.1f}" y="{y + 15}" class="axis">'
            f"{esc(times(loop.cost))} of {esc(times(loop.thorough_cost))}</text>"
        )
    parts.append("</svg>")
    return (
        '<figure class="costs"><figcaption>Relative cost against always-THOROUGH, per loop '
        f"(<code>[costs]</code> weights, not money): {esc(times(report.cost))} of "
        f"{esc(times(report.thorough_cost))}, "
        f"{saving:.0%} less</figcaption>{''.join(parts)}</figure>"
    )


def _legend(x: int) -> str:
    return (
        f'<rect x="{x}" y="6" width="22" height="12" fill="#1d4ed8" stroke="#111827"/>'
        f'<text x="{x + 28}" y="16" class="axis">solid: the verifiers that ran</text>'
        f'<rect x="{x + 230}" y="4" width="22" height="16" fill="url(#hatch)" stroke="#374151"/>'
        f'<text x="{x + 258}" y="16" class="axis">hatched: always THOROUGH</text>'
    )


def track(loop: Loop) -> str:
    """The loop at a glance: one marker per major step, its shape saying its kind, a label under it."""
    steps = [s for s in loop.steps if s.kind in MAJOR_KINDS]
    folded = max(0, len(steps) - MARKERS_SHOWN)
    steps = steps[folded:]
    if not steps:
        return ""
    gap, left = 96, 52
    width = left * 2 + gap * (len(steps) - 1)
    said = "; ".join(_marker_text(s) for s in steps)
    alt = f"Timeline of the loop: {said}" + (f" ({folded} earlier steps not drawn)" if folded else "")
    parts = [
        f'<svg class="track" role="img" aria-label="{esc(alt)}" viewBox="0 0 {width} 92" width="{width}" '
        'height="92">',
        f"<title>{esc(alt)}</title>",
        f'<line x1="{left}" y1="30" x2="{width - left}" y2="30" stroke="#9ca3af" stroke-width="2"/>',
    ]
    last_iteration: int | None = None
    for i, s in enumerate(steps):
        x = left + i * gap
        if s.iteration is not None and s.iteration != last_iteration:
            parts.append(f'<text x="{x}" y="10" text-anchor="middle" class="iter">it. {s.iteration}</text>')
            last_iteration = s.iteration
        parts.append(f"<g><title>{esc(_marker_text(s))}</title>{_shape(s, x, 30)}</g>")
        for n, text in enumerate(_marker_words(s)):
            parts.append(
                f'<text x="{x}" y="{62 + n * 14}" text-anchor="middle" class="mark">'
                f"{esc(short(text, 12))}</text>"
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
