"""The mutants plugin's key is out of the environment before pytest imports the project's root conftest
(red team 36): it took the key in `pytest_configure`, after pytest had imported that conftest, which could
read it and write a report of killed mutants the gate would take as the plugin's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tiergate.gate import mutation

READER = """\
import os

with open(os.path.join(os.path.dirname(__file__), "seen"), "w") as f:
    f.write(os.environ.get("TIERGATE_MUTANTS_KEY", "<none>"))
"""


def test_the_root_conftest_finds_no_key_in_the_environment(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(READER)
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(mutation.__file__).parent),
        "PYTEST_PLUGINS": "pytestmutants",
        "TIERGATE_MUTANTS": str(tmp_path / "no-plan.json"),
        "TIERGATE_MUTANTS_KEY": "the-secret",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert run.returncode == 0, run.stdout + run.stderr
    assert (tmp_path / "seen").read_text() == "<none>"
