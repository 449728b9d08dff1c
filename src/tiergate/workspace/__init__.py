"""What tiergate knows and keeps of the user's files: a fingerprint of the workspace (disqualifies a verifier
that changed it, keys fresh evidence), the last green point (a git ref) and the backups under
`refs/tiergate/` that make a rollback lose nothing.

Nothing is imported here: every hook imports the package on its way to a module.
"""
