"""The one registry of hook events (`tiergate.hook.registry`) is what every other list of them agrees with."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

from tiergate import handlers
from tiergate.hook import inputfields, inputschema
from tiergate.hook.registry import EVENTS

ROOT = Path(__file__).resolve().parents[2]


def test_hooks_json_registers_exactly_the_registry_events() -> None:
    registered = json.loads((ROOT / "hooks" / "hooks.json").read_text())["hooks"]

    assert set(registered) == set(EVENTS)


def test_every_registry_event_has_a_handler_module_named_after_it() -> None:
    assert handlers._MODULES["UserPromptSubmit"] == "user_prompt_submit"
    assert handlers._MODULES["SubagentStop"] == "subagent_stop"
    assert set(handlers._MODULES) == set(EVENTS)
    for module_name in handlers._MODULES.values():
        assert callable(importlib.import_module(f"tiergate.handlers.{module_name}").handle)


def test_every_registry_event_has_an_input_and_its_model() -> None:
    assert set(inputfields.INPUTS) == set(inputschema.SCHEMAS) == set(EVENTS)


def test_every_event_says_what_failing_open_meant() -> None:
    assert all(isinstance(what, str) and what for what in EVENTS.values())
