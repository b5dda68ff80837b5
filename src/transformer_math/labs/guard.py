r"""The runtime guard of the labs' checks: while a learner's function runs, no route around the exercise.

A check calls the learner's function inside ``guarded``. For the length of that call a profile hook
(``sys.setprofile``) sees every Python function that starts, and refuses one of the guide's library (or of
SciPy, PyTorch, JAX, TensorFlow, scikit-learn) that the learner's own code calls: it raises
``WriteItYourself``, and the check reports the call. A ufunc starts no profile event (SciPy's ``xlogy``), so a
piece of the learner's code that names one of those packages, or a global bound to one of their functions or
ufuncs, is refused when it starts: the labs are NumPy only, SciPy included. It judges the function by the
module and the name its code was compiled under, not by the name the learner typed, so an alias bound earlier,
``getattr``, ``importlib.import_module`` and even ``importlib.reload`` lead to the same refusal. A library function that an
allowed one calls (the library's ``forward`` calling its ``layer_norm``) is not the learner's call, and runs.
The check calls the learner's function through ``Learners``, whose call counts as the learner's: the library's
own function handed to the check (``from transformer_math.softmax import softmax``) is refused like a call the
learner's code makes, and ``submitted.foreign`` refuses it before the run (through ``functools.partial``, a bound method,
``__wrapped__``, a class's bases and methods). Code is the learner's by its globals (the notebook's
``__main__``, or globals exec or eval was given), whatever file name it was compiled under; an imported module's
code is that module's only when compiled from its own file, so exec cannot pass the learner's code off as the
standard library's.
The hook cannot be switched off and on again around a call: an audit hook (``sys.addaudithook``, which
nothing can remove) refuses ``sys.setprofile``, ``sys.settrace``, ``ctypes``, ``os.system`` and the other ways to
start a process while a check runs, and the learner's code may not start a thread; nor may a thread or a
process started before the check run the notebook's code meanwhile (``isolation``).

``guarded(loops=True)`` adds what a loops exercise needs, ``guarded(budget=n)`` a limit of ``n`` Python steps
(a loop where a closed form is asked for), and ``guarded(derived=True)`` refuses complex and extended-precision
numbers, ``Decimal`` and ``Fraction`` included, however they are held (a gradient measured by a complex step or
in more digits: ``measured``): they run the opcode trace of ``trace``, which
refuses ``@`` and every product of matrices under any name (an alias bound before the check, ``operator.matmul``,
a plain array's ``dot``) and counts the learner's multiplications.

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
import os
import sys
import threading
from dataclasses import dataclass, field

import numpy as np

from transformer_math.labs import fingerprint, isolation, measured
from transformer_math.labs.authorship import OUTSIDE, _kind, standard_library
from transformer_math.labs.trace import PRODUCTS, Trace, numpy_products_refused

__all__: list[str] = []

# What a check's call may not do at all, by the audit events of CPython: switch the hook off, reach CPython's own
# C functions, or start a process.
AUDITED = (
    "sys.setprofile",
    "sys.settrace",
    "ctypes.",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "os.startfile",
    "subprocess.Popen",
)
NUMERICAL = ("numerical_gradient", "gradient_check")  # the library's finite differences


class WriteItYourself(Exception):
    """Raised inside the learner's code when it calls what the exercise asks it to write."""


THREAD_START = threading.Thread.start.__code__
THREAD_STARTS = ("start_new_thread", "start_new", "start_joinable_thread")
THREAD_MESSAGE = "it starts a thread: write the exercise as plain code, in the thread that calls it"

_ACTIVE: list[Seen] = []  # the record of the guarded call under way, for the arrays that refuse


