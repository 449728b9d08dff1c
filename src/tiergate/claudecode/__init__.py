"""What tiergate reads of the user's Claude Code, for `tiergate doctor` and `tiergate status`.

`settings`: where Claude Code keeps its configuration and plugins, and which plugins are enabled.
`loopplugins`: the other loop plugins beside tiergate (ralph-loop, oh-my-claudecode), installed or running.
See docs/interop.md.
"""
