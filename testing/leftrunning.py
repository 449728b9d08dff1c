"""A process the agent left running: it finds each claim's copy under the temporary folder and writes into
it, for as long as it runs (what `tiergate.gate.cleancopy.check_untouched` must catch)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

# argv: the folder above the copies, a glob under each copy's holder, the bytes to write, "append" or not.
SCRIPT = """
import glob, os, sys, time
above, pattern, append = sys.argv[1], sys.argv[2], sys.argv[4] == 'append'
text = open(sys.argv[3], 'rb').read()
while True:
    for path in glob.glob(os.path.join(above, 'tiergate-claim-*', pattern)):
        try:
            now = open(path, 'rb').read()
            if (text not in now) if append else (now != text):
                open(path, 'ab' if append else 'wb').write(text)
        except OSError:
            pass
    time.sleep(0.002)
"""


@contextlib.contextmanager
def writing(where: Path, pattern: str, text: str, *, append: bool = False) -> Iterator[None]:
    """While open, a process writes `text` into (or at the end of) every file `pattern` matches under each
    claim's holder in TMPDIR; `where`: a folder for its script."""
    (where / "left-running.py").write_text(SCRIPT)
    (where / "left-running.txt").write_text(text)
    args = [os.environ["TMPDIR"], pattern, str(where / "left-running.txt"), "append" if append else "replace"]
    process = subprocess.Popen(
        [sys.executable, str(where / "left-running.py"), *args], start_new_session=True
    )
    try:
        yield
    finally:
        process.kill()
        process.wait()
