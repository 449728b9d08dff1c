"""A full disk for tests, two ways: a file-size limit (writes past it fail with EFBIG), and a real one (a
tiny tmpfs in a mount namespace of its own, where writes fail with ENOSPC; needs `unshare -m` as root).

Each runs a Python program in a child process, so that the limit or the mount never reaches the test's
own process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

# SIGXFSZ ignored: a write past the limit then fails with EFBIG instead of killing the process.
_FILE_LIMIT = """
import resource, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
"""


def run_with_file_limit(program: str, limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `program` (Python source; `sys.argv[1:]` are `args`) where no file may grow past `limit` bytes."""
    source = _FILE_LIMIT.format(limit=limit) + textwrap.dedent(program)
    return _python([sys.executable, "-c", source, *args])


def run_on_full_tmpfs(program: str, mount: Path, size: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `program` with a fresh tmpfs of `size` (e.g. "64k") mounted on `mount`, seen by it alone."""
    mount.mkdir(parents=True, exist_ok=True)
    script = 'mount -t tmpfs -o size="$1" tiergate-test "$2" && shift 2 && exec "$@"'
    command = [sys.executable, "-c", textwrap.dedent(program), *args]
    return _python(["unshare", "-m", "sh", "-c", script, "sh", size, str(mount), *command])


def _python(command: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, check=False)
