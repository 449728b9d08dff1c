"""Test support: real git repositories, the scripted Messages API, the pinned Claude Code CLI."""
