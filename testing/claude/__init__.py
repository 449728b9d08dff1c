"""Drive the real Claude Code CLI offline: a scripted Messages API on 127.0.0.1 and a runner for the CLI."""