@dataclass
class Seen:
    """What the guard saw during one call: the refused calls, and (with ``loops``) the multiplications."""

    refused: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    multiplications: int = 0  # (loops) the pairs of the loops arrays' entries multiplied, each pair once
    pairs: set = field(default_factory=set)
    products: list = field(default_factory=list)  # the shapes of the loops arrays' elementwise products
    steps: int = 0  # the Python steps (opcodes) of the learner's code, when a budget is set
    thread: int = field(default_factory=threading.get_ident)  # the thread whose calls the guard watches
    switched_off: bool = False
    calls: dict = field(default_factory=dict)  # watched code object -> how often it ran
    forbidden: frozenset = frozenset()  # names the learner's code may not use for now (``names_refused``)
    forbidden_why: str = ""
    halted: bool = False  # refused before the call: the learner's function is not run at all

    def refuse(self, name: str, message: str) -> WriteItYourself:
        self.refused.append(name)
        self.messages.append(message)
        return WriteItYourself(message)


class _Hook:
    """The profile hook of one guarded call."""

    def __init__(
        self, own: tuple[str, ...], allowed: tuple[str, ...], seen: Seen, loops: bool, watch=(), derived=False
    ) -> None:
        self.own, self.allowed, self.seen, self.loops, self.derived = own, allowed, seen, loops, derived
        self.watch = frozenset(watch)
        self.kinds: dict = {}  # code object -> (kind, qualified name)
        self.outside: dict = {}  # code object -> the first of its globals bound to an outside package, or None

    def classify(self, frame) -> tuple[str, str]:
        code = frame.f_code
        key = (code, id(frame.f_globals))  # the same code may run with other globals (types.FunctionType)
        known = self.kinds.get(key)
        if known is None:
            module = frame.f_globals.get("__name__") or ""
            qualname = getattr(code, "co_qualname", code.co_name)
            known = self.kinds[key] = (_kind(code, frame.f_globals), f"{module}.{qualname}")
        return known

    def __call__(self, frame, event, arg):
        if self.seen.halted and event == "call" and self.classify(frame)[0] not in ("guard", "neutral"):
            raise WriteItYourself(self.seen.messages[0])
        if event == "call":
            if frame.f_code in self.watch:
                self.seen.calls[frame.f_code] = self.seen.calls.get(frame.f_code, 0) + 1
            kind, name = self.classify(frame)
            if self.seen.forbidden and kind == "learner":
                used = uses_forbidden(frame.f_code, self.seen.forbidden, frame.f_globals, frame.f_locals)
                if used:
                    where = f"{used} in {frame.f_code.co_name}"
                    raise self.seen.refuse(used, f"it uses {where}: {self.seen.forbidden_why}")
            if kind == "learner":
                copy = fingerprint.copy_of(frame.f_code)
                if copy:
                    raise self.seen.refuse(copy, fingerprint.message(copy))
                outside = self.outside_names(frame)
                if outside:
                    raise self.seen.refuse(
                        outside, f"it uses {outside}: this exercise is NumPy only, write it yourself"
                    )
            if kind == "library" and not name.startswith(self.allowed) and self.learner_called(frame):
                raise self.refusal(name)
            if kind == "neutral" and name.startswith(self.own) and self.learner_called(frame):
                raise self.refusal(name)  # the standard library's version of the exercise (graphlib's sort)
            exact = self.derived and measured.python_module(name)
            if exact and self.learner_called(frame):
                raise self.seen.refuse(exact, measured.message(exact, self.learner_line(frame)))
            if self.loops and kind == "neutral" and self.learner_called(frame):
                for value in list(frame.f_locals.values())[:8]:  # np.sum(X[:, :, None] * Y[None], axis=1)
                    if isinstance(value, np.ndarray) and value.ndim > 2:
                        self.seen.products.append(value.shape)
            if frame.f_code is THREAD_START and self.learner_called(frame):
                raise self.seen.refuse("a thread", THREAD_MESSAGE)
        elif event == "c_call":
            self.c_call(arg)

    def outside_names(self, frame) -> str | None:
        """A global of the learner's code bound to SciPy, PyTorch, ... (a module, a function, a ufunc): refused
        when the code starts, because a ufunc (``scipy.special.xlogy``) is called without a profile event."""
        code = frame.f_code
        if code not in self.outside:
            self.outside[code] = next(
                (found for name in code.co_names if (found := _outside(name, frame.f_globals.get(name)))), None
            )
        return self.outside[code]

    def learner_called(self, frame) -> bool:
        """Whether the first caller that is not the standard library, NumPy or the guard is the learner's code, or
        the check's own call of the learner's function (``Learners``): the library passed as the learner's. A
        finalizer is nobody's call: the garbage collector runs it inside whatever code is running."""
        if self.finalizer(frame):
            return False
        caller = frame.f_back
        while caller is not None:
            kind, _ = self.classify(caller)
            if kind in ("learner", "entry"):
                return True
            if kind == "library":
                return False  # a library function calling its own parts: allowed, or refused already
            caller = caller.f_back
        return False

    def finalizer(self, frame) -> bool:
        """Whether ``frame`` runs a genuine finalizer (a dead ``Popen``'s): the ``__del__`` of its object's class,
        compiled from the standard library's own file. Code named ``__del__`` is not enough: the library's code
        renamed so (``code.replace(co_name="__del__")``) is the library's still."""
        code = frame.f_code
        if code.co_name != "__del__" or not code.co_argcount or not standard_library(code):
            return False
        if self.classify(frame)[0] not in ("neutral", "library"):  # compiled from its module's own file
            return False
        owner = frame.f_locals.get(code.co_varnames[0])
        return getattr(getattr(type(owner), "__del__", None), "__code__", None) is code

    def refusal(self, name: str) -> WriteItYourself:
        return self.seen.refuse(name, library_message(name, self.own))

    def learner_line(self, frame) -> int | None:
        """The line of the learner's code that led to ``frame``."""
        while frame is not None and self.classify(frame)[0] != "learner":
            frame = frame.f_back
        return frame.f_lineno if frame is not None else None

    def c_call(self, function) -> None:
        exact = self.derived and measured.refused_call(function)
        if exact and self.learner_called_c():
            raise self.seen.refuse(exact, measured.message(exact, self.learner_line(sys._getframe(2))))
        module = getattr(function, "__module__", None)
        owner = getattr(function, "__self__", None)
        if not module and owner is not None:
            module = type(owner).__module__
        root = str(module).split(".")[0]
        if root in OUTSIDE and self.learner_called_c():
            raise self.refusal(f"{module}.{getattr(function, '__name__', '?')}")
        name = getattr(function, "__name__", "")
        if self.seen.forbidden and name in self.seen.forbidden and self.learner_called_c():
            raise self.seen.refuse(name, f"it calls {module}.{name}: {self.seen.forbidden_why}")
        if name in THREAD_STARTS and root == "_thread" and self.learner_called_c():
            raise self.seen.refuse("a thread", THREAD_MESSAGE)
        if not self.loops:
            return
        if isinstance(owner, np.ndarray) and owner.ndim > 2 and self.learner_called_c():
            self.seen.products.append(owner.shape)  # a method of a product of every row with every column
        if (name in PRODUCTS or name == "c_einsum") and (root == "numpy" or isinstance(owner, np.ndarray)):
            if self.learner_called_c():
                raise self.seen.refuse(name, f"it calls {name}, which multiplies the matrices for you: write the loops")

    def learner_called_c(self) -> bool:
        frame = sys._getframe(2)  # the frame that makes the C call
        while frame is not None:
            kind, _ = self.classify(frame)
            if kind in ("learner", "entry", "library"):
                return kind != "library"
            frame = frame.f_back
        return False


