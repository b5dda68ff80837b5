"""Copies of the guide's library, for the labs' guard: a function of the learner's whose bytecode is a library
function's.

Whose code runs is decided by its globals (``authorship``), so the library's source copied with
``inspect.getsource`` and exec'd into the notebook would count as the learner's. Every function of
``transformer_math`` (the labs' reference implementations included) is compiled once from its file, and each code
object, nested ones too, is fingerprinted by its instructions with their arguments (a constant by its value) --
not its docstring, its names or local names (an argument that names one counts by its index, so renaming every
name keeps the print), nor its file or line numbers: a copy with its docstring deleted or its names renamed is
still a copy. A body under ``NAMELESS`` instructions is compared with its names as well, since an honest answer
may be a short reference's very lines under other names; so only a copy of a short one that keeps its names is
caught. A learner's code object with the fingerprint of a library function of some size is refused; tiny
bodies (``return x.mean(axis=-1)``) are never compared, because an honest answer may match a one-line helper.

Example
-------
>>> from transformer_math.labs.fingerprint import copy_of
>>> import inspect, transformer_math.softmax as library
>>> namespace = {"__name__": "__main__"}
>>> exec(compile(inspect.getsource(library.softmax), "mine.py", "exec"), namespace)
>>> copy_of(namespace["softmax"].__code__)
'transformer_math.softmax.softmax'
>>> copy_of((lambda x: x.mean(axis=-1)).__code__) is None
True
"""

from __future__ import annotations

import dis
import functools
import hashlib
import types
from pathlib import Path

__all__: list[str] = []

PACKAGE = Path(__file__).resolve().parents[1]  # .../transformer_math
MINIMUM = 16  # instructions: below this a body is too small to tell a copy from an honest answer
# Instructions from which a body is refused whatever its names: below, an honest answer may be the very lines of a
# lab's reference (``return seqs[:, :-1], seqs[:, 1:]``) under other names, so only a copy with its names is one.
NAMELESS = 40


def _size(code: types.CodeType) -> int:
    return len(_instructions(code))


# A code object that has run reads back its bytecode with some instructions respelled (3.11's specialising
# interpreter): compare the instructions in one spelling.
SPELLING = {"LOAD_METHOD": "LOAD_ATTR"}


@functools.lru_cache(maxsize=4096)  # by the code's content: a size and a print read the same instructions
def _instructions(code: types.CodeType) -> tuple[tuple[str, int | str | bytes | None], ...]:
    """Each instruction with its argument: a name by its index in the code's names, a constant by its value (its
    index moves when a docstring is deleted; a nested code object by its print), an operator (``+`` or ``*``) by its number; a jump without its
    target, which moves with the spelling."""
    return tuple(
        (SPELLING.get(op.opname, op.opname), _argument(code, op))
        for op in dis.get_instructions(code)
        if op.opname not in ("RESUME", "NOP", "CACHE", "PRECALL")
    )


JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


def _argument(code: types.CodeType, op: dis.Instruction) -> int | str | bytes | None:
    if op.opcode in dis.hasconst:
        return _print(op.argval) if isinstance(op.argval, types.CodeType) else repr(op.argval)
    if op.opcode in JUMPS:
        return None
    if op.opcode in dis.hasname:  # by index, without the flags some versions pack into the argument
        return code.co_names.index(op.argval) if op.argval in code.co_names else None
    return op.arg


def _compared(code: types.CodeType) -> bool:
    """Only functions and classes of some size, at a module's top level or a class's: a module body, a lambda or a
    comprehension (``(np.asarray(a) for a in ...)``) is written the same way by anyone, and a closure may be what
    a lab hands out (the ``_backward`` of ``Value.__add__``); a copy's enclosing function is caught."""
    return "<" not in code.co_qualname and _size(code) >= MINIMUM


@functools.lru_cache(maxsize=4096)  # a nested code object is printed once, not again inside each enclosing one
def _print(code: types.CodeType, named: bool = False) -> bytes:
    """A hash of what a copy keeps whatever it renames or deletes: its instructions with their arguments, constants
    by value (so not the docstring, a constant no instruction loads); with ``named``, its names too."""
    parts = (_instructions(code), (code.co_name, code.co_names, code.co_varnames) if named else ())
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).digest()


def _top_print(code: types.CodeType) -> bytes:
    """The print a function is compared by: without its names from ``NAMELESS`` instructions, with them below."""
    return _print(code, named=_size(code) < NAMELESS)


def nested_codes(code: types.CodeType):
    """``code`` and every code object nested in it (functions, classes, comprehensions defined inside)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from nested_codes(const)


@functools.cache
def _library() -> dict[bytes, str]:
    """Fingerprint -> ``module.qualname`` of every function of the library of some size (compiled once)."""
    found: dict[bytes, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        try:
            tree = compile(path.read_text(encoding="utf-8"), str(path), "exec", dont_inherit=True)
        except (SyntaxError, UnicodeDecodeError, OSError):
            continue
        for code in nested_codes(tree):
            if not _compared(code):
                continue
            found.setdefault(_top_print(code), f"{module}.{code.co_qualname}")
    return found


_seen: dict = {}  # id of a code object -> (the code object, kept alive so its id stays its own; what it copies)


def copy_of(code: types.CodeType) -> str | None:
    """``module.qualname`` of the library function ``code`` is a copy of, else None (cached per code object, by
    identity: hashing a code object hashes its bytecode)."""
    known = _seen.get(id(code))
    if known is not None and known[0] is code:
        return known[1]
    found = _library().get(_top_print(code)) if _compared(code) else None
    if len(_seen) > 20000:
        _seen.clear()
    _seen[id(code)] = (code, found)
    return found


def copied(code: types.CodeType) -> str | None:
    """The library function that ``code`` or any code nested in it copies, else None."""
    return next((found for inner in nested_codes(code) if (found := copy_of(inner))), None)


def message(name: str) -> str:
    return f"it runs a copy of the library's {name}: write this one yourself"
