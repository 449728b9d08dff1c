"""The environment the checks run with: the interpreters, installed packages and programs that git does not
track, recorded when a loop begins and compared at each claim, so that a change to them is part of the
change and named.

`record` (what is kept) and `difference` (two records compared, each difference named) are pure; `places`
(where the environment is), `walk` (taking it) and `store` (keeping it, sealed) are the adapters. See
docs/judging.md, "The environment the checks run with".
"""
