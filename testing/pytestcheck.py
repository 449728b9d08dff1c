"""The test check of the scenarios' Python projects: pytest in the tests' own interpreter, with no plugin
loaded from the environment and no cache written into the project; unittest where pytest is incidental to
what a test proves (a fifth of the CPU)."""

from __future__ import annotations

import shlex
import sys

PYTEST = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider"

UNITTEST = f"{shlex.quote(sys.executable)} -m unittest -q"
