"""`tiergate demo`: the product's main job on an embedded example, offline, in a few seconds.

A throw-away git repository holds a tiny Python package with a real bug (`example`). A scripted Claude
Code session (`session`) sends the JSON the CLI sends to the real hook entry point, `python -m tiergate
hook <Event>`, and writes the transcripts where the hooks read them; a scripted verifier (`verifier`)
really runs the example's tests and reports what they show. `story` tells it step by step and checks
every answer against the script, so that the demo doubles as a smoke test of the whole loop.
"""


class OffScriptError(Exception):
    """The story did not go as scripted: the message says what was expected and what came instead."""
