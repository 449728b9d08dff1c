"""Two records of the environment compared: each difference named for what it does, nothing when nothing
changed, and a record kept on disk read back as it was."""

from __future__ import annotations

import json

import pytest

from tiergate.gate.environment.difference import (
    EDITED,
    ENVIRONMENT,
    INSTALLED,
    INTERPRETER,
    NAMED,
    PLANTED,
    STARTUP,
    Difference,
    differences,
    reason,
)
from tiergate.gate.environment.envrecord import EnvironmentRecord, Stamp, from_dict, to_dict

PROJECT = "/p"
VENV = "/p/.venv"
SITE = "lib/python3.11/site-packages"
BASE: dict[str, Stamp] = {
    f"{SITE}/bar/__init__.py": (10, 1, 1, 100),
    f"{SITE}/bar/core.py": (20, 1, 1, 101),
    f"{SITE}/bar-1.0.dist-info/METADATA": (5, 1, 1, 102),
    f"{SITE}/bar-1.0.dist-info/RECORD": (5, 1, 1, 103),
    f"{SITE}/outer.pth": (30, 1, 1, 104),
    "bin/python": (9, 1, 1, 105, "/usr/bin/python3.11"),
    "pyvenv.cfg": (50, 1, 1, 106),
}


def record(
    venv: dict[str, Stamp],
    programs: dict[str, str] | None = None,
    files: dict[str, Stamp | None] | None = None,
) -> EnvironmentRecord:
    return EnvironmentRecord({VENV: venv}, files or {}, programs or {})


def named(after: dict[str, Stamp], owners: dict[str, str] | None = None) -> tuple[Difference, ...]:
    return differences(record(BASE), record(after), owners, PROJECT)


def test_nothing_changed_names_nothing() -> None:
    assert named(dict(BASE)) == ()
    assert reason(()) is None


def test_an_edit_of_an_installed_package_is_named_even_with_its_old_modification_time() -> None:
    # The same size and mtime put back: the change time still moved.
    found = named({**BASE, f"{SITE}/bar/core.py": (20, 1, 2, 101)})

    assert found == (Difference(EDITED, f"edited .venv/{SITE}/bar/core.py"),)


@pytest.mark.parametrize("name", ["evil.pth", "sitecustomize.py", "usercustomize.py"])
def test_a_file_python_runs_at_every_start_is_named_first(name: str) -> None:
    found = named({**BASE, f"{SITE}/{name}": (1, 2, 2, 200), f"{SITE}/bar/core.py": (21, 2, 2, 101)})

    assert found[0].kind == STARTUP and found[0].text.startswith(f"added .venv/{SITE}/{name} (Python")
    assert found[1].kind == EDITED


def test_an_edited_pth_is_named() -> None:
    found = named({**BASE, f"{SITE}/outer.pth": (31, 2, 2, 104)})

    assert found == (
        Difference(STARTUP, f"edited .venv/{SITE}/outer.pth (Python runs its import lines at every start)"),
    )


def test_a_new_distribution_is_an_install_with_its_files_folded_in() -> None:
    new = {
        f"{SITE}/foo/__init__.py": (1, 2, 2, 300),
        f"{SITE}/foo/core.py": (1, 2, 2, 301),
        f"{SITE}/foo-1.2.dist-info/METADATA": (1, 2, 2, 302),
        f"{SITE}/foo-1.2.dist-info/RECORD": (1, 2, 2, 303),
    }

    found = named({**BASE, **new})

    assert found == (Difference(INSTALLED, f"installed foo 1.2 (new): 4 files in .venv/{SITE}"),)
    assert reason(found) == (
        "environment: the environment the checks run with changed since the loop began: installed foo 1.2 "
        f"(new): 4 files in .venv/{SITE} -> THOROUGH"
    )


def test_a_package_whose_import_name_differs_is_folded_in_by_its_record() -> None:
    new = {
        f"{SITE}/yaml/__init__.py": (1, 2, 2, 300),
        f"{SITE}/PyYAML-6.0.dist-info/RECORD": (1, 2, 2, 303),
    }
    owners = {f"{VENV}/{SITE}/yaml": f"{VENV}/{SITE}/PyYAML-6.0.dist-info"}

    assert named({**BASE, **new}, owners) == (
        Difference(INSTALLED, f"installed PyYAML 6.0 (new): 2 files in .venv/{SITE}"),
    )
    assert named({**BASE, **new})[0].kind == PLANTED  # without its record, yaml is named by no metadata


def test_an_upgrade_is_one_difference() -> None:
    after = {p: s for p, s in BASE.items() if "bar-1.0" not in p}
    after |= {
        f"{SITE}/bar/core.py": (25, 2, 2, 401),
        f"{SITE}/bar-1.1.dist-info/METADATA": (5, 2, 2, 402),
        f"{SITE}/bar-1.1.dist-info/RECORD": (5, 2, 2, 403),
    }

    assert named(after) == (Difference(INSTALLED, f"upgraded bar 1.0 -> 1.1: 5 files in .venv/{SITE}"),)


