"""`tiergate report`: the decision log drawn as one self-contained HTML page.

Pure: `model` turns the log's records into a page model (loops, their steps, verifiers and costs),
`render` turns that into HTML text. The command (`tiergate.commands.report`) reads the log and writes the
file.
"""
