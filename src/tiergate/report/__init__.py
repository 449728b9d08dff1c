"""`tiergate report`: the decision log drawn as one self-contained HTML page.

Pure: `loops` turns the log's records into the loops shown (their steps, verifiers and costs),
`render` turns that into HTML text. The command (`tiergate.commands.report`) reads the log and writes the
file.
"""
