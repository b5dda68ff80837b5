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

A copy may also be edited: a dead statement added (``_unused = 0``), a keyword dropped, ``np`` renamed. So a
function of ``SIMILAR`` operations or more is compared by its operations in order too (``_operations``: each
instruction with the attribute it reads, a constant by its value, without local or global names, a store nothing
reads dropped), and a learner's body whose operations match one's in order for ``LIKENESS`` of the longer of the
two is a copy. An honest answer stays further from the library's functions than that (the lab tests run the folded
solutions and the other right answers: the closest is at about 0.8); a copy with one line added is at about 0.97.
A function's few lines kept and the rest deleted are not caught: an honest answer can be as much of a longer
library function (an explicit stack for a topological order is the first half of a traversal the checks use).

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
from collections import Counter
from difflib import SequenceMatcher
from pathlib import Path

__all__: list[str] = []

PACKAGE = Path(__file__).resolve().parents[1]  # .../transformer_math
MINIMUM = 16  # instructions: below this a body is too small to tell a copy from an honest answer
# Instructions from which a body is refused whatever its names: below, an honest answer may be the very lines of a
# lab's reference (``return seqs[:, :-1], seqs[:, 1:]``) under other names, so only a copy with its names is one.
NAMELESS = 40
SIMILAR = 60  # operations: from this size a library function is compared by similarity too
LIKENESS = 0.9  # the share of the longer body that must match in order: a copy with a few lines changed is one
# The checks' own formulations of a known wrong answer, there to recognise it and name it: a learner who writes one
# independently should meet that diagnosis, not be told of copying a function nobody hands out.
KNOWN_MISTAKES = frozenset(
    f"transformer_math.labs.adam.{name}"
    for name in ("adam_eps_hat", "adam_eps_inside", "adam_with_l2", "adamw_eps_hat")
)


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
def _library_codes() -> list[tuple[str, types.CodeType]]:
    """``module.qualname`` and code of every function of the library of some size (compiled once)."""
    found: list[tuple[str, types.CodeType]] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        try:
            tree = compile(path.read_text(encoding="utf-8"), str(path), "exec", dont_inherit=True)
        except (SyntaxError, UnicodeDecodeError, OSError):
            continue
        found += [
            (f"{module}.{code.co_qualname}", code)
            for code in nested_codes(tree)
            if _compared(code) and f"{module}.{code.co_qualname}" not in KNOWN_MISTAKES
        ]
    return found


@functools.cache
def _library() -> dict[bytes, str]:
    """Fingerprint -> ``module.qualname`` of every function of the library of some size."""
    found: dict[bytes, str] = {}
    for name, code in _library_codes():
        found.setdefault(_top_print(code), name)
    return found


@functools.cache
def _library_operations() -> list[tuple[str, tuple[str, ...], Counter]]:
    """The operations of every library function of ``SIMILAR`` operations or more, with their counts."""
    found = [(name, _operations(code)) for name, code in _library_codes() if _size(code) >= SIMILAR]  # no fewer
    return [(name, operations, Counter(operations)) for name, operations in found if len(operations) >= SIMILAR]


def warm() -> None:
    """Build what every check reads (the library's fingerprints) now, once: a process that forks after this, as
    the lab tests' runner does, leaves each child nothing to build."""
    _library()
    _library_operations()


LOADED = frozenset({"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_CLOSURE", "LOAD_CLASSDEREF", "DELETE_FAST"})
STORED = frozenset({"STORE_FAST", "STORE_DEREF"})
UNCOMPARED = frozenset({"RESUME", "NOP", "CACHE", "PRECALL", "EXTENDED_ARG", "COPY_FREE_VARS", "MAKE_CELL"})


@functools.lru_cache(maxsize=4096)
def _operations(code: types.CodeType) -> tuple[str, ...]:
    """What a copy keeps through small edits: each instruction with the attribute it reads (``max`` of
    ``np.max``), a constant by its value, an operator or a count of arguments by its number; no local or global
    name (renamed at will), no jump target; a value stored where nothing reads it (``_unused = 0``) dropped."""
    instructions = [op for op in dis.get_instructions(code) if op.opname not in UNCOMPARED]
    read = {op.argval for op in instructions if op.opname in LOADED} | set(code.co_cellvars)
    found: list[str] = []
    for op in instructions:
        name = SPELLING.get(op.opname, op.opname)
        if name in STORED and op.argval not in read:
            if found and found[-1].startswith("LOAD_CONST"):
                found.pop()  # a constant stored for nothing: neither was there
            else:
                found.append("POP_TOP")  # a value computed for nothing is still computed
        elif op.opcode in JUMPS or name in LOADED or name in STORED or name in ("LOAD_GLOBAL", "LOAD_NAME"):
            found.append(name)
        elif op.opcode in dis.hasconst:
            value = op.argval
            found.append(f"LOAD_CONST {'<code>' if isinstance(value, types.CodeType) else repr(value)}")
        elif op.opcode in dis.hasname:
            found.append(f"{name} {op.argval}")
        else:
            found.append(name if op.arg is None else f"{name} {op.arg}")
    return tuple(found)


def _matched(mine: tuple[str, ...], theirs: tuple[str, ...]) -> int:
    """How many operations of ``mine`` match ``theirs``, in order."""
    return sum(block.size for block in SequenceMatcher(None, mine, theirs, autojunk=False).get_matching_blocks())


def _similar(code: types.CodeType) -> str | None:
    """The library function of ``SIMILAR`` operations or more whose operations ``code``'s match in order for
    ``LIKENESS`` of the longer of the two, else None."""
    mine = _operations(code)
    if len(mine) < LIKENESS * SIMILAR:
        return None
    counted = Counter(mine)
    for name, theirs, their_count in _library_operations():
        needed = LIKENESS * max(len(mine), len(theirs))
        if min(len(mine), len(theirs)) < needed or sum((counted & their_count).values()) < needed:
            continue  # too short, or too few operations in common whatever their order
        if _matched(mine, theirs) >= needed:
            return name
    return None


_seen: dict = {}  # id of a code object -> (the code object, kept alive so its id stays its own; what it copies)


def copy_of(code: types.CodeType) -> str | None:
    """``module.qualname`` of the library function ``code`` is a copy of, else None (cached per code object, by
    identity: hashing a code object hashes its bytecode)."""
    known = _seen.get(id(code))
    if known is not None and known[0] is code:
        return known[1]
    found = (_library().get(_top_print(code)) or _similar(code)) if _compared(code) else None
    if len(_seen) > 20000:
        _seen.clear()
    _seen[id(code)] = (code, found)
    return found


def copied(code: types.CodeType) -> str | None:
    """The library function that ``code`` or any code nested in it copies, else None."""
    return next((found for inner in nested_codes(code) if (found := copy_of(inner))), None)


def message(name: str) -> str:
    return f"it runs a copy of the library's {name}: write this one yourself"
