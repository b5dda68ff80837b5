r"""Attention: scaled dot-product attention, masks, heads and positional encoding.

Every token asks a question (its *query* $q$), every token offers a label (its *key* $k$) and a
content (its *value* $v$). A query's weight on each key is a softmax over the dot products, and the
query's answer is the weighted average of the values:

$$\operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V.$$

The functions work on any leading batch shape: ``q`` of shape ``(..., n_q, d_k)`` with ``(batch,
heads)`` in front is handled in one call, with no Python loop over batches or heads.

Masks are **boolean**, ``True`` meaning "this query may attend to this key". Inside, a ``False`` entry
sets the score to $-\infty$, so its softmax weight is exactly 0.

Example
-------
>>> from transformer_math.attention import causal_mask, scaled_dot_product_attention
>>> import numpy as np
>>> x = np.eye(3)
>>> out, weights = scaled_dot_product_attention(x, x, x, mask=causal_mask(3))
>>> print(weights.round(3))
[[1.    0.    0.   ]
 [0.36  0.64  0.   ]
 [0.264 0.264 0.471]]
"""

from __future__ import annotations

import math

import numpy as np

from transformer_math.checks import check_float_dtype, check_integer, check_no_nan, float_array, real_array, weight
from transformer_math.softmax import _softmax

__all__ = [
    "causal_mask",
    "scaled_dot_product_attention",
    "split_heads",
    "merge_heads",
    "multi_head_attention",
    "positional_encoding",
]


# --8<-- [start:causal_mask]
def causal_mask(n):
    r"""The causal mask of a sequence of length ``n``: query $i$ may attend to key $j$ only if $j \le i$.

    Parameters
    ----------
    n : int
        Sequence length, >= 1.

    Returns
    -------
    numpy.ndarray
        Boolean array of shape ``(n, n)``, ``True`` on and below the diagonal.

    Examples
    --------
    >>> from transformer_math.attention import causal_mask
    >>> print(causal_mask(3).astype(int))
    [[1 0 0]
     [1 1 0]
     [1 1 1]]
    """
    n = check_integer(n, "the sequence length n", minimum=1)
    return np.tril(np.ones((n, n), dtype=bool))


# --8<-- [end:causal_mask]


def check_attention_inputs(q, k, v, mask):
    for name, a in (("q", q), ("k", k), ("v", v)):
        check_no_nan(a, name, finite=True)
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2:
        raise ValueError(
            f"q, k and v need at least 2 axes (sequence, features); got shapes {q.shape}, {k.shape}, {v.shape}"
        )
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"queries and keys must have the same width d_k to take dot products: "
            f"q has width {q.shape[-1]} (shape {q.shape}), k has width {k.shape[-1]} (shape {k.shape})"
        )
    if q.shape[-1] == 0 or k.shape[-2] == 0:
        raise ValueError(f"attention needs d_k >= 1 and at least one key; got q {q.shape}, k {k.shape}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"there must be one value per key: k has {k.shape[-2]} keys (shape {k.shape}), "
            f"v has {v.shape[-2]} values (shape {v.shape})"
        )
    largest_q, largest_k = np.max(np.abs(q), initial=0.0), np.max(np.abs(k), initial=0.0)
    with np.errstate(divide="ignore", over="ignore"):  # log(0) = -inf; a product past 1e308 is what we look for
        if largest_q * largest_k * q.shape[-1] > np.finfo(np.result_type(q, k)).max:
            raise ValueError(
                f"the scores q @ k^T would overflow: q has entries up to {largest_q:g}, k up to {largest_k:g}, "
                f"and d_k = {q.shape[-1]}"
            )
    try:
        batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the batch axes of q {q.shape}, k {k.shape} and v {v.shape} do not broadcast together"
        ) from None
    if mask is None:
        return None
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise TypeError(
            f"the mask must be boolean (True = may attend), got dtype {mask.dtype}; "
            "for an additive mask of 0 and -inf, pass `additive_mask == 0`"
        )
    scores_shape = batch + (q.shape[-2], k.shape[-2])
    try:
        if np.broadcast_shapes(mask.shape, scores_shape) != scores_shape:
            raise ValueError
    except ValueError:
        raise ValueError(
            f"mask of shape {mask.shape} does not broadcast to the scores of shape {scores_shape} "
            f"(queries {q.shape}, keys {k.shape})"
        ) from None
    blind = ~np.any(mask, axis=-1)  # a query that may attend to no key: its softmax would be 0 / 0
    if np.any(blind):
        row = tuple(int(i) for i in np.argwhere(blind)[0])
        raise ValueError(
            f"the mask hides every key from query {row}: every position is masked, "
            "and a softmax needs at least one unmasked position"
        )
    return mask


