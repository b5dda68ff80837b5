r"""The runtime guard of the labs' checks: while a learner's function runs, no route around the exercise.

A check calls the learner's function inside :func:`guarded`. For the length of that call a profile hook
(:func:`sys.setprofile`) sees every Python function that starts, and refuses one of the guide's library (or of
SciPy, PyTorch, JAX, TensorFlow, scikit-learn) that the learner's own code calls: it raises
:class:`WriteItYourself`, and the check reports the call. It judges the function by the module and the name
its code was compiled under, not by the name the learner typed, so an alias bound earlier, ``getattr``,
``importlib.import_module`` and even ``importlib.reload`` lead to the same refusal. A library function that an
allowed one calls (the library's ``forward`` calling its ``layer_norm``) is not the learner's call, and runs.

``guarded(loops=True)`` adds what a loops exercise needs: while it is on, the learner's code may not use ``@`` (an
opcode trace sees the operator itself, whatever arrays it gets), NumPy's ``matmul``, ``dot``, ``einsum`` and
their kin raise under any name, and the arrays of :func:`loops_only_array` refuse to be multiplied as matrices
by any route. The trace also counts the multiplications the learner's code performs, so that a vectorised
product written without ``@`` shows too.

Example
-------
>>> from transformer_math.labs.guard import WriteItYourself, guarded
>>> from transformer_math.softmax import softmax
>>> def mine(x):
...     return softmax(x)             # the library's, under the learner's call
>>> with guarded(own=("transformer_math.softmax.softmax",)) as seen:
...     try:
...         mine([1.0, 2.0])
...     except WriteItYourself as refusal:
...         print(refusal)
it calls transformer_math.softmax.softmax, the library's version of what this exercise asks for: write this one yourself
>>> seen.refused
['transformer_math.softmax.softmax']
"""

from __future__ import annotations

import contextlib
import dis
import os
import sys
import sysconfig
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__: list[str] = []

# Packages whose functions a lab's own code may not call while a check runs (the guide's library is added below).
OUTSIDE = ("scipy", "torch", "jax", "tensorflow", "sklearn", "multiprocessing", "concurrent", "subprocess")
LIBRARY = str(Path(__file__).resolve().parents[1])  # .../transformer_math
HERE = str(Path(__file__).resolve())
FREE = ("transformer_math.data",)  # the texts the labs train on: any code may read them
# NumPy's products of matrices and vectors: what a loops exercise must write itself.
PRODUCTS = ("matmul", "dot", "vdot", "inner", "einsum", "tensordot", "vecdot", "matvec", "vecmat")
LINALG_PRODUCTS = ("multi_dot", "matmul", "vecdot")


class WriteItYourself(Exception):
    """Raised inside the learner's code when it calls what the exercise asks it to write."""


_ACTIVE: list[Seen] = []  # the record of the guarded call under way, for the arrays that refuse


def _neutral_directories() -> tuple[str, ...]:
    """Where the standard library and installed packages live: their code is neither the learner's nor refused."""
    paths = sysconfig.get_paths()
    found = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    found |= {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.__file__)}
    return tuple(sorted({str(Path(path).resolve()) for path in found if path}))


NEUTRAL = _neutral_directories()


def _kind(code, module: str) -> str:
    """``"library"`` (refused when the learner calls it), ``"guard"``, ``"neutral"`` or ``"learner"``."""
    filename = code.co_filename
    if filename == HERE:
        return "guard"
    root = module.split(".")[0]
    if module.startswith(FREE):
        return "neutral"
    if root == "transformer_math" or root in OUTSIDE:
        return "library"
    if filename.startswith("<string>"):  # code exec() made: the notebook's own, or a module's (dataclasses' __init__)
        return "learner" if module == "__main__" else "neutral"
    if filename.startswith("<frozen"):
        return "neutral"
    if filename.startswith("<"):
        return "learner"  # a notebook cell: <ipython-input-...>, <cell 3>
    try:
        path = os.path.realpath(filename)
    except (TypeError, ValueError):
        return "learner"
    if path.startswith(LIBRARY + os.sep):
        return "library"
    if path.startswith(NEUTRAL):
        return "neutral"
    return "learner"  # a notebook cell, or a file of the learner's


