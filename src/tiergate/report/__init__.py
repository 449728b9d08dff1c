"""`tiergate report`: the decision log drawn as one self-contained HTML page.

Pure: `loops` turns the log's records into the loops shown; `render` writes the page from them, with
`charts`, `timeline` (with `gatechecks`), `markup` and `style`. The command (`tiergate.commands.report`)
reads the log and writes the file.
"""
