"""Whether the tests check the change, not only run it: mutants of the changed lines (`mutants`, the
record; `python` and `javascript`, how they are made), and what their fates say (`fates`). The gate runs
them in `tiergate.gate.mutation`. See docs/judging.md, "Mutants of the changed lines".
"""
