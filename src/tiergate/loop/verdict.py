"""A verifier's verdict: parse its `tiergate-verdict` block, and judge whether it may be accepted.

What a verdict must hold, and why hedging and fresh evidence are asked of a PASS only and judged in the
verifier's own words: docs/judging.md, "The verifier" and "What a verdict must hold".

Pure: text and counts in, a judgement out.
"""

from __future__ import annotations

import json
import re

from tiergate.frozen import frozen

VERDICT_INFO = "tiergate-verdict"
VERDICTS = ("PASS", "FAIL", "INCOMPLETE")
STATUSES = ("VERIFIED", "PARTIAL", "MISSING")
HEDGES = (
    "should",
    "shouldn't",
    "probably",
    "seems to",
    "seem to",
    "likely",
    "might",
    "appears to",
    "appear to",
    "I think",
    "I believe",
)

_HEDGE = re.compile(
    r"(?<![\w'])("
    + "|".join(re.escape(h).replace(r"\ ", r"\s+") for h in sorted(HEDGES, key=len, reverse=True))
    + r")(?![\w'])",
    re.IGNORECASE,
)
_BLOCK = re.compile(
    r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*?)[ \t]*\n"
    r"(?P<body>.*?)^[ \t]{0,3}(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_QUOTATION = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”")


@frozen
class Criterion:
    criterion: str
    status: str
    evidence: str


@frozen
class Verdict:
    verdict: str
    criteria: tuple[Criterion, ...]
    critique: str
    verification_id: str | None = None

    def not_verified(self) -> tuple[Criterion, ...]:
        return tuple(c for c in self.criteria if c.status != "VERIFIED")


@frozen
class Judgement:
    """The parsed verdict (None if there is none to parse) and what keeps it from being accepted."""

    verdict: Verdict | None
    problems: tuple[str, ...]

    @property
    def accepted(self) -> bool:
        return self.verdict is not None and not self.problems


class VerdictError(ValueError):
    """The block is missing or malformed; the message is an instruction for the verifier."""


def parse_verdict(message: str | None) -> Verdict:
    """The verdict in the last `tiergate-verdict` block of `message`; VerdictError saying what is wrong."""
    blocks = [m for m in _BLOCK.finditer(message or "") if m.group("info").strip() == VERDICT_INFO]
    if not blocks:
        raise VerdictError(
            f"no ```{VERDICT_INFO} block found: end your final message with one, holding the JSON object "
            '{"verdict": ..., "criteria": [...], "critique": ...}'
        )
    body = blocks[-1].group("body")
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise VerdictError(f"the {VERDICT_INFO} block is not valid JSON ({exc})") from None
    return _verdict_from(data)


def _verdict_from(data: object) -> Verdict:
    if not isinstance(data, dict):
        raise VerdictError(f"the {VERDICT_INFO} block must hold one JSON object")
    verdict = data.get("verdict")
    if verdict not in VERDICTS:
        raise VerdictError(f'"verdict" must be one of {", ".join(VERDICTS)} (got {verdict!r})')
    raw_criteria = data.get("criteria", [])
    if not isinstance(raw_criteria, list):
        raise VerdictError('"criteria" must be a list of {"criterion", "status", "evidence"} objects')
    critique = data.get("critique", "")
    if critique is None:
        critique = ""
    if not isinstance(critique, str):
        raise VerdictError('"critique" must be a string')
    verification_id = data.get("verification_id")
    if verification_id is not None and not isinstance(verification_id, str):
        raise VerdictError('"verification_id" must be a string')
    criteria = tuple(_criterion(i, item) for i, item in enumerate(raw_criteria))
    return Verdict(verdict, criteria, critique.strip(), verification_id)


