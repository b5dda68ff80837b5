r"""Numerical derivatives: finite differences and gradient checks.

A derivative is a limit, $f'(x) = \lim_{h \to 0} \frac{f(x + h) - f(x)}{h}$. A computer cannot take
the limit, but it can pick a small $h$ and divide. This module does exactly that, for one number
(``derivative``) and for every entry of an array (``numerical_gradient``), and compares such an
estimate with a gradient worked out by hand (``gradient_check``).

Finite differences are slow (two calls of ``f`` per entry) and only accurate to about six to ten
digits, so nobody trains with them. Their use is to *check* the analytic gradients and the backward
passes that training does use.

Example
-------
>>> from transformer_math.calculus import derivative
>>> round(derivative(lambda x: x ** 2, 3.0), 6)
6.0
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from transformer_math.checks import check_callable, check_no_nan, check_number, float_array, scalar_result

__all__ = ["derivative", "numerical_gradient", "gradient_check", "GradientCheck"]

METHODS = ("central", "forward")


def check_function_and_step(f, h) -> float:
    """``f`` must be callable and ``h`` a finite number > 0 (the step of the finite difference)."""
    check_callable(f, "f")
    return check_number(h, "h", positive=True)


# --8<-- [start:derivative]
def derivative(f: Callable[[float], float], x: float, h: float = 1e-5, method: str = "central") -> float:
    r"""Estimate $f'(x)$ with a finite difference.

    The forward difference $\frac{f(x + h) - f(x)}{h}$ is off by about $\frac{h}{2} |f''(x)|$;
    the central difference $\frac{f(x + h) - f(x - h)}{2h}$ only by about $\frac{h^2}{6} |f'''(x)|$,
    so it is the default.

    Parameters
    ----------
    f : callable
        A function of one number that returns one number.
    x : float
        The point at which to differentiate.
    h : float, default 1e-5
        The step, > 0. Much smaller steps lose digits to rounding (see the chapter on derivatives).
    method : {"central", "forward"}
        Which difference quotient to use.

    Returns
    -------
    float
        The estimate of $f'(x)$.

    Raises
    ------
    ValueError
        If ``h <= 0``, ``method`` is unknown, or ``f`` does not return one finite number.

    Examples
    --------
    >>> from transformer_math.calculus import derivative
    >>> derivative(lambda x: x ** 3, 2.0)  # true value 12; the central difference adds h**2 = 1e-10, and rounding
    12.00000000021184
    >>> round(derivative(lambda x: x ** 3, 2.0, method="forward"), 4)
    12.0001
    """
    h, x = check_function_and_step(f, h), check_number(x, "x")
    if method == "central":
        after, before = (
            scalar_result(f(x + h), f"at x + h = {x + h!r}"),
            scalar_result(f(x - h), f"at x - h = {x - h!r}"),
        )
        return (after - before) / (2 * h)
    if method == "forward":
        after, here = scalar_result(f(x + h), f"at x + h = {x + h!r}"), scalar_result(f(x), f"at x = {x!r}")
        return (after - here) / h
    raise ValueError(f"unknown method {method!r}; use one of {', '.join(map(repr, METHODS))}")


# --8<-- [end:derivative]


# --8<-- [start:numerical_gradient]
def numerical_gradient(f: Callable[[np.ndarray], float], x, h: float = 1e-5) -> np.ndarray:
    r"""Estimate the gradient $\nabla f(x)$ of a scalar function of an array, by central differences.

    Entry $i$ of the result is $\frac{f(x + h e_i) - f(x - h e_i)}{2h}$, where $e_i$ is the array with a
    1 at position $i$ and zeros elsewhere: nudge one entry up and down, leave the others alone.

    Parameters
    ----------
    f : callable
        A function that takes an array shaped like ``x`` and returns one number (a loss).
    x : array_like
        The point. It is copied to float64 first, so the caller's array is never changed.
    h : float, default 1e-5
        The step, > 0.

    Returns
    -------
    numpy.ndarray
        An array of ``x``'s shape: the partial derivative of ``f`` with respect to each entry.

    Raises
    ------
    ValueError
        If ``h <= 0``, ``x`` holds NaN or inf, or ``f`` does not return one finite number.

    Examples
    --------
    >>> from transformer_math.calculus import numerical_gradient
    >>> import numpy as np
    >>> g = numerical_gradient(lambda v: np.sum(v ** 2), np.array([3.0, 4.0]))  # exactly (6, 8)
    >>> np.round(g, 6)
    array([6., 8.])
    """
    h = check_function_and_step(f, h)
    dtype = float_array(x, "x").dtype  # the result's dtype; the nudges are done in float64
    x = np.array(x, dtype=np.float64)  # a copy: the nudges never touch the caller's array
    check_no_nan(x, "x", finite=True)  # no difference quotient at NaN or inf
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        original = x[index]
        x[index] = original + h
        after = scalar_result(f(x), f"when entry {index} of x is nudged up")
        x[index] = original - h
        before = scalar_result(f(x), f"when entry {index} of x is nudged down")
        x[index] = original
        grad[index] = (after - before) / (2 * h)
    return grad.astype(dtype, copy=False)


# --8<-- [end:numerical_gradient]


class GradientCheck(float):
    r"""The relative error of the whole gradient (this float), with the worst single entry beside it.

    ``worst`` is the largest relative error of one entry, $|g_i - \hat g_i| / \max(|g_i|, |\hat g_i|, s)$,
    where $s = 10^{-8} \max_j \max(|g_j|, |\hat g_j|)$ keeps entries that are rounding noise beside
    the largest from counting as wrong; ``index`` is where it is. A global error of $10^{-9}$ can hide a
    small entry that is 50% wrong beside large right ones: ``worst`` shows it.

    Near that floor ``worst`` also shows the finite difference's own rounding: every $\hat g_i$ is off by
    about $\epsilon |f(x)| / h$ ($2 \times 10^{-11} |f(x)|$ in float64 with $h = 10^{-5}$), whatever its
    size, i.e. about $2 \times 10^{-11} |f(x)| / |g_i|$ of entry $i$. On a *right* gradient an entry
    $10^{7}$ times below the largest can so read $10^{-4}$, and up to $10^{-2}$ when $|f(x)|$ is large
    beside the gradient. Read ``worst`` as a wrong entry when
    it is $10^{-2}$ or more, or when the entry at ``index`` is not tiny beside the largest.
    """

    worst: float
    index: tuple[int, ...]

    def __new__(cls, error: float, worst: float, index: tuple[int, ...]) -> GradientCheck:
        result = super().__new__(cls, check_number(error, "error", finite=False))
        result.worst, result.index = check_number(worst, "worst", finite=False), index
        return result


def check_gradient_inputs(f, grad, x, h) -> tuple[np.ndarray, np.ndarray]:
    """``x`` as a float64 copy and the analytic gradient at ``x`` as a finite array of its shape."""
    check_function_and_step(f, h)
    x = np.array(float_array(x, "x"), dtype=np.float64)
    analytic = float_array(grad(x.copy()) if callable(grad) else grad, "grad")
    if analytic.shape != x.shape:
        raise ValueError(f"grad has shape {analytic.shape}, but x has shape {x.shape}")
    check_no_nan(analytic, "grad", finite=True)
    return x, analytic.astype(np.float64)


# --8<-- [start:gradient_check]
def gradient_check(f: Callable[[np.ndarray], float], grad, x, h: float = 1e-5) -> GradientCheck:
    r"""Compare an analytic gradient with central differences; return their relative error.

    With $g$ the analytic gradient and $\hat g$ the numerical one, both as vectors of all entries,

    $$\text{error} = \frac{\lVert g - \hat g \rVert}{\max(\lVert g \rVert, \lVert \hat g \rVert)}:$$

    the size of the disagreement as a fraction of the size of the gradient, whatever its scale (a
    gradient 50% wrong, $\lVert g - \hat g \rVert = 0.5 \lVert \hat g \rVert$, scores between 1/3 and 1/2,
    at scale $10^{-6}$ as at scale $10^{6}$). Two zero gradients
    agree exactly and score 0. Around $10^{-7}$ or less means the gradient is right; a wrong formula
    typically gives $10^{-2}$ or more. One small entry that is wrong beside large right ones barely
    moves this number, so the result also carries the worst single entry: ``.worst``, its relative
    error, and ``.index``, where it is (see ``GradientCheck``). Read both: a right gradient has
    both small, though an entry far below the largest can show about $10^{-4}$ of rounding in ``.worst``.

    Parameters
    ----------
    f : callable
        The scalar function (the loss), taking an array shaped like ``x``.
    grad : callable or array_like
        The analytic gradient: a function of ``x``, or its value at ``x``.
    x : array_like
        The point at which to compare. Not modified.
    h : float, default 1e-5
        The finite-difference step.

    Returns
    -------
    GradientCheck
        A float, the relative error between 0 (identical) and 2 (opposite), with the attributes
        ``worst`` and ``index`` of the worst entry.

    Raises
    ------
    ValueError
        If the analytic gradient's shape differs from ``x``'s or it is not finite.

    Examples
    --------
    >>> from transformer_math.calculus import gradient_check
    >>> import numpy as np
    >>> f = lambda v: np.sum(v ** 3)
    >>> gradient_check(f, lambda v: 3 * v ** 2, np.array([1.0, -2.0])) < 1e-8
    True
    >>> round(gradient_check(f, lambda v: 2 * v ** 2, np.array([1.0, -2.0])), 4)  # a wrong formula
    0.3333
    >>> x = np.array([10.0, 0.001])                                   # the small entry 10% wrong:
    >>> check = gradient_check(f, np.array([300.0, 3.3e-6]), x)
    >>> print(f"{check:.1e}", round(check.worst, 3), check.index)    # the total hides it, worst shows it
    1.0e-09 0.091 (1,)
    """
    x, analytic = check_gradient_inputs(f, grad, x, h)
    numeric = numerical_gradient(f, x, h)
    largest = max(np.max(np.abs(analytic), initial=0.0), np.max(np.abs(numeric), initial=0.0))
    if largest == 0:
        return GradientCheck(0.0, 0.0, (0,) * x.ndim)  # both gradients are exactly zero: they agree
    g, g_hat = analytic / largest, numeric / largest  # entries in [-1, 1]: no square below overflows
    error = np.linalg.norm(g - g_hat) / max(np.linalg.norm(g), np.linalg.norm(g_hat))
    per_entry = np.abs(g - g_hat) / np.maximum(np.maximum(np.abs(g), np.abs(g_hat)), 1e-8)
    index = np.unravel_index(np.argmax(per_entry), x.shape)
    return GradientCheck(float(error), per_entry[index], tuple(int(i) for i in index))


# --8<-- [end:gradient_check]
