"""The report page (report/render.py) of a real night's decision log (testing/reportnight.py drives the
real hooks), loaded in headless Chromium: the loops' facts in the DOM, a screenshot that is a rendered
page, no request made, what the agent wrote shown as text and never run; a long night's page says what it
left off."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from testing import chromium, png
from testing import reportnight as tonight
from testing.htmldom import Dom, parse
from testing.reportfixtures import Logged, logged_fixture, long_night  # noqa: F401  (the `logged` fixture)

from tiergate.report import charts, loops, render, timeline

# The night is logged once for the session (`logged`).
pytestmark = pytest.mark.long


@pytest.fixture(scope="module")
def dom(logged: Logged) -> Dom:
    return parse(chromium.dump_dom(logged.page))


@pytest.mark.browser
def test_in_a_real_browser_the_page_shows_each_loops_facts(logged: Logged, dom: Dom) -> None:
    text = dom.text
    # The tiers and the reasons that chose them.
    claims = [r for r in logged.decision("spawn") if "verifications" in r]
    for record in claims:
        [snapshot] = record["verifications"]
        assert f"claim sent to a verifier: tier {snapshot['tier']}" in text
        for reason in record["reasons"]:
            assert " ".join(reason.split()) in text
    # The second claim is small and covered, but a check fails as at the base: never LIGHT then.
    assert [r["verifications"][0]["tier"] for r in claims] == ["THOROUGH", "STANDARD"]
    # The gate: the failing check by name, its new failing test, and that the failure is new.
    assert "Gate: 2 checks in" in text and "they refute the claim" in text
    assert dom.tags("code").count({"class": "check-name"}) >= 4
    assert "new failing tests: checks.ValueTest.test_value" in text
    assert "NEW passed at the baseline" in text
    # The check that failed when the loop began too: told apart from the new failures.
    standings = {
        c["standing"]
        for r in logged.records
        for c in r.get("gate", {}).get("checks", [])
        if c["name"] == tonight.HOSTILE_CHECK
    }
    assert standings == {"pre-existing"}
    assert "✗ failed pre-existing failed at the baseline too" in text
    # The verifiers: agent, model, verdict, the disqualified one and why, the redo of the hedged PASS.
    closed = [
        r["verifications"][0] for r in logged.records if r.get("decision") in ("verdict", "request-again")
    ]
    assert [v["status"] for v in closed] == ["DISQUALIFIED", "FAIL", "PASS"]
    for v in closed:
        symbol = {"PASS": "✓", "FAIL": "✗", "DISQUALIFIED": "⊘"}[v["status"]]
        assert f"verdict {symbol} {v['status']} for {v['id']} by {v['agent']} ({v['model']})" in text
    why = (
        "the verifier v-writes changed the workspace while verifying and was disqualified: added scratch.txt"
    )
    assert f"⊘ Why: {why}" in text
    assert "1 redo (sent back for a better verdict)" in text
    assert "verifier sent back (redo)" in text
    # The interventions: the retry, the rollback with its backup ref, the halt with its reason.
    assert "Intervention: retry" in text
    [rolled_back] = logged.decision("verdict")[:1]
    ref = rolled_back["rollback"]["backup_ref"]
    assert ref.startswith("refs/backups/") and ref in text
    assert f"tiergate restore {rolled_back['rollback']['backup']} brings it back" in text
    [halt] = logged.decision("halt", tonight.SECOND)
    assert halt["halt_reason"].startswith("skip-limit")
    assert f"Why it halted: {halt['halt_reason']}" in text
    assert f"■ Halted: {halt['halt_reason']}" in text
    # The loops, newest first, each named by its task and its outcome.
    assert text.index("■ halted make value.txt say bad") < text.index(f"✓ finished {tonight.TASK}")
    # The cost against always-THOROUGH, in words beside the chart.
    cost = sum(v["relative_cost"] for v in closed)
    thorough = sum(v["thorough_cost"] for v in closed)
    assert cost < thorough
    assert "Relative cost against always-THOROUGH, per loop" in text
    assert f"weights, not money): {cost:g}x of {thorough:g}x" in text
    charts = [a for tag, a in dom.elements if tag == "svg"]
    assert len(charts) == 3 and all(a["role"] == "img" and a["aria-label"] for a in charts)
    assert "Left out" not in text


@pytest.mark.browser
def test_what_the_agent_wrote_is_shown_as_text_and_never_run(logged: Logged, dom: Dom) -> None:
    assert tonight.TASK in dom.text  # the <script> of the task, as text
    assert tonight.HOSTILE_FILE in dom.text  # the file named like an <img>, as text
    assert tonight.HOSTILE_CHECK in dom.text and tonight.HOSTILE_OUTPUT in dom.text  # a check's, as text
    assert dom.title == "tiergate report: project"  # the scripts would have set it to PWNED
    assert dom.tags("script") == [] and dom.tags("img") == []
    handlers = [(tag, key) for tag, key, _ in dom.attributes() if key.startswith("on")]
    assert handlers == []
    # Nor is the page's structure broken: both loops, each with its timeline, and the footer after them.
    assert [a["aria-label"] for t, a in dom.elements if t == "section" and a.get("class") == "loop"] == [
        f"loop {tonight.SECOND}",
        f"loop {tonight.FIRST}",
    ]
    assert len([a for t, a in dom.elements if t == "ol" and a.get("class") == "timeline"]) == 2
    tags = [t for t, _ in dom.elements]
    assert tags.count("footer") == 1 and tags.index("footer") > len(tags) - 1 - tags[::-1].index("section")


@pytest.mark.browser
def test_the_page_makes_no_request(logged: Logged, dom: Dom, tmp_path: Path) -> None:
    linked = [(tag, key, value) for tag, key, value in dom.attributes() if key in ("src", "href", "action")]
    assert linked == []
    # And were anything to slip through, the page's policy forbids every load but its inline style.
    [policy] = [m["content"] for m in dom.tags("meta") if m.get("http-equiv") == "Content-Security-Policy"]
    assert policy.startswith("default-src 'none';") and "script-src" not in policy
    assert chromium.page_requests(logged.page, tmp_path / "net.json") == []
    # The net log does catch a page's request: a page with an image from elsewhere.
    other = tmp_path / "other.html"
    other.write_text('<!DOCTYPE html><p>x</p><img src="http://example.invalid/pixel.png">')
    assert chromium.page_requests(other, tmp_path / "other.json") == ["http://example.invalid/pixel.png"]


@pytest.mark.browser
def test_the_page_renders_in_a_real_browser(logged: Logged, tmp_path: Path) -> None:
    shot = png.read(chromium.screenshot(logged.page, tmp_path / "page.png", 1200, 1400))

    assert (shot.width, shot.height) == (1200, 1400)
    pixels = shot.width * shot.height
    ink, halted, painted = shot.count(
        lambda r, g, b: max(r, g, b) < 110,  # text and markers
        lambda r, g, b: r > 100 and g < 50 and b < 50,  # the dark red of the halt
        lambda r, g, b: min(r, g, b) < 250,  # anything but white
    )
    assert ink > pixels // 200, ink
    assert halted > 200, halted
    assert painted > pixels // 20, painted  # far from a blank page


def test_a_long_night_is_bounded_and_the_page_says_so(logged: Logged) -> None:
    # A hundred loops (the night's, again and again under new session ids), the last 20 shown.
    report = loops.build(long_night(logged.records), max_loops=20)

    text = parse(render.page(report, project="p", generated="2026-12-01T08:00:00Z")).text
    assert (
        "showing the last 20 loops of 100 (80 older left off: tiergate report --loops N shows more)" in text
    )
    # A loop of many steps: the older ones fold away, the newest are shown.
    [first] = [loop for loop in loops.build(logged.records).loops if loop.session_id == tonight.FIRST]
    long = replace(first, steps=first.steps * 10)
    folded = render.page(
        replace(report, loops=(long,), total_loops=1), project="p", generated="2026-12-01T08:00:00Z"
    )
    steps = len(long.steps) - timeline.STEPS_SHOWN
    assert f"<summary>{steps} earlier steps (folded)</summary>" in folded
    assert "earlier steps are not drawn." in folded
    assert folded.count('<g transform="translate(') == charts.MARKERS_SHOWN
    # A loop of thousands of steps and verifiers: the oldest are left off, and the page says how many.
    huge = replace(first, steps=first.steps * 200, verifiers=first.verifiers * 50)
    page = render.page(replace(report, loops=(huge,), total_loops=1), project="p", generated="x")
    shown = timeline.STEPS_SHOWN + timeline.STEPS_FOLDED
    assert f"{len(huge.steps) - shown} earlier steps left off" in page
    assert f"<summary>{timeline.STEPS_FOLDED} earlier steps (folded)</summary>" in page
    assert page.count('<li class="step ') == shown
    assert f"{len(huge.verifiers) - timeline.VERIFIERS_SHOWN} earlier verifiers left off" in page
    twice = replace(huge, steps=huge.steps * 2, verifiers=huge.verifiers * 2)
    bigger = render.page(replace(report, loops=(twice,), total_loops=1), project="p", generated="x")
    assert abs(len(bigger) - len(page)) < 100  # twice the night, the same page
