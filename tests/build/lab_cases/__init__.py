"""The typical mistakes and other right answers of every lab, one module per lab, for tests/build/test_labs.py.

A module lists ``MISTAKES`` and ``RIGHT``: each entry names the check of the exercise it changes, says what it
tries, and holds the code put in place of that exercise's cell (``append=True``: the reference solution, then this
code, for a cell that holds several pieces and a case that changes one). A mistake must make that check say
Wrong, a right answer Correct: a mistake is refused in the exercise where it is made. With ``prints``, the case
runs the lab to its end, which must print that text (a prediction is judged in a cell after its check).
"""

from __future__ import annotations

import importlib
from typing import NamedTuple


class Variant(NamedTuple):
    check: str
    about: str
    code: str
    append: bool = False
    prints: str = ""


def mistake(check: str, about: str, code: str, append: bool = False, prints: str = "") -> Variant:
    return Variant(check, about, code, append, prints)


right = mistake


# The library's source copied in with inspect.getsource and exec'd into the notebook's namespace, its own imports of
# the library loaded the same way: whose code runs is no longer told by its globals, only by its bytecode.
VENDOR = """import builtins as _bi, importlib as _il, inspect as _insp, types as _ty
_V = {}
def _vendor(name):
    if name in _V:
        return _V[name]
    real = _il.import_module(name)
    mod = _ty.ModuleType("mine_" + name)
    g = mod.__dict__
    g["__name__"] = "__main__"
    _V[name] = mod
    def imp(n, globals=None, locals=None, fromlist=(), level=0):
        if n.startswith("transformer_math"):
            return _vendor(n) if fromlist else _vendor("transformer_math")
        return _bi.__import__(n, globals, locals, fromlist, level)
    g["__builtins__"] = dict(vars(_bi), __import__=imp)
    exec(compile(_insp.getsource(real), "mine_" + name + ".py", "exec"), g)
    return mod
"""


def vendored(body: str, **modules: str) -> str:
    """``body`` after the library's ``modules`` (alias -> module) copied in by ``VENDOR``."""
    return VENDOR + "".join(f"{alias} = _vendor({module!r})\n" for alias, module in modules.items()) + body


# The library's function run under a finalizer's name (``__del__``), which the garbage collector may run inside any
# call: ``_as_finalizer(module.function)`` is that function's code, renamed, with its own globals.
AS_FINALIZER = """import importlib as _il, types as _ty
def _as_finalizer(module, name):
    f = getattr(_il.import_module(module), name)
    code = f.__code__.replace(co_name="__del__")
    return _ty.FunctionType(code, f.__globals__, "__del__", f.__defaults__, f.__closure__)
"""


def as_finalizer(body: str) -> str:
    """``body``, which calls the library through ``_as_finalizer(module, name)``, after that helper."""
    return AS_FINALIZER + body


# A table of a check's fixed cases, rebuilt from its seeded generator and answered by its own reference when the cell
# runs, out of the check's sight: ``_T`` maps ``_key`` of a call's arguments to the answer. Only the cases drawn anew
# at the run escape it, so a naive answer behind it must fail one of them.
TABLE = """import numpy as _np, pickle as _pk
from transformer_math.labs import {module} as _lab
from transformer_math.labs.cases import generator as _generator
_check = _lab.check.checks[{name!r}]
def _key(args):
    return _pk.dumps([None if a is None else (_np.shape(a), _np.asarray(a, dtype=float).tobytes()) for a in args])
_T = {{_key([*c.args, *c.kwargs.values()]): _check.reference(*c.args, **c.kwargs) for c in _check.cases(_generator({name!r}))}}
"""


def behind_a_table(module: str, name: str, body: str) -> str:
    """``body`` (which looks its arguments up with ``_T.get(_key([...]))`` first) after a table of the check's fixed
    cases."""
    return TABLE.format(module=module, name=name) + body


def of(lab: str):
    """The module of a lab's cases: ``docs/labs/backward-passes.py`` -> ``lab_cases.backward_passes``."""
    try:
        return importlib.import_module(f"tests.build.lab_cases.{lab.replace('-', '_')}")
    except ModuleNotFoundError:
        return None  # the meta test says which lab has no cases
