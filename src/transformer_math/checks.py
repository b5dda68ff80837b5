r"""The input checks every function of the library makes, written once.

Each check either returns its argument in the form the function needs or raises an error that names
the argument and says what it got: ``TypeError`` when the *kind* of value is wrong (a string, a boolean
array, a float where a count is needed), ``ValueError`` when the kind is right but the value is not (an
axis out of range, a shape that does not fit, a NaN, a target outside the vocabulary).

Two conventions live here, so that every module applies the same ones:

* **dtype**: a floating-point array keeps its precision (float32 in, float32 out, as in PyTorch);
  integers become float64; booleans, complex numbers, strings and objects are refused.
* **axis**: an integer from ``-ndim`` to ``ndim - 1``; anything else is refused before NumPy sees it.

Example
-------
>>> import numpy as np
>>> from transformer_math.checks import float_array
>>> print(float_array([1, 2], "x").dtype, float_array(np.ones(2, dtype=np.float32), "x").dtype)
float64 float32
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable

import numpy as np

__all__ = [
    "real_array",
    "float_array",
    "integer_array",
    "array_list",
    "check_axis",
    "check_axes",
    "check_no_nan",
    "check_integer",
    "check_number",
    "check_in_range",
    "check_callable",
    "check_choice",
    "check_float_dtype",
    "check_generator",
    "scalar_result",
    "token_ids",
    "wide",
    "weight",
]


# --8<-- [start:float_array]
def real_array(x, name: str) -> np.ndarray:
    """``x`` as an array of integers or floats, as given; booleans, complex numbers and text are refused."""
    try:
        array = np.asarray(x)
    except ValueError:  # a ragged list such as [[1, 2], [3]]
        raise ValueError(f"{name} must be a rectangular array of numbers, got {x!r}") from None
    if array.dtype == bool:
        raise TypeError(
            f"{name} must hold numbers, got a boolean array of shape {array.shape}; for 0 and 1 use .astype(float)"
        )
    if not (np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)):
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype} (shape {array.shape})")
    return array


def float_array(x, name: str) -> np.ndarray:
    """``x`` as a floating-point array: float16/32/64 keep their precision, integers become float64."""
    array = real_array(x, name)  # refuses booleans, complex numbers, text and ragged lists
    return array if np.issubdtype(array.dtype, np.floating) else array.astype(np.float64)


# --8<-- [end:float_array]


# --8<-- [start:check_axis]
def check_axis(axis, x: np.ndarray, name: str = "x") -> int:
    """``axis`` as an int from ``-x.ndim`` to ``x.ndim - 1``, or an error naming the axis and ``x``'s shape."""
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"axis must be an integer, got {axis!r}")
    if x.ndim == 0:
        raise ValueError(f"{name} is a scalar (shape ()); it has no axis {axis} to work along")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(
            f"axis {axis} is out of range for {name} of shape {x.shape} (valid: {-x.ndim} to {x.ndim - 1})"
        )
    return int(axis)


# --8<-- [end:check_axis]


def check_axes(axis, x: np.ndarray, name: str = "x") -> tuple[int, ...]:
    """``axis`` (``None``, an integer or a tuple of integers) as a tuple of distinct axes of ``x``."""
    if axis is None:
        return tuple(range(x.ndim))
    axes = tuple(check_axis(a, x, name) % x.ndim for a in (axis if isinstance(axis, tuple) else (axis,)))
    if len(set(axes)) != len(axes):
        raise ValueError(f"axis {axis} names the same axis of {name} (shape {x.shape}) twice")
    return axes


def check_no_nan(x: np.ndarray, name: str, *, finite: bool = False) -> None:
    """Refuse NaN (and +-inf too if ``finite``), saying where the first one is."""
    bad = ~np.isfinite(x) if finite else np.isnan(x)
    if np.any(bad):
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        value = "NaN" if np.isnan(x[where]) else f"{float(x[where])}"
        raise ValueError(f"{name} contains {value} (first at index {where} of shape {x.shape})")


def check_integer(value, name: str, minimum: int = 0) -> int:
    """``value`` as a Python int ``>= minimum``: a count, a size, a length, a number of steps."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return int(value)


# --8<-- [start:check_number]
def check_number(value, name: str, *, positive: bool = False, finite: bool = True) -> float:
    """``value`` as a finite Python float (``> 0`` if ``positive``): a step, a temperature, an epsilon.

    With ``finite=False`` an infinity is allowed and only NaN refused."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    number = float(value)
    if math.isnan(number) or (finite and math.isinf(number)) or (positive and number <= 0):
        kind = "a finite number" if finite else "a number, not NaN"
        raise ValueError(f"{name} must be {kind}{' > 0' if positive else ''}, got {value!r}")
    return number


# --8<-- [end:check_number]


def integer_array(x, name: str) -> np.ndarray:
    """``x`` as an array of integers (token ids, counts); booleans, floats and text are refused."""
    try:
        array = np.asarray(x)
    except ValueError:  # a ragged list such as [[1, 2], [3]]
        raise ValueError(f"{name} must be a rectangular array of integers, got {x!r}") from None
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"{name} must be integer token ids, got dtype {array.dtype} (shape {array.shape})")
    return array


