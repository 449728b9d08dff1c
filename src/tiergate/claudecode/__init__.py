"""What tiergate reads of the user's Claude Code, for `tiergate doctor`, `status` and `demo`.

`installation`: the claude program, its config folder, the plugins installed and enabled there.
`loopplugins`: the other loop plugins beside tiergate (ralph-loop, oh-my-claudecode), installed or running.
See docs/interop.md.
"""