def library_message(name: str, own: tuple[str, ...] = (), verb: str = "calls") -> str:
    """Why the learner's code may not use the library's ``name`` (``verb``: "calls", or "is" for a function passed
    in place of the learner's)."""
    if name.startswith("transformer_math") and name.endswith(NUMERICAL):
        return f"it {verb} {name}, which measures the gradient by finite differences: derive it and write it"
    if name.startswith(own):
        return f"it {verb} {name}, the library's version of what this exercise asks for: write this one yourself"
    if name.startswith("transformer_math.labs"):
        return f"it {verb} {name}, the checks' own reference: write this one yourself"
    if name.startswith("transformer_math"):
        return f"it {verb} {name} from the guide's library: this exercise is NumPy only, write it yourself"
    return f"it {verb} {name}: this exercise is NumPy only, write it yourself"


@contextlib.contextmanager
def guarded(
    own: tuple[str, ...] = (),
    allowed: tuple[str, ...] = (),
    loops: bool = False,
    watch=(),
    budget: int | None = None,
    derived: bool = False,
    deadline=None,
    advice: str | None = None,
):
    """Run the body with the library refused to the learner's code; yields the ``Seen`` record.

    ``own`` names (by prefix, ``"module.qualname"``) what the exercise asks the learner to write, for the
    message, and refuses a name of the standard library's among them (``"graphlib."``); ``allowed`` names library
    functions the learner's code may call; ``loops`` turns on the loops exercise's refusals and the count of
    multiplications; ``watch`` holds code objects (functions of the learner's) whose calls are counted in
    ``Seen.calls``; ``budget`` is the most Python steps the learner's code may run, and ``advice`` what a refusal
    past it tells them to write instead; ``derived`` refuses complex and extended-precision numbers in it, and runs
    it with a decimal context that traps (a gradient measured, not derived); ``deadline`` (``timing.Deadline``) is
    timed over the body, and the trace stops the learner's code once it is past.
    """
    seen = Seen()
    alone = isolation.not_alone()
    if alone:
        seen.refuse("not alone", alone)
        seen.halted = True
    hook = _Hook(tuple(own), tuple(allowed), seen, loops, watch, derived)
    traced = loops or budget is not None or derived or deadline is not None
    ticks = isolation.thread_ticks()  # the other threads' CPU, for a worker that computes for the function
    previous_profile, previous_trace = sys.getprofile(), sys.gettrace()
    previous_threads = threading.getprofile()
    threading.setprofile(hook)
    with contextlib.ExitStack() as stack:
        if loops:
            stack.enter_context(numpy_products_refused(seen))
        if derived:
            stack.enter_context(measured.decimal_refused(lambda kind: seen.refuse(kind, measured.message(kind))))
        with _switching():
            _ACTIVE.append(seen)
            if traced:
                sys.settrace(Trace(hook, loops, budget, derived, deadline, advice))
            sys.setprofile(hook)
        if deadline is not None:
            deadline.start()
        try:
            yield seen
        finally:
            if deadline is not None:
                deadline.stop()
            with _switching():
                current = sys.getprofile()
                sys.setprofile(previous_profile)
                if traced:
                    sys.settrace(previous_trace)
                threading.setprofile(previous_threads)
                _ACTIVE.pop()
            seen.switched_off = current is not hook and not seen.refused
            company = not seen.refused and isolation.company(ticks)
            if company:
                seen.refuse("a thread", company)


