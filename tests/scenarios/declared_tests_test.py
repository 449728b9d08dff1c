"""The gate runs what the project runs, through the real Stop hook in real git: a project with no
`[checks]` whose tox.ini declares `python -m unittest -v` (as more-itertools does), whose only test of
`double` is a doctest that unittest runs through `load_tests`. tiergate's own guess, `pytest -q`, never
runs that doctest; the declared command does, so a claim with a doctest-only bug is refuted."""

from __future__ import annotations

from pathlib import Path

from testing.doctestproject import BUG, PATH, mini_project
from testing.gitrepo import write
from testing.hooksession import HookSession

SESSION = "d0c7e575-2121-4444-8888-555555555555"
CLAIM = "double and triple are done.\n\n<promise>DONE</promise>"
TOX = "[tox]\nenvlist = py311\n\n[testenv]\ncommands = {envpython} -m unittest -v {posargs}\n"


def test_a_doctest_only_bug_is_refuted_because_the_declared_unittest_runs(tmp_path: Path) -> None:
    session = HookSession(tmp_path, mini_project(tmp_path / "project", {"tox.ini": TOX}), SESSION)
    session.env["PATH"] = PATH
    answer = session.hook("UserPromptSubmit", prompt="/tiergate:ralph make double and triple right")
    assert "loop started" in answer["systemMessage"]

    write(session.project, {"mini.py": BUG})
    answer = session.hook("Stop", last_assistant_message=CLAIM)

    assert answer["decision"] == "block", answer
    reason = str(answer["reason"])
    assert "tiergate-spawn" not in reason  # refuted by the checks, no verifier spent
    assert "python -m unittest -v" in reason
    assert "mini.double" in reason
