r"""Softmax, log-sum-exp and log-softmax, written to be numerically stable.

Softmax turns a vector of scores (logits) into a probability distribution:

$$\operatorname{softmax}(x)_i = \frac{e^{x_i}}{\sum_j e^{x_j}}.$$

Every function works along one ``axis`` (the last by default) of an array of any shape, so a batch of
attention rows of shape ``(batch, heads, queries, keys)`` is handled in one call, with no Python loop.

The trick that makes them stable is to subtract the largest score first: $e^{x_i - m} / \sum_j e^{x_j - m}$
is the same number (the factor $e^{-m}$ cancels), but no exponential can overflow because every shifted
score is $\le 0$. Positions set to $-\infty$ (masked, as in causal attention) get probability exactly 0. The
sums are taken in at least float32, as PyTorch's do: in float16 a running sum of ones stops growing at 2048,
and a pairwise one overflows past 65,504 terms (a vocabulary of 128,256 tokens with nearly equal logits).

Example
-------
>>> import numpy as np
>>> from transformer_math.softmax import softmax
>>> print(np.round(softmax(np.array([1000.0, 1001.0, 1002.0])), 4))
[0.09   0.2447 0.6652]
"""

from __future__ import annotations

import numpy as np

from transformer_math.checks import check_axis, check_no_nan, check_number, float_array

__all__ = ["softmax", "naive_softmax", "logsumexp", "log_softmax"]


# --8<-- [start:check_rows]
def check_rows(x: np.ndarray, m: np.ndarray, axis: int, where: str, name: str = "x") -> None:
    """Refuse rows that no softmax can normalise: empty, holding NaN or +inf, or entirely -inf (all masked).

    Looking at the maxima ``m`` is enough: a row's maximum is NaN if it holds a NaN, +inf if it holds +inf,
    and -inf only if every entry is -inf.
    """
    if x.shape[axis] == 0:
        raise ValueError(f"{where} of an empty axis: axis {axis} of {name}, shape {x.shape}, has length 0")
    if np.all(np.isfinite(m)):
        return  # the usual case, settled by one look at the maxima
    m = np.squeeze(m, axis=axis)
    if np.any(np.isnan(m)):
        check_no_nan(x, f"{where}: {name}")  # says where the first NaN is
    if np.any(m == np.inf):
        raise ValueError(f"{where}: {name} contains +inf, whose share of the total is undefined (inf / inf)")
    if np.any(m == -np.inf):
        row = tuple(int(i) for i in np.argwhere(m == -np.inf)[0])
        raise ValueError(
            f"{where}: every position of row {row} is -inf, i.e. every position is masked; "
            "a softmax needs at least one unmasked position"
        )


# --8<-- [end:check_rows]


# --8<-- [start:naive_softmax]
def naive_softmax(x, axis=-1):
    r"""Softmax straight from the formula $e^{x_i} / \sum_j e^{x_j}$ -- kept to show why it fails.

    ``np.exp`` overflows to ``inf`` once a score passes about 709.78 (float64), and ``inf / inf`` is NaN.
    Use ``softmax`` instead. The inputs that no softmax can normalise (an empty row, NaN, +inf, a row
    entirely -inf) are refused as ``softmax`` refuses them; finite scores go straight into the formula.

    Parameters
    ----------
    x : array_like
        Scores (logits).
    axis : int
        The axis that is turned into a distribution.

    Examples
    --------
    >>> from transformer_math.softmax import naive_softmax
    >>> print(naive_softmax([0.0, 1.0, 2.0]).round(4))
    [0.09   0.2447 0.6652]
    """
    x = float_array(x, "x")
    axis = check_axis(axis, x)
    check_rows(x, np.max(x, axis=axis, keepdims=True, initial=-np.inf), axis, "naive_softmax")  # as softmax
    e = np.exp(x)  # overflows to inf past 709.78: the failure this function is kept to show
    return e / np.sum(e, axis=axis, keepdims=True)


# --8<-- [end:naive_softmax]


