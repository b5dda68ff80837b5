r"""What a backward pass's check refuses as a gradient measured, not derived: numbers of more precision than float64.

A finite difference in float64 loses the gradient of a large loss in its rounding, and the backward checks have
cases built for that. A complex step (no difference taken, so no rounding to lose) or a difference taken in
more precision (``decimal.Decimal`` at 60 digits, ``fractions.Fraction``, ``np.longdouble``) does not, so while
``guarded(derived=True)`` runs, these are refused however the learner's code holds them:

* ``measuring`` finds such a number in a value: a local variable, an argument, a returned or yielded value, a
  global the code names, and inside them lists, tuples, dicts, sets, arrays of objects and the attributes of
  plain objects (a ``types.SimpleNamespace``), a few levels down;
* ``decimal_refused`` runs the body with a decimal context of one digit that traps every signal: Decimal
  arithmetic, which starts no event a hook could see (``a + b`` calls no function), raises there and leaves its
  flags behind, and the context cannot be reached to change it without a call the guard refuses
  (``getcontext``, ``localcontext``, a method of a ``Decimal`` or a ``Context``: ``refused_call``);
* ``Fraction`` (and the pure-Python ``_pydecimal``) is Python code: the guard refuses a call into its module.
* an integer wider than 64 bits is extra precision too: fixed point held in Python's integers (values scaled by
  2^300) takes a difference with no rounding to lose; a backward pass needs no integer past an index or a count.

Example
-------
>>> import types
>>> from decimal import Decimal
>>> from transformer_math.labs.measured import measuring
>>> box = types.SimpleNamespace(step=Decimal("1e-25"))
>>> measuring([1.0, {"state": box}])
'a Decimal'
>>> measuring([1.0, 2.0]) is None
True
"""

from __future__ import annotations

import collections
import contextlib
import decimal
import fractions
import types

import numpy as np

__all__: list[str] = []

EXACT = (decimal.Decimal, fractions.Fraction)
PYTHON_MODULES = ("fractions", "_pydecimal")  # exact arithmetic written in Python: each operation is a call
C_MODULES = ("decimal", "_decimal")
WIDE = 64  # the widest integer a backward pass needs (an index, a count, a shape)
DEPTH = 6  # how far into containers and objects a value is searched
NODES = 512  # how many values one search looks at, at most
MESSAGE = (
    "it computes with {kind}{where}: that measures the gradient, as a complex step or a difference in extra "
    "precision does; derive it and write it in float64"
)
SIGNALS = (
    decimal.Clamped,
    decimal.DivisionByZero,
    decimal.FloatOperation,
    decimal.Inexact,
    decimal.InvalidOperation,
    decimal.Overflow,
    decimal.Rounded,
    decimal.Subnormal,
    decimal.Underflow,
)
PLAIN = (bool, int, float, str, bytes, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type)


def message(kind: str, line: int | None = None) -> str:
    return MESSAGE.format(kind=kind, where=f" (line {line})" if line is not None else "")


def measuring(value, depth: int = DEPTH) -> str | None:
    """What in ``value`` (or in what it holds, ``depth`` levels down) measures a gradient: complex numbers,
    extended precision (``np.longdouble`` where it is wider than float64), decimals or fractions."""
    seen: set[int] = set()
    budget = [NODES]

    def search(value, depth: int) -> str | None:
        if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > WIDE:
            return "an integer wider than 64 bits (fixed point in extra precision)"
        if value is None or isinstance(value, PLAIN) or id(value) in seen or budget[0] <= 0:
            return None
        budget[0] -= 1
        seen.add(id(value))
        if isinstance(value, (complex, np.complexfloating)):
            return "a complex number"
        if isinstance(value, np.ndarray | np.generic):
            kind, size = value.dtype.kind, value.dtype.itemsize
            if kind == "c":
                return "a complex array"
            if kind == "f" and size > 8:
                return f"{value.dtype} (more precision than float64)"
            if kind == "O" and value.size and depth:
                return next(filter(None, (search(part, depth - 1) for part in value.flat[:64])), None)
            return None
        if isinstance(value, EXACT):
            return f"a {type(value).__name__}"
        if not depth:
            return None
        if isinstance(value, dict):
            parts = value.values()
        elif isinstance(value, (list, tuple, set, frozenset, collections.deque)):
            parts = value
        else:
            parts = _attributes(value)
        found = None
        for count, part in enumerate(parts):
            if count >= 64 or found:
                break
            found = search(part, depth - 1)
        return found

    return search(value, depth)


def _attributes(value) -> list:
    """The attributes a plain object holds (``__dict__`` and ``__slots__``), not those of its class."""
    if callable(value):
        return []
    try:  # not getattr: a class's own __getattr__ or __getattribute__ is the learner's code
        own = object.__getattribute__(value, "__dict__")
    except (AttributeError, TypeError):
        own = None
    held = list(own.values()) if isinstance(own, dict) else []
    for klass in type(value).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            with contextlib.suppress(AttributeError, TypeError):
                held.append(object.__getattribute__(value, name))
    return held


def refused_call(function) -> str | None:
    """The kind of number a C function computes with, if it is one of ``decimal``'s (a method of a ``Decimal``
    or a ``Context``, ``getcontext``, ``localcontext``): the only way to reach the context the check set."""
    owner = getattr(function, "__self__", None)
    if isinstance(owner, (decimal.Decimal, decimal.Context)) or owner is decimal.Decimal or owner is decimal.Context:
        return "a Decimal"
    module = getattr(function, "__module__", None) or getattr(owner, "__name__", None)
    return "a Decimal" if str(module).split(".")[0] in C_MODULES else None


def python_module(module: str) -> str | None:
    """The kind of number the code of a module computes with, if it is exact arithmetic written in Python."""
    root = module.split(".")[0]
    return None if root not in PYTHON_MODULES else "a Fraction" if root == "fractions" else "a Decimal"


@contextlib.contextmanager
def decimal_refused(refuse):
    """The body runs with a decimal context that traps every signal at one digit; ``refuse(kind)`` is called
    after it if the learner's code computed with a Decimal (a flag is set) or put another context in place."""
    saved = decimal.getcontext()
    trapping = decimal.Context(prec=1, traps=list(SIGNALS))
    decimal.setcontext(trapping)
    try:
        yield
    finally:
        current = decimal.getcontext()
        decimal.setcontext(saved)
        if current is not trapping or any(trapping.flags.values()):
            refuse("a Decimal")


NEAR = (
    "every entry is within 0.1% of the gradient but not exact to rounding, as a derived gradient is: a gradient "
    "measured by differences errs so, and so do float32 arithmetic and a small term left out (an eps)"
)


def near_not_exact(result, expected) -> str | None:
    """``NEAR`` when the learner's gradients (an array, a tuple of them, a dict by name) are all within 0.1% of the
    expected ones, each array's largest entry the scale: the error of a difference, or of a small term left out."""
    got, want = _arrays(result), _arrays(expected)
    if not want or len(got) != len(want):
        return None
    for g, w in zip(got, want):
        if g is None or w is None or g.shape != w.shape:
            return None
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        if not np.all(np.isfinite(g)) or np.max(np.abs(g - w), initial=0.0) > 1e-3 * scale:
            return None
    return NEAR


def _arrays(value) -> list:
    if isinstance(value, dict):
        return [_array(value[k]) for k in sorted(value, key=str)]
    if isinstance(value, tuple):
        return [_array(v) for v in value]
    return [_array(value)]


def _array(value):
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