@dataclass
class Seen:
    """What the guard saw during one call: the refused calls, and (with ``loops``) the multiplications."""

    refused: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    multiplications: int = 0
    switched_off: bool = False
    calls: dict = field(default_factory=dict)  # watched code object -> how often it ran

    def refuse(self, name: str, message: str) -> WriteItYourself:
        self.refused.append(name)
        self.messages.append(message)
        return WriteItYourself(message)


class _Hook:
    """The profile hook of one guarded call."""

    def __init__(self, own: tuple[str, ...], allowed: tuple[str, ...], seen: Seen, loops: bool, watch=()) -> None:
        self.own, self.allowed, self.seen, self.loops = own, allowed, seen, loops
        self.watch = frozenset(watch)
        self.kinds: dict = {}  # code object -> (kind, qualified name)

    def classify(self, frame) -> tuple[str, str]:
        code = frame.f_code
        known = self.kinds.get(code)
        if known is None:
            module = frame.f_globals.get("__name__") or ""
            qualname = getattr(code, "co_qualname", code.co_name)
            known = self.kinds[code] = (_kind(code, str(module)), f"{module}.{qualname}")
        return known

    def __call__(self, frame, event, arg):
        if event == "call":
            if frame.f_code in self.watch:
                self.seen.calls[frame.f_code] = self.seen.calls.get(frame.f_code, 0) + 1
            kind, name = self.classify(frame)
            if kind == "library" and not name.startswith(self.allowed) and self.learner_called(frame):
                raise self.refusal(name)
        elif event == "c_call":
            self.c_call(arg)

    def learner_called(self, frame) -> bool:
        """Whether the first caller that is not the standard library, NumPy or the guard is the learner's code."""
        caller = frame.f_back
        while caller is not None:
            kind, _ = self.classify(caller)
            if kind == "learner":
                return True
            if kind == "library":
                return False  # a library function calling its own parts: allowed, or refused already
            caller = caller.f_back
        return False

    def refusal(self, name: str) -> WriteItYourself:
        if name.startswith(self.own):
            message = f"it calls {name}, the library's version of what this exercise asks for: write this one yourself"
        elif name.startswith("transformer_math.labs"):
            message = f"it calls {name}, the checks' own reference: write this one yourself"
        elif name.startswith("transformer_math"):
            message = f"it calls {name} from the guide's library: this exercise is NumPy only, write it yourself"
        else:
            message = f"it calls {name}: this exercise is NumPy only, write it yourself"
        return self.seen.refuse(name, message)

    def c_call(self, function) -> None:
        module = getattr(function, "__module__", None)
        owner = getattr(function, "__self__", None)
        if not module and owner is not None:
            module = type(owner).__module__
        root = str(module).split(".")[0]
        if root in OUTSIDE and self.learner_called_c():
            raise self.refusal(f"{module}.{getattr(function, '__name__', '?')}")
        if not self.loops:
            return
        name = getattr(function, "__name__", "")
        if (name in PRODUCTS or name == "c_einsum") and (root == "numpy" or isinstance(owner, np.ndarray)):
            if self.learner_called_c():
                raise self.seen.refuse(name, f"it calls {name}, which multiplies the matrices for you: write the loops")
        elif name in ("mul", "__mul__") and root in ("operator", "_operator"):
            self.seen.multiplications += 1

    def learner_called_c(self) -> bool:
        frame = sys._getframe(2)  # the frame that makes the C call
        while frame is not None:
            kind, _ = self.classify(frame)
            if kind in ("learner", "library"):
                return kind == "learner"
            frame = frame.f_back
        return False


class _Trace:
    """The opcode trace of a loops exercise: refuse ``@`` in the learner's code, count its multiplications."""

    def __init__(self, hook: _Hook) -> None:
        self.hook, self.seen = hook, hook.seen
        self.operators: dict = {}  # code object -> {offset: "@", "*", ...}

    def __call__(self, frame, event, arg):
        if event == "call" and self.hook.classify(frame)[0] == "learner":
            frame.f_trace_opcodes = True
            return self.local
        return None

    def local(self, frame, event, arg):
        if event != "opcode":
            return self.local
        table = self.operators.get(frame.f_code)
        if table is None:
            table = self.operators[frame.f_code] = {
                i.offset: i.argrepr for i in dis.get_instructions(frame.f_code) if i.opname.startswith("BINARY")
            }
        operator = table.get(frame.f_lasti)
        if operator in ("@", "@="):
            raise self.seen.refuse("@", f"it uses the @ operator (line {frame.f_lineno}): write the loops")
        if operator in ("*", "*="):
            self.seen.multiplications += 1
        return self.local


