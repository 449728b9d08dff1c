"""Content rules in a real loop, through the real hook entry point: a claim whose only risky thing is a
changed line (TLS verification switched off in a module no path rule flags) goes THOROUGH with the
`file:line` reason; with `[risk] content = false` kept at the loop's start it does not; and the agent
cannot turn the rules off during the loop by editing `.tiergate.toml`."""

from __future__ import annotations

from pathlib import Path

from testing.clientproject import CONTENT_OFF, INSECURE, OWN_RULE, Loop
from testing.gitrepo import write

BILLING = "def fetch(session, url):\n    charge_card(session)\n    return session.get(url, verify=False)\n"


def test_a_claim_whose_only_risk_is_a_changed_line_goes_thorough_naming_file_and_line(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {"app/client.py": INSECURE})

    answer = loop.claim()

    assert "```tiergate-spawn" in answer["reason"] and "tiergate:architect" in answer["reason"]
    assert loop.loop().tier == "THOROUGH"
    assert (
        'app/client.py:2 (added line) TLS verification switch: "return session.get(url, verify=False)"'
        in (loop.stop_reasons())
    )


def test_with_content_rules_off_at_the_start_the_same_claim_is_standard(tmp_path: Path) -> None:
    loop = Loop(tmp_path, CONTENT_OFF)
    loop.start()
    write(loop.project, {"app/client.py": INSECURE})

    loop.claim()

    assert loop.loop().tier == "STANDARD"
    assert "verify=False" not in loop.stop_reasons()


def test_the_agent_cannot_turn_content_rules_off_during_the_loop(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {"app/client.py": INSECURE, ".tiergate.toml": CONTENT_OFF})

    loop.claim()

    assert loop.loop().tier == "THOROUGH"
    assert "app/client.py:2 (added line) TLS verification switch" in loop.stop_reasons()


def test_a_rule_the_loop_kept_reads_the_changed_lines_beside_the_built_in_ones(tmp_path: Path) -> None:
    loop = Loop(tmp_path, OWN_RULE)
    loop.start()
    write(loop.project, {"app/client.py": BILLING})

    loop.claim()

    assert loop.loop().tier == "THOROUGH"
    assert 'app/client.py:2 (added line) billing API call: "charge_card(session)"' in loop.stop_reasons()
    assert "app/client.py:3 (added line) TLS verification switch" in loop.stop_reasons()
