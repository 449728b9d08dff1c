"""Seals: a record tiergate wrote reads back; any change to its bytes, its name or its key does not."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tiergate import seal


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(seal, "_key_cache", {})
    return tmp_path / "state" / "tiergate"


def test_a_sealed_file_opens_to_its_body(_home: Path) -> None:
    body = b'{"phase": "verifying"}'
    assert seal.open_file("loops/s1.json", seal.seal_file("loops/s1.json", body)) == body


@pytest.mark.parametrize(
    "tamper",
    [
        lambda d: d.replace(b"verifying", b"passed"),
        lambda d: d.split(b"\n#")[0],
        lambda d: b"garbage",
        lambda d: d[:-1],
        lambda d: d.replace(b"#tiergate-seal ", b"#tiergate-seal 0"),
    ],
)
def test_an_edited_file_does_not_open(tamper) -> None:  # type: ignore[no-untyped-def]
    sealed = seal.seal_file("loops/s1.json", b'{"phase": "verifying"}')
    with pytest.raises(seal.SealError):
        seal.open_file("loops/s1.json", tamper(sealed))


def test_a_file_copied_under_another_name_does_not_open() -> None:
    sealed = seal.seal_file("loops/s1.json", b"{}")
    with pytest.raises(seal.SealError, match="does not match"):
        seal.open_file("loops/s2.json", sealed)


def test_the_key_is_the_users_alone_and_stays_the_same(_home: Path) -> None:
    first = seal.key()
    assert len(first) == seal.KEY_BYTES
    assert stat.S_IMODE((_home / "key").stat().st_mode) == 0o600
    assert stat.S_IMODE(_home.stat().st_mode) == 0o700
    seal._key_cache.clear()
    assert seal.key() == first


def test_a_new_key_breaks_every_old_seal(_home: Path) -> None:
    sealed = seal.seal_file("log.jsonl", b"x")
    (_home / "key").unlink()
    seal._key_cache.clear()
    with pytest.raises(seal.SealError):
        seal.open_file("log.jsonl", sealed)


def test_a_damaged_key_is_said_plainly(_home: Path) -> None:
    _home.mkdir(parents=True)
    (_home / "key").write_bytes(b"short")
    with pytest.raises(seal.SealError, match="damaged"):
        seal.key()


def test_a_line_seal_covers_the_line_exactly() -> None:
    line = '{"event": "loop_finished", "verdict": "PASS"}'
    found = seal.line_tag("notices/s1.txt", line)
    assert seal.line_is_sealed("notices/s1.txt", line, found)
    assert not seal.line_is_sealed("notices/s1.txt", line + " ", found)
    assert not seal.line_is_sealed("notices/s2.txt", line, found)
    assert not seal.line_is_sealed("notices/s1.txt", line, "not hex at all é")


def test_state_home_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert seal.state_home({"XDG_STATE_HOME": str(tmp_path)}) == str(tmp_path / "tiergate")
    home = seal.state_home({"XDG_STATE_HOME": "relative/ignored"})
    assert home == str(Path("~").expanduser() / ".local" / "state" / "tiergate")
