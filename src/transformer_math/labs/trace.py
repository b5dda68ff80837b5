r"""The opcode trace of the labs' guard, and the arrays of the loops exercise.

While ``guarded`` runs with ``loops=True`` or a ``budget``, ``Trace``
follows every Python step of the learner's code (``sys.settrace`` with ``f_trace_opcodes``):

* a loops exercise may not use ``@`` (the trace sees the operator itself, whatever arrays it gets), nor any of
  NumPy's or Python's products of matrices, under any name: the trace reads what each load of the learner's
  code puts on the stack (``mm``, ``operator.matmul``, ``X.dot``) and refuses the products, as they were
  before the check; NumPy's own names are replaced for the check's length by ones that refuse
  (``numpy_products_refused``), and the arrays of ``loops_only_array`` refuse to be multiplied as
  matrices by any route;
* it refuses a product of matrices reached by its name on any object (``type(A).__matmul__``, ``A.dot`` of a plain
  copy, ``np.multiply.outer``), a bound method of one (``np.matmul.__call__``), and ``getattr`` (a name put
  together at run time); it records the shape of every array of more than two axes the learner's code holds (a
  product of every row with every column at once);
* the loops arrays count the multiplications of their entries (``X[i][k] * Y[k][j]``, ``np.multiply`` or ``*`` of
  their rows and columns): each pair of entries once, however often it is multiplied, and nothing of a plain copy
  (``np.array(X.tolist())`` keeps them loops arrays, and ``float(X[i][k])`` the entry, ``float`` being
  ``KeepingFloat`` in the notebook for the check's length; ``.view(np.ndarray)`` leaves the count);
* with a budget, it refuses a call in which the learner's code runs more Python steps than that: a loop where
  a closed form is asked for, or over every entry of a gradient; with a deadline (a wide case's work budget,
  ``timing``), a call whose CPU time passes it, at the first line after;
* with ``derived``, it refuses a complex number, an array of complex or extended precision, or a ``Decimal`` or
  ``Fraction`` in the learner's code (an argument, a local variable, a returned or yielded value, a global it
  names, and what these hold: ``measured.measuring``), at every line: a gradient measured by a complex step or
  in more precision than float64 instead of derived.

Example
-------
>>> import numpy as np
>>> from transformer_math.labs.matrix_operations import check
>>> early = np.matmul              # bound before the check: NumPy's own matmul
>>> check("matmul", lambda X, Y: early(np.asarray(X), np.asarray(Y)))
Wrong: matmul - case 1 of 8: X = [[1.0, 2.0], [3.0, 4.0]], Y = [[5.0, 6.0], [7.0, 8.0]]
  it uses np.matmul (line 1), which multiplies the matrices for you: write the loops
"""

from __future__ import annotations

import builtins
import contextlib
import dis
import functools
import inspect
import operator

import numpy as np

from transformer_math.labs.measured import measuring, message

__all__: list[str] = []

# NumPy's products of matrices and vectors: what a loops exercise must write itself.
PRODUCTS = ("matmul", "dot", "vdot", "inner", "outer", "einsum", "tensordot", "vecdot", "matvec", "vecmat")
LINALG_PRODUCTS = ("multi_dot", "matmul", "vecdot")


def _products() -> dict[int, tuple[object, str]]:
    """NumPy's and Python's products of matrices, as they are before any check replaces them, by id."""
    found = [getattr(np, name) for name in PRODUCTS if hasattr(np, name)]
    found += [getattr(np.linalg, name) for name in LINALG_PRODUCTS if hasattr(np.linalg, name)]
    found += [np.ndarray.dot, np.ndarray.__matmul__, np.ndarray.__rmatmul__, np.ndarray.__imatmul__]
    found += [operator.matmul, operator.imatmul, operator.__matmul__, operator.__imatmul__]
    return {id(f): (f, _label(f)) for f in found}


def _label(function) -> str:
    """How a learner would write it: ``np.matmul``, ``ndarray.dot``, ``operator.matmul``."""
    name = getattr(function, "__name__", "a product of matrices")
    if getattr(function, "__objclass__", None) is np.ndarray:
        return f"ndarray.{name}"
    if getattr(function, "__module__", None) in ("_operator", "operator") or getattr(operator, name, None) is function:
        return f"operator.{name}"
    if getattr(np.linalg, name, None) is function and getattr(np, name, None) is not function:
        return f"np.linalg.{name}"
    return f"np.{name}"


