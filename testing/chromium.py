"""Headless Chromium (Debian's `chromium` package; scripts/test.sh installs it) for the report's browser
tests: a page's DOM after it is parsed and laid out, a screenshot of it, and the URLs the browser asked
for while it was loaded.

Each run gets a new profile, no network to speak of (every host name resolves to nothing) and none of
Chromium's background services that can be turned off; what Chromium still tries on its own (Google's
hosts) is in the net log too, told apart by `page_requests`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

from testing import installs

CHROMIUM = Path(os.environ.get("TIERGATE_CHROMIUM", "/usr/bin/chromium"))
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)
TIMEOUT_SECONDS = 90
# Where Chromium itself calls home even so (time, accounts, the new tab's suggestions): not the page's.
_CHROMIUMS_OWN = re.compile(r"^https?://([a-z0-9-]+\.)*(google\.com|googleapis\.com|gstatic\.com)(/|$)")


def _run(page: Path, *args: str) -> subprocess.CompletedProcess[str]:
    installs.awaited("chromium")
    assert CHROMIUM.is_file(), f"{CHROMIUM} is missing: scripts/test.sh installs Debian's chromium package"
    with tempfile.TemporaryDirectory(prefix="tiergate-chromium-") as profile:
        return subprocess.run(
            [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args, page.absolute().as_uri()],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
            check=True,
            env={**os.environ, "HOME": profile},
        )


def dump_dom(page: Path) -> str:
    """The page's DOM, serialized, once loaded."""
    return _run(page, "--dump-dom").stdout


def screenshot(page: Path, out: Path, width: int, height: int) -> Path:
    """A PNG of the page's first `width` x `height` pixels."""
    _run(page, f"--screenshot={out}", f"--window-size={width},{height}")
    return out


def requests(page: Path, net_log: Path) -> list[str]:
    """Every URL the browser asked for while it loaded `page` (from its net log)."""
    _run(page, "--dump-dom", f"--log-net-log={net_log}")
    text = net_log.read_text(errors="replace")
    try:
        events = json.loads(text).get("events", [])
    except ValueError:  # a log cut short at the end: its URLs are still there to read
        return sorted(set(re.findall(r'"url":"([^"]*)"', text)))
    return sorted({e["params"]["url"] for e in events if "url" in e.get("params", {})})


def page_requests(page: Path, net_log: Path) -> list[str]:
    """The URLs the page asked for (not Chromium's own calls home, nor the page itself)."""
    own = page.absolute().as_uri()
    return [url for url in requests(page, net_log) if url != own and not _CHROMIUMS_OWN.match(url)]
