"""The mutation step of a claim's gate run: mutants of the change's lines made from the claim's copy
(`step`), run by the project's own pytest once its tests pass (`pytestmutants`, loaded into the runner),
their fates read back. See docs/judging.md, "Mutants of the changed lines".
"""