PRODUCT_OBJECTS = _products()
# Attribute names that reach a product of matrices on whatever object they are read from (a plain copy's too).
PRODUCT_NAMES = frozenset(PRODUCTS + LINALG_PRODUCTS + ("__matmul__", "__rmatmul__", "__imatmul__"))
LOADS = ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST", "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_ATTR", "LOAD_METHOD")


class Trace:
    """The opcode trace of a loops exercise (refuse ``@`` and the products of matrices the learner's code loads,
    count its multiplications), or of a call with a budget of Python steps; with ``derived``, of a gradient that
    must be derived, not measured."""

    def __init__(
        self, hook, loops: bool, budget: int | None, derived: bool = False, deadline=None, advice: str | None = None
    ) -> None:
        self.hook, self.seen, self.loops, self.budget, self.derived = hook, hook.seen, loops, budget, derived
        self.advice = advice  # what to write instead, past the budget; else the words for a closed form or weights
        self.deadline = deadline  # a wide case's timing.Deadline: its clock is read at every line
        self.operators: dict = {}  # code object -> {offset: (opname, argument)}
        self.loaded: dict = {}  # frame -> what its last load resolved to
        self.pushed: dict = {}  # frame -> what its last two instructions pushed, where a load made it known

    def __call__(self, frame, event, arg):
        if event == "call" and self.hook.classify(frame)[0] == "learner":
            if self.derived:
                named = frame.f_globals
                self.refuse_measuring(
                    frame, [*frame.f_locals.values(), *(named[n] for n in frame.f_code.co_names if n in named)]
                )
            frame.f_trace_opcodes = True
            return self.local
        return None

    def refuse_measuring(self, frame, values) -> None:
        for value in values:
            kind = measuring(value)
            if kind:
                raise self.seen.refuse(kind, message(kind, frame.f_lineno))

    def local(self, frame, event, arg):
        if event != "opcode":
            if self.derived and event in ("line", "return"):
                self.refuse_measuring(frame, [arg, *frame.f_locals.values()])
            late = event == "line" and self.deadline is not None and self.deadline.late()
            if late:
                raise self.seen.refuse("too slow", late)
            if self.loops and event in ("line", "return"):
                self.record_wide(arg if event == "return" else None, frame.f_locals)
            if event == "return":
                self.loaded.pop(frame, None)
                self.pushed.pop(frame, None)
            return self.local
        if self.budget is not None:
            self.seen.steps += 1
            if self.seen.steps > self.budget:
                why = self.advice or (
                    "a loop over the entries: too slow at this size, whether it measures each gradient or "
                    "sums it by hand. Write each weight's gradient as one product (X^T times the upstream "
                    "gradient): a backward pass then takes the same few steps at any size"
                    if self.derived
                    else "a loop? The closed form needs none"
                )
                raise self.seen.refuse(
                    "a loop",
                    f"it ran more than {self.budget} steps of Python for one case (line {frame.f_lineno}): {why}",
                )
        powers = "pow" in self.seen.forbidden  # a backward rule: no power but a whole one (t ** 2)
        if not (self.loops or powers):
            return self.local
        table = self.operators.get(frame.f_code)
        if table is None:
            table = self.operators[frame.f_code] = {
                i.offset: (i.opname, i.argrepr if i.opname.startswith("BINARY") else i.argval)
                for i in dis.get_instructions(frame.f_code)
                if i.opname.startswith("BINARY") or i.opname in LOADS or i.opname == "LOAD_CONST"
            }
        opname, argument = table.get(frame.f_lasti, (None, None))
        previous = self.loaded.pop(frame, None)
        pushed = self.pushed.setdefault(frame, [_UNKNOWN, _UNKNOWN])
        if opname is None or opname.startswith("BINARY"):
            operands = tuple(pushed)
            pushed[:] = [pushed[1], _UNKNOWN]
        if opname is None:
            return self.local
        if opname.startswith("BINARY"):
            if powers and argument in ("**", "**=") and not _whole(operands[1]):
                raise self.seen.refuse(
                    "**",
                    f"it raises to a power that is not a whole number (line {frame.f_lineno}): "
                    f"{self.seen.forbidden_why}",
                )
            if not self.loops:
                return self.local
            if argument in ("@", "@="):
                raise self.seen.refuse("@", f"it uses the @ operator (line {frame.f_lineno}): write the loops")
            return self.local
        value = argument if opname == "LOAD_CONST" else _resolve(frame, opname, argument, previous)
        if self.loops and opname in ("LOAD_ATTR", "LOAD_METHOD") and argument in PRODUCT_NAMES:
            label = product_label(value) or (f"ndarray.{argument}" if argument.startswith("__") else f".{argument}")
            raise self.seen.refuse(
                label,
                f"it uses {label} (line {frame.f_lineno}), which multiplies the matrices for you: write the loops",
            )
        pushed[:] = [pushed[1], value]
        if value is not _UNKNOWN:
            self.loaded[frame] = value
            if not self.loops:
                return self.local
            label = product_label(value)
            if label is not None:
                raise self.seen.refuse(
                    label,
                    f"it uses {label} (line {frame.f_lineno}), which multiplies the matrices for you: write the loops",
                )
            if value is getattr and opname != "LOAD_CONST":
                raise self.seen.refuse(
                    "getattr",
                    f"it uses getattr (line {frame.f_lineno}): a loops exercise reads no attribute by a name put "
                    "together at run time; index the entries and write the loops",
                )
        return self.local

    def record_wide(self, returned, local: dict) -> None:
        """The shapes of the arrays of more than two axes the learner's code holds or returns: a product of every
        row with every column at once (``A[:, :, None] * B[None]``), on plain copies too."""
        for value in (returned, *list(local.values())[:32]):
            if isinstance(value, np.ndarray) and value.ndim > 2:
                self.seen.products.append(value.shape)


