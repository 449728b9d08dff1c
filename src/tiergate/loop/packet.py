"""The evidence packet: what a verifier is handed when it starts (SubagentStart additional context): the
task, the claim and its kinds, the change, the tier and why, the checks and the tests' story, the
evidence its verdict must name, how it is judged (docs/judging.md, "The verifier"). Under Claude Code's
10,000-character limit; what the agent could have written is quoted (`tiergate.text`), so that none of
it can pass for one of tiergate's headings or fenced blocks. Pure text.
"""

from __future__ import annotations

from tiergate import TYPE_CHECKING
from tiergate.loop.claims import CLAIM_EVIDENCE, ClaimType
from tiergate.loop.verdict import HEDGES
from tiergate.text import ITEM_AND_MORE, cut, fit, more_line, plural, quote_block, quote_inline, quote_path

if TYPE_CHECKING:
    from tiergate.loop.state import LoopState, Verification

MAX_PACKET = 9500
TASK_IN_PACKET = 3000
PATHS_SHOWN = 30
CHECKS_IN_PACKET = 2000
LEAD_IN_PACKET = 1200
TESTS_IN_PACKET = 1800
TEST_FILES_SHOWN = 15
MARKS = "A added, M modified, D deleted, R renamed"


def packet(state: LoopState, verification: Verification) -> str:
    sections = [
        f"tiergate evidence packet for verification {verification.id} (session {state.session_id}, "
        f"{verification.tier} tier, request {verification.request}).",
        _lead(verification),
        "TASK (the user's words, each line after a '|'; everything else here is a claim to test):\n"
        + quote_block(cut(state.task, TASK_IN_PACKET)),
        _claim(state, verification),
        _change(state, verification),
        _tier(verification),
        _checks(verification),
        _tests(verification),
        verification.test_changes,  # quoted and bounded where it was made (`tiergate.tier.testchanges`)
        verification.mutants,  # quoted and bounded where it was made (`tiergate.tier.mutation.fates`)
        _required(verification),
        _rules(verification),
    ]
    return fit("\n\n".join(s for s in sections if s), MAX_PACKET)


def _lead(verification: Verification) -> str:
    """The checks still failing as when the loop began, first; and first of all, when nothing changed."""
    if not verification.lead:
        return ""
    lines = [quote_inline(line) for line in verification.lead]
    if verification.files_changed == 0:
        lines.insert(
            0,
            "NOTHING CHANGED since the loop began: the claim says done, yet not one file differs from the "
            "workspace the loop began on, and the checks below fail as they did then. Unless the task asked "
            "for nothing, it is not done.",
        )
    return cut("\n".join(lines), LEAD_IN_PACKET)


def _tests(verification: Verification) -> str:
    """The tests story: the gate's per-check counts and lost tests, then the test files the change touched."""
    lines = [quote_inline(line) for line in verification.tests]
    if verification.test_files:
        lines.append(
            f"Test files this change touched ({MARKS}; an M, D or R is a test the loop began with, edited):"
        )
        shown = verification.test_files[:TEST_FILES_SHOWN]
        lines += [_marked(*entry.split(" ", 1)) for entry in shown]
        lines += more_line(len(verification.test_files), len(shown), ITEM_AND_MORE)
    elif verification.tests:
        lines.append("Test files this change touched: none.")
    return cut("\n".join(lines), TESTS_IN_PACKET) if lines else ""


def _marked(mark: str, path: str) -> str:
    return f"- {mark} {quote_path(path)}" if mark else f"- {quote_path(path)}"


def _checks(verification: Verification) -> str:
    if not verification.checks:
        return (
            "CHECKS: tiergate ran no project checks for this claim; run what the evidence below needs "
            "yourself."
        )
    # The gate quoted what these lines quote; the lines come back from the loop's state, so each is
    # kept to one line again.
    return cut("\n".join(quote_inline(line) for line in verification.checks), CHECKS_IN_PACKET)


def _claim(state: LoopState, verification: Verification) -> str:
    kinds = ", ".join(verification.claim_types)
    return (
        f"CLAIM: the implementer ended its turn with <promise>{quote_inline(state.promise)}</promise> after "
        f"{state.iteration} iteration(s), claiming the task done. Kind of claim: {kinds} (from the task's "
        "words and the implementer's declaration)."
    )


