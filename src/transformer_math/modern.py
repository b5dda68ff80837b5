r"""From GPT-2 to Llama: RMSNorm, SwiGLU and rotary positions (RoPE).

Three of the changes that separate GPT-2 (2019) from the open models of today (Llama, Mistral, Qwen) are
new functions:

$$\operatorname{RMSNorm}(x) = \gamma \odot x / \sqrt{\operatorname{mean}(x^2) + \varepsilon},$$

LayerNorm without the mean;

$$\operatorname{SwiGLU}(x) = \left(\operatorname{SiLU}(x W_g) \odot x W_u\right) W_d,$$

a gated feed-forward layer; and RoPE, which turns feature pair $r$ of a query or key row at position $i$ by
the angle $i\omega_r$, $\omega_r = \text{base}^{-2r/d_{\text{head}}}$, so that a query at $i$ and a key at
$j$ meet through $R_{i\omega_r}^\top R_{j\omega_r} = R_{(j - i)\omega_r}$ (rows turned by $R^\top$, as in
``apply_rope``): the score depends on the positions only through $i - j$. (The others, grouped-query attention, linear layers without biases and an untied $W_U$,
change shapes, not functions. The KV cache is no difference between them: both are decoded with it,
``transformer_math.kv_cache``.)

Example
-------
>>> import numpy as np
>>> from transformer_math.modern import rms_norm
>>> print(rms_norm(np.array([3.0, 4.0]), eps=0.0).round(4))   # divided by sqrt((9 + 16) / 2)
[0.8485 1.1314]
"""

from __future__ import annotations

import numpy as np

from transformer_math.checks import check_in_range, check_no_nan, float_array, integer_array, wide

__all__ = ["rms_norm", "silu", "swiglu", "apply_rope"]


def finite_floats(x, name: str) -> np.ndarray:
    """``x`` as a finite float array (float16/32/64 kept, integers to float64)."""
    x = float_array(x, name)
    check_no_nan(x, name, finite=True)
    return x


def check_rms_norm_inputs(x, gamma, eps) -> tuple[np.ndarray, np.ndarray | None, float]:
    x = finite_floats(x, "x")
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError(f"x must have a feature axis of width d >= 1, got shape {x.shape}")
    if gamma is not None:
        gamma = finite_floats(gamma, "gamma")
        if gamma.shape != x.shape[-1:]:
            raise ValueError(f"gamma must have shape ({x.shape[-1]},), one gain per feature, got {gamma.shape}")
    return x, gamma, check_in_range(eps, "eps", 0.0)


# --8<-- [start:rms_norm]
def rms_norm(x, gamma=None, eps=1e-6):
    r"""RMSNorm: $\gamma \odot x / \sqrt{\tfrac1d \sum_i x_i^2 + \varepsilon}$ over the last axis (Zhang & Sennrich, 2019).

    LayerNorm subtracts the mean, then divides by the spread; RMSNorm only divides, by the root mean
    square. It is ``torch.nn.RMSNorm(d, eps=eps)``; Llama uses it with $\varepsilon$ from $10^{-6}$ to
    $10^{-5}$ and no shift $\beta$.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.modern import rms_norm
    >>> y = rms_norm(np.array([[1.0, 2.0, 3.0, 6.0]]))
    >>> print(y.round(4), np.sqrt(np.mean(y**2)).round(4))   # root mean square 1, mean not 0
    [[0.2828 0.5657 0.8485 1.6971]] 1.0
    """
    x, gamma, eps = check_rms_norm_inputs(x, gamma, eps)
    if eps == 0 and np.any(np.all(x == 0, axis=-1)):
        raise ValueError("rms_norm with eps=0 of a zero vector divides 0 by 0; use eps > 0")
    return _rms_norm(x, gamma, eps)


