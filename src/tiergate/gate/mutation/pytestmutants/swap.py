# mypy: ignore-errors
"""A mutant's code put into the live process: a function's code object swapped, or a top-level assignment
run again in its module, and the functions and caches the tests hold made to follow it."""

import gc
import os
import sys

_NEW_LOCALS = 0x2  # CO_NEWLOCALS: a function's code, not a class body's


# What the zygote found of the changed files' modules, functions and caches, found once for its children.
_KNOWN = {}


def know(files):
    _KNOWN.update(modules=_modules(files), functions=_functions(files), caches=_caches(files))


def put(mutant):
    """The mutant's code in this process (as its module is imported, if it is not yet); why it cannot
    be, or ""."""
    files = {mutant["file"]}
    try:
        code = compile(mutant["source"], mutant["file"], "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:  # a mutant that does not compile is no evidence either way
        return "it does not compile (%s)" % type(exc).__name__
    if mutant["file"] in _KNOWN.get("modules", {}):
        why = _put_now(mutant, code, files, _KNOWN)
    else:
        why = ""
        site = sys.modules.get("sitecustomize")
        later = lambda module: _put_now(mutant, code, files, {})  # noqa: E731
        getattr(site, "_tiergate_on_load", []).append(later)
    for cache in _KNOWN.get("caches", ()):
        try:
            cache.cache_clear()
        except Exception:
            pass
    return why


def _put_now(mutant, code, files, known):
    if not mutant["unit"]:
        return _put_module(mutant, code, files)
    new = _unit_code(code, mutant["unit"], mutant["first"])
    key = (mutant["file"], mutant["unit"], mutant["first"])
    live = (known.get("functions") or _functions(files)).get(key)
    if not live:  # held only by another object (a cached_property's `func`): found among them all
        gc.unfreeze()  # (the zygote froze them; frozen objects are not listed)
        live = _functions(files, everywhere=True).get(key, [])
    if new is None or not live:
        return "its function %s is not in the tests' process" % mutant["unit"]
    for function in live:
        function.__code__ = new
    return ""


def _put_module(mutant, code, files):
    """Code that runs as its module is imported (a top-level assignment, a class attribute, a default
    value): the mutated module run again in its own namespace (this child is thrown away after), and what
    it made put into the objects the tests already hold: a function's code and defaults, a class's
    attributes. The names keep naming those objects."""
    module = _modules(files).get(mutant["file"])
    if module is None:
        return "its module is not in the tests' process"
    before = dict(module.__dict__)
    exec(code, module.__dict__)
    for name, now in list(module.__dict__.items()):
        was = before.get(name)
        if was is not None and was is not now and _transplanted(was, now):
            module.__dict__[name] = was
    return ""


def _transplanted(was, now):
    """Whether `now`'s code and values went into `was`, the object the tests hold."""
    if type(was).__name__ == "function" and type(now).__name__ == "function":
        try:
            was.__code__ = now.__code__
        except ValueError:  # another closure: not the same function
            return False
        was.__defaults__, was.__kwdefaults__ = now.__defaults__, now.__kwdefaults__
        return True
    if isinstance(was, type) and isinstance(now, type):
        for name, value in vars(now).items():
            if name in ("__dict__", "__weakref__"):
                continue
            old = vars(was).get(name)
            if type(value).__name__ == "member_descriptor":  # a `__slots__` slot: the old one holds
                continue  # the instances' values, a new one would not read them
            if old is None or not _transplanted(old, value):
                try:
                    setattr(was, name, value)
                except (AttributeError, TypeError):
                    pass
        return True
    return False


def _functions(files, everywhere=False):
    """The function objects whose code comes from `files`, by (file, qualified name, first line). Found
    from the files' modules (their functions, their classes' methods, what their decorators wrap);
    `everywhere`: among every object the collector tracks (a function only another object holds)."""
    found = {}
    for thing in gc.get_objects() if everywhere else _reachable(files):
        if type(thing).__name__ != "function":
            continue
        code = thing.__code__
        path = os.path.realpath(code.co_filename)
        if path in files:
            found.setdefault((path, thing.__qualname__, code.co_firstlineno), []).append(thing)
    return found


def _caches(files):
    """The functools caches in front of the files' functions: they hold what the code returned before."""
    return [
        thing
        for thing in _reachable(files)
        if type(thing).__name__ == "_lru_cache_wrapper" and _in(_attribute(thing, "__wrapped__"), files)
    ]


def _in(function, files):
    code = _attribute(function, "__code__")
    return code is not None and os.path.realpath(code.co_filename) in files


def _reachable(files):
    """What the modules of `files` hold: their values, their classes' attributes, and what decorators
    wrap (`__wrapped__`, `__func__`, a property's functions, a closure's cells), a few levels down."""
    seen, found = set(), []
    pending = [(vars(m), 0) for m in _modules(files).values()]
    while pending:
        namespace, depth = pending.pop()
        for value in list(namespace.values()) if isinstance(namespace, dict) else namespace:
            if id(value) in seen or depth > 6:
                continue
            seen.add(id(value))
            found.append(value)
            inner = _inside(value)
            if inner:
                pending.append((inner, depth + 1))
    return found


def _inside(value):
    """What `value` holds that may be a function of the change's; nothing when asking it raises (a proxy
    of a context that is not there, a descriptor with opinions)."""
    try:
        if isinstance(value, type):
            return dict(vars(value))
        held = [
            _attribute(value, n) for n in ("__wrapped__", "__func__", "fget", "fset", "fdel", "__closure__")
        ]
        cells = held.pop() or ()
        for cell in cells if isinstance(cells, tuple) else ():
            try:
                held.append(cell.cell_contents)
            except ValueError:
                pass
        return [h for h in held if h is not None and callable(h)]
    except Exception:
        return []


def _attribute(value, name):
    try:
        return getattr(value, name, None)
    except Exception:
        return None


def _modules(files):
    """The loaded modules of `files`, by file."""
    found = {}
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if isinstance(name, str) and name.endswith(".py") and os.path.realpath(name) in files:
            found[os.path.realpath(name)] = module
    return found


def _unit_code(code, qualname, first, prefix=""):
    """The code object of function `qualname` (its outermost) defined at line `first` in module `code`."""
    for const in code.co_consts:
        if not hasattr(const, "co_consts"):
            continue
        name = prefix + const.co_name
        if const.co_flags & _NEW_LOCALS:
            if name == qualname and const.co_firstlineno == first:
                return const
        elif qualname.startswith(name + "."):
            found = _unit_code(const, qualname, first, name + ".")
            if found is not None:
                return found
    return None


def unit_key(mutant):
    return "%s:%s:%s" % (mutant["file"], mutant["unit"], mutant["first"])
