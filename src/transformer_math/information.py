r"""Entropy, cross entropy, KL divergence and perplexity -- the loss of a language model.

For distributions $P$ and $Q$ over the same outcomes (natural logarithms, so the unit is the *nat*):

$$\begin{aligned}
H(P) &= -\sum_x P(x)\log P(x), \\
H(P, Q) &= -\sum_x P(x)\log Q(x), \\
D_{\mathrm{KL}}(P\,\|\,Q) &= \sum_x P(x)\log\frac{P(x)}{Q(x)} \\
&= H(P, Q) - H(P).
\end{aligned}$$

The convention $0 \log 0 = 0$ holds throughout (the limit of $p \log p$ as $p \to 0$), so a one-hot
distribution has entropy exactly 0 rather than NaN.

A language model is trained with ``cross_entropy_from_logits``: the mean over all positions of
$-\log \operatorname{softmax}(\text{logits})_{\text{target}}$, computed with ``log_softmax`` so that no
logarithm of 0 is ever taken.

Example
-------
>>> from transformer_math.information import entropy, cross_entropy
>>> print(round(float(entropy([0.8, 0.2])), 6), round(cross_entropy([1, 0, 0], [0.8, 0.1, 0.1]), 6))
0.500402 0.223144
"""

from __future__ import annotations

import numpy as np

from transformer_math.checks import check_axis, check_no_nan, float_array, token_ids
from transformer_math.softmax import check_rows, log_softmax

__all__ = ["entropy", "cross_entropy", "cross_entropy_from_logits", "kl_divergence", "perplexity"]

SUM_TOLERANCE = 1e-6
"""How far from 1 the sum of a distribution may be (rounding in the numbers a reader types)."""


# --8<-- [start:check_distribution]
def check_distribution(p, name: str, axis: int = -1) -> np.ndarray:
    """``p`` as a float array, after checking it is a probability distribution along ``axis``."""
    p = float_array(p, name)
    if p.ndim == 0:
        raise ValueError(f"{name} must be an array of probabilities, got the scalar {float(p)}")
    check_axis(axis, p, name)
    check_no_nan(p, name)
    if np.any(p < 0):
        raise ValueError(f"{name} has negative probabilities (smallest {p.min():g}); probabilities must be >= 0")
    with np.errstate(over="ignore"):  # a sum that overflows is inf, far from 1
        sums = np.sum(p, axis=axis)
    tolerance = max(SUM_TOLERANCE, 10 * float(np.finfo(p.dtype).eps))  # float16 rounds more than 1e-6
    bad = np.abs(sums - 1.0) > tolerance
    if np.any(bad):
        worst = float(np.asarray(sums)[bad].flat[0])
        raise ValueError(
            f"{name} must sum to 1 along axis {axis} (tolerance {tolerance:g}), but a row sums to {worst:.10g}"
        )
    return p


# --8<-- [end:check_distribution]


def check_same_shape(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str) -> None:
    if a.shape != b.shape:
        raise ValueError(f"{name_a} has shape {a.shape} but {name_b} has shape {b.shape}; they must match")


# --8<-- [start:xlogy]
def xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    r"""$x \log y$ elementwise, with $0 \log y = 0$ for every $y$ (also $y = 0$), without warnings."""
    safe_y = np.where(x == 0, 1.0, y)
    with np.errstate(divide="ignore"):
        return np.where(x == 0, 0.0, x * np.log(safe_y))


# --8<-- [end:xlogy]


# --8<-- [start:entropy]
def entropy(p, axis=-1):
    r"""Shannon entropy $H(P) = -\sum_x P(x)\log P(x)$ in nats, with $0 \log 0 = 0$.

    Parameters
    ----------
    p : array_like
        Probabilities: non-negative, summing to 1 along ``axis`` (within ``1e-6``).
    axis : int
        The axis holding one distribution.

    Returns
    -------
    numpy.ndarray or float
        One entropy per distribution: between 0 (certain) and $\log n$ (uniform over $n$ outcomes).

    Examples
    --------
    >>> from transformer_math.information import entropy
    >>> print(entropy([0.5, 0.5]).round(6), entropy([1.0, 0.0]))
    0.693147 0.0
    """
    p = check_distribution(p, "p", axis)
    return 0.0 - np.sum(xlogy(p, p), axis=axis)  # 0.0 - ...: a certain outcome gives 0.0, not -0.0


