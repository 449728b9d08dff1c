"""A claim's bytecode folder on real files: it starts with the environment's bytecode from before the loop
began, where Python's prefix layout puts it, and never with a file written since."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tiergate.gate.bytecode import seed_of, seeded
from tiergate.gate.request import GateRequest, Seed


def test_only_bytecode_older_than_the_loop_seeds_the_folder(tmp_path: Path) -> None:
    cache = tmp_path / "venv" / "site" / "pkg" / "__pycache__"
    cache.mkdir(parents=True)
    (cache / "old.cpython-311.pyc").write_bytes(b"compiled before")
    (cache / "notes.txt").write_text("not bytecode")
    loop_began = time.time() + 0.05
    time.sleep(0.1)
    (cache / "new.cpython-311.pyc").write_bytes(b"planted since")
    into = tmp_path / "prefix"

    count = seeded(str(into), Seed((str(tmp_path / "venv"),), loop_began))

    placed = into / str(cache.parent).lstrip("/")
    assert count == 1
    assert sorted(p.name for p in placed.iterdir()) == ["old.cpython-311.pyc"]
    assert (placed / "old.cpython-311.pyc").read_bytes() == b"compiled before"


def test_no_seed_is_an_empty_folder(tmp_path: Path) -> None:
    assert seeded(str(tmp_path / "prefix"), None) == 0
    assert list((tmp_path / "prefix").iterdir()) == []


def test_an_interpreter_brings_its_standard_library() -> None:
    real = Path(sys.executable).resolve()
    stdlib = str(real.parent.parent / "lib" / real.name)
    seed = seed_of(["/some/venv"], [sys.executable, "/usr/bin/node"], 1.0)
    assert seed.folders == ("/some/venv",)
    if real.name.startswith("python3."):
        assert seed.stdlib == (stdlib,)
    else:  # a `python3` binary with no version in its name: its folder is not told
        assert seed.stdlib == ()


def test_a_standard_librarys_own_site_packages_and_tests_stay_out(tmp_path: Path) -> None:
    for folder in ("json", "site-packages/pkg", "test"):
        cache = tmp_path / "lib" / folder / "__pycache__"
        cache.mkdir(parents=True)
        (cache / "m.cpython-311.pyc").write_bytes(b"x")
        (cache / "m.cpython-311.opt-1.pyc").write_bytes(b"x")

    count = seeded(str(tmp_path / "prefix"), Seed((), time.time() + 60, (str(tmp_path / "lib"),)))

    assert count == 1
    assert (tmp_path / "prefix" / str(tmp_path / "lib" / "json").lstrip("/") / "m.cpython-311.pyc").exists()


def test_a_request_keeps_its_seed_through_its_record() -> None:
    request = GateRequest(base=None, checks=(), seed=Seed(("/a", "/b"), 12.5))

    assert GateRequest.from_record(request.to_record()) == request
    stdlib = GateRequest(base=None, checks=(), seed=Seed(("/a",), 1.0, ("/lib",)))
    assert GateRequest.from_record(stdlib.to_record()) == stdlib
    assert GateRequest.from_record(GateRequest(None, ()).to_record()).seed is None