def _criterion(index: int, item: object) -> Criterion:
    where = f"criteria[{index}]"
    if not isinstance(item, dict):
        raise VerdictError(f'{where} must be an object with "criterion", "status" and "evidence"')
    name, status, evidence = item.get("criterion"), item.get("status"), item.get("evidence", "")
    if not isinstance(name, str) or not name.strip():
        raise VerdictError(f'{where}."criterion" must be a non-empty string')
    if status not in STATUSES:
        raise VerdictError(f'{where}."status" must be one of {", ".join(STATUSES)} (got {status!r})')
    if evidence is None:
        evidence = ""
    if not isinstance(evidence, str):
        raise VerdictError(f'{where}."evidence" must be a string')
    return Criterion(name.strip(), status, evidence.strip())


def judge(
    message: str | None,
    *,
    required: tuple[str, ...] = (),
    commands_run: int,
    verification_id: str | None = None,
) -> Judgement:
    """Judge the verdict in `message` against the evidence `required` of this verification.

    `commands_run` is the number of commands the verifier ran itself since it started (from its own
    transcript).
    """
    try:
        verdict = parse_verdict(message)
    except VerdictError as exc:
        return Judgement(None, (str(exc),))
    problems: list[str] = []
    named = verdict.verification_id
    if named is not None and verification_id is not None and named != verification_id:
        problems.append(
            f'your verdict names verification "{named}", but you were asked to verify '
            f'"{verification_id}": verify that one and name it'
        )
    if verdict.verdict == "PASS":
        problems += _pass_problems(verdict, message or "", required, commands_run)
    elif verdict.verdict == "FAIL" and not verdict.critique and not verdict.not_verified():
        problems.append(
            "a FAIL must say what is wrong: give a critique naming what to fix, and mark the failing "
            "criteria PARTIAL or MISSING"
        )
    return Judgement(verdict, tuple(problems))


def _pass_problems(verdict: Verdict, message: str, required: tuple[str, ...], commands_run: int) -> list[str]:
    problems: list[str] = []
    if not verdict.criteria:
        problems.append("a PASS needs criteria: list each thing the task asks for, with the evidence for it")
    for c in verdict.not_verified():
        problems.append(
            f'criterion "{c.criterion}" is {c.status}: a PASS needs every criterion VERIFIED; produce the '
            "evidence, or give FAIL or INCOMPLETE"
        )
    for c in verdict.criteria:
        if c.status == "VERIFIED" and not c.evidence:
            problems.append(
                f'criterion "{c.criterion}" is VERIFIED without evidence: quote the command you ran and '
                "the output lines that decide it"
            )
    for label in missing_labels(verdict, required):
        problems.append(f'no criterion for "{label}": add one named "{label}", with fresh evidence for it')
    hedges = hedging(verdict, message)
    if hedges:
        words = ", ".join(f'"{h}"' for h in hedges)
        problems.append(
            f"hedging ({words}): state what you observed, or run something until you know; a criterion "
            "you cannot establish is MISSING"
        )
    if commands_run < 1:
        problems.append(
            "your transcript shows no command you ran yourself: run the checks (tests, type checker, "
            "build) with the Bash tool and quote their output; nobody else's output is evidence"
        )
    return problems


def missing_labels(verdict: Verdict, required: tuple[str, ...]) -> tuple[str, ...]:
    """Required evidence labels that no criterion names (compared without case and punctuation)."""
    names = [_normal(c.criterion) for c in verdict.criteria]
    return tuple(label for label in required if not any(_normal(label) in name for name in names))


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9:]+", " ", text.lower()).split())


def hedging(verdict: Verdict, message: str) -> tuple[str, ...]:
    """The hedging words in the verifier's own words, each once, in order of appearance."""
    texts = [prose(message), verdict.critique, *(c.criterion for c in verdict.criteria)]
    found: list[str] = []
    for text in texts:
        for match in _HEDGE.finditer(text):
            word = " ".join(match.group(1).lower().split())
            if word not in found:
                found.append(word)
    return tuple(found)


def prose(message: str) -> str:
    """`message` without its fenced blocks, inline code and double-quoted passages."""
    text = _BLOCK.sub(" ", message)
    text = _INLINE_CODE.sub(" ", text)
    return _QUOTATION.sub(" ", text)