# --8<-- [end:entropy]


# --8<-- [start:cross_entropy]
def cross_entropy(y_true, y_pred):
    r"""Cross entropy $H(y, \hat y) = -\sum_i y_i \log \hat y_i$ of predicted probabilities.

    Distributions run along the last axis; with leading (batch) axes the result is the mean over them.
    Nothing is clipped: a target with probability $\hat y_i = 10^{-20}$ costs $-\log 10^{-20}
    \approx 46.05$, and one with $\hat y_i = 0$ costs $+\infty$. Train from logits instead
    (``cross_entropy_from_logits``), where no probability is ever rounded to 0.

    Parameters
    ----------
    y_true : array_like
        Target distribution (often one-hot), shape ``(..., n)``.
    y_pred : array_like
        Predicted distribution, same shape.

    Returns
    -------
    float
        The loss, averaged over every leading position; ``inf`` if a target outcome has probability 0.

    Examples
    --------
    >>> from transformer_math.information import cross_entropy
    >>> print(round(cross_entropy([0, 1, 0], [0.1, 0.8, 0.1]), 6))
    0.223144
    """
    y_true = check_distribution(y_true, "y_true")
    y_pred = check_distribution(y_pred, "y_pred")
    check_same_shape(y_true, y_pred, "y_true", "y_pred")
    if y_true.size == 0:
        raise ValueError(f"cross entropy of no distributions: y_true has shape {y_true.shape}")
    per_row = 0.0 - np.sum(xlogy(y_true, y_pred), axis=-1)  # 0 log 0 = 0; y log 0 = -inf for y > 0
    return float(np.mean(per_row))


# --8<-- [end:cross_entropy]


# --8<-- [start:check_logits_and_targets]
def check_logits_and_targets(logits, targets) -> tuple[np.ndarray, np.ndarray]:
    """``logits`` of shape ``(..., V)`` as floats and ``targets`` of shape ``(...)`` as ids in ``0 .. V - 1``."""
    logits = float_array(logits, "logits")
    targets = np.asarray(targets)
    if logits.ndim == 0:
        raise ValueError(f"logits must have a vocabulary axis, got the scalar {float(logits)}")
    if logits.shape[:-1] != targets.shape:
        raise ValueError(
            f"logits of shape {logits.shape} need targets of shape {logits.shape[:-1]} "
            f"(one token id per position), got targets of shape {targets.shape}"
        )
    if logits.shape[-1] == 0 or targets.size == 0:
        raise ValueError(f"logits of shape {logits.shape} hold no token or no position to score")
    m = np.max(logits, axis=-1, keepdims=True)
    check_rows(logits, m, -1, "cross entropy", name="logits")  # no NaN, no +inf, no row entirely -inf
    return logits, token_ids(targets, "targets", vocab=logits.shape[-1])


# --8<-- [end:check_logits_and_targets]


