"""`tiergate demo`: the product's main job on an embedded example, offline, in a few seconds.

`example`: a tiny package with a real bug; `session`: a scripted Claude Code session sending the CLI's
JSON to the real hook (`python -m tiergate hook <Event>`); `verifier`: a scripted verifier that runs the
tests; `story` tells it step by step, checking every answer, so the demo doubles as a smoke test.
"""


class OffScriptError(Exception):
    """The story did not go as scripted: the message says what was expected and what came instead."""
