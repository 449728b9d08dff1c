"""The loop, pure: data in, decisions with reasons out (`decision`, `state`, `claims`, `verdict`, stalls,
interventions, features, `messages`, the evidence `packet`, the `slash` commands). Beside them, three
adapters: the state on disk (`store`), the ledger of starts (`ledger`), and starting a loop in the
repository (`start`, around the pure `startrequest`). Nothing is imported here: every hook imports the
package on its way to a module.
"""
