r"""What a failed check says: what is wrong with the learner's result, never what the right one is.

``compare`` returns ``None`` when the learner's result agrees with the hidden reference, else the lines a
check prints: a wrong type or shape (shapes are not answers), a NaN or an infinity and where, the largest error
and where it is, given at the precision of the tolerance, and for a probability distribution the sums of its
rows. The reference's values themselves are never printed; for a result that is one number, not even the size
of its error (with the learner's own value, that would leave two candidates), only that it exceeds the
tolerance.

Example
-------
>>> import numpy as np
>>> from transformer_math.labs.diagnose import compare
>>> compare(np.array([[0.2, 0.7], [0.5, 0.5]]), np.array([[0.3, 0.7], [0.5, 0.5]]), tol=1e-6, rows_sum_to_one=True)
['the largest error is 1.0e-01, at index (0, 0) (tolerance 1e-06)', 'the rows of your result sum to 0.900000, 1.000000']
>>> compare(0.42, 0.5, tol=1e-6)
['it differs from the right value by more than the tolerance (1e-06)']
"""

from __future__ import annotations

import math

import numpy as np

from transformer_math.block import BLOCK_NAMES

__all__: list[str] = []

# NumPy's functions as imported. A cell that replaces one (``np.all = lambda *a, **k: True``) would change what
# every comparison says: the comparisons use these bindings, and a check refuses to judge while ``numpy`` holds
# another function under one of these names (``replaced_numpy``).
NUMPY_OWN = {name: value for name, value in vars(np).items() if callable(value)}
_abs, _all, _argmax, _argwhere, _asarray = np.abs, np.all, np.argmax, np.argwhere, np.asarray
_float64, _inf, _isfinite, _isnan = np.float64, np.inf, np.isfinite, np.isnan
_unravel_index, _where = np.unravel_index, np.where


def replaced_numpy() -> str | None:
    """What a check says when a function of ``numpy`` is no longer NumPy's own, else None."""
    found = vars(np)
    names = [name for name, value in NUMPY_OWN.items() if found.get(name) is not value]
    if not names:
        return None
    return (
        f"np.{names[0]} is no longer NumPy's own: a cell replaced it, and the checks rely on NumPy's functions. "
        "Restart the kernel and run the notebook without that change"
    )


def decimals(tol: float) -> int:
    """The decimals a tolerance resolves: 1e-6 -> 6."""
    return max(0, min(12, math.ceil(-math.log10(tol)))) if tol > 0 else 12


def where(index) -> str:
    return str(tuple(int(i) for i in index)) if len(index) != 1 else f"[{int(index[0])}]"


def as_array(got):
    """The learner's result as a float array, or a message saying why it is not one."""
    if got is None:
        return None, "it returned None: a missing return?"
    if isinstance(got, (dict, set, str)) or callable(got):
        return None, f"it returned a {type(got).__name__}, not an array of numbers"
    try:
        array = _asarray(got)
    except ValueError:
        return None, "it returned a ragged sequence, not an array of numbers"
    if array.dtype == object or array.dtype.kind not in "biuf":
        return None, f"it returned values of type {array.dtype}, not numbers (shape {array.shape})"
    return array.astype(_float64), None


def compare(got, expected, tol: float = 1e-6, rtol: float = 0.0, rows_sum_to_one: bool = False) -> list[str] | None:
    """``None`` if ``got`` is within ``tol + rtol * |expected|`` of ``expected`` everywhere, else what is wrong."""
    array, problem = as_array(got)
    if problem:
        return [problem]
    expected = _asarray(expected, dtype=_float64)
    if array.shape != expected.shape:
        return [f"it returned shape {array.shape}, not {expected.shape}"]
    bad = ~_isfinite(array) & _isfinite(expected)
    if bad.any():
        first = _argwhere(bad)[0]
        value = "nan" if _isnan(array[tuple(first)]) else "inf"
        count = int(bad.sum())
        return [
            f"it contains {value} at index {where(first)}" + (f" ({count} entries are not finite)" if count > 1 else "")
        ]
    error = _abs(array - expected)
    error = _where(_isfinite(expected), error, _where(array == expected, 0.0, _inf))
    allowed = tol + rtol * _abs(_where(_isfinite(expected), expected, 0.0))
    if _all(error <= allowed):
        return None
    tolerance = f"{tol:.0e}{f' + {rtol:.0e} of the value' if rtol else ''}"
    if error.size == 1:  # one number: its error and the learner's value would leave two candidates for the answer
        return [f"it differs from the right value by more than the tolerance ({tolerance})"]
    worst = _unravel_index(_argmax(error - allowed), error.shape)
    lines = [f"the largest error is {error[worst]:.1e}, at index {where(worst)} (tolerance {tolerance})"]
    if rows_sum_to_one and array.ndim:
        sums = array.sum(axis=-1).reshape(-1)
        shown = ", ".join(f"{s:.{decimals(tol)}f}" for s in sums[:6]) + (", ..." if sums.size > 6 else "")
        lines.append(f"the rows of your result sum to {shown}")
    return lines