_UNKNOWN = object()


def _whole(exponent) -> bool:
    """Whether an exponent the trace saw loaded is a whole number (``t ** 2``); one it could not see is not."""
    if isinstance(exponent, (bool, np.bool_)):
        return False
    if isinstance(exponent, (int, np.integer)):
        return True
    return isinstance(exponent, (float, np.floating)) and float(exponent).is_integer()


def product_label(value) -> str | None:
    """How a learner would write the product of matrices ``value`` is, or is bound to (``np.matmul.__call__``,
    ``A.__matmul__`` of a plain array), or None."""
    product = PRODUCT_OBJECTS.get(id(value))
    if product is not None and product[0] is value:
        return product[1]
    try:
        owner = getattr(value, "__self__", None)
        name = getattr(value, "__name__", "")
    except Exception:  # noqa: BLE001 - an object of the learner's that refuses to say: not a product
        return None
    if owner is not None and not isinstance(owner, type(np)):
        if PRODUCT_OBJECTS.get(id(owner), (None,))[0] is owner:  # a bound method of a product: np.matmul.__call__
            return f"{PRODUCT_OBJECTS[id(owner)][1]}.{name}"
        if isinstance(owner, np.ndarray) and name in PRODUCT_NAMES:  # A.__matmul__ of a plain array
            return f"ndarray.{name}"
    return None


def _resolve(frame, opname: str, name, previous):
    """What a load instruction of the learner's code is about to put on the stack, where that can be known
    without running anything: a name's value, or an attribute of the value the instruction before loaded."""
    try:
        if opname in ("LOAD_ATTR", "LOAD_METHOD"):
            return _UNKNOWN if previous is None else inspect.getattr_static(previous, name)
        if opname == "LOAD_GLOBAL":
            return frame.f_globals.get(name, vars(builtins).get(name, _UNKNOWN))
        scopes = (frame.f_locals, frame.f_globals, vars(builtins)) if opname == "LOAD_NAME" else (frame.f_locals,)
        for scope in scopes:
            if name in scope:
                return scope[name]
    except (AttributeError, TypeError, ValueError):
        pass
    return _UNKNOWN


def _refusing(name: str, seen):
    def product(*args, **kwargs):
        raise seen.refuse(name, f"it calls np.{name}, which multiplies the matrices for you: write the loops")

    product.__name__ = name
    return product


