"""Line coverage measured by the gate while it runs the tests: which checks can take it (`plan`), the
measurement (`measuring`) and what the tests' Python runs (`sitecustomize`). Judged in
`tiergate.tier.coverage`. See docs/coverage.md.
"""
