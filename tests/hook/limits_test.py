"""The Stop hook's time limit, read from the hooks.json that registered tiergate's hook."""

from __future__ import annotations

import json
from pathlib import Path

from tiergate.hook.limits import DEFAULT, MARGIN, hook_limit, time_for_waiting


def registered(root: Path, hooks: object) -> dict[str, str]:
    (root / "hooks").mkdir(parents=True)
    (root / "hooks" / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    return {"CLAUDE_PLUGIN_ROOT": str(root)}


def entry(command: str, timeout: object = None) -> dict[str, object]:
    hook: dict[str, object] = {"type": "command", "command": command}
    if timeout is not None:
        hook["timeout"] = timeout
    return {"hooks": [hook]}


def test_the_limit_is_the_timeout_of_tiergates_own_entry(tmp_path: Path) -> None:
    env = registered(
        tmp_path,
        {"Stop": [entry("other-plugin", 5), entry("${CLAUDE_PLUGIN_ROOT}/hooks/tiergate-hook", 240)]},
    )
    assert hook_limit("Stop", env) == 240.0
    assert time_for_waiting("Stop", env=env) == 240.0 - MARGIN


def test_the_protocols_default_where_nothing_says_otherwise(tmp_path: Path) -> None:
    assert hook_limit("Stop", {}) == DEFAULT
    env = registered(tmp_path / "a", {"Stop": [entry("tiergate-hook")]})
    assert hook_limit("Stop", env) == DEFAULT  # no timeout field: Claude Code's default
    broken = tmp_path / "b"
    (broken / "hooks").mkdir(parents=True)
    (broken / "hooks" / "hooks.json").write_text("{not json")
    assert hook_limit("Stop", {"CLAUDE_PLUGIN_ROOT": str(broken)}) == DEFAULT
    odd = registered(tmp_path / "c", {"Stop": [entry("tiergate-hook", True), entry("tiergate-hook", -3)]})
    assert hook_limit("Stop", odd) == DEFAULT
