# mypy: ignore-errors
"""The check's folder as the tests first found it: the files this process made, taken away, the tree
put back (`snapshot`), and tiergate's own folders, never taken away."""

import os
import pathlib

# The files this process made (opened to write where none was): the run's, then each mutant's child's,
# taken away before the next mutant runs, so that a file a test keeps between runs (a snapshot of the
# answers it saw first) is made anew under each mutant, as a fresh run would make it.
CREATED = set()


def note_created(event, args):
    if event != "open" or len(args) < 3:
        return
    path, mode, flags = args[0], args[1], args[2]
    writes = (isinstance(mode, str) and any(c in mode for c in "wax")) or (
        isinstance(flags, int) and flags & os.O_CREAT
    )
    if writes and isinstance(path, (str, bytes)) and not os.path.exists(path):
        CREATED.add(os.path.abspath(os.fsdecode(path)))


def remove_created(keep):
    for path in list(CREATED):
        if not path.startswith(keep):
            try:
                os.unlink(path)
            except OSError:
                pass
    CREATED.clear()


# The check's folder as the tests first found it (taken before the zygote is forked): put back before each
# mutant's child, so that no file the run or an earlier child wrote, made or removed judges a mutant.
TREE = [None]


def snapshot(root, keep):
    """The folder `root` kept (`snapshot.Snapshot`, from the copy the gate writes into this package; in
    tiergate's own, the one beside it)."""
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    for folder in (here, os.path.dirname(here)):
        path = os.path.join(folder, "snapshot.py")
        if os.path.exists(path):
            spec = importlib.util.spec_from_file_location(__name__.rpartition(".")[0] + "_snapshot", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module.Snapshot(pathlib.Path(root), kept=keep)
    return None


def own(plan):
    """Where tiergate's own files for this run are (its plan's folder, and every folder a variable of
    tiergate's names: the outcomes' report, the coverage's): never taken away."""
    named = [v for k, v in TIERGATE_VARIABLES.items() if v.startswith("/")]
    folders = [os.path.dirname(os.path.abspath(plan["out"]))]
    folders += [v if os.path.isdir(v) else os.path.dirname(v) for v in named]
    return tuple(f.rstrip("/") + "/" for f in folders if f not in ("", "/"))


# tiergate's variables as the process began (before the plan's key is taken out).
TIERGATE_VARIABLES = {k: v for k, v in os.environ.items() if k.startswith("TIERGATE_")}
