r"""Mean, variance, standard deviation -- and Layer Normalization, the same statistics taken per token.

For values $x_1, \dots, x_n$:

$$\begin{aligned}
\mu &= \frac{1}{n}\sum_i x_i, \\
\sigma^2 &= \frac{1}{n - \text{ddof}}\sum_i (x_i - \mu)^2, \qquad \sigma = \sqrt{\sigma^2}.
\end{aligned}$$

``ddof=0`` gives the population variance (what NumPy's ``np.var`` computes, and what LayerNorm uses);
``ddof=1`` gives the sample variance, the unbiased estimate of the population variance from independent
draws.

Every function takes an ``axis``: ``None`` for all values, or the axis to reduce, so a tensor of shape
``(batch, seq, d)`` is normalised per token with ``axis=-1``.

Example
-------
>>> from transformer_math.stats import mean, variance, std
>>> data = [1, 2, 3, 4, 5]
>>> print(mean(data), variance(data), std(data))
3.0 2.0 1.4142135623730951
"""

from __future__ import annotations

import numpy as np

from transformer_math.checks import (
    check_axes,
    check_axis,
    check_integer,
    check_no_nan,
    check_number,
    float_array,
    weight,
    wide,
)

__all__ = ["mean", "variance", "std", "layer_norm"]


# --8<-- [start:check_values]
def check_values(x, axis, where: str) -> tuple[np.ndarray, tuple[int, ...], int]:
    """``x`` as a finite float array, the axes to reduce, and how many values each result uses."""
    x = float_array(x, "x")
    check_no_nan(x, f"{where}: x", finite=True)  # the mean or spread of values with inf/NaN is undefined
    axes = check_axes(axis, x)
    n = int(np.prod([x.shape[a] for a in axes]))
    return x, axes, n


# --8<-- [end:check_values]


# --8<-- [start:mean]
def mean(x, axis=None, keepdims=False):
    r"""The arithmetic mean $\mu = \frac{1}{n}\sum_i x_i$.

    Parameters
    ----------
    x : array_like
        Values.
    axis : int, tuple of int or None
        Axis to average over; ``None`` averages every value.
    keepdims : bool
        Keep the reduced axes with length 1, so the result broadcasts against ``x``.

    Examples
    --------
    >>> from transformer_math.stats import mean
    >>> print(mean([[1, 2], [3, 6]], axis=1))
    [1.5 4.5]
    """
    x, axes, n = check_values(x, axis, "mean")
    if n == 0:
        raise ValueError(f"mean of no values: x has shape {x.shape}, axis {axis}")
    with np.errstate(over="ignore"):  # a sum can pass 1.8e308 where the mean does not
        total = np.sum(wide(x), axis=axes, keepdims=keepdims)  # float16 and float32 summed in float64
    if not np.all(np.isfinite(total)):
        return np.sum(wide(x) / n, axis=axes, keepdims=keepdims).astype(x.dtype)  # divide first: no overflow
    return (total / n).astype(x.dtype)  # back to x's precision


# --8<-- [end:mean]


# --8<-- [start:variance]
def variance(x, axis=None, ddof=0, keepdims=False):
    r"""The variance $\sigma^2 = \frac{1}{n - \text{ddof}}\sum_i (x_i - \mu)^2$.

    Parameters
    ----------
    x : array_like
        Values.
    axis : int, tuple of int or None
        Axis to reduce; ``None`` uses every value.
    ddof : int
        "Delta degrees of freedom": 0 for the population variance (divide by $n$), 1 for the sample
        variance (divide by $n - 1$).
    keepdims : bool
        Keep the reduced axes with length 1.

    Examples
    --------
    >>> from transformer_math.stats import variance
    >>> print(variance([1, 2, 3, 4, 5]), variance([1, 2, 3, 4, 5], ddof=1))
    2.0 2.5
    """
    x, axes, n = check_values(x, axis, "variance")
    ddof = check_integer(ddof, "ddof")
    if n - ddof <= 0:
        raise ValueError(f"variance with ddof={ddof} needs more than {ddof} values along axis {axis}, got {n}")
    with np.errstate(over="ignore"):  # a variance past 1.8e308 is inf: it really overflows
        deviations = wide(x) - mean(wide(x), axis=axes, keepdims=True)  # squares of float16, float32 in float64
        return (np.sum(deviations * deviations, axis=axes, keepdims=keepdims) / (n - ddof)).astype(x.dtype)


# --8<-- [end:variance]


# --8<-- [start:std]
def std(x, axis=None, ddof=0, keepdims=False):
    r"""The standard deviation $\sigma = \sqrt{\sigma^2}$, in the same units as ``x``.

    Examples
    --------
    >>> from transformer_math.stats import std
    >>> print(std([1, 2, 3, 4, 5]))
    1.4142135623730951
    """
    x, axes, _ = check_values(x, axis, "std")
    k = np.frexp(np.max(np.abs(wide(x)), axis=axes, keepdims=True))[1]  # a row's largest |x| is m 2**k, m < 1
    u = np.ldexp(wide(x), -k)  # x / 2**k, exactly: its squares neither overflow (1e200) nor vanish (1e-200)
    out = np.ldexp(np.sqrt(variance(u, axis=axes, ddof=ddof, keepdims=True)), k)  # std(x) = 2**k std(x / 2**k)
    return (out if keepdims else np.squeeze(out, axis=axes)).astype(x.dtype)[()]  # [()]: a scalar for axis=None


# --8<-- [end:std]


def feature_vector(v, name: str, d: int, x: np.ndarray, axis: int) -> np.ndarray:
    """``v`` (a gain or a shift) as a finite float vector of length ``d`` in ``x``'s dtype."""
    v = float_array(v, name)
    if v.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},) to match axis {axis} of x {x.shape}, got {v.shape}")
    return weight(v, f"layer_norm: {name}", (d,), x.dtype)  # finite, and still finite in x's dtype


