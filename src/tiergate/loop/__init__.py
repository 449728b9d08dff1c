"""The loop, pure: data in, decisions with reasons out. The decision (`decision.decide`), the claims a main
agent makes (`claims`), a verifier's verdict (`verdict`), stall signals (`stalls`), the interventions
(`interventions`), an autopilot's features (`features`), every text the loop says (`messages`), the verifier's
evidence packet (`packet`), the loop's slash commands as the prompt hook sees them (`slash`), and the one
adapter kept beside them, the per-session state on disk (`store`).

Nothing is imported here: every hook imports the package on its way to a module.
"""
