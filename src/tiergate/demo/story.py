"""The demo's story: one ralph loop on the example, from `/tiergate:ralph` to the finalized loop.

Each step does what Claude (or its verifier) would do, sends the hook event, checks tiergate's answer
against the script and prints both; an unexpected answer ends the story naming the step, and `run`
returns 1. The story is data (`Script`), so a test can tell it with a script that goes wrong.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

from tiergate.demo import OffScriptError, example, verifier
from tiergate.demo.printer import Printer
from tiergate.demo.session import Answer, Session, Subagent
from tiergate.demo.verifier import Packet
from tiergate.frozen import frozen
from tiergate.project import locate

_SPAWN = re.compile(r"^```tiergate-spawn[ \t]*\n(?P<body>.*?)\n```[ \t]*$", re.MULTILINE | re.DOTALL)
_TIER = re.compile(r"^Tier (?P<tier>\w+): (?P<size>[^\n]*?)\. Why: (?P<why>[^\n]*)$", re.MULTILINE)
PROMISE = "<promise>DONE</promise>"


@frozen
class Script:
    task: str = example.TASK
    max_iterations: int = 10
    breaking_attempt: str = example.BREAKING_FIX
    first_attempt: str = example.WRONG_FIX
    fix: str = example.RIGHT_FIX


SCRIPT = Script()


NEXT_STEP = "Next: in your own project, start a loop in Claude Code with /tiergate:ralph <task>."


def run(
    out: TextIO,
    *,
    script: Script = SCRIPT,
    keep: bool = False,
    color: bool = False,
    next_step: str = NEXT_STEP,
) -> int:
    """Tell the story in a new temporary directory; 0 if it went as scripted, 1 if not. `next_step` is the
    closing line: what the user can do next on this machine (`tiergate.commands.demo.next_step`)."""
    printer = Printer(out, color=color)
    began = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix="tiergate-demo-"))
    if not keep:
        # The seal key, the example's state and log in the temporary directory too: a demo leaves nothing
        # in the user's state home. (This process and the hooks it starts; it ends with the demo.)
        os.environ["XDG_STATE_HOME"] = str(workdir / "state")
    page: str | None = None
    try:
        try:
            page = tell(script, workdir, printer, report=keep)
        except (OffScriptError, OSError, subprocess.SubprocessError) as exc:
            where = f"step {printer.step_number}" if printer.step_number else "setting up the example"
            printer.failure(f"tiergate demo: FAILED at {where}: {exc}")
            return 1
        printer.success(
            f"Done in {time.monotonic() - began:.1f} s, as scripted. Every answer above came from `tiergate "
            "hook <Event>`, the command Claude Code runs for tiergate's hooks."
        )
        if page is None:
            printer.plain(
                "To look at the loop as a page, run `tiergate demo --keep`: it keeps the example and writes "
                "its report (`tiergate report`)."
            )
        printer.plain(next_step)
        return 0
    finally:
        state = example_state_dir(workdir)
        if keep:
            printer.plain(
                f"Kept: {workdir}: the example in {example.NAME}/, the session's and the verifiers' "
                f"transcripts in claude/; the loop's state and log in {state}"
            )
            if page is not None:
                printer.plain(
                    f"The loop as a page: {page} (open it in a browser; `tiergate report --open` in "
                    f"{workdir / example.NAME} writes it again and opens it)"
                )
        else:
            shutil.rmtree(workdir, ignore_errors=True)
            shutil.rmtree(state, ignore_errors=True)


def example_state_dir(workdir: Path) -> Path:
    """The example's state folder, in the user's state home as any project's (the demo's hooks run
    without TIERGATE_STATE_DIR): removed with the example unless it is kept."""
    env = {key: value for key, value in os.environ.items() if key != "TIERGATE_STATE_DIR"}
    return locate(workdir / example.NAME, env | {"CLAUDE_PROJECT_DIR": str(workdir / example.NAME)}).state_dir


def tell(script: Script, workdir: Path, p: Printer, *, report: bool = False) -> str | None:
    """Tell the story; with `report`, end by writing the loop's report page, and return its path."""
    repo = example.create(workdir)
    session = Session(repo, workdir / "claude")
    p.title("tiergate demo: a scripted Claude Code session, answered by tiergate's real hooks")
    p.line(
        f"The project: {example.NAME}, a temporary git repository whose median() is wrong for an even "
        "number of values (its unittest tests show it)."
    )
    # A project without tiergate state: the hook's fast path, which answers nothing at all.
    _quiet(session.start())
    _start_loop(p, session, script)
    _stop_without_claim(p, session)
    p.step(f"Claude sorts the caller's list in place to fix it, and ends with {PROMISE}")
    _claim_refuted_by_the_gate(p, session, script.breaking_attempt)
    p.step(
        f"Claude makes another wrong fix (it averages only input that comes sorted) and ends with {PROMISE}"
    )
    directive = _claim(p, session, script.first_attempt, explain=True)
    agent, packet = _verifier_starts(p, session, directive)
    _verifier_refutes(p, session, agent, packet)
    _critique_reaches_claude(p, session)
    p.step(f"Claude fixes the bug for real (it averages the sorted values), ends with {PROMISE} again")
    directive = _claim(p, session, script.fix, explain=False)
    agent, packet = _hedged_pass_sent_back(p, session, directive)
    _verifier_passes(p, session, agent, packet)
    history = _loop_finalized(p, session)
    _history(p, session, history)
    ended = session.end()
    _expect(ended.exit_code == 0, "the session to end normally", ended)
    return _report(session) if report else None