# --8<-- [start:scaled_dot_product_attention]
def scaled_dot_product_attention(q, k, v, mask=None):
    r"""$\operatorname{softmax}(Q K^\top / \sqrt{d_k})\, V$ for any leading batch shape.

    Parameters
    ----------
    q : array_like
        Queries, shape ``(..., n_q, d_k)``.
    k : array_like
        Keys, shape ``(..., n_k, d_k)``.
    v : array_like
        Values, shape ``(..., n_k, d_v)``.
    mask : array_like of bool, optional
        ``True`` where a query may attend to a key; must broadcast to the scores' shape
        ``(..., n_q, n_k)``. Masked scores become $-\infty$, so their weights are exactly 0.

    Returns
    -------
    output : numpy.ndarray
        Shape ``(..., n_q, d_v)``: each row is a weighted average of the rows of ``v``.
    weights : numpy.ndarray
        Shape ``(..., n_q, n_k)``: the attention weights, each row sums to 1.

    Raises
    ------
    ValueError
        If ``q``, ``k`` or ``v`` has fewer than 2 axes or an entry that is NaN or infinite, ``q`` and ``k``
        differ in width or it is 0, there is no key, ``k`` and ``v`` differ in length, their batch axes do
        not broadcast, the scores would overflow, the mask does not broadcast to the scores, or a query is
        masked from every key.
    TypeError
        If the mask is not boolean, or ``q``, ``k`` or ``v`` is not an array of real numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.attention import scaled_dot_product_attention
    >>> q = np.array([[1.0, 0.0]])
    >>> k = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> v = np.array([[10.0], [20.0]])
    >>> out, w = scaled_dot_product_attention(q, k, v)
    >>> print(w.round(4), out.round(4))
    [[0.6698 0.3302]] [[13.3024]]
    """
    q, k, v = float_array(q, "q"), float_array(k, "k"), float_array(v, "v")
    mask = check_attention_inputs(q, k, v, mask)
    return _attention(q, k, v, mask)


def _attention(q, k, v, mask=None):
    """``scaled_dot_product_attention`` without the checks, for the model's inner calls.

    The scores are computed as ``k @ q^T`` and transposed: the same numbers as ``q @ k^T`` up to rounding, laid out so
    that NumPy takes each row's maximum and sum faster (up to about 2x, by machine and shape).
    """
    q = q / math.sqrt(q.shape[-1])  # scaled before the product: q is smaller than the scores when n_k > d_k
    scores = np.swapaxes(k @ np.swapaxes(q, -1, -2), -1, -2)  # (..., n_q, n_k): q k^T, stored as its transpose
    if mask is not None:
        np.copyto(scores, -np.inf, where=~mask)  # masked: exp(-inf) = 0
    weights = _softmax(scores, axis=-1, out=scores)  # in place: the scores are ours
    return weights @ v, weights


# --8<-- [end:scaled_dot_product_attention]


# --8<-- [start:heads]
def split_heads(x, n_heads):
    r"""Cut the feature axis into ``n_heads`` heads: ``(..., n, d_model)`` to ``(..., h, n, d_head)``.

    Head $\ell = 1, \dots, h$ gets features $(\ell - 1)\,d_{\text{head}}$ to $\ell\,d_{\text{head}} - 1$
    (counted from 0), at index $\ell - 1$ of the heads axis, with $d_{\text{head}} = d_{\text{model}} / h$.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.attention import split_heads
    >>> x = np.arange(8).reshape(2, 4)      # 2 tokens, d_model = 4
    >>> print(split_heads(x, 2))           # 2 heads of width 2
    [[[0 1]
      [4 5]]
    <BLANKLINE>
     [[2 3]
      [6 7]]]
    """
    x = real_array(x, "x")  # numbers of any real dtype, kept; booleans and text refused
    if x.ndim < 2:
        raise ValueError(f"split_heads needs x of shape (..., n, d_model), got shape {x.shape}")
    n_heads = check_integer(n_heads, "n_heads", minimum=1)
    d_model = x.shape[-1]
    if d_model % n_heads != 0:
        raise ValueError(
            f"d_model = {d_model} is not divisible by n_heads = {n_heads}; "
            "every head must get the same whole number of features"
        )
    return _split_heads(x, n_heads)


