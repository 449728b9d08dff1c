"""The scripted verifier: it does what tiergate's evidence packet asks of a verifier model.

It reads the verification id and evidence labels from the packet, runs the example's tests and build for
real (each command in its transcript), and gives the verdict those runs support, quoting their output.
The one verdict it writes without evidence is the hedged PASS the story shows being sent back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from tiergate.demo import OffScriptError, example
from tiergate.demo.example import CommandRun
from tiergate.demo.session import Subagent
from tiergate.frozen import frozen

_PACKET_ID = re.compile(r"^tiergate evidence packet for verification (?P<id>[^\s(),]+)")
_LABEL = re.compile(r'^- "(?P<label>[^"]+)" \(asked by', re.MULTILINE)
_EVIDENCE_HEADING = "EVIDENCE YOU MUST PRODUCE"
_TEST_WORDS = ("test", "regression")


@frozen
class Packet:
    """What the verifier takes from tiergate's evidence packet."""

    verification_id: str
    labels: tuple[str, ...]
    size: int


@frozen
class Findings:
    tests: CommandRun
    build: CommandRun

    @property
    def ok(self) -> bool:
        return self.tests.ok and self.build.ok


def read_packet(context: str | None) -> Packet:
    match = _PACKET_ID.match(context or "")
    if context is None or match is None:
        raise OffScriptError("the verifier was given no evidence packet")
    section = context[context.find(_EVIDENCE_HEADING) :] if _EVIDENCE_HEADING in context else ""
    labels = tuple(m.group("label") for m in _LABEL.finditer(section))
    if not labels:
        raise OffScriptError("the evidence packet names no evidence to produce")
    return Packet(match.group("id"), labels, len(context))


def investigate(root: Path, agent: Subagent) -> Findings:
    """Run the tests and the build in the example, as the verifier's own Bash commands."""
    runs = Findings(tests=example.run_tests(root), build=example.compile_all(root))
    for run in (runs.tests, runs.build):
        agent.transcript.bash(run.command, run.exit_code, run.output)
    return runs


def verdict(packet: Packet, findings: Findings) -> str:
    """The final message: what the runs show, then the tiergate-verdict block."""
    tests = findings.tests
    criteria = [_criterion(label, findings) for label in packet.labels]
    criteria.append(
        {
            "criterion": "median() of an even number of values is the mean of the two middle ones",
            "status": "VERIFIED" if tests.ok else "MISSING",
            "evidence": f"$ {tests.command}\n" + "\n".join(_lines_about(tests, "even_count")),
        }
    )
    if findings.ok:
        prose = f"I ran the tests and the build myself: {summary(tests)}, and the build is clean."
        body = {"verdict": "PASS", "criteria": criteria, "critique": ""}
    else:
        broken = tests if not tests.ok else findings.build
        failing = ", ".join(failures(broken)) or f"`{broken.command}`"
        prose = f"I ran the tests and the build myself: {failing} fails."
        why = assertion(broken) or summary(broken)
        critique = f"{failing} fails: {why}. Fix median() so the whole suite passes."
        body = {"verdict": "FAIL", "criteria": criteria, "critique": critique}
    return _message(prose, packet, body)


def hedged_pass(packet: Packet) -> str:
    """A PASS from reading the diff, without running anything: what tiergate must not accept."""
    criteria = [
        {"criterion": label, "status": "VERIFIED", "evidence": "read the diff of statkit/median.py"}
        for label in packet.labels
    ]
    prose = "I read the diff; the tests should pass now."
    return _message(prose, packet, {"verdict": "PASS", "criteria": criteria, "critique": ""})


def _message(prose: str, packet: Packet, body: Mapping[str, object]) -> str:
    block = json.dumps({"verification_id": packet.verification_id, **body}, indent=1)
    return f"{prose}\n\n```tiergate-verdict\n{block}\n```"


def _criterion(label: str, findings: Findings) -> dict[str, str]:
    """Evidence for one label: a label about tests is decided by the test run, any other by the build."""
    run = findings.tests if any(word in label.lower() for word in _TEST_WORDS) else findings.build
    return {"criterion": label, "status": "VERIFIED" if run.ok else "MISSING", "evidence": evidence(run)}


def evidence(run: CommandRun) -> str:
    """The command and the output lines that decide it."""
    if run.ok and not run.output.strip():
        return f"$ {run.command}\nexit 0, no output: no errors"
    decisive = [*failures(run), assertion(run), *_summary_lines(run)]
    return f"$ {run.command}\nexit {run.exit_code}\n" + "\n".join(line for line in decisive if line)


def failures(run: CommandRun) -> list[str]:
    """The names of the tests unittest reports as failing or erroring."""
    found = re.findall(r"^(?:FAIL|ERROR): (\w+)", run.output, re.MULTILINE)
    return list(dict.fromkeys(found))


def assertion(run: CommandRun) -> str:
    """The first error line of the output ("AssertionError: 2.0 != 2.5"), "" if none."""
    match = re.search(r"^\w+Error: .*$", run.output, re.MULTILINE)
    return match.group(0) if match else ""


def summary(run: CommandRun) -> str:
    """unittest's verdict line with its count: "Ran 4 tests: OK"."""
    return ": ".join(_summary_lines(run)) or f"exit {run.exit_code}"


def _summary_lines(run: CommandRun) -> list[str]:
    lines = [line.strip() for line in run.output.splitlines() if line.strip()]
    ran = next((line for line in reversed(lines) if line.startswith("Ran ")), "")
    ran = re.sub(r" in [\d.]+s$", "", ran)
    last = lines[-1] if lines and not lines[-1].startswith("Ran ") else ""
    return [line for line in (ran, last) if line]


def _lines_about(run: CommandRun, word: str) -> list[str]:
    return [line.strip() for line in run.output.splitlines() if word in line and " ... " in line]
