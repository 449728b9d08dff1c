"""Facts of the pure loop's tests: a ralph loop on one task, a claim, the gate's results for it."""

from __future__ import annotations

from dataclasses import replace

from tiergate.loop.claims import check_claim
from tiergate.loop.events import ClaimFacts, GateFacts, Stop
from tiergate.loop.state import LoopState, Verification, new_loop

T0 = 1_800_000_000.0
TASK = "Fix the parser bug in src/parser.py"
LOW = "tiergate:architect-low"
FACTS = ClaimFacts(
    tier="LIGHT",
    agent=LOW,
    model="haiku",
    tier_evidence=("lsp_diagnostics clean",),
    reasons=("small-and-tested: LIGHT",),
    relative_cost=1.0,
    thorough_cost=20.0,
    files_changed=1,
    lines_changed=3,
)
CLAIM = "All tests pass.\n\n<promise>DONE</promise>"
FAILING = GateFacts(
    refuted=True,
    report=(
        "tiergate's checks refute the claim: new failures in 1 check of 1.\nFAILED: tests\n  | assert 1 == 2"
    ),
    packet=(),
    failing=(("tests", "test_parse_empty\nassert 1 == 2"),),
    reasons=("gate: tests: new: passed at the baseline",),
    headline="tiergate's checks refute the claim: new failures in 1 check of 1.",
)
PASSING_GATE = GateFacts(
    refuted=False,
    report="tiergate's checks pass (1 check).",
    packet=("CHECKS tiergate ran on this exact workspace:", "- tests (`pytest -q`, tests): passed in 0.4 s"),
    reasons=("gate: tests: passed: passed",),
    headline="tiergate's checks pass (1 check).",
    record=(("refuted", False),),
)


def working(**changes: object) -> LoopState:
    begun = new_loop("s1", TASK, now=T0, base="b" * 40, promise="DONE", max_iterations=20)
    return replace(begun, **changes)  # type: ignore[arg-type]


def claim(gate: GateFacts | None, fingerprint: str = "fp-2", **fields: object) -> Stop:
    return Stop(
        message=CLAIM,
        claim=check_claim(CLAIM),
        fingerprint=fingerprint,
        claim_facts=FACTS,
        gate=gate,
        **fields,  # type: ignore[arg-type]
    )


def verification(paths: tuple[str, ...] = ("src/app.py",)) -> Verification:
    """A STANDARD verification of a change to `paths`, as the decision requests one."""
    return Verification(
        id="v1",
        tier="STANDARD",
        agent="tiergate:architect-medium",
        model="sonnet",
        evidence=("tests pass",),
        claim_types=("Implemented",),
        reasons=tuple(f"{p} matches security pattern '**/auth/**'" for p in paths),
        relative_cost=0.3,
        thorough_cost=1.0,
        files_changed=len(paths),
        lines_changed=3,
        paths=paths,
        requested_at=0.0,
    )
