"""The Claude Code hook wire protocol, and nothing else: the entry point every hook event runs (`entry`),
the events tiergate handles (`registry`), reading their inputs (`inputs`: by hand for the lean events,
through the pydantic `inputschema` for the others) and the replies and their rendering (`protocol`).

Nothing is imported here: every hook starts with this package, and the path of a session without an
active loop must cost close to a bare interpreter start.
"""