def _keeping(convert):
    """``np.asarray`` (or ``np.array``, ...) that keeps a ``LoopsOnlyArray`` one, so that its products are still
    seen (``out += X[:, k:k+1] * Y[k:k+1, :]`` after ``X = np.asarray(X, dtype=float)``)."""

    @functools.wraps(convert)
    def keeping(a, *args, **kwargs):
        result = convert(a, *args, **kwargs)
        entries = _holds_entries(a) and type(result) is np.ndarray and result.dtype == np.float64
        if (isinstance(a, LoopsOnlyArray) or entries) and type(result) is np.ndarray:  # np.array(X.tolist()) too
            return result.view(LoopsOnlyArray)
        return result

    return keeping


CONVERSIONS = ("asarray", "array", "asanyarray", "ascontiguousarray", "copy")


@contextlib.contextmanager
def numpy_products_refused(seen):
    """NumPy's product functions replaced, in ``numpy`` and ``numpy.linalg``, by ones that refuse; its conversions
    by ones that keep the loops arrays what they are."""
    saved = []
    for module, names in ((np, PRODUCTS), (np.linalg, LINALG_PRODUCTS)):
        for name in names:
            if hasattr(module, name):
                saved.append((module, name, getattr(module, name)))
                setattr(module, name, _refusing(name, seen))
    for name in CONVERSIONS:
        saved.append((np, name, getattr(np, name)))
        setattr(np, name, _keeping(getattr(np, name)))
    _COUNTING.append(seen)
    try:
        yield
    finally:
        _COUNTING.pop()
        for module, name, original in saved:
            setattr(module, name, original)


def _refuse_product(name: str) -> Exception:
    from transformer_math.labs.guard import _ACTIVE, WriteItYourself  # the guard imports this module

    message = f"it calls {name}, which multiplies the matrices for you: write the loops"
    return _ACTIVE[-1].refuse(name, message) if _ACTIVE else WriteItYourself(message)


_COUNTING: list = []  # the record (guard.Seen) of the loops exercise's call under way: its entries are counted


def _record_product(shape: tuple) -> None:
    """The shape of an elementwise product of the loops arrays, for the check: a product of every row with
    every column at once (``X[:, :, None] * Y[None]``) is the matrix product vectorised."""
    if _COUNTING:
        _COUNTING[-1].products.append(shape)


def _count_pairs(first, second) -> None:
    """Record the pairs of entries multiplied (their keys, broadcast as the product is), each pair once."""
    if not _COUNTING or first is None or second is None:
        return
    seen = _COUNTING[-1]
    if np.ndim(first) == 0 and np.ndim(second) == 0:
        seen.pairs.add((first, second) if first <= second else (second, first))
    else:
        a, b = np.broadcast_arrays(np.asarray(first), np.asarray(second))
        seen.pairs.update(zip(np.minimum(a, b).reshape(-1).tolist(), np.maximum(a, b).reshape(-1).tolist()))
    seen.multiplications = len(seen.pairs)


def _keys(value):
    """Which entries of the loops arrays ``value`` holds: an array of their addresses (an ``Entry``'s key), or
    None for anything else."""
    if isinstance(value, Entry):
        return value.key
    if isinstance(value, LoopsOnlyArray):
        plain = value.view(np.ndarray)
        if plain.dtype != np.float64:
            return None
        start = plain.__array_interface__["data"][0]
        grid = np.indices(plain.shape, dtype=np.int64) if plain.ndim else np.zeros((0,), dtype=np.int64)
        offsets = sum((grid[axis] * plain.strides[axis] for axis in range(plain.ndim)), np.zeros(plain.shape, np.int64))
        return start + offsets
    return None


class Entry(float):
    """An entry of a loops array, as the learner's code reads it (``X[i][k]``, ``X.tolist()``): a float that
    counts its multiplications by another entry. ``key`` tells which entry it is (its address in the array)."""

    __slots__ = ("key",)

    def __new__(cls, value, key):
        entry = float.__new__(cls, value)
        entry.key = key
        return entry

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def item(self):  # what NumPy's own scalar answers, for code written for one
        return self

    tolist = item
    dtype, shape, ndim = np.dtype(np.float64), (), 0

    def __mul__(self, other):
        product = float.__mul__(self, other)
        if product is not NotImplemented:
            _count_pairs(self.key, _keys(other))
        return product

    def __rmul__(self, other):
        product = float.__rmul__(self, other)
        if product is not NotImplemented:
            _count_pairs(self.key, _keys(other))
        return product

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _ufunc(ufunc, method, inputs, kwargs)


