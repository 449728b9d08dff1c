"""The one exception type whose message is shown to a user as it is."""


class UserError(Exception):
    """A problem the user can fix (bad input, broken config, not a git repository).

    The command line prints ``tiergate: <message>`` on one line and exits 2; hooks turn it into a
    one-line ``systemMessage`` and never block. Keep messages to one line that names the culprit.
    """
