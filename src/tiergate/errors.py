"""The exceptions whose one-line message is shown as it is: a user's problem, a hook input that is not what
the protocol promises."""


class UserError(Exception):
    """A problem the user can fix (bad input, broken config, not a git repository).

    The command line prints ``tiergate: <message>`` on one line and exits 2; hooks turn it into a
    one-line ``systemMessage`` and never block. Keep messages to one line that names the culprit.
    """


class InputError(ValueError):
    """A hook's input is not what the protocol promises. The hook ignores the event and says so."""