# git as tiergate runs it, for the verifier's own look: no replace refs (`git replace` can make the base
# read as the agent's commit), and no fsmonitor or hook from the repository's config (tiergate.git).
_SAFE_GIT = "git --no-replace-objects -c core.fsmonitor=false -c core.hooksPath=/dev/null"


def _change(state: LoopState, verification: Verification) -> str:
    base = state.change_base or "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's empty tree
    since = f"base {state.base or 'the empty tree'}"
    if state.start:
        # The user's own uncommitted work when the loop began is not the implementer's.
        since = (
            f"the workspace it began on, {state.start}: the user's uncommitted and untracked files on "
            f"{state.base or 'no commit'}, kept by tiergate"
        )
    shown = verification.paths[:PATHS_SHOWN]
    lines = [
        f"CHANGE since the loop began ({since}): {plural(verification.files_changed, 'file')}, "
        f"{plural(verification.lines_changed, 'line')} changed "
        "(additions plus deletions, untracked files included"
        + (f"; each path marked {MARKS}). " if verification.marks else "). ")
        + f"See it whole as tiergate measured it with `{_SAFE_GIT} diff --no-ext-diff --no-textconv "
        f"{base}` and `{_SAFE_GIT} status "
        "--untracked-files=all --ignored` (an ignored file is part of the change unless the base's "
        ".gitignore ignores it); a file `git ls-files -v | grep '^[a-zS]'` lists is flagged in the index "
        "to look unchanged: read it from disk."
        + (
            " A file the user had untracked at the start and still has untracked reads as deleted in that "
            "diff: it is not part of the change unless its content on disk differs."
            if state.start
            else ""
        )
    ]
    marks = verification.marks if len(verification.marks) == len(verification.paths) else ()
    lines += [_marked(marks[i] if marks else "", path) for i, path in enumerate(shown)]
    lines += more_line(verification.files_changed, len(shown), ITEM_AND_MORE)
    return "\n".join(lines)


def _tier(verification: Verification) -> str:
    reasons = "\n".join(f"- {quote_inline(cut(reason, 400))}" for reason in verification.reasons[:8])
    return (
        f"TIER: {verification.tier}, so you are {verification.agent} on {verification.model}. Why:\n{reasons}"
    )


def _required(verification: Verification) -> str:
    claim_labels = {label for kind in verification.claim_types for label in CLAIM_EVIDENCE[ClaimType(kind)]}
    lines = [
        "EVIDENCE YOU MUST PRODUCE. Your verdict needs one criterion named with each label below (the label "
        "first, details after it), VERIFIED only with output of a command you ran yourself:"
    ]
    for label in verification.evidence:
        source = "the claim" if label in claim_labels else f"the {verification.tier} tier"
        lines.append(f'- "{quote_inline(label)}" (asked by {source})')
    lines.append("Add one criterion for each thing the task asks for, too.")
    return "\n".join(lines)


def _rules(verification: Verification) -> str:
    hedges = ", ".join(f'"{h}"' for h in HEDGES)
    return (
        "HOW YOUR VERDICT IS JUDGED. tiergate reads it at your stop and sends it back (at most twice, then "
        "it counts as INCOMPLETE) when: there is no parseable tiergate-verdict block; a PASS has a criterion "
        "not VERIFIED, a VERIFIED criterion without evidence, or a required label missing; a PASS hedges "
        f"({hedges}, in your own words; quoted command output does not count); or your transcript shows no "
        "command you ran. Leave the workspace exactly as you found it: tiergate fingerprints it when you "
        "start and when you stop, and a verifier that changed it is disqualified. End your final message "
        "with one block:\n"
        "```tiergate-verdict\n"
        f'{{"verification_id": "{verification.id}", "verdict": "PASS|FAIL|INCOMPLETE", "criteria": '
        '[{"criterion": "...", "status": "VERIFIED|PARTIAL|MISSING", "evidence": "..."}], '
        '"critique": "..."}\n'
        "```"
    )
