"""The deterministic gate, from detecting a project's checks to ruling on their results: the check records
(`checks`), the checks a project that configures none gets (`detect`), running them (`processes`),
reading a failing check's output (`output`), the baseline at the loop's base (`baseline`), the ruling
(`ruling`: new failures refute a claim, pre-existing ones do not), the results kept per workspace
(`cache`) and the gate as a claim runs it (`run`).

Nothing is imported here: every hook imports the package on its way to a module.
"""
