"""A justfile's test recipe, its variables and parameter defaults filled in."""

from __future__ import annotations

from testing.declaredfiles import read


def test_justfile_test_recipe_with_variables_and_parameters() -> None:
    just = (
        'python := "python3"\n\n'
        "# run the tests\n"
        "test *args:\n    {{python}} -m pytest {{ args }}\n\n"
        "[private]\nunit target='tests':\n    @pytest {{target}}\n\n"
        "tests-script:\n    #!/usr/bin/env bash\n    pytest\n"
    )
    found = read({"justfile": just})
    assert [(d.command, d.where, d.line) for d in found] == [
        ("python3 -m pytest", "recipe test", 5),
        ("pytest tests", "recipe unit", 9),
    ]
    assert found[0].notes == ("{{ args }} is nothing: tiergate passes no arguments",)
