r"""What a check is handed: the learner's own function or class, not the library's passed in its place.

``foreign`` names the function of the guide's library (or of SciPy, PyTorch, ...) that a submitted object is,
wraps or is built on: through ``functools.partial``, a bound method, ``__wrapped__``, a callable object's class, a
class's bases and methods (a ``Value`` that subclasses the library's, or holds its ``__mul__``). A check refuses
such an object before it runs it; the guard refuses the library reached from the check's call of it too
(``authorship.Learners``), for what no inspection before the run can see.

Example
-------
>>> import functools
>>> from transformer_math.labs.submitted import foreign
>>> from transformer_math.softmax import softmax
>>> foreign(functools.partial(softmax, axis=-1))
'transformer_math.softmax.softmax'
>>> foreign(lambda x: x) is None
True
"""

from __future__ import annotations

import functools
import inspect
import types

import numpy as np

from transformer_math.labs import fingerprint
from transformer_math.labs.authorship import OUTSIDE, _kind
from transformer_math.labs.guard import _outside, library_message

__all__: list[str] = []


def _library_name(value) -> str | None:
    """``module.name`` of a function, class or C function of the library (or of SciPy, PyTorch, ...), else None."""
    if isinstance(value, (types.FunctionType, types.CodeType)):
        code = value if isinstance(value, types.CodeType) else value.__code__
        namespace = getattr(value, "__globals__", {})
        if _kind(code, namespace) in ("library", "guard"):
            return f"{namespace.get('__name__')}.{getattr(code, 'co_qualname', code.co_name)}"
        return None
    return _library_class(value)


def copy_in(value, depth: int = 3, seen: set | None = None) -> str | None:
    """The library function that the learner's ``value`` (a function, or a class's methods) runs a copy of, itself
    or through the functions, classes and modules its code names in its globals (the library's source exec'd into
    the notebook)."""
    seen = set() if seen is None else seen
    if depth < 0 or id(value) in seen:
        return None
    seen.add(id(value))
    if isinstance(value, type):
        members = [m.__func__ if isinstance(m, (staticmethod, classmethod)) else m for m in vars(value).values()]
        functions = [m for m in members if isinstance(m, types.FunctionType)]
        return next((found for m in functions if (found := copy_in(m, depth, seen))), None)
    if not isinstance(value, types.FunctionType) or _kind(value.__code__, value.__globals__) != "learner":
        return None
    found = fingerprint.copied(value.__code__)
    if found:
        return fingerprint.message(found)
    namespace = value.__globals__
    for code in fingerprint.nested_codes(value.__code__):
        for name in code.co_names:
            reached = namespace.get(name)
            if isinstance(reached, types.ModuleType):
                reached = [getattr(reached, attribute, None) for attribute in code.co_names]
            for each in reached if isinstance(reached, list) else [reached]:
                if isinstance(each, (types.FunctionType, type)) and (found := copy_in(each, depth - 1, seen)):
                    return found
    return None


def refusal(value, own: tuple[str, ...] = ()) -> str | None:
    """What a check says, before the run, of a submitted function or class that is the library's (or built on
    it, ``foreign``) or runs a copy of its code (``copy_in``): a sentence starting "it ...", else None."""
    library = foreign(value)
    if library:
        return library_message(library, own, "uses")
    return copy_in(value)


def _library_class(value) -> str | None:
    module = getattr(value, "__module__", None)
    owner = getattr(value, "__self__", None)
    if not isinstance(module, str) and owner is not None and not isinstance(owner, types.ModuleType):
        module = type(owner).__module__
    if isinstance(module, str) and module.split(".")[0] in ("transformer_math", *OUTSIDE):
        return f"{module}.{getattr(value, '__qualname__', getattr(value, '__name__', '?'))}"
    if isinstance(value, np.ufunc):
        return _outside(getattr(value, "__name__", "?"), value)
    return None


def foreign(value, depth: int = 4) -> str | None:
    """The library's function (or SciPy's, ...) that a submitted function or class is, wraps or is built on:
    through ``functools.partial``, a bound method, ``__wrapped__``, a callable object's class, a class's bases
    and methods. None when it is the learner's own code (or the standard library's, or NumPy's)."""
    if depth < 0 or value is None:
        return None
    found = _library_name(value)
    if found:
        return found
    parts: list = []
    if isinstance(value, functools.partial):
        parts.append(value.func)
    if isinstance(value, types.MethodType):
        parts += [value.__func__, value.__self__ if isinstance(value.__self__, type) else type(value.__self__)]
    wrapped = inspect.getattr_static(value, "__wrapped__", None) if not isinstance(value, type) else None
    if wrapped is not None:
        parts.append(wrapped)
    if isinstance(value, type):
        for klass in value.__mro__:
            if klass is object:
                continue
            found = _library_name(klass)
            if found:
                return found
            for member in vars(klass).values():
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if isinstance(member, property):
                    parts += [member.fget, member.fset]
                elif isinstance(member, (types.FunctionType, functools.partial, types.BuiltinFunctionType)):
                    parts.append(member)
    elif not isinstance(value, (types.FunctionType, types.MethodType, types.BuiltinFunctionType, functools.partial)):
        parts.append(type(value))  # a callable object: its class and its __call__
    for part in parts:
        found = foreign(part, depth - 1)
        if found:
            return found
    return None
