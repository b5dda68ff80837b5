r"""The hidden cases of the labs' checks: drawn from a seeded generator, described without their answers.

A ``Case`` is the arguments one call of the learner's function gets, and a short description of them for
a failed check ("x of shape (2, 5), float32, from -1000 to 1000"). A check draws its cases from
``generator``, seeded by the check's name, so that the same notebook gets the same cases on every run (a
failure can be reproduced) while the sizes and values vary from case to case: neither a table of answers nor a
size written into the code passes them all. The cases a naive answer fails (``Case.fresh``: an overflow, an
epsilon that matters, a large loss, a wide case), and one case more, are drawn at each run from
``fresh_generator``, seeded by the operating system's randomness (``os.urandom``), so that no table of answers
made before the run, from earlier runs or from the checks' own code, holds them: a table of the others with a
naive answer behind it fails. The lab tests pin that seed through the environment
variable ``PIN`` names, set before the checks are imported, so that their runs repeat.

``snapshot`` and ``changed`` tell whether the learner's function changed its inputs.

Example
-------
>>> import numpy as np
>>> from transformer_math.labs.cases import Case, generator
>>> rng = generator("softmax")
>>> case = Case((rng.normal(size=(3, 4)).astype(np.float32),))
>>> case.describe(["x"])
'x of shape (3, 4), float32, from -1.6 to 2.2'
"""

from __future__ import annotations

import copy
import hashlib
import os
from dataclasses import dataclass, field

import numpy as np

from transformer_math.labs.timing import TimeLimit

__all__: list[str] = []


PIN = "TRANSFORMER_MATH_LABS_SEED"
PINNED = os.environ.get(PIN)  # read once, when the checks are imported: the tests' runs repeat, a notebook's do not


