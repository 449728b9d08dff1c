"""The modules the hook's fast path must not import: tiergate's heavy dependencies and the standard
library's slow ones that tiergate does use elsewhere. Each is one tiergate imports (a test keeps it so: a
name nothing imports could never be caught on the path)."""

from __future__ import annotations

HEAVY = frozenset({"pydantic", "structlog", "anyio", "argparse", "tomllib", "pathspec"})
