"""The test commands a project declares in its own files (tox, nox, hatch, pdm, poe, make, just, its CI
workflows), read without running anything: one module per kind of file, `commands` for all of them.
See docs/judging.md, "Choosing the test command".
"""
