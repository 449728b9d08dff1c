"""testing/installs.py: a test that needs the CLI, OMC or Chromium waits for scripts/test.sh to install it
beside the suite, and fails with the install's output when it failed."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from testing import installs


def test_nothing_pending_returns_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(installs.VARIABLE, raising=False)
    began = time.monotonic()
    installs.awaited("claude", patience=5)
    assert time.monotonic() - began < 1


def test_a_pending_install_is_waited_for_until_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(installs.VARIABLE, str(tmp_path))
    ended = threading.Timer(0.6, (tmp_path / "omc.status").write_text, args=("0\n",))
    ended.start()
    began = time.monotonic()
    installs.awaited("omc", patience=30)
    assert time.monotonic() - began >= 0.5
    ended.join()


def test_a_failed_install_fails_the_test_with_its_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(installs.VARIABLE, str(tmp_path))
    (tmp_path / "chromium.log").write_text("E: Unable to locate package chromium\n")
    (tmp_path / "chromium.status").write_text("100\n")
    with pytest.raises(installs.InstallError, match=r"exit 100\):\nE: Unable to locate package chromium"):
        installs.awaited("chromium", patience=5)


def test_an_install_that_never_ends_fails_after_the_patience(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(installs.VARIABLE, str(tmp_path))
    (tmp_path / "claude.log").write_text("npm http fetch GET 200 ...\n")
    with pytest.raises(installs.InstallError, match=r"did not end within 1 s:\nnpm http fetch"):
        installs.awaited("claude", patience=1)
