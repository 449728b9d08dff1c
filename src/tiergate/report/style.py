"""The report page's style sheet, inline in the page (no external style, font or image)."""

CSS = """
:root{--ink:#111827;--muted:#4b5563;--line:#e5e7eb;--bg:#f6f7f9;--card:#fff;--bad:#b91c1c;--ok:#15803d;
--warn:#92400e;--blue:#1d4ed8}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);
font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1100px;margin:0 auto;padding:24px 20px 48px}
code,pre,time{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;
font-size:12.5px}
header{margin-bottom:18px}
.brand{margin:0;text-transform:uppercase;letter-spacing:.08em;font-size:12px;color:var(--muted);
font-weight:600}
h1{margin:2px 0 4px;font-size:24px;word-break:break-all}
h3{font-size:13px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:18px 0 8px}
.meta,.note,.muted{color:var(--muted)}
.meta{margin:0}
.warning{background:#fffbeb;border:1px solid #f59e0b;border-left-width:5px;padding:8px 12px;
border-radius:6px}
.summary{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:16px;
margin-bottom:18px}
.tiles{display:grid;grid-template-columns:repeat(4,1fr);gap:12px;margin-bottom:12px}
.tile{border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.tile p{margin:0}
.tile-label{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.05em}
.tile-value{font-size:26px;font-weight:700}
.tile-note{font-size:12.5px;color:var(--muted)}
figure{margin:0}
figcaption{font-weight:600;margin:6px 0}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:#1f2937}
svg .axis{font-size:12px}
svg .iter{font-size:11px;fill:#4b5563}
svg .mark{font-size:11.5px;font-weight:600}
svg .bang{font-size:13px;font-weight:700;fill:#7c2d12}
.chart{max-width:100%;height:auto}
.loop{background:var(--card);border:1px solid var(--line);border-radius:10px;margin-bottom:14px;
overflow:hidden}
.loop>details>summary{cursor:pointer;padding:12px 16px;display:flex;gap:12px;align-items:center;
border-bottom:1px solid var(--line);list-style:none}
.loop>details>summary::-webkit-details-marker{display:none}
.loop>details>summary::before{content:"▸";color:var(--muted)}
.loop>details[open]>summary::before{content:"▾"}
.loop>details>*:not(summary){margin-left:16px;margin-right:16px}
.task{font-weight:600;font-size:15.5px;overflow-wrap:anywhere}
.outcome{font-weight:700;font-size:12px;text-transform:uppercase;letter-spacing:.05em;padding:2px 8px;
border-radius:999px;border:2px solid;white-space:nowrap}
.outcome-finished{color:var(--ok);border-color:var(--ok)}
.outcome-halted{color:#fff;background:#7f1d1d;border-color:#7f1d1d}
.outcome-cancelled,.outcome-running{color:var(--muted);border-color:var(--muted);border-style:dashed}
.facts{display:flex;flex-wrap:wrap;gap:4px 22px;margin:12px 16px}
.facts div{display:flex;gap:6px}
.facts dt{color:var(--muted)}
.facts dd{margin:0}
.end-reason{background:#fef2f2;border-left:5px solid #7f1d1d;padding:8px 12px;border-radius:4px}
.track-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:8px;padding:6px 0;
background:#fcfcfd}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:13px}
th{text-align:left;font-weight:600;color:var(--muted);border-bottom:2px solid var(--line);padding:5px 8px}
td{border-bottom:1px solid var(--line);padding:5px 8px;vertical-align:top;overflow-wrap:anywhere}
td p{margin:0 0 4px}
.tier{font-weight:700;font-size:11.5px;padding:1px 6px;border-radius:4px;border:1px solid;
letter-spacing:.04em}
.tier-LIGHT{border-style:dotted}
.tier-STANDARD{border-style:solid}
.tier-THOROUGH{border-width:2px;border-style:double;border-width:3px}
.verdict{font-weight:700}
.verdict-PASS,.ok{color:var(--ok)}
.verdict-FAIL,.verdict-DISQUALIFIED,.bad{color:var(--bad)}
.verdict-INCOMPLETE,.verdict-VOID{color:var(--warn)}
.new-failure{font-weight:700;color:#fff;background:var(--bad);padding:0 5px;border-radius:3px;
font-size:11.5px}
.old-failure{font-weight:600;color:var(--muted);border:1px dashed var(--muted);padding:0 5px;
border-radius:3px;font-size:11.5px}
.timeline{list-style:none;margin:0 0 16px;padding:0}
.step{display:flex;gap:10px;padding:8px 0;border-top:1px solid var(--line)}
.step.minor{padding:3px 0;color:var(--muted)}
.symbol{width:22px;flex:none;text-align:center;font-size:16px;line-height:20px}
.step-refuted .symbol,.step-halt .symbol{color:var(--bad)}
.step-finish .symbol{color:var(--ok)}
.step-claim .symbol{color:var(--blue)}
.step-verdict .symbol{font-weight:700}
.step-body{flex:1;min-width:0}
.step-head{margin:0;display:flex;flex-wrap:wrap;gap:4px 10px;align-items:baseline}
.step-title{font-weight:600}
.minor .step-title{font-weight:400}
.iteration{font-size:11.5px;border:1px solid var(--line);border-radius:4px;padding:0 5px;
color:var(--muted)}
.event{margin-left:auto;font-size:11.5px;color:var(--muted)}
.reasons{margin:4px 0;padding-left:18px;color:#374151;overflow-wrap:anywhere}
.reasons-fold summary{cursor:pointer;font-size:12px;color:var(--muted)}
.gate{margin:6px 0;border:1px solid var(--line);border-radius:6px;padding:6px 8px}
.gate-head{margin:0 0 4px;font-weight:600}
.rollback,.halt-reason,.intervention,.error{margin:6px 0;padding:6px 10px;border-radius:4px;
overflow-wrap:anywhere}
.rollback{background:#eff6ff;border-left:4px solid var(--blue)}
.halt-reason{background:#fef2f2;border-left:4px solid #7f1d1d}
.why{margin:4px 0;padding:6px 10px;background:#eff6ff;border-radius:4px;overflow-wrap:anywhere}
.verifier-facts{margin:4px 0;color:var(--muted)}
.disqualified{margin:4px 0;padding:6px 10px;background:#fef2f2;border-left:4px solid var(--bad);
border-radius:4px}
.intervention{background:#f9fafb;border-left:4px solid var(--muted)}
.error{background:#fffbeb;border-left:4px solid var(--warn)}
pre{background:#0f172a;color:#e2e8f0;padding:8px 10px;border-radius:6px;overflow-x:auto;
white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0}
.folded summary{cursor:pointer;color:var(--muted);padding:6px 0}
footer{color:var(--muted);font-size:12.5px;margin-top:24px;border-top:1px solid var(--line);
padding-top:10px}
.empty{background:var(--card);border:1px dashed var(--line);padding:24px;text-align:center;
border-radius:10px}
@media (max-width:760px){.tiles{grid-template-columns:repeat(2,1fr)}}
.checks td:nth-child(2),.checks td:nth-child(4),.verifiers td:not(:last-child){white-space:nowrap}
.checks td:first-child .muted{font-size:12px;overflow-wrap:anywhere}
"""
