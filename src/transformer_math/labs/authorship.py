"""Whose code is running, for the labs' guard: the learner's, the guide's library, the guard's own, or neutral
(the standard library and installed packages).

Code is the learner's by its globals (the notebook's ``__main__``, or globals exec or eval was given), whatever
file name it was compiled under; an imported module's code is that module's only when compiled from its own
file, so exec cannot pass the learner's code off as the standard library's. The check calls the learner's
function through ``Learners``, whose call counts as the learner's own.
"""

from __future__ import annotations

import _imp
import functools
import os
import sys
import sysconfig
from pathlib import Path

__all__: list[str] = []

# Packages whose functions a lab's own code may not call while a check runs (the guide's library is added below).
OUTSIDE = ("scipy", "torch", "jax", "tensorflow", "sklearn", "sympy", "mpmath", "gmpy2")
OUTSIDE += ("multiprocessing", "concurrent", "subprocess")
LIBRARY = str(Path(__file__).resolve().parents[1])  # .../transformer_math
HERE = tuple(str(Path(__file__).with_name(name).resolve()) for name in ("guard.py", "trace.py", "authorship.py"))
FREE = ("transformer_math.data",)  # the texts the labs train on: any code may read them


def _neutral_directories() -> tuple[str, ...]:
    """Where the standard library and installed packages live: their code is neither the learner's nor refused."""
    paths = sysconfig.get_paths()
    found = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    found |= {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.__file__)}
    return tuple(sorted({str(Path(path).resolve()) for path in found if path}))


NEUTRAL = _neutral_directories()
STANDARD = tuple(
    sorted(
        {str(Path(sysconfig.get_paths()[key]).resolve()) for key in ("stdlib", "platstdlib")}
        | {str(Path(os.__file__).resolve().parent)}
    )
)
INSTALLED = ("site-packages", "dist-packages")  # installed packages, which may sit inside the standard library's folder


def standard_library(code) -> bool:
    """Whether ``code`` was compiled from a file of Python's standard library (not an installed package's, not the
    guide's library, not the notebook's): whose finalizers the garbage collector may run inside any call."""
    if code.co_filename.startswith("<"):
        return False
    path = _realpath(code.co_filename)
    if not path.startswith(STANDARD) or path.startswith(LIBRARY + os.sep):
        return False
    return not any(part in INSTALLED for part in Path(path).parts)


def _genuine(module: str, namespace) -> bool:
    """Whether ``namespace`` is the dictionary of the module ``module`` as imported (not one exec or eval was
    given, which may say any ``__name__``)."""
    found = sys.modules.get(module)
    return found is not None and getattr(found, "__dict__", None) is namespace


@functools.lru_cache(maxsize=4096)
def _realpath(filename: str) -> str:
    return os.path.realpath(filename)


def _from_file(code, module: str) -> bool:
    """Whether code said to come from a file was compiled from its module's own file, at that path."""
    origin = getattr(sys.modules.get(module), "__file__", None)
    try:
        return isinstance(origin, str) and _realpath(origin) == _realpath(code.co_filename)
    except (TypeError, ValueError):
        return False


def _imported(module: str) -> bool:
    """Whether the module ``module`` was imported by the interpreter: frozen into it, or loaded from its own file
    (which exists, and whose name is the module's) -- not a ``types.ModuleType`` made and registered at run time,
    whose code exec'd under a ``<...>`` name must count as the learner's."""
    if _imp.is_frozen(module) or module in sys.builtin_module_names:
        return True
    origin = getattr(sys.modules.get(module), "__file__", None)
    if not isinstance(origin, str) or not os.path.isfile(origin):
        return False
    stem = Path(origin).name.split(".")[0]
    return stem == module.rpartition(".")[2] or stem == "__init__"


def _kind(code, namespace) -> str:
    """``"library"`` (refused when the learner calls it), ``"guard"``, ``"neutral"``, ``"learner"`` or ``"entry"``
    (the check's own call of the learner's function, which counts as the learner's).

    Code is the learner's by its globals, whatever file name it was compiled under: the notebook's (``__main__``),
    or globals exec or eval was given. Code of an imported module is that module's only if it was compiled from
    the module's own file (or by exec inside a module imported from its file: a dataclass's ``__init__``; or a
    frozen module of the interpreter); code exec'd into a module made at run time is the learner's."""
    if code is ENTRY:
        return "entry"
    module = namespace.get("__name__") if isinstance(namespace, dict) else None
    if not isinstance(module, str) or module == "__main__" or not _genuine(module, namespace):
        return "learner"
    filename = code.co_filename
    if not filename.startswith("<") and not _from_file(code, module):
        return "learner"  # compiled under another file's name
    if filename.startswith("<") and not _imported(module):
        return "learner"  # exec'd into a module made at run time
    if filename in HERE:
        return "guard"
    root = module.split(".")[0]
    if module.startswith(FREE):
        return "neutral"
    if root == "transformer_math" or root in OUTSIDE:
        return "library"
    if filename.startswith("<"):  # exec inside an imported module (a dataclass's __init__), or a frozen module
        return "neutral"
    path = _realpath(filename)
    if path.startswith(LIBRARY + os.sep):
        return "library"
    if path.startswith(NEUTRAL):
        return "neutral"
    return "learner"  # a file of the learner's


class Learners:
    """The learner's function as a check calls it: this call counts as the learner's own, so that the library
    passed in place of the learner's function (``from transformer_math.softmax import softmax``) is refused
    like a call the learner's code makes. Its attributes are the function's (``__globals__``)."""

    def __init__(self, function) -> None:
        self.function = function

    def __call__(self, *args, **kwargs):
        return self.function(*args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self.function, name)


ENTRY = Learners.__call__.__code__