def _split_heads(x, n_heads):
    """``split_heads`` without the checks."""
    x = x.reshape(*x.shape[:-1], n_heads, x.shape[-1] // n_heads)  # (..., n, h, d_head)
    return np.swapaxes(x, -3, -2)  # (..., h, n, d_head)


def merge_heads(x):
    r"""Undo ``split_heads``: ``(..., h, n, d_head)`` to ``(..., n, h * d_head)``.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.attention import merge_heads, split_heads
    >>> x = np.arange(8).reshape(2, 4)
    >>> bool(np.array_equal(merge_heads(split_heads(x, 2)), x))
    True
    """
    x = real_array(x, "x")
    if x.ndim < 3:
        raise ValueError(f"merge_heads needs x of shape (..., h, n, d_head), got shape {x.shape}")
    return _merge_heads(x)


def _merge_heads(x):
    """``merge_heads`` without the checks."""
    x = np.swapaxes(x, -3, -2)  # (..., n, h, d_head)
    return x.reshape(*x.shape[:-2], x.shape[-2] * x.shape[-1])


# --8<-- [end:heads]


def check_multi_head_inputs(x, *weights) -> tuple[np.ndarray, list[np.ndarray]]:
    """``x`` as finite floats of shape ``(..., n, d)``, ``n, d >= 1``; the weights as ``(d, d)`` arrays in its dtype."""
    x = float_array(x, "x")
    if x.ndim < 2 or 0 in x.shape[-2:]:
        raise ValueError(
            f"multi_head_attention needs x of shape (..., n, d_model), got shape {x.shape}; n, d_model >= 1"
        )
    check_no_nan(x, "x", finite=True)
    d = x.shape[-1]
    weights = [weight(w, f"w_{name}", (d, d), x.dtype) for name, w in zip("qkvo", weights)]
    largest_x, largest_w = np.max(np.abs(x)), max(np.max(np.abs(w), initial=0.0) for w in weights)
    with np.errstate(over="ignore"):  # a bound past 1e308 is what we look for
        if largest_x * largest_w * d > np.finfo(x.dtype).max:
            raise ValueError(
                f"x @ w would overflow: x has entries up to {largest_x:g}, the weights up to {largest_w:g}"
            )
    return x, weights


# --8<-- [start:multi_head_attention]
def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, mask=None):
    r"""Multi-head self-attention: $\operatorname{Concat}(\text{head}_1, \dots, \text{head}_h)\, W_O$.

    With $Q = X W_Q$, $K = X W_K$, $V = X W_V$ split into $h$ heads of width
    $d_{\text{head}} = d_{\text{model}} / h$, head $\ell$ is
    $\operatorname{softmax}(Q_\ell K_\ell^\top / \sqrt{d_{\text{head}}})\, V_\ell$ -- scaled by the width of a
    *head*, because that is the length of the vectors whose dot products are taken.

    Parameters
    ----------
    x : array_like
        Input, shape ``(..., n, d_model)``.
    w_q, w_k, w_v, w_o : array_like
        Projections, each of shape ``(d_model, d_model)``.
    n_heads : int
        Number of heads $h$; must divide ``d_model``.
    mask : array_like of bool, optional
        As in ``scaled_dot_product_attention``; ``(n, n)`` broadcasts over batch and heads.

    Returns
    -------
    output : numpy.ndarray
        Shape ``(..., n, d_model)``.
    weights : numpy.ndarray
        Shape ``(..., h, n, n)``: the attention weights of every head.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.attention import causal_mask, multi_head_attention
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(4, 8))
    >>> w = [rng.normal(size=(8, 8)) for _ in range(4)]
    >>> out, weights = multi_head_attention(x, *w, n_heads=2, mask=causal_mask(4))
    >>> out.shape, weights.shape
    ((4, 8), (2, 4, 4))
    """
    x, (w_q, w_k, w_v, w_o) = check_multi_head_inputs(x, w_q, w_k, w_v, w_o)  # the weights in x's dtype
    q = split_heads(x @ w_q, n_heads)  # (..., h, n, d_head)
    k = split_heads(x @ w_k, n_heads)
    v = split_heads(x @ w_v, n_heads)
    heads, weights = scaled_dot_product_attention(q, k, v, mask)  # scaled by sqrt(d_head)
    return merge_heads(heads) @ w_o, weights


# --8<-- [end:multi_head_attention]


# --8<-- [start:positional_encoding]
def positional_encoding(seq_len, d_model, dtype=np.float64):
    r"""Sinusoidal positional encoding: $PE_{\text{pos}, 2i} = \sin(\text{pos} / 10000^{2i/d})$, $PE_{\text{pos}, 2i+1} = \cos(\text{pos} / 10000^{2i/d})$.

    Column pair $i$ is a sine and a cosine of the position $\text{pos}$ with wavelength $2\pi \cdot 10000^{2i/d}$:
    the first pair turns fast, the last very slowly, so every position gets a distinct pattern.

    Parameters
    ----------
    seq_len : int
        Number of positions $n$.
    d_model : int
        Width $d$ of the encoding (the embedding width).
    dtype : float dtype, default float64
        The dtype of the table, to match the embeddings it is added to (computed in float64, then rounded).

    Returns
    -------
    numpy.ndarray
        Shape ``(seq_len, d_model)``; every entry lies in $[-1, 1]$.

    Examples
    --------
    >>> from transformer_math.attention import positional_encoding
    >>> print(positional_encoding(3, 4).round(3))
    [[ 0.     1.     0.     1.   ]
     [ 0.841  0.54   0.01   1.   ]
     [ 0.909 -0.416  0.02   1.   ]]
    """
    seq_len = check_integer(seq_len, "seq_len", minimum=1)
    d_model = check_integer(d_model, "d_model", minimum=1)
    dtype = check_float_dtype(dtype, "dtype")
    positions = np.arange(seq_len)[:, None]  # (n, 1)
    two_i = np.arange(0, d_model, 2)  # 0, 2, 4, ...
    angles = positions / 10000 ** (two_i / d_model)  # (n, ceil(d / 2))
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe.astype(dtype, copy=False)


# --8<-- [end:positional_encoding]