def _report(session: Session) -> str:
    """`tiergate report` in the example: the path of the page it wrote."""
    said = session.tiergate("report").strip()
    written = re.fullmatch(r"tiergate: report of 1 loop written to (?P<page>.+)", said)
    if written is None:
        raise OffScriptError(f"expected `tiergate report` to write the loop's page, got {said!r}")
    return written["page"]


def _start_loop(p: Printer, session: Session, script: Script) -> None:
    command = f"/tiergate:ralph {script.task} --max-iterations {script.max_iterations}"
    p.step("You start a loop in Claude Code")
    p.line(f"> {command}")
    answer = session.prompt(command)
    _expect(answer.exit_code == 0 and "loop started" in answer.message, "the loop to start", answer)
    _expect(answer.context is not None, "the task handed to Claude as context", answer)
    p.answer(answer, _notice(answer))


def _stop_without_claim(p: Printer, session: Session) -> None:
    message = "I read statkit/median.py and its tests: for an even count it returns the upper middle value."
    p.step("Claude ends its turn without claiming the task done")
    p.line(f'Claude: "{message}"')
    answer = session.stop(message)
    block = answer.block
    _expect(
        block is not None and block.startswith("tiergate loop, iteration"), "a back-to-work block", answer
    )
    assert block is not None
    p.answer(answer, f'blocks the stop: "{_first_line(block)}"')


def _claim_refuted_by_the_gate(p: Printer, session: Session, attempt: str) -> None:
    """Write `attempt` over the module and claim: the project's checks refute it, no verifier is asked for."""
    example.write(session.project, {example.MODULE: attempt})
    answer = session.stop(
        f"Fixed: median() now sorts the values and averages the two middle ones.\n\n{PROMISE}"
    )
    block = answer.block or ""
    new = [line.strip() for line in block.splitlines() if line.strip().startswith("new failing tests:")]
    _expect(
        "refute" in block and "no verifier was spawned" in block and not _SPAWN.search(block) and bool(new),
        "a block with the failing check and no spawn directive",
        answer,
    )
    headline = next(line for line in block.splitlines() if line.startswith("tiergate's checks"))
    p.answer(answer, f'blocks the stop at once, no verifier spawned: "{headline}"')
    p.quote(new[0])


