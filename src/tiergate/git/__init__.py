"""Every git question tiergate asks, one module per concern; the package imports nothing itself.

`runner` is the one way git is run, with `isolation`'s settings (nothing the repository names runs);
`repository` finds the work tree and HEAD, `objects` resolves names to ids, `changes` measures the working
tree against a base on `indexcopy`'s copy of the index, reading each file as its bytes in `attributes`'
git directory (tiergate's attributes, not the repository's), `untracked` lists the files git does not
track, `search` greps them, and `formats` reads git's output without running git. See
docs/ARCHITECTURE.md, section "git, asked safely".
"""