def _refusing(name: str, seen: Seen):
    def product(*args, **kwargs):
        raise seen.refuse(name, f"it calls np.{name}, which multiplies the matrices for you: write the loops")

    product.__name__ = name
    return product


@contextlib.contextmanager
def _numpy_products_refused(seen: Seen):
    """NumPy's product functions replaced, in ``numpy`` and ``numpy.linalg``, by ones that refuse."""
    saved = []
    for module, names in ((np, PRODUCTS), (np.linalg, LINALG_PRODUCTS)):
        for name in names:
            if hasattr(module, name):
                saved.append((module, name, getattr(module, name)))
                setattr(module, name, _refusing(name, seen))
    try:
        yield
    finally:
        for module, name, original in saved:
            setattr(module, name, original)


@contextlib.contextmanager
def guarded(own: tuple[str, ...] = (), allowed: tuple[str, ...] = (), loops: bool = False, watch=()):
    """Run the body with the library refused to the learner's code; yields the :class:`Seen` record.

    ``own`` names (by prefix, ``"module.qualname"``) what the exercise asks the learner to write, for the
    message; ``allowed`` names library functions the learner's code may call; ``loops`` turns on the loops
    exercise's refusals and the count of multiplications; ``watch`` holds code objects (functions of the
    learner's) whose calls are counted in ``Seen.calls``.
    """
    seen = Seen()
    hook = _Hook(tuple(own), tuple(allowed), seen, loops, watch)
    previous_profile, previous_trace = sys.getprofile(), sys.gettrace()
    previous_threads = threading.getprofile()
    threading.setprofile(hook)
    _ACTIVE.append(seen)
    with contextlib.ExitStack() as stack:
        if loops:
            stack.enter_context(_numpy_products_refused(seen))
            sys.settrace(_Trace(hook))
        sys.setprofile(hook)
        try:
            yield seen
        finally:
            current = sys.getprofile()
            sys.setprofile(previous_profile)
            if loops:
                sys.settrace(previous_trace)
            threading.setprofile(previous_threads)
            _ACTIVE.pop()
            seen.switched_off = current is not hook and not seen.refused


def _refuse_product(name: str) -> WriteItYourself:
    message = f"it calls {name}, which multiplies the matrices for you: write the loops"
    return _ACTIVE[-1].refuse(name, message) if _ACTIVE else WriteItYourself(message)


class LoopsOnlyArray(np.ndarray):
    """An array that refuses every product of matrices (``@``, ``np.matmul``, ``np.dot``, ``np.einsum``, ...),
    under any name: NumPy hands the call to the array itself (``__array_ufunc__``, ``__array_function__``)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if ufunc.__name__ in PRODUCTS:
            raise _refuse_product(f"np.{ufunc.__name__} (or @)")
        inputs = tuple(x.view(np.ndarray) if isinstance(x, LoopsOnlyArray) else x for x in inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(x.view(np.ndarray) if isinstance(x, LoopsOnlyArray) else x for x in kwargs["out"])
        result = getattr(ufunc, method)(*inputs, **kwargs)
        return result.view(LoopsOnlyArray) if isinstance(result, np.ndarray) and result.ndim else result

    def __array_function__(self, func, types, args, kwargs):
        if func.__name__ in PRODUCTS or func.__name__ in LINALG_PRODUCTS:
            raise _refuse_product(f"np.{func.__name__}")
        return super().__array_function__(func, types, args, kwargs)

    def dot(self, *args, **kwargs):
        raise _refuse_product(".dot")


def loops_only_array(values) -> LoopsOnlyArray:
    """``values`` as a :class:`LoopsOnlyArray` (a copy)."""
    return np.array(values, dtype=float).view(LoopsOnlyArray)
