"""The copy's stand-ins for the workspace folders an editable install names (`tiergate.gate.editables`)."""

from __future__ import annotations

from pathlib import Path

from tiergate.gate.editables import editable_folders, stand_ins


def test_stand_ins_are_the_copys_folders_for_the_workspace_folders_named(tmp_path: Path) -> None:
    workspace, copy = tmp_path / "ws", tmp_path / "copy"
    (copy / "src").mkdir(parents=True)
    (copy / "lib").mkdir()
    named = [str(workspace / "src"), "/elsewhere/pkgs", str(workspace / "missing"), str(workspace / "src/")]

    assert stand_ins(named, str(workspace), str(copy)) == [str(copy / "src")]


def test_editable_folders_come_from_pth_files_and_setuptools_finders(tmp_path: Path) -> None:
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (site / "_calc.pth").write_text("# a comment\n/ws/src\nimport _hook; _hook.install()\n")
    (site / "__editable___calc_0_1_finder.py").write_text(
        "import sys\nMAPPING: dict[str, str] = {'calc': '/ws/lib/calc'}\nNAMESPACES = {}\n"
    )
    (site / "__editable___broken_finder.py").write_text("MAPPING = {oops\n")

    assert sorted(editable_folders([str(tmp_path / "venv")])) == ["/ws/lib", "/ws/src"]
