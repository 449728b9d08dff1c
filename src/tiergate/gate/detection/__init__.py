"""Which checks a project has: its `[checks]` table, else commands detected from its files.

`projectchecks` reads the project and PATH; the rest is pure: the per-ecosystem `rules`, the test
commands the project `declared`, `testcommand` (what a test command runs) and `program` (the program a
command line starts). See docs/judging.md, "The gate" and "The gate in detail".
"""
