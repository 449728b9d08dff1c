"""The demo's scripted verifier (`tiergate.demo.verifier`): what it reads from an evidence packet, and the
verdict the example's real test and build runs support."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tiergate.demo import OffScriptError, example, verifier

_PACKET = """\
tiergate evidence packet for verification v-7f3a (iteration 2)

TASK
Fix statkit's bug

EVIDENCE YOU MUST PRODUCE
- "regression test for the even count" (asked by the task)
- "the build compiles" (asked by the checks)
"""


def _verdict_block(message: str) -> dict[str, object]:
    match = re.search(r"```tiergate-verdict\n(.*)\n```$", message, re.DOTALL)
    assert match is not None, message
    block: dict[str, object] = json.loads(match.group(1))
    return block


def _findings(tmp_path: Path, fix: str) -> verifier.Findings:
    root = example.create(tmp_path)
    example.write(root, {example.MODULE: fix})
    return verifier.Findings(tests=example.run_tests(root), build=example.compile_all(root))


def test_the_packet_gives_its_verification_id_and_the_labels_of_the_evidence_asked() -> None:
    packet = verifier.read_packet(_PACKET)

    assert packet.verification_id == "v-7f3a"
    assert packet.labels == ("regression test for the even count", "the build compiles")
    assert packet.size == len(_PACKET)


@pytest.mark.parametrize(
    ("context", "said"),
    [
        (None, "no evidence packet"),
        ("Please verify the change.\n" + _PACKET, "no evidence packet"),
        (_PACKET.partition("EVIDENCE YOU MUST PRODUCE")[0], "names no evidence"),
    ],
)
def test_a_context_without_a_packet_or_its_labels_fails_the_demo(context: str | None, said: str) -> None:
    with pytest.raises(OffScriptError, match=said):
        verifier.read_packet(context)


def test_a_wrong_fix_gets_a_fail_naming_the_failing_test_and_its_assertion(tmp_path: Path) -> None:
    packet = verifier.read_packet(_PACKET)

    message = verifier.verdict(packet, _findings(tmp_path, example.WRONG_FIX))

    block = _verdict_block(message)
    assert block["verification_id"] == "v-7f3a"
    assert block["verdict"] == "FAIL"
    assert "test_even_count_unsorted fails: AssertionError: 3 != 2.5" in str(block["critique"])
    criteria = block["criteria"]
    assert isinstance(criteria, list)
    statuses = {c["criterion"]: c["status"] for c in criteria}
    assert statuses["regression test for the even count"] == "MISSING"
    assert statuses["the build compiles"] == "VERIFIED"


def test_the_right_fix_gets_a_pass_with_every_criterion_verified_by_a_run(tmp_path: Path) -> None:
    packet = verifier.read_packet(_PACKET)

    message = verifier.verdict(packet, _findings(tmp_path, example.RIGHT_FIX))

    assert message.startswith(
        "I ran the tests and the build myself: Ran 5 tests: OK, and the build is clean."
    )
    block = _verdict_block(message)
    assert block["verdict"] == "PASS"
    criteria = block["criteria"]
    assert isinstance(criteria, list)
    assert len(criteria) == 3
    assert all(c["status"] == "VERIFIED" and c["evidence"].startswith("$ python -m ") for c in criteria)


def test_the_hedged_pass_claims_every_label_without_a_command() -> None:
    packet = verifier.read_packet(_PACKET)

    block = _verdict_block(verifier.hedged_pass(packet))

    assert block["verdict"] == "PASS"
    criteria = block["criteria"]
    assert isinstance(criteria, list)
    assert [c["criterion"] for c in criteria] == list(packet.labels)
    assert not any("$ " in c["evidence"] for c in criteria)