def _rms_norm(x, gamma=None, eps=1e-6):
    """``rms_norm`` without the checks; a row whose squares overflow or vanish is divided by a power of 2 first."""
    w = x.astype(np.promote_types(x.dtype, np.float32))  # float16 computed in float32, as PyTorch does
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # those rows are redone below
        rms = np.sqrt(np.mean(np.square(w), axis=-1, keepdims=True) + eps)
        bad = ~(np.isfinite(rms) & (rms >= np.sqrt(np.finfo(w.dtype).tiny / np.finfo(w.dtype).eps)))
        y = w / rms
    if np.any(bad):  # as normalise does for LayerNorm: x = 2**k u, rms(x) = 2**k sqrt(mean(u**2) + eps 2**(-2k))
        rows = bad[..., 0]
        u = w[rows].astype(np.float64)
        k = np.frexp(np.max(np.abs(u), axis=-1, keepdims=True))[1]
        k = np.maximum(k, np.frexp(np.sqrt(eps))[1] - 500) if eps > 0 else k
        u = np.ldexp(u, -k)
        y[rows] = u / np.sqrt(np.mean(u * u, axis=-1, keepdims=True) + np.ldexp(eps, -2 * k))
    if gamma is not None:
        y *= gamma
    with np.errstate(over="ignore"):  # a result past float16's 65504 is inf, as in PyTorch
        return y.astype(x.dtype, copy=False)


# --8<-- [end:rms_norm]


# --8<-- [start:silu]
def silu(x):
    r"""SiLU (also called swish): $x \cdot \sigma(x) = x / (1 + e^{-x})$, ``torch.nn.functional.silu``.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.modern import silu
    >>> print(silu(np.array([-2.0, 0.0, 2.0])).round(4))
    [-0.2384  0.      1.7616]
    """
    return _silu(finite_floats(x, "x"))


def _silu(x):
    """``silu`` without the checks; ``-inf`` gives 0 and ``inf`` gives inf, its limits."""
    e = np.exp(-np.abs(x))  # never overflows: sigma(x) = 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below
    sigma = np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    with np.errstate(invalid="ignore"):  # -inf * 0 is NaN; silu's limit there is 0
        return np.where(np.isneginf(x), 0.0, x * sigma).astype(x.dtype, copy=False)


# --8<-- [end:silu]


def check_swiglu_inputs(x, w_gate, w_up, w_down):
    x = finite_floats(x, "x")
    arrays = [finite_floats(w, name) for w, name in ((w_gate, "w_gate"), (w_up, "w_up"), (w_down, "w_down"))]
    d = x.shape[-1] if x.ndim else None
    d_ff = arrays[0].shape[-1] if arrays[0].ndim == 2 else None
    if d is None or arrays[0].shape != (d, d_ff) or arrays[1].shape != (d, d_ff) or arrays[2].shape[:1] != (d_ff,):
        raise ValueError(
            f"swiglu needs x (..., d), w_gate and w_up (d, d_ff), w_down (d_ff, d_out); got x {x.shape}, "
            f"w_gate {arrays[0].shape}, w_up {arrays[1].shape}, w_down {arrays[2].shape}"
        )
    dtypes = {a.dtype for a in [x, *arrays]}
    if len(dtypes) != 1:
        raise TypeError(f"x and the weights must have one float dtype, got {', '.join(sorted(map(str, dtypes)))}")
    return x, *arrays


# --8<-- [start:swiglu]
def swiglu(x, w_gate, w_up, w_down):
    r"""The feed-forward layer of Llama: $\left(\operatorname{SiLU}(x W_g) \odot x W_u\right) W_d$ (Shazeer, 2020).

    Two projections of the same input: one, through the SiLU, decides how much of the other passes (a
    gate). Three matrices instead of two, so Llama takes $d_{ff} \approx \tfrac83 d$ instead of $4d$ to
    keep the count of weights.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.modern import swiglu
    >>> rng = np.random.default_rng(0)
    >>> x, w_g, w_u, w_d = rng.normal(size=(3, 4)), rng.normal(size=(4, 6)), rng.normal(size=(4, 6)), rng.normal(size=(6, 4))
    >>> swiglu(x, w_g, w_u, w_d).shape
    (3, 4)
    """
    x, w_gate, w_up, w_down = check_swiglu_inputs(x, w_gate, w_up, w_down)
    with np.errstate(over="ignore", invalid="ignore"):  # an intermediate past the float range is inf ...
        gate, up = x @ w_gate, x @ w_up
        out = (_silu(gate) * up) @ w_down
    if np.any(np.isnan(out)):  # ... but inf * 0 or inf - inf has no value: NaN, which PyTorch returns silently
        raise ValueError(
            f"swiglu: x @ w_gate and x @ w_up overflow (entries up to {np.max(np.abs(gate)):g} and "
            f"{np.max(np.abs(up)):g}) and their product has no value (inf * 0 or inf - inf); scale x down"
        )
    return out