def test_a_removed_distribution_is_named() -> None:
    after = {p: s for p, s in BASE.items() if "/bar" not in p}

    assert named(after) == (Difference(INSTALLED, f"removed bar 1.0: 4 files in .venv/{SITE}"),)


def test_a_module_no_metadata_names_is_planted() -> None:
    found = named({**BASE, f"{SITE}/calc.py": (1, 2, 2, 500)})

    assert found == (
        Difference(PLANTED, f"added .venv/{SITE}/calc (1 file), which no package's metadata names"),
    )


def test_a_replaced_interpreter_link_and_a_program_found_elsewhere_are_named() -> None:
    before = record(
        BASE, programs={"python3": "/usr/bin/python3"}, files={"/usr/bin/python3.11": (1, 1, 1, 7)}
    )
    after = record(
        {**BASE, "bin/python": (9, 2, 2, 600, "/tmp/fake")},
        programs={"python3": "/home/u/bin/python3"},
        files={"/usr/bin/python3.11": (1, 1, 2, 8)},
    )

    found = differences(before, after, None, PROJECT)

    assert {d.kind for d in found} == {INTERPRETER}
    assert [d.text for d in found] == [
        "python3 on PATH is found at /home/u/bin/python3 (was /usr/bin/python3)",
        "replaced the interpreter /usr/bin/python3.11",
        "replaced .venv/bin/python",
    ]


def test_a_new_environment_is_one_difference_and_its_startup_files_are_named() -> None:
    user_site = "/home/u/.local/lib/python3.11/site-packages"
    before = EnvironmentRecord(folders={user_site: None})
    after = EnvironmentRecord(folders={user_site: {"evil.pth": (1, 1, 1, 1), "x/y.py": (1, 1, 1, 2)}})

    found = differences(before, after, None, PROJECT)

    assert found == (
        Difference(STARTUP, f"added {user_site}/evil.pth (Python runs its import lines at every start)"),
        Difference(ENVIRONMENT, f"a new environment {user_site} (2 files)"),
    )


def test_node_modules_installs_and_edits() -> None:
    folder = "/p/node_modules"
    before = EnvironmentRecord(
        folders={folder: {"left-pad/package.json": (1, 1, 1, 1), "left-pad/index.js": (1, 1, 1, 2)}}
    )
    after = EnvironmentRecord(
        folders={
            folder: {
                "left-pad/package.json": (1, 1, 1, 1),
                "left-pad/index.js": (2, 2, 2, 2),
                "@scope/kit/package.json": (1, 1, 1, 3),
                "@scope/kit/lib/a.js": (1, 1, 1, 4),
            }
        }
    )

    found = differences(before, after, None, PROJECT)

    assert found == (
        Difference(EDITED, "edited node_modules/left-pad/index.js"),
        Difference(INSTALLED, "installed @scope/kit (new): 2 files in node_modules"),
    )


def test_answers_a_checks_run_leaves_in_node_modules_are_named() -> None:
    # Red team 22's R6: the gate's own runs see the linked node_modules as the check's run left it; in a
    # loop the claim's comparison, taken after its checks ran, names what that run added there.
    folder = "/p/node_modules"
    kept = {"left-pad/package.json": (1, 1, 1, 1), "left-pad/index.js": (1, 1, 1, 2)}
    before = EnvironmentRecord(folders={folder: kept})
    for memo in ("grade-answers.txt", "left-pad/answers.txt"):
        after = EnvironmentRecord(folders={folder: {**kept, memo: (1, 1, 1, 9)}})

        [found] = differences(before, after, None, PROJECT)

        assert found.text == f"added node_modules/{memo}"


def test_many_differences_are_counted_past_the_named_ones() -> None:
    found = [Difference(EDITED, f"edited f{i}") for i in range(NAMED + 2)]

    text = reason(found)

    assert text is not None and text.endswith("; and 2 more -> THOROUGH") and "f0" in text


def test_a_path_cannot_break_the_reason_s_line() -> None:
    text = reason([Difference(EDITED, "edited site-packages/a\n```\nb.py")])

    assert text is not None and "\n" not in text and "```" not in text


def test_a_record_reads_back_as_it_was_written() -> None:
    kept = record(
        {**BASE, "bin/python": (9, 1, 1, 105, "/usr/bin/python3.11")},
        programs={"python3": ""},
        files={"/usr/bin/python3.11": None, "/usr/bin/node": (1, 2, 3, 4)},
    )

    assert from_dict(json.loads(json.dumps(to_dict(kept)))) == kept
    assert from_dict({"schema": 0}) is None
    assert from_dict({**to_dict(kept), "folders": {"x": ["a"]}}) is None
