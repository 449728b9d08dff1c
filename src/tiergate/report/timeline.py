"""A loop in words, in the report page: the table of its verifiers, and the timeline of its steps, each
with why (its tier, its reasons, its gate run, a rollback or halt), the oldest folded away."""

from __future__ import annotations

from tiergate.report.gatechecks import gate_checks
from tiergate.report.loops import TASK_KINDS, Loop, Step, Verifier
from tiergate.report.markup import (
    MAJOR_KINDS,
    STEP_SYMBOL,
    VERDICT_SYMBOL,
    count,
    esc,
    tier_badge,
    times,
    verdict_badge,
    when,
)

# Bounds that keep a night's page small enough to open: the steps of a loop shown before older ones are
# folded, the older steps kept in the fold (the oldest beyond it are left off, and counted), the verifiers
# of a loop listed.
STEPS_SHOWN = 40
STEPS_FOLDED = 200
VERIFIERS_SHOWN = 50


def verifiers_table(verifiers: tuple[Verifier, ...]) -> str:
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
        else f"{count(v.files_changed, 'file')}, {count(v.lines_changed or 0, 'line')}"
    )
    ran = "-" if v.duration_s is None else f"{v.duration_s:.1f} s"
    cost = f"{times(v.relative_cost)} of {times(v.thorough_cost)}" if v.ran else "not run"
    return (
        f"<tr><td><code>{esc(v.id)}</code></td><td>{tier_badge(v.tier)}</td><td>{esc(v.agent)}</td><td>{esc(v.model)}</td>"
        f"<td>{verdict_badge(v.verdict)}</td><td>{esc(change)}</td><td>{esc(ran)}</td><td>{esc(v.redos)}</td>"
        f"<td>{esc(cost)}</td><td>{esc(v.why)}</td></tr>"
    )


def timeline(loop: Loop) -> str:
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
    major = s.kind in MAJOR_KINDS
    iteration = f'<span class="iteration">it. {esc(s.iteration)}</span>' if s.iteration is not None else ""
    title = esc(s.label)
    if s.tier:
        title = f"claim sent to a verifier: tier {tier_badge(s.tier)} {_by(s)}"
    if s.verdict:
        title = (
            f"verdict {verdict_badge(s.verdict)} "
            f"<span class='muted'>for {esc(s.verifier or '?')} {_by(s)}</span>"
        )
    body = []
    if s.tier:
        body.append(
            f'<p class="why"><strong>Why {esc(s.tier)}:</strong> {esc("; ".join(s.tier_reasons) or "-")}</p>'
        )
    if s.verdict and verifier is not None:
        body.append(_verifier_facts(verifier))
    body.append(_reasons(s, open_=major and not s.tier))
    if s.gate is not None:
        body.append(gate_checks(s.gate, task=s.kind in TASK_KINDS))
    if s.intervention and s.kind != "halt":
        body.append(f'<p class="intervention"><strong>Intervention:</strong> {esc(s.intervention)}</p>')
    if s.rollback is not None:
        r = s.rollback
        body.append(
            f'<p class="rollback"><strong>↺ Rolled back</strong> to {esc(r.to)}; the work is saved as backup '
            f"<code>{esc(r.backup)}</code> (<code>{esc(r.backup_ref)}</code>): "
            f"<code>tiergate restore {esc(r.backup)}</code> brings it back.</p>"
        )
    if s.halt_reason:
        body.append(f'<p class="halt-reason"><strong>■ Halted:</strong> {esc(s.halt_reason)}</p>')
    if s.error:
        body.append(f'<p class="error"><strong>⚠ Error:</strong> {esc(s.error)}</p>')
    return (
        f'<li class="step step-{esc(s.kind)}{"" if major else " minor"}">'
        f'<span class="symbol" aria-hidden="true">{_symbol(s)}</span>'
        f'<div class="step-body"><p class="step-head"><time>{esc(when(s.timestamp, time_only=True))}</time>'
        f'{iteration}<span class="step-title">{title}</span>'
        f'<span class="event">{esc(s.event)}</span></p>{"".join(body)}</div></li>'
    )


def _symbol(s: Step) -> str:
    if s.verdict:
        return VERDICT_SYMBOL.get(s.verdict, "●")
    return STEP_SYMBOL.get(s.kind, "·")


def _by(s: Step) -> str:
    if not s.agent:
        return ""
    return f"<span class='muted'>by {esc(s.agent)} ({esc(s.model or '?')})</span>"


def _verifier_facts(v: Verifier) -> str:
    facts = []
    if v.duration_s is not None:
        facts.append(f"ran {v.duration_s:.1f} s")
    facts.append(f"{count(v.redos, 'redo')} (sent back for a better verdict)" if v.redos else "no redo")
    if v.ran:
        facts.append(f"cost {times(v.relative_cost)} (THOROUGH: {times(v.thorough_cost)})")
    why = f'<p class="disqualified"><strong>⊘ Why:</strong> {esc(v.why)}</p>' if v.why else ""
    return f'<p class="verifier-facts">{esc(", ".join(facts))}</p>{why}'


def _reasons(s: Step, *, open_: bool) -> str:
    if not s.reasons:
        return ""
    items = "".join(f"<li>{esc(r)}</li>" for r in s.reasons)
    if open_:
        return f'<ul class="reasons">{items}</ul>'
    return (
        f'<details class="reasons-fold"><summary>reasons</summary><ul class="reasons">{items}</ul></details>'
    )