# --8<-- [end:swiglu]


def check_rope_inputs(x, positions, base) -> tuple[np.ndarray, np.ndarray, float]:
    x = finite_floats(x, "x")
    if x.ndim < 2 or x.shape[-1] == 0 or x.shape[-1] % 2:
        raise ValueError(
            f"x must have shape (..., n, d) with an even rotary dimension d (features turn in pairs), got {x.shape}"
        )
    if positions is None:
        positions = np.arange(x.shape[-2])
    positions = integer_array(positions, "positions")
    if positions.shape != x.shape[-2:-1]:
        raise ValueError(f"positions must have shape ({x.shape[-2]},), one per row of x, got {positions.shape}")
    return x, positions, check_in_range(base, "base", 1.0, low_open=True)


# --8<-- [start:apply_rope]
def apply_rope(x, positions=None, base=10000.0):
    r"""Rotary position embedding (Su et al., 2021): turn feature pair $r$ of the row at position $i$ by $i\omega_r$.

    With $\omega_r = \text{base}^{-2r/d_{\text{head}}}$, $d_{\text{head}}$ the width of the rows (RoPE acts
    inside each head), each pair, a row vector, is multiplied by the rotation of Part I, transposed:

    $$\begin{aligned}
    (x'_{2r},\ x'_{2r+1}) &= (x_{2r},\ x_{2r+1})\, R_{i\omega_r}^\top, \\
    R_\theta &= \begin{pmatrix} \cos\theta & -\sin\theta \\ \sin\theta & \cos\theta \end{pmatrix}.
    \end{aligned}$$

    Applied to queries and keys (not values), the score of a query at $i$ and a key at $j$ is
    $q'_i\, k_j'^\top = q_i\, R^\top_{i} R_{j}\, k_j^\top$ with $R^\top_{i} R_{j}$ turning pair $r$ by
    $(j - i)\omega_r$: it depends on the positions only through $i - j$. Pairs are adjacent features, as in
    the RoFormer paper and Meta's Llama code (Hugging Face pairs feature $r$ with $r + d_{\text{head}}/2$, a
    permutation of the same thing).

    Parameters
    ----------
    x : array_like
        Shape ``(..., n, d_head)`` with $d_{\text{head}}$ even: one head's queries or keys, a row per position.
    positions : array_like of int, optional
        The position of each row, shape ``(n,)``; default ``0 .. n - 1``.
    base : float, default 10000.0
        $\omega_r = \text{base}^{-2r/d_{\text{head}}}$: the wavelengths $2\pi / \omega_r$ run from $2\pi$
        to $2\pi \cdot \text{base}^{1 - 2/d_{\text{head}}}$ positions.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.modern import apply_rope
    >>> q, k = np.array([[1.0, 0.0]]), np.array([[1.0, 0.0]])
    >>> scores = [(apply_rope(q, [i]) @ apply_rope(k, [i + 3]).T).item() for i in (0, 5, 40)]
    >>> print(np.round(scores, 12))   # cos(3): only the distance, 3, matters
    [-0.9899925 -0.9899925 -0.9899925]
    """
    x, positions, base = check_rope_inputs(x, positions, base)
    d = x.shape[-1]
    omega = base ** (-np.arange(0, d, 2) / d)  # (d/2,): one frequency per pair, d = d_head
    angle = positions[:, None] * omega  # (n, d/2)
    cos, sin = np.cos(angle), np.sin(angle)
    even, odd = wide(x[..., 0::2]), wide(x[..., 1::2])  # in float64 at least, then back to x's dtype
    out = np.empty_like(x)
    with np.errstate(over="ignore"):  # a result past float16's 65504 is inf, as in PyTorch
        out[..., 0::2] = even * cos - odd * sin  # the 2 x 2 rotation, pair by pair
        out[..., 1::2] = even * sin + odd * cos
    return out


# --8<-- [end:apply_rope]
