"""The loop, pure: data in, decisions with reasons out. The decision (`decision`), a loop's state (`state`),
the claims (`claims`), a verifier's verdict (`verdict`), stalls, interventions, an autopilot's features,
every text the loop says (`messages`), the evidence packet (`packet`) and the slash commands (`slash`).
Beside them, three adapters: the state on disk (`store`), the ledger of starts (`ledger`), and starting a
loop in the repository (`start`, around the pure `startrequest`).

Nothing is imported here: every hook imports the package on its way to a module.
"""