def _claim(p: Printer, session: Session, attempt: str, *, explain: bool) -> dict[str, Any]:
    """Write `attempt` over the module and claim the task done; the spawn directive tiergate answers."""
    example.write(session.project, {example.MODULE: attempt})
    answer = session.stop(
        f"Fixed: median() now averages the two middle values for an even count.\n\n{PROMISE}"
    )
    block = answer.block or ""
    spawns = _SPAWN.findall(block)
    _expect(len(spawns) == 1, "a block with exactly one tiergate-spawn directive", answer)
    tier = _TIER.search(block)
    _expect(tier is not None, "the tier and its reasons in the block", answer)
    assert tier is not None
    directive: dict[str, Any] = json.loads(spawns[0])
    agent = str(directive.get("subagent_type", ""))
    _expect(agent.startswith("tiergate:architect"), "a tiergate verifier in the spawn directive", answer)
    p.answer(answer, f"tier {tier['tier']} for {tier['size']}")
    if explain:
        p.line(f"why: {tier['why']}")

    model = directive.get("model")
    p.line(f"It blocks the stop with a tiergate-spawn directive: subagent_type {agent}, model {model}")
    return directive


def _verifier_starts(p: Printer, session: Session, directive: dict[str, Any]) -> tuple[Subagent, Packet]:
    agent_type, model = directive["subagent_type"], directive["model"]
    p.step(f"Claude spawns the verifier the directive names: {agent_type} on {model}")
    agent, answer, packet = _spawn(session, directive)
    size = f"{packet.size:,} characters"
    p.answer(answer, f"hands it the evidence packet for verification {packet.verification_id} ({size})")
    context = answer.context or ""
    checks = [
        line for line in context.splitlines() if line.startswith("- tests (") and "pre-existing" in line
    ]
    _expect(
        bool(checks) and "STILL FAILING AS WHEN THE LOOP BEGAN" in context,
        "the gate's pre-existing failure leading the packet",
        answer,
    )
    p.line("The packet leads with the gate's one failure: it already failed when the loop began, so it does")
    p.line("not refute the claim by itself, but the claim is not green either; the verifier must judge it.")
    p.quote("tests: " + checks[0].split("): ", 1)[-1], prose=True)
    p.quote("EVIDENCE YOU MUST PRODUCE: " + ", ".join(f'"{label}"' for label in packet.labels))
    return agent, packet


def _spawn(session: Session, directive: dict[str, Any]) -> tuple[Subagent, Answer, Packet]:
    agent, answer = session.start_subagent(directive["subagent_type"], directive["prompt"])
    return agent, answer, _packet(answer)


def _packet(answer: Answer) -> Packet:
    try:
        return verifier.read_packet(answer.context)
    except OffScriptError as exc:
        raise OffScriptError(f"{exc}; the {answer.event} hook answered {answer.describe()}") from None


def _verifier_refutes(p: Printer, session: Session, agent: Subagent, packet: Packet) -> None:
    p.step("The verifier runs the example's tests itself, and reports FAIL with their output as evidence")
    findings = verifier.investigate(session.project, agent)
    tests = findings.tests
    p.line(f"$ {tests.command}  ->  {verifier.summary(tests)}")
    if findings.ok:
        raise OffScriptError("the first attempt was meant to fail the example's tests, but they all pass")
    p.quote(f"{', '.join(verifier.failures(tests))}: {verifier.assertion(tests)}")
    answer = session.stop_subagent(agent, verifier.verdict(packet, findings))
    _expect(answer.exit_code == 0 and "returned FAIL" in answer.message, "the FAIL verdict accepted", answer)
    p.answer(answer, _notice(answer))


def _critique_reaches_claude(p: Printer, session: Session) -> None:
    message = "The verifier reports FAIL. I will look at what it found."
    p.step("Claude ends its turn: the verifier's critique is sent back to it")
    p.line(f'Claude: "{message}"')
    answer = session.stop(message)
    block = answer.block or ""
    critique = [line for line in block.splitlines() if line.startswith("Critique:")]
    _expect("FAIL" in block and bool(critique), "a block carrying the verifier's critique", answer)
    p.answer(answer, f'blocks the stop: "{_first_line(block)}"')
    retry = [line for line in block.splitlines() if line.startswith("Attempt ")]
    _expect(bool(retry), "the intervention (a retry with the failure's reason) in the block", answer)
    p.quote(retry[0], prose=True)
    p.quote(critique[0], prose=True)