# --8<-- [start:cross_entropy_from_logits]
def cross_entropy_from_logits(logits, targets):
    r"""The language-model loss: $-\frac{1}{N}\sum_{t} \log \operatorname{softmax}(z_t)_{y_t}$.

    ``logits`` has shape ``(..., vocab)`` (e.g. ``(batch, seq, vocab)``), ``targets`` holds one integer
    token id per position, shape ``(...)``. The log-probabilities come from ``log_softmax``, so the
    result is finite -- no ``log(0)``, no clipping -- whenever each row's logits span less than the largest
    float (about 1.8e308 in float64); past that the true loss is too large for a float, and it is ``inf``.

    Parameters
    ----------
    logits : array_like
        Unnormalised scores, one row per position.
    targets : array_like of int
        The correct token id of each position, each in ``0 .. vocab - 1``.

    Returns
    -------
    float
        Mean negative log-likelihood over all positions, in nats.

    Raises
    ------
    ValueError
        If the shapes do not fit together, the targets are not integers, or a target is out of range.

    Examples
    --------
    >>> from transformer_math.information import cross_entropy_from_logits
    >>> print(round(cross_entropy_from_logits([[2.0, 1.0, 0.1]], [0]), 6))
    0.41703
    """
    logits, targets = check_logits_and_targets(logits, targets)
    log_probs = log_softmax(logits, axis=-1)
    picked = np.take_along_axis(log_probs, targets[..., None], axis=-1)  # log p(correct token), shape (..., 1)
    with np.errstate(over="ignore"):
        loss = 0.0 - np.mean(picked)
    if np.isinf(loss) and np.all(np.isfinite(picked)):  # the sum overflowed, though the mean is a float
        loss = 0.0 - np.sum(picked / picked.size)
    return float(loss)


# --8<-- [end:cross_entropy_from_logits]


# --8<-- [start:kl_divergence]
def kl_divergence(p, q, axis=-1):
    r"""Kullback-Leibler divergence $D_{\mathrm{KL}}(P\,\|\,Q) = \sum_x P(x)\log\dfrac{P(x)}{Q(x)}$.

    Always $\ge 0$, zero only when $P = Q$, and not symmetric. Terms with $P(x) = 0$ count 0; a term with
    $P(x) > 0$ but $Q(x) = 0$ makes it $+\infty$ ($Q$ calls impossible what $P$ says happens).

    Parameters
    ----------
    p, q : array_like
        Distributions of the same shape along ``axis``.
    axis : int
        The axis holding one distribution.

    Examples
    --------
    >>> from transformer_math.information import kl_divergence
    >>> print(round(float(kl_divergence([0.7, 0.3], [0.6, 0.4])), 6))
    0.021601
    """
    p = check_distribution(p, "p", axis)
    q = check_distribution(q, "q", axis)
    check_same_shape(p, q, "p", "q")
    with np.errstate(all="ignore"):  # the odd cases below are settled by np.where, not warned about
        ratio = p / q
        log_ratio = np.log(ratio)  # the textbook form, accurate when p / q is an ordinary number
        # p close to q: log1p keeps the digits of a tiny difference that log(1 + tiny) would round away
        near = (ratio > 0.5) & (ratio < 2.0)
        log_ratio = np.where(near, np.log1p((p - q) / q), log_ratio)
        # p / q overflowed or underflowed (or q = 0, which rightly gives +inf): take logs first
        extreme = (ratio < np.finfo(np.float64).tiny) | (ratio == np.inf)
        log_ratio = np.where(extreme, np.log(p) - np.log(q), log_ratio)
        terms = np.where(p == 0, 0.0, p * log_ratio)  # 0 log(0 / q) = 0
    return np.maximum(np.sum(terms, axis=axis), 0.0)  # rounding can leave a sum of +- terms at -1e-16; KL >= 0


# --8<-- [end:kl_divergence]


# --8<-- [start:perplexity]
def perplexity(logits, targets):
    r"""Perplexity $e^{\text{cross entropy}}$: the "effective number of choices" the model hesitates between.

    A model that spreads its probability uniformly over $V$ tokens has perplexity $V$; a perfect model
    has perplexity 1.

    Examples
    --------
    >>> from transformer_math.information import perplexity
    >>> print(round(perplexity([[0.0, 0.0, 0.0, 0.0]], [2]), 6))
    4.0
    """
    with np.errstate(over="ignore"):  # a loss above 709.78 nats: the perplexity is inf
        return float(np.exp(cross_entropy_from_logits(logits, targets)))


# --8<-- [end:perplexity]
