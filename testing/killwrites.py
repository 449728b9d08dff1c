"""The environment of a tiergate process (started cold: `tiergatecli.tiergate` with interpreter flags, or
`python -c`) that is killed after its `n`th file written or removed by `tiergate.workspace.ondisk`: a
`sitecustomize` of the test's own wraps them, so the product code holds no fault point."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

FOLDER = Path(__file__).with_name("killafterwrites")
VARIABLE = "TIERGATE_TEST_KILL_AFTER_WRITES"
# Interpreter flags that start the process cold (not forked warm), so that its sitecustomize runs.
COLD = ("-X", "faulthandler")


def kill_after_writes(env: Mapping[str, str], n: int) -> dict[str, str]:
    """`env` for a process killed after its `n`th file written or removed."""
    path = os.pathsep.join(p for p in (str(FOLDER), env.get("PYTHONPATH", "")) if p)
    return {**env, "PYTHONPATH": path, VARIABLE: str(n)}
