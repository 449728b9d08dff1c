"""The environment the checks run with: interpreters, installed packages and programs git does not track,
recorded when a loop begins and compared at each claim, so that a change to them is named.

`envrecord` (what is kept) and `difference` (two records compared) are pure; `places` (where the
environment is), `walk` (taking it) and `keptrecord` (keeping it, bound to its loop) are the adapters.
See docs/judging.md, "The environment the checks run with".
"""