def generator(name: str) -> np.random.Generator:
    """A NumPy generator seeded by ``name``: the same cases for the same check, run after run."""
    return np.random.default_rng(int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little"))


def fresh_generator(name: str, run: int) -> np.random.Generator:
    """The generator of the case drawn anew at a check's ``run``-th run: seeded by 128 bits of the operating
    system's randomness, unless the environment pinned the seed when the checks were imported."""
    if PINNED is not None:
        return generator(f"{name}, run {run}, pinned to {PINNED}")
    return np.random.default_rng(int.from_bytes(os.urandom(16), "little"))


@dataclass
class Case:
    """One call of the learner's function: ``args``, ``kwargs``, and what to say about them (``about``)."""

    args: tuple
    kwargs: dict = field(default_factory=dict)
    about: str = ""  # a note for the description, such as "a list" or "the causal mask"
    tol: float | None = None  # this case's tolerance, if not the check's (float32 inputs)
    time_limit: TimeLimit | None = None  # a wide case's work budget: a closed form passes, a measurement does not
    fresh: bool = False  # one a naive answer fails (an overflow, eps, a large loss): drawn anew at every run

    def describe(self, names: list[str]) -> str:
        parts = [describe_value(name, value) for name, value in zip(names, self.args)]
        parts += [describe_value(name, value) for name, value in self.kwargs.items()]
        text = ", ".join(part for part in parts if part)
        return f"{text} ({self.about})" if self.about else text


def _number(value: float) -> str:
    return f"{value:.2g}" if abs(value) < 1e4 else f"{value:.3g}"


def scalar(value: float) -> str:
    """A float to 4 significant digits, or to 12 where those would show a round number it is not
    (``0.999999999``, not ``1``), or to as many as its fraction needs where they would show a whole number
    (``1002.57``, not ``1003``)."""
    text = f"{value:.4g}"
    digits = len(text.split("e")[0].replace("-", "").replace(".", "").strip("0"))
    if digits <= 2 and np.isfinite(value) and float(text) != value:
        text = f"{value:.12g}"
    for precision in (6, 9, 12):  # a number past 1000 whose fraction the 4 digits drop
        if any(c in text for c in ".ein") or float(text) == value:
            break
        text = f"{value:.{precision}g}"
    return text


def _short(array: np.ndarray) -> str:
    """A small array in brackets, 4 significant digits an entry (more where 4 would round it to a round number)."""
    if array.ndim == 0:
        if array.dtype.kind != "f":
            return str(array.item())
        text = scalar(array.item())
        return text if any(c in text for c in ".ein") else text + ".0"  # a float shows it is one
    return "[" + ", ".join(_short(part) for part in array) + "]"


def describe_value(name: str, value) -> str:
    """A value as a failed check shows it: small ones in full, arrays by shape, dtype and range."""
    if isinstance(value, dict):
        return f"{name}: a dict of {len(value)} arrays"
    if callable(value) or value is None:
        return ""
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return f"{name} = {scalar(value)}" if isinstance(value, float) else f"{name} = {value}"
    try:
        array = np.asarray(value)
    except ValueError:
        return f"{name} = {value!r}"
    if array.dtype == object:
        return f"{name} = {value!r}"
    if array.dtype == bool and array.size > 4:
        return f"{name} of shape {array.shape}, {int(array.sum())} of {array.size} True"
    if array.size <= 6:
        dtype = "" if array.dtype in (np.float64, np.int64, bool) else f", {array.dtype}"
        return f"{name} = {_short(array)}{dtype}"
    finite = array[np.isfinite(array)] if array.dtype.kind == "f" else array
    span = f", from {_number(finite.min())} to {_number(finite.max())}" if finite.size else ""
    kind = " as a list" if isinstance(value, list) else " as a tuple" if isinstance(value, tuple) else ""
    return f"{name} of shape {array.shape}, {array.dtype}{span}{kind}"


def snapshot(value):
    """A deep copy of an input, to compare with after the call."""
    return copy.deepcopy(value)


def sealed(value) -> bytes:
    """A digest of an input (arrays, lists, tuples, dicts, numbers): the check's own copy of a case, sealed before
    the learner's call and compared after it, which only code that reached up the call stack can have changed."""
    digest = hashlib.blake2b(digest_size=16)

    def feed(part) -> None:
        if isinstance(part, np.ndarray):
            digest.update(f"a{part.dtype.str}{part.shape}".encode())
            digest.update(np.ascontiguousarray(part).tobytes() if part.dtype.kind != "O" else repr(part).encode())
        elif isinstance(part, (list, tuple)):
            digest.update(f"{type(part).__name__}{len(part)}(".encode())
            for item in part:
                feed(item)
            digest.update(b")")
        elif isinstance(part, dict):
            digest.update(f"d{len(part)}(".encode())
            for key, item in part.items():
                digest.update(repr(key).encode())
                feed(item)
            digest.update(b")")
        elif isinstance(part, (int, float, str, bool, np.number)) or part is None:
            digest.update(repr(part).encode())
        else:
            digest.update(type(part).__name__.encode())  # an object of the lab's own: its checks look at it

    feed(value)
    return digest.digest()


def changed(before, after) -> bool:
    """Whether ``after`` differs from its ``snapshot`` ``before`` (arrays, lists, tuples, dicts, numbers)."""
    if isinstance(before, np.ndarray):
        return not (
            isinstance(after, np.ndarray)
            and before.shape == after.shape
            and before.dtype == after.dtype
            and np.array_equal(before, after, equal_nan=before.dtype.kind in "fc")
        )
    if isinstance(before, (list, tuple)):
        return type(before) is not type(after) or len(before) != len(after) or any(map(changed, before, after))
    if isinstance(before, dict):
        return before.keys() != after.keys() or any(changed(before[k], after[k]) for k in before)
    if isinstance(before, (int, float, str, bool, np.number)) or before is None:
        return not (before == after or (before != before and after != after))  # NaN stays NaN
    return False  # an object of the lab's own (a Value): its checks look at it


def changed_argument(case: Case, pristine: Case, names: list[str]) -> str | None:
    """The name of the first input the call changed, or None."""
    for name, before, after in zip(names, pristine.args, case.args):
        if changed(before, after):
            return name
    for name in pristine.kwargs:
        if changed(pristine.kwargs[name], case.kwargs[name]):
            return name
    return None


def forms(array: np.ndarray) -> dict[str, object]:
    """The same numbers as a list and as float32, for the cases that try them."""
    return {"a list": array.tolist(), "float32": array.astype(np.float32)}
