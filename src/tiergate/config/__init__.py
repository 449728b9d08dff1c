"""The configuration: `.tiergate.toml`, or `[tool.tiergate]` in `pyproject.toml` (docs/configuration.md).

The settings, and finding and reading them (`settings`), and the pydantic schema that defines every key
(`schema`). Nothing is imported here.
"""
