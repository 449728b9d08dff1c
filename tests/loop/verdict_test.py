"""Parsing a verifier's verdict block and judging whether it may be accepted."""

from __future__ import annotations

import json

import pytest

from tiergate.loop.verdict import (
    Verdict,
    VerdictError,
    hedging,
    judge,
    missing_labels,
    parse_verdict,
    prose,
)

REQUIRED = ("lsp_diagnostics clean", "test showing the fix passes now")


def block(data: object, info: str = "tiergate-verdict") -> str:
    return f"```{info}\n{json.dumps(data)}\n```"


def criteria(*rows: tuple[str, str, str]) -> list[dict[str, str]]:
    return [{"criterion": c, "status": s, "evidence": e} for c, s, e in rows]


GOOD = {
    "verdict": "PASS",
    "criteria": criteria(
        ("lsp_diagnostics clean", "VERIFIED", "$ ruff check . -> All checks passed!"),
        ("test showing the fix passes now", "VERIFIED", "$ pytest tests/parser_test.py -> 3 passed"),
    ),
    "critique": "",
}


def message(data: object, before: str = "I ran the checks myself.") -> str:
    return f"{before}\n\n{block(data)}"


def test_a_good_pass_is_accepted() -> None:
    judgement = judge(message(GOOD), required=REQUIRED, commands_run=2, verification_id="v1")
    assert judgement.accepted and judgement.problems == ()
    assert judgement.verdict is not None and judgement.verdict.verdict == "PASS"


def test_the_last_verdict_block_counts() -> None:
    example = block({"verdict": "FAIL", "criteria": [], "critique": "example"})
    parsed = parse_verdict(f"The format is:\n{example}\nMy verdict:\n{block(GOOD)}")
    assert parsed.verdict == "PASS"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("PASS, all good.", "no ```tiergate-verdict block"),
        (block(GOOD, info="json"), "no ```tiergate-verdict block"),
        ("```tiergate-verdict\n{not json}\n```", "not valid JSON"),
        (block(["PASS"]), "one JSON object"),
        (block({"verdict": "OK"}), '"verdict" must be one of PASS, FAIL, INCOMPLETE'),
        (block({"verdict": "PASS", "criteria": "all"}), '"criteria" must be a list'),
        (block({"verdict": "PASS", "criteria": [{"criterion": "x", "status": "DONE"}]}), "criteria[0]"),
        (block({"verdict": "PASS", "criteria": [{"status": "VERIFIED"}]}), '"criterion" must be'),
        (block({"verdict": "PASS", "critique": 3}), '"critique" must be a string'),
    ],
)
def test_a_missing_or_malformed_block_is_a_precise_instruction(text: str, says: str) -> None:
    with pytest.raises(VerdictError) as caught:
        parse_verdict(text)
    assert says in str(caught.value)
    judgement = judge(text, commands_run=3)
    assert not judgement.accepted and judgement.verdict is None and says in judgement.problems[0]


def test_a_pass_with_a_criterion_not_verified_goes_back() -> None:
    data = {**GOOD, "criteria": [*GOOD["criteria"], *criteria(("handles empty input", "PARTIAL", "half"))]}
    judgement = judge(message(data), required=REQUIRED, commands_run=2)
    assert not judgement.accepted
    assert any('"handles empty input" is PARTIAL' in p for p in judgement.problems)


def test_a_pass_without_evidence_or_criteria_goes_back() -> None:
    bare = judge(message({"verdict": "PASS", "criteria": []}), commands_run=1)
    assert any("a PASS needs criteria" in p for p in bare.problems)
    empty = {**GOOD, "criteria": criteria(("lsp_diagnostics clean", "VERIFIED", ""))}
    judgement = judge(message(empty), required=REQUIRED[:1], commands_run=1)
    assert any("VERIFIED without evidence" in p for p in judgement.problems)


