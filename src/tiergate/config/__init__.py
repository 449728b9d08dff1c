"""The configuration: `.tiergate.toml`, or `[tool.tiergate]` in `pyproject.toml` (docs/configuration.md).

Every key, declared once (`keys`); finding and reading the table by hand (`settings`); the pydantic schema
derived from the keys for what is not plain (`schema`). Nothing is imported here.
"""
