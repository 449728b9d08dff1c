"""Why a claim is THOROUGH whatever the tier rules say, beyond its gate run (`loopgate.lost_reasons`):
symlinks reaching out of the change, compiled code, checks declared otherwise than at the base; and the
claim's facts raised to THOROUGH by such reasons."""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.text import quote_inline

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tiergate.config.settings import Config
    from tiergate.loop.events import ClaimFacts
    from tiergate.loop.state import LoopState
    from tiergate.project import Project
    from tiergate.tier.change import ChangeMeasurement


def links_out_reasons(project: Project, change: ChangeMeasurement) -> tuple[str, ...]:
    """A THOROUGH reason per symlink of the change that reaches out of it (an ignored folder, a path
    outside the repository): the claim's copy resolves it (`tiergate.gate.cleancopy`), and what it
    reached is for the verifier to read, since no change shows it."""
    from tiergate.gate.cleancopy import links_out

    commit = change.base_commit
    if commit is None:
        return ()
    return tuple(
        f"links-out: {quote_inline(link)}: a symlink of the change reaching out of it, read into the "
        "claim's copy -> THOROUGH"
        for link in links_out(project.root, commit, change.paths)
    )


# Code that runs without a source anyone can read: Python's bytecode, native extensions and libraries,
# WebAssembly, JVM classes. In the change, it runs as the project's code while no rule reads a line of it.
COMPILED = (".pyc", ".pyo", ".so", ".pyd", ".dll", ".dylib", ".node", ".wasm", ".class", ".jar")


def compiled_reasons(change: ChangeMeasurement) -> tuple[str, ...]:
    """A THOROUGH reason per compiled file the change adds or edits (`COMPILED`): what runs of it is for
    the verifier to tell, since no rule reads it."""
    return tuple(
        f"compiled-code: {quote_inline(f.path)}: code without a readable source in the change -> THOROUGH"
        for f in change.files
        if f.status != "deleted" and f.path.lower().endswith(COMPILED)
    )


def declared_reasons(project: Project, current: LoopState, config: Config) -> tuple[str, ...]:
    """A THOROUGH reason per check the project declares otherwise now than at the loop's base (the gate
    runs the base's: `gate_request`), naming both."""
    from tiergate.gate.detection.projectchecks import declared_changes
    from tiergate.handlers.loopgate import base_of

    changed = declared_changes(project.root, config, base_of(project, current))
    return tuple(f"declared-checks: {said} -> THOROUGH" for said in changed)


def made_thorough(facts: ClaimFacts, config: Config, reasons: Sequence[str]) -> ClaimFacts:
    """The claim's tier raised to THOROUGH by `reasons` (the gate's findings), named first: the tier
    rules' own reasons follow, and a keyword asking for LIGHT cannot lower it."""
    if not reasons:
        return facts
    from dataclasses import replace

    from tiergate.tier.policy import VERIFIERS, Tier

    verifier = VERIFIERS[Tier.THOROUGH]
    return replace(
        facts,
        tier=Tier.THOROUGH.value,
        agent=verifier.subagent_type,
        model=verifier.model,
        tier_evidence=verifier.evidence_required,
        reasons=(*reasons, *facts.reasons),
        relative_cost=config.tier_policy.relative_costs[Tier.THOROUGH],
    )