def token_ids(targets, name: str, vocab: int, item: str = "target") -> np.ndarray:
    """``targets`` as an integer array of ids in ``0 .. vocab - 1``; ``item`` names one entry in messages."""
    targets = integer_array(targets, name)
    bad = (targets < 0) | (targets >= vocab)
    if np.any(bad):
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{item} {int(targets[where])} at position {where} of {name} is out of range "
            f"for a vocabulary of {vocab} tokens (valid ids: 0 to {vocab - 1})"
        )
    return targets


def check_in_range(
    value, name: str, low: float, high: float = math.inf, *, low_open: bool = False, high_open: bool = True
) -> float:
    """``value`` as a float in the interval from ``low`` to ``high`` (open or closed at each end), or an error."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    number = float(value)
    too_low = number <= low if low_open else number < low
    too_high = number >= high if high_open else number > high
    if math.isnan(number) or too_low or too_high:
        left, right = "(" if low_open else "[", ")" if high_open else "]"
        raise ValueError(f"{name} must be in {left}{low:g}, {high:g}{right}, got {value!r}")
    return number


def check_callable(f, name: str = "f") -> Callable:
    """``f`` itself if it can be called, else a TypeError naming it."""
    if not callable(f):
        raise TypeError(f"{name} must be a function (a callable), got {f!r} ({type(f).__name__})")
    return f


def check_choice(value, name: str, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of the strings ``choices`` (an option such as ``activation``), else an error naming it."""
    if not isinstance(value, str):
        raise TypeError(
            f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r} ({type(value).__name__})"
        )
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


def check_generator(rng, name: str = "rng") -> np.random.Generator:
    """``rng`` if it is a ``numpy.random.Generator``, else a TypeError saying how to make one."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"{name} must be a numpy.random.Generator (np.random.default_rng(seed)), got {rng!r}")
    return rng


def scalar_result(value, where: str, name: str = "f") -> float:
    """What ``f`` returned, as one finite Python float; a TypeError naming ``f`` if it is not a number."""
    if value is None or isinstance(value, (str, bytes, bool)):
        raise TypeError(f"{name} must return a number, but returned {value!r} {where}")
    try:
        array = real_array(value, f"the value {name} returned")
    except (TypeError, ValueError):
        raise TypeError(f"{name} must return a number, but returned {value!r} {where}") from None
    if array.dtype == bool:
        raise TypeError(f"{name} must return a number, but returned {value!r} {where}")
    if array.size != 1:
        raise ValueError(f"{name} must return a single number, but returned an array of shape {array.shape} {where}")
    number = float(array.reshape(()))
    if not math.isfinite(number):
        raise ValueError(f"{name} returned {number} {where}; a finite difference needs finite values")
    return number


def array_list(arrays, name: str, item: str) -> list[np.ndarray]:
    """``arrays`` (a list of array-likes, one per parameter) as finite float arrays; ``item`` names one in messages."""
    if isinstance(arrays, np.ndarray):
        raise TypeError(f"{name} must be a list of arrays, one per parameter; for a single array write [{item[0]}]")
    if isinstance(arrays, (str, bytes)) or not isinstance(arrays, Iterable):
        raise TypeError(f"{name} must be a list of arrays, got {type(arrays).__name__}")
    checked = []
    for i, a in enumerate(arrays):
        a = float_array(a, f"{item} {i}")
        check_no_nan(a, f"{item} {i}", finite=True)
        checked.append(a)
    return checked


def wide(x: np.ndarray) -> np.ndarray:
    """``x`` in at least float64, for sums of squares that would overflow float16 or float32."""
    return x.astype(np.promote_types(x.dtype, np.float64), copy=False)


def weight(w, name: str, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """``w`` (a weight matrix, a gain, a shift) as a finite float array of ``shape``, in ``dtype``.

    ``dtype`` is that of the activations it meets, so float32 activations stay float32 whatever the
    weights were made in (``np.eye`` and ``rng.normal`` give float64)."""
    w = float_array(w, name)
    if w.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {w.shape}")
    check_no_nan(w, name, finite=True)
    with np.errstate(over="ignore"):  # a float64 weight past 65504 (float16) or 3.4e38 (float32) becomes inf
        cast = w.astype(dtype, copy=False)
    if not np.all(np.isfinite(cast)):
        raise ValueError(
            f"{name} has entries up to {np.max(np.abs(w)):g}, beyond the largest {dtype}, {np.finfo(dtype).max:g}"
        )
    return cast


def check_float_dtype(dtype, name: str = "dtype") -> np.dtype:
    """``dtype`` as a NumPy floating-point dtype (float16, float32 or float64), else an error naming it."""
    try:
        checked = np.dtype(dtype) if dtype is not None else None
    except TypeError:
        checked = None
    if checked is None:
        raise TypeError(f"{name} must be a float dtype such as np.float32, got {dtype!r}")
    if not np.issubdtype(checked, np.floating):
        raise TypeError(f"{name} must be a float dtype such as np.float32, got {checked}")
    return checked