def _hedged_pass_sent_back(
    p: Printer, session: Session, directive: dict[str, Any]
) -> tuple[Subagent, Packet]:
    p.step(
        f"Claude spawns {directive['subagent_type']} again; this one answers PASS without running anything"
    )
    agent, answer, packet = _spawn(session, directive)
    p.answer(answer, f"hands it the evidence packet for verification {packet.verification_id}")
    message = verifier.hedged_pass(packet)
    p.line(f'Verifier: "{message.splitlines()[0]}" + a PASS verdict block')
    answer = session.stop_subagent(agent, message)
    _expect(answer.exit_code == 2 and "hedging" in answer.stderr, "the hedged PASS sent back", answer)
    problems = [line[2:].split(":")[0] for line in answer.stderr.splitlines() if line.startswith("- ")]
    p.answer(answer, "refuses it; exit code 2 sends the verifier back: " + "; ".join(problems))
    return agent, packet


def _verifier_passes(p: Printer, session: Session, agent: Subagent, packet: Packet) -> None:
    p.step("The verifier runs the tests and the build, and reports PASS with their output as evidence")
    findings = verifier.investigate(session.project, agent)
    tests = findings.tests
    p.line(f"$ {tests.command}  ->  {verifier.summary(tests)}")
    message = verifier.verdict(packet, findings)
    answer = session.stop_subagent(agent, message)
    if not findings.ok:
        raise OffScriptError(f"the fix was meant to pass the example's tests: {verifier.summary(tests)}")
    _expect(answer.exit_code == 0 and "returned PASS" in answer.message, "the PASS verdict accepted", answer)
    p.answer(answer, _notice(answer))


def _loop_finalized(p: Printer, session: Session) -> str:
    """The stop let through and the loop's line in `tiergate status`; what `tiergate history` printed."""
    message = "The verifier confirmed the fix with its own test run. The task is done."
    p.step("Claude ends its turn: this time tiergate lets the stop through")
    answer = session.stop(message)
    _expect(
        answer.exit_code == 0 and answer.block is None and "loop finished" in answer.message,
        "the stop allowed and the loop finished",
        answer,
    )
    p.answer(answer, f"no block: {_notice(answer)}")
    # Both only read what the loop left: run side by side, `tiergate history` is ready for the next step.
    status, history = session.tiergate_together(("status",), ("history",))
    # A loop's line: "session <id>  <phase>[ (finished)]  iteration n/max  ...".
    ours = [line for line in status.splitlines() if line.startswith(f"session {session.id}  ")]
    if [line.split("  ")[1].split(" (")[0] for line in ours] != ["passed"]:
        raise OffScriptError(f"expected `tiergate status` to show the loop passed, got {ours}")
    p.line("$ tiergate status")
    for line in ours:
        p.quote(line.split("  task:")[0])
    return history


def _history(p: Printer, session: Session, history: str) -> None:
    p.step(
        "What each verification cost, in the [costs] weights per tier (relative, not money), against "
        "always sending the THOROUGH verifier"
    )
    p.line("$ tiergate history")
    lines = history.splitlines()
    verdicts = [line for line in lines if line.startswith(session.id[:12])]
    if not (any(" FAIL " in v for v in verdicts) and any(" PASS " in v for v in verdicts)):
        raise OffScriptError(f"expected `tiergate history` to list the FAIL and the PASS, got {lines}")
    totals = [line for line in lines if line.startswith("total:") and "always THOROUGH" in line]
    if not totals:
        raise OffScriptError(
            f"expected `tiergate history` to total the cost against always THOROUGH, got {lines}"
        )
    for line in [*verdicts, *totals]:
        p.quote(line)


def _quiet(answer: Answer) -> None:
    """An event with nothing for tiergate to do: exit 0 and no output."""
    _expect(answer.exit_code == 0 and not answer.output, "no answer at all", answer)


def _expect(condition: bool, wanted: str, answer: Answer) -> None:
    if not condition:
        raise OffScriptError(f"expected {wanted}; the {answer.event} hook answered {answer.describe()}")


def _notice(answer: Answer) -> str:
    """The answer's last notice for the user, without the "tiergate: " every notice starts with."""
    lines = answer.message.strip().splitlines()
    return lines[-1].removeprefix("tiergate: ") if lines else ""


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0]