def compare_parts(got, expected: tuple, names: tuple[str, ...], **options) -> list[str] | None:
    """``compare`` for a function that returns several arrays (``dQ, dK, dV``): each part by its name."""
    if not isinstance(got, (tuple, list)) or len(got) != len(expected):
        kind = f"{len(got)} values" if isinstance(got, (tuple, list)) else f"a {type(got).__name__}"
        return [f"it returned {kind}, not the {len(expected)} values {', '.join(names)}"]
    for name, part, reference in zip(names, got, expected):
        lines = compare(part, reference, **options)
        if lines:
            return [f"{name}: {lines[0]}", *lines[1:]]
    return None


def float_dtypes(value):
    """The float dtypes of the arrays in ``value`` (an array, a list of numbers, or lists, tuples and dicts of
    them). A Python number is left out: NumPy lets it take the dtype of the array it meets."""
    if isinstance(value, (np.ndarray, np.generic)):
        return [value.dtype] if value.dtype.kind == "f" else []
    if isinstance(value, dict):
        return [dtype for part in value.values() for dtype in float_dtypes(part)]
    if isinstance(value, (list, tuple)):
        try:
            array = _asarray(value)
        except (TypeError, ValueError):  # ragged: its parts one by one
            array = None
        if array is not None and array.dtype != object:
            return [array.dtype] if array.dtype.kind == "f" and array.ndim else []
        return [dtype for part in value for dtype in float_dtypes(part)]
    return []


def lost_precision(result, inputs: tuple, parts: tuple[str, ...] = ()) -> list[str] | None:
    """A float result (or part: ``parts`` names a tuple's, a dict names its own) of less precision than every
    float array of the inputs is refused: float64 in, float32 out keeps the error near 1e-7, under most
    tolerances, but loses the precision the caller gave. Integers, booleans and objects are no float result;
    with float32 and float64 inputs mixed, either width may come out (NumPy promotes, a cast may keep the data's)."""
    given = float_dtypes(inputs)
    if not given:
        return None
    narrowest = min(given, key=lambda dtype: dtype.itemsize)
    if isinstance(result, dict):
        named = list(result.items())
    elif parts and isinstance(result, (tuple, list)):
        named = list(zip(parts, result))
    else:
        named = [("", result)]
    for name, part in named:
        if not isinstance(part, (np.ndarray, np.generic, list)):
            continue
        got = [dtype for dtype in float_dtypes(part) if dtype.itemsize < narrowest.itemsize]
        if got:
            said = f"{name}: " if name else ""
            return [f"{said}the result is {got[0]} where the input was {narrowest}: keep the input's precision"]
    return None


def forward_rank(name: str) -> tuple[int, int]:
    """Where a parameter is used in the forward pass: the embeddings, then block 0's arrays in the order of
    BLOCK_NAMES, block 1's (``h1.``), ..., then the final LayerNorm and the unembedding."""
    layer, _, base = name.rpartition(".")
    if base in BLOCK_NAMES:
        return (1 + int(layer[1:] or 0), BLOCK_NAMES.index(base))
    return (10**6, ("lnf_g", "lnf_b", "W_U").index(base)) if base in ("lnf_g", "lnf_b", "W_U") else (0, 0)


def compare_grads(got, expected: dict, tol: float, rtol: float = 1e-6) -> list[str] | None:
    """Every gradient of a dictionary, by name: a missing one, a shape, or the largest error. The names are
    compared in backward order (the reverse of the parameters' forward order), so the first one reported is
    the earliest wrong step of the backward pass: a forgotten final LayerNorm shows at ``lnf_g``, not at ``W_E``."""
    if not isinstance(got, dict):
        return [f"the gradients should be a dict by parameter name; it is a {type(got).__name__}"]
    missing = sorted(set(expected) - set(got))
    if missing:
        return [f"it has no gradient for {', '.join(missing[:4])}" + (", ..." if len(missing) > 4 else "")]
    for name in sorted(expected, key=forward_rank, reverse=True):
        lines = compare(got[name], expected[name], tol=tol, rtol=rtol)
        if lines:
            return [f"grads[{name!r}]: {lines[0]}", *lines[1:]]
    return None