# --8<-- [start:softmax]
def softmax(x, axis=-1, temperature=1.0):
    r"""Stable softmax along ``axis``: $\operatorname{softmax}(x / T)_i = e^{(x_i - m)/T} / \sum_j e^{(x_j - m)/T}$.

    Here $m = \max_j x_j$ and $T$ is the temperature. Subtracting $m$ changes nothing mathematically and
    keeps every exponent $\le 0$, so nothing overflows. Entries equal to $-\infty$ get probability 0.

    Parameters
    ----------
    x : array_like
        Scores (logits), any shape.
    axis : int
        The axis that is turned into a distribution (the last by default).
    temperature : float
        $T > 0$. Below 1 sharpens the distribution, above 1 flattens it.

    Returns
    -------
    numpy.ndarray
        Same shape as ``x``; non-negative and summing to 1 along ``axis``.

    Raises
    ------
    ValueError
        If ``temperature <= 0``, ``axis`` is out of range, or a row is empty, entirely $-\infty$ (every
        position masked), or holds NaN/+inf.
    TypeError
        If ``x`` is not real numbers (booleans, text, complex) or ``axis`` is not an integer.

    Examples
    --------
    >>> from transformer_math.softmax import softmax
    >>> print(softmax([2.0, 1.0, 0.1]).round(4))
    [0.659  0.2424 0.0986]
    >>> print(softmax([2.0, 1.0, 0.1], temperature=0.5).round(4))
    [0.8638 0.1169 0.0193]
    """
    temperature = check_number(temperature, "temperature", positive=True)
    x = float_array(x, "x")
    axis = check_axis(axis, x)
    check_rows(x, np.max(x, axis=axis, keepdims=True, initial=-np.inf), axis, "softmax")  # empty, NaN, +inf, all -inf
    return _softmax(x, axis, temperature)


def _softmax(x, axis=-1, temperature=1.0, out=None):
    """``softmax`` without the checks: every row of ``x`` has a finite maximum, ``temperature > 0``; ``out=x``
    computes it in place."""
    finfo = np.finfo(x.dtype)
    if x.dtype != np.float64 and not float(finfo.tiny) <= temperature <= float(finfo.max):  # T would round to 0 or
        return _softmax(x.astype(np.float64), axis, temperature).astype(x.dtype)  # inf in x's dtype: in float64
    m = np.max(x, axis=axis, keepdims=True)  # the largest score of each row
    with np.errstate(over="ignore", invalid="ignore"):  # a shift past -1.8e308 gives -inf, whose exp is 0
        out = np.subtract(x, m, out=out)  # the one full-size array we allocate; every entry <= 0
        if temperature != 1.0:
            out /= temperature  # (x - m) / T: the maximum of x / T is m / T
            if temperature > 1.0:  # x - m may have overflowed where (x - m) / T does not
                lost = np.isinf(out) & np.isfinite(x)
                out[lost] = (x / temperature - m / temperature)[lost]  # divide first, then subtract
    np.exp(out, out=out)  # in place: exp(-inf) is exactly 0
    out /= np.sum(out, axis=axis, keepdims=True, dtype=summing(out.dtype))
    return out


def summing(dtype: np.dtype) -> np.dtype:
    """The dtype the sums of exponentials are taken in: float32 for float16 (whose largest value is 65,504),
    else the input's own."""
    return np.promote_types(dtype, np.float32)


# --8<-- [end:softmax]