# --8<-- [start:layer_norm]
def layer_norm(x, gamma=None, beta=None, eps=1e-5, axis=-1):
    r"""Layer Normalization: $y = \gamma \odot \dfrac{x - \mu}{\sqrt{\sigma^2 + \varepsilon}} + \beta$.

    $\mu$ and $\sigma^2$ are the mean and the (biased, ``ddof=0``) variance of each vector along ``axis``
    -- in a Transformer, of each token's ``d`` features. After it every token has mean 0 and standard
    deviation close to 1 (a bit under 1, because of $\varepsilon$), then $\gamma$ and $\beta$ (learned,
    one per feature) rescale and shift it.

    Parameters
    ----------
    x : array_like
        Activations, e.g. of shape ``(batch, seq, d)``.
    gamma, beta : array_like or None
        Scale and shift of shape ``(d,)`` where ``d = x.shape[axis]``; ``None`` means ones and zeros.
    eps : float
        Added to the variance so that a constant vector does not divide by zero.
    axis : int
        The feature axis.

    Examples
    --------
    >>> from transformer_math.stats import layer_norm
    >>> print(layer_norm([1.0, 2.0, 3.0]).round(4))
    [-1.2247  0.      1.2247]
    """
    x = float_array(x, "x")
    check_no_nan(x, "layer_norm: x", finite=True)
    axis = check_axis(axis, x)
    eps = check_number(eps, "eps")
    if eps < 0:
        raise ValueError(f"eps must be >= 0, got {eps}")
    if x.shape[axis] == 0:
        raise ValueError(f"layer_norm of an empty axis: axis {axis} of x, shape {x.shape}, has length 0")
    if eps == 0 and np.any(np.max(x, axis=axis) == np.min(x, axis=axis)):
        raise ValueError("layer_norm with eps=0 of a constant vector divides 0 by 0; use eps > 0")
    d = x.shape[axis]
    gamma = None if gamma is None else feature_vector(gamma, "gamma", d, x, axis)
    beta = None if beta is None else feature_vector(beta, "beta", d, x, axis)
    return np.moveaxis(_layer_norm(np.moveaxis(x, axis, -1), gamma, beta, eps), -1, axis)


def _layer_norm(x, gamma=None, beta=None, eps=1e-5):
    """``layer_norm`` over the last axis without the checks: ``x`` finite, ``gamma`` and ``beta`` in its dtype."""
    y, _ = normalise(x, eps)  # (x - mu) / sqrt(var + eps), row by row
    if gamma is not None:
        y *= gamma
    if beta is not None:
        y += beta
    return y.astype(x.dtype, copy=False)


SMALLEST_SPREAD = {t: np.sqrt(np.finfo(t).tiny / np.finfo(t).eps) for t in (np.float32, np.float64)}  # below: underflow


def normalise(x, eps):
    r"""$\hat x = (x - \mu) / s$ and $s = \sqrt{\sigma^2 + \varepsilon}$ of each row (last axis) of a finite ``x``.

    float16 is computed in float32, as PyTorch does. A row whose squares overflow (or, with a tiny
    $\varepsilon$, vanish) is divided first by the power of 2 nearest its largest entry, $x = 2^k u$: then
    $\hat x = (u - \mu_u) / \sqrt{\sigma_u^2 + \varepsilon\, 2^{-2k}}$ exactly, and $s = 2^k s_u$. Each row has its
    own $k$, so an ordinary row beside a huge one keeps its own variance.
    """
    w = x if x.dtype.itemsize >= 4 else x.astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # rows past 1e19 (float32): fixed below
        centred = w - row_means(w)
        spread = np.einsum("...i,...i->...", centred, centred)[..., None]  # sum of squares, without their array
        spread /= w.shape[-1]
        spread += eps
        np.sqrt(spread, out=spread)
        bad = ~(np.isfinite(spread) & (spread >= SMALLEST_SPREAD[w.dtype.type]))
        centred /= spread  # a bad row's quotient is replaced below
    if np.any(bad):
        rows = bad[..., 0]
        centred[rows], spread[rows] = rescaled(w[rows], eps)
    return centred, spread


def row_means(x):
    """The mean of each row of ``x`` (its last axis), shaped ``(..., 1)``: by a matrix-vector product, which is
    several times faster than ``np.mean(x, axis=-1)`` on rows as short as a token's features."""
    total = x @ np.ones(x.shape[-1], dtype=x.dtype)  # the sum, then one division: a constant row's mean is exact
    total /= x.shape[-1]
    return total[..., None]


def rescaled(x, eps):
    """``normalise`` of rows whose squares overflow or vanish: each row divided by a power of 2 first, in float64."""
    u = x.astype(np.float64)
    k = np.frexp(np.max(np.abs(u), axis=-1, keepdims=True))[1]  # the row's largest |x| is m 2**k, 1/2 <= m < 1
    if eps > 0:  # eps 2**(-2k) must stay finite: a row far below sqrt(eps) needs no scaling up
        k = np.maximum(k, np.frexp(np.sqrt(eps))[1] - 500)
    u = np.ldexp(u, -k)  # exact: |u| < 1
    u -= np.mean(u, axis=-1, keepdims=True)
    s = np.sqrt(np.mean(u * u, axis=-1, keepdims=True) + np.ldexp(eps, -2 * k))
    with np.errstate(over="ignore", under="ignore"):  # s 2**k past the dtype's range: inf or 0, as it rounds
        return (u / s).astype(x.dtype), np.ldexp(s, k).astype(x.dtype)


# --8<-- [end:layer_norm]