class _AnyFloat(type):
    def __instancecheck__(cls, value) -> bool:
        return isinstance(value, float)

    def __subclasscheck__(cls, kind) -> bool:
        return issubclass(kind, float)


class KeepingFloat(float, metaclass=_AnyFloat):
    """``float`` for the learner's code while the loops exercise is checked: ``float(X[i][k])`` is the entry
    still (a float already), so its multiplications count; anything else becomes a float as before."""

    dtype = np.dtype(np.float64)  # as NumPy reads float: np.zeros(n, dtype=float) is float64, not object

    def __new__(cls, value=0.0):
        return value if isinstance(value, Entry) else float(value)


@contextlib.contextmanager
def float_keeping_entries(namespace):
    """The learner's namespace with ``float`` bound to ``KeepingFloat`` for the body's length (then as it was)."""
    if not isinstance(namespace, dict):
        yield
        return
    missing = object()
    before = namespace.get("float", missing)
    namespace["float"] = KeepingFloat
    try:
        yield
    finally:
        if before is missing:
            namespace.pop("float", None)
        else:
            namespace["float"] = before


_KEYS = iter(range(-1, -(2**62), -1))  # the keys of entries made for a case of nested lists (no address)


def entries(values) -> list:
    """Nested lists of ``Entry``: a case of lists whose multiplications are counted as the arrays' are."""
    if isinstance(values, (list, tuple, np.ndarray)):
        return [entries(part) for part in values]
    return Entry(float(values), next(_KEYS))


def _holds_entries(value) -> bool:
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    return isinstance(value, Entry)


def _ufunc(ufunc, method, inputs, kwargs):
    """A ufunc of the loops arrays or entries: products of matrices refused, multiplications counted."""
    if ufunc.__name__ in PRODUCTS:
        raise _refuse_product(f"np.{ufunc.__name__} (or @)")
    if method == "outer":  # np.multiply.outer: every product of a row and a column at once
        raise _refuse_product(f"np.{ufunc.__name__}.outer")
    counted = ufunc is np.multiply and method == "__call__" and len(inputs) == 2
    keys = [_keys(x) for x in inputs] if counted else ()
    plain = tuple(_plain(x) for x in inputs)
    if "out" in kwargs:
        kwargs["out"] = tuple(_plain(x) for x in kwargs["out"])
    result = getattr(ufunc, method)(*plain, **kwargs)
    if counted:
        _record_product(np.shape(result))
        _count_pairs(*keys)
    wrap = any(isinstance(x, LoopsOnlyArray) for x in inputs)
    return result.view(LoopsOnlyArray) if wrap and isinstance(result, np.ndarray) and result.ndim else result


def _plain(value):
    if isinstance(value, LoopsOnlyArray):
        return value.view(np.ndarray)
    return float(value) if isinstance(value, Entry) else value


class LoopsOnlyArray(np.ndarray):
    """An array that refuses every product of matrices (``@``, ``np.matmul``, ``np.dot``, ``np.einsum``, ...),
    under any name: NumPy hands the call to the array itself (``__array_ufunc__``, ``__array_function__``)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _ufunc(ufunc, method, inputs, kwargs)

    def __getitem__(self, index):
        value = super().__getitem__(index)
        if _COUNTING and isinstance(value, np.floating) and not isinstance(value, Entry):
            try:  # the entry's address: a 0-d view of it (X[i, k, ...])
                where = super().__getitem__((*index, Ellipsis) if isinstance(index, tuple) else (index, Ellipsis))
                key = where.view(np.ndarray).__array_interface__["data"][0]
            except (IndexError, TypeError, ValueError):
                key = next(_KEYS)
            return Entry(value, key)
        return value

    def tolist(self):
        if not _COUNTING:
            return super().tolist()
        return [row.tolist() if isinstance(row, LoopsOnlyArray) else row for row in self] if self.ndim else self[()]

    def __array_function__(self, func, types, args, kwargs):
        if func.__name__ in PRODUCTS or func.__name__ in LINALG_PRODUCTS:
            raise _refuse_product(f"np.{func.__name__}")
        return super().__array_function__(func, types, args, kwargs)

    def dot(self, *args, **kwargs):
        raise _refuse_product(".dot")


def loops_only_array(values) -> LoopsOnlyArray:
    """``values`` as a ``LoopsOnlyArray`` (a copy)."""
    return np.array(values, dtype=float).view(LoopsOnlyArray)
