"""Every git question tiergate asks, one module per concern; the package imports nothing itself.

`runner` runs git with `isolation`'s settings; `repository` finds the top, git dir and HEAD, `objects`
resolves names; `changes` measures the working tree against a base (`indexcopy`, `attributes`);
`untracked`, `search`; `objectstore` asks a git dir without a work tree (the backup store); `formats`
reads and writes git's formats without running git. See docs/ARCHITECTURE.md, "git, asked safely".
"""