# --8<-- [start:logsumexp]
def logsumexp(x, axis=-1, keepdims=False):
    r"""$\log \sum_j e^{x_j}$ along ``axis``, computed as $m + \operatorname{log1p}\left(\sum_{j \ne k} e^{x_j - m}\right)$.

    Here $m = x_k = \max_j x_j$. The maximum's own term is exactly $e^0 = 1$; leaving it out of the sum
    and adding it back with ``log1p`` keeps the digits of a small rest: ``logsumexp([0, -40])`` is
    $\log(1 + e^{-40}) \approx 4.2 \times 10^{-18}$, where $\log(1 + 4.2 \times 10^{-18})$ rounds to 0
    (Blanchard, Higham & Higham, 2021).

    Parameters
    ----------
    x : array_like
        Scores, any shape.
    axis : int
        The axis summed over.
    keepdims : bool
        Keep ``axis`` as a length-1 axis (handy for broadcasting back against ``x``).

    Returns
    -------
    numpy.ndarray or float
        ``x`` with ``axis`` reduced. A row that is entirely $-\infty$, or empty, gives $-\infty$ (the log
        of 0, as in PyTorch); a row holding $+\infty$ gives $+\infty$. NaN raises ``ValueError``.

    Examples
    --------
    >>> from transformer_math.softmax import logsumexp
    >>> print(round(float(logsumexp([1000.0, 1000.0])), 6))
    1000.693147
    >>> print(logsumexp([0.0, -40.0]))
    4.248354255291589e-18
    """
    x = float_array(x, "x")
    axis = check_axis(axis, x)
    check_no_nan(x, "logsumexp: x")
    if x.shape[axis] == 0:  # the log of an empty sum, as in PyTorch
        return np.full(np.max(x, axis=axis, keepdims=keepdims, initial=-np.inf).shape, -np.inf, dtype=x.dtype)
    k = np.argmax(x, axis=axis, keepdims=True)  # where the maximum is (the first, if it is tied)
    m = np.take_along_axis(x, k, axis=axis)
    with np.errstate(over="ignore", invalid="ignore"):  # a shift past -1.8e308 gives -inf, whose exp is 0
        shifted = np.exp(np.subtract(x, m))
    np.put_along_axis(shifted, k, 0.0, axis=axis)  # leave the maximum's own e^0 = 1 out of the sum ...
    rest = np.sum(shifted, axis=axis, keepdims=True, dtype=summing(x.dtype))
    out = (m + np.log1p(rest)).astype(x.dtype)  # ... and add it back inside log1p
    out = np.where(np.isfinite(m), out, m)  # a row of -inf gives -inf, a row holding +inf gives +inf
    return out if keepdims else np.squeeze(out, axis=axis)


# --8<-- [end:logsumexp]


# --8<-- [start:log_softmax]
def log_softmax(x, axis=-1):
    r"""$\log \operatorname{softmax}(x)_i = x_i - \log \sum_j e^{x_j} = (x_i - m) - \log \sum_j e^{x_j - m}$.

    Computed from the shifted scores, never as ``np.log(softmax(x))``: a probability that underflows to 0
    would give $-\infty$, while this stays finite whenever a row's scores span less than the largest float
    (about 1.8e308 in float64, 3.4e38 in float32). Past that, $x_i - m$ itself is too large for a float,
    and the entry is $-\infty$.

    Parameters
    ----------
    x : array_like
        Scores (logits), any shape.
    axis : int
        The axis that is turned into a log-distribution.

    Returns
    -------
    numpy.ndarray
        Same shape as ``x``; ``np.exp`` of it sums to 1 along ``axis``. Masked ($-\infty$) entries stay $-\infty$.

    Raises
    ------
    ValueError
        If ``axis`` is out of range, or a row is empty, entirely $-\infty$ (every position masked), or
        holds NaN/+inf.
    TypeError
        If ``x`` is not real numbers (booleans, text, complex) or ``axis`` is not an integer.

    Examples
    --------
    >>> from transformer_math.softmax import log_softmax
    >>> print(log_softmax([0.0, 10000.0]))
    [-10000.      0.]
    """
    x = float_array(x, "x")
    axis = check_axis(axis, x)
    m = np.max(x, axis=axis, keepdims=True, initial=-np.inf)  # the largest score of each row
    check_rows(x, m, axis, "log_softmax")  # refuses empty rows, NaN, +inf, and rows that are all -inf
    with np.errstate(over="ignore"):  # a shift past -1.8e308 gives -inf, as exact as it can be
        out = np.subtract(x, m)  # shifted scores, every entry <= 0
    total = np.sum(np.exp(out), axis=axis, keepdims=True, dtype=summing(x.dtype))  # >= 1: the maximum gives e^0
    out -= np.log(total)
    return out


# --8<-- [end:log_softmax]