def _outside(name: str, value) -> str | None:
    """``name (its module)`` if ``value`` belongs to a package of ``OUTSIDE`` (or is a ufunc NumPy does not
    hold, such as SciPy's), else None."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.ndarray)):
        return None
    if isinstance(value, type(os)):
        module = value.__name__
    elif isinstance(value, np.ufunc):
        if getattr(np, value.__name__, None) is value:
            return None
        module = getattr(value, "__module__", None) or "scipy"  # SciPy's ufuncs carry no module
    else:
        module = getattr(value, "__module__", None)
    if isinstance(module, str) and module.split(".")[0] in OUTSIDE:
        return f"{name} ({module})" if name != module.rpartition(".")[2] else module
    held = value.values() if isinstance(value, dict) else value if isinstance(value, (tuple, list)) else (value,)
    for part in list(held)[:16]:
        if isolation.channel(part):
            return f"{name} (a pipe or socket to another process)"
    return None


def uses_forbidden(code, names: frozenset, namespace: dict, local: dict | None = None) -> str | None:
    """The first of ``names`` that a code object uses (a global, a module's attribute, a method, or a global,
    an argument or a closure's variable bound to a function or module of that name: ``from numpy import tanh
    as th``, ``f = getattr(np, "co" + "sh")`` in the forward pass), or a complex constant: what a piece of code
    may not touch while ``names_refused`` holds."""
    bindings = [(name, namespace.get(name)) for name in code.co_names]
    bindings += [(name, value) for name, value in (local or {}).items() if name in code.co_freevars + code.co_varnames]
    for name, value in bindings:
        if name in names:
            return name
        bound = getattr(value, "__name__", None) if callable(value) or isinstance(value, type(os)) else None
        if isinstance(bound, str) and bound.rpartition(".")[2] in names:
            return f"{name} ({bound})"
    if "complex" in names and any(isinstance(constant, complex) for constant in code.co_consts):
        return "a complex number"
    return None


@contextlib.contextmanager
def names_refused(names: tuple[str, ...], why: str):
    """Inside a guarded call, for the length of the body: the learner's code that starts running may not use
    ``names`` (``math.tanh``, ``np.exp``, a method ``tanh``), nor call a C function of that name by any route.
    A check's own code uses it around a part of the learner's work (a backward rule, which needs no ``tanh``:
    calling it there measures the derivative instead of deriving it)."""
    seen = _ACTIVE[-1] if _ACTIVE else None
    if seen is None:
        yield
        return
    saved = seen.forbidden, seen.forbidden_why
    seen.forbidden, seen.forbidden_why = frozenset(names), why
    replaced = []  # a ufunc call starts no profile event: NumPy's own names refuse, however they are reached
    for module in (np, getattr(getattr(np, "_core", None), "umath", None)):
        for name in names:
            original = getattr(module, name, None)
            if isinstance(original, np.ufunc):
                replaced.append((module, name, original))
                setattr(module, name, _refusing_ufunc(original, f"np.{name}", seen, why))
    try:
        yield
    finally:
        for module, name, original in replaced:
            setattr(module, name, original)
        seen.forbidden, seen.forbidden_why = saved


def _refusing_ufunc(original, label: str, seen: Seen, why: str):
    """``original`` for any caller but the learner's code, which it refuses (``getattr(np, "co" + "sh")``)."""

    def refusing(*args, **kwargs):
        caller = sys._getframe(1)
        if _kind(caller.f_code, caller.f_globals) == "learner":
            raise seen.refuse(label, f"it calls {label}: {why}")
        return original(*args, **kwargs)

    refusing.__name__ = original.__name__
    return refusing


_SWITCHING = [0]  # > 0 while the guard itself installs or removes its hooks


@contextlib.contextmanager
def _switching():
    _SWITCHING[0] += 1
    try:
        yield
    finally:
        _SWITCHING[0] -= 1


def _audit(event: str, args) -> None:
    """Refuse, while a check's call runs, what would let the learner's code out of the guard's sight."""
    if not _ACTIVE and event.startswith(isolation.PROCESS_STARTS):
        isolation.note_start(event)
    if not _ACTIVE or _SWITCHING[0] or not event.startswith(AUDITED) or threading.get_ident() != _ACTIVE[-1].thread:
        return
    if _ACTIVE[-1].refused:  # already refused: CPython switches a hook off itself when the hook raises
        return
    if event.startswith(("sys.setprofile", "sys.settrace")):
        message = f"it calls {event}, which would hide its calls from the check: leave the hooks alone"
    else:
        message = f"it calls {event.rstrip('.')}: this exercise is plain Python and NumPy, write it yourself"
    raise _ACTIVE[-1].refuse(event, message)


sys.addaudithook(_audit)  # an audit hook cannot be removed; it does nothing while no check runs