def test_a_pass_must_name_every_required_label() -> None:
    only_lint = {**GOOD, "criteria": GOOD["criteria"][:1]}
    judgement = judge(message(only_lint), required=REQUIRED, commands_run=2)
    assert judgement.problems == (
        'no criterion for "test showing the fix passes now": add one named '
        '"test showing the fix passes now", with fresh evidence for it',
    )
    # Named with details after the label, in another case and punctuation: still the label.
    loose = Verdict("PASS", (), "")
    assert missing_labels(loose, ("build pass",)) == ("build pass",)
    detailed = parse_verdict(
        block({"verdict": "PASS", "criteria": criteria(("Build PASS (make all)", "VERIFIED", "make: ok"))})
    )
    assert missing_labels(detailed, ("build pass",)) == ()


def test_a_pass_without_a_command_run_by_the_verifier_goes_back() -> None:
    judgement = judge(message(GOOD), required=REQUIRED, commands_run=0)
    assert not judgement.accepted
    assert any("no command you ran yourself" in p for p in judgement.problems)


@pytest.mark.parametrize(
    "words", ["It should work now.", "This probably passes.", "It seems to be fine.", "I think it is done.",
              "The fix is likely complete.", "It might be okay.", "It appears to pass.", "I believe so.",
              "It shouldn't break anything."],
)  # fmt: skip
def test_a_hedged_pass_goes_back(words: str) -> None:
    judgement = judge(message(GOOD, before=words), required=REQUIRED, commands_run=2)
    assert not judgement.accepted
    assert any(p.startswith("hedging") for p in judgement.problems)


def test_hedging_is_judged_in_the_verifiers_own_words_only() -> None:
    quoted = {
        **GOOD,
        "criteria": criteria(
            ("lsp_diagnostics clean", "VERIFIED", "ruff: 'should' is fine"),
            ("test showing the fix passes now", "VERIFIED", "test_parser_should_reject_empty PASSED"),
        ),
    }
    text = message(
        quoted,
        before='I ran `pytest -k should_reject`; it printed "should reject: ok".\n```\nshould probably\n```',
    )
    assert judge(text, required=REQUIRED, commands_run=2).accepted
    # Not a hedge: words that merely contain one.
    assert hedging(Verdict("PASS", (), "Unlikely inputs are rejected; shoulder cases too."), "") == ()
    # The critique and criteria names are the verifier's words.
    assert hedging(Verdict("PASS", (), "It should be fine"), "") == ("should",)


def test_prose_drops_code_and_quotations() -> None:
    assert prose('a `b` "c" d\n```\ne\n```\nf').split() == ["a", "d", "f"]


def test_a_fail_must_say_what_is_wrong_and_needs_no_fresh_evidence() -> None:
    silent = judge(
        message({"verdict": "FAIL", "criteria": criteria(("x", "VERIFIED", "ok"))}), commands_run=0
    )
    assert any("a FAIL must say what is wrong" in p for p in silent.problems)
    reasoned = judge(
        message({"verdict": "FAIL", "criteria": [], "critique": "parse('') crashes"}), commands_run=0
    )
    assert reasoned.accepted
    # Hedging only holds back a PASS: a FAIL sends the implementer back to work either way.
    hedged = judge(message({"verdict": "FAIL", "critique": "this might crash"}), commands_run=0)
    assert hedged.accepted


def test_an_incomplete_verdict_is_accepted_as_it_is() -> None:
    data = {
        "verdict": "INCOMPLETE",
        "criteria": criteria(("build pass", "MISSING", "no build")),
        "critique": "",
    }
    assert judge(message(data), required=("build pass",), commands_run=0).accepted


def test_a_verdict_for_another_verification_goes_back() -> None:
    other = {**GOOD, "verification_id": "v7"}
    judgement = judge(message(other), required=REQUIRED, commands_run=2, verification_id="v8")
    assert any('names verification "v7"' in p for p in judgement.problems)
    same = {**GOOD, "verification_id": "v8"}
    assert judge(message(same), required=REQUIRED, commands_run=2, verification_id="v8").accepted
