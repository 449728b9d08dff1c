"""The configuration: `.tiergate.toml`, or `[tool.tiergate]` in `pyproject.toml` (docs/configuration.md).

Finding and reading the file (`file`), the settings and reading their plain form by hand (`settings`), and
the pydantic schema that defines every key (`schema`). Nothing is imported here, so that finding the file
stays cheap.
"""
