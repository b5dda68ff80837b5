r"""One pre-LayerNorm Transformer block, forward and backward, and the activations of its feed-forward layer.

A block takes the residual stream $X$ of shape $(n, d)$ and adds two things to it:

$$
\begin{aligned}
X' &= X + \operatorname{MHA}(\operatorname{LN}_1(X)) \\
&\quad \text{causal multi-head attention} \\
X'' &= X' + \phi(\operatorname{LN}_2(X')\, W_1 + b_1)\, W_2 \\
&\qquad + b_2 \quad \text{feed-forward}
\end{aligned}
$$

with $\phi$ the ReLU, or the GELU of GPT-2 (:func:`gelu`). :mod:`transformer_math.model` stacks $L$ of
them between the embeddings and the logits; :func:`block_backward` is the chain rule through one block,
from $\partial L / \partial X''$ back to $\partial L / \partial X$.

Example
-------
>>> import numpy as np
>>> from transformer_math.block import gelu
>>> print(gelu(np.array([-1.0, 0.0, 1.0])).round(4))
[-0.1587  0.      0.8413]
"""

from __future__ import annotations

import math

import numpy as np

from transformer_math.attention import causal_mask, merge_heads, scaled_dot_product_attention, split_heads
from transformer_math.checks import check_choice, check_in_range, check_no_nan, float_array
from transformer_math.stats import layer_norm

__all__ = ["gelu"]

LN_EPS = 1e-5  # every LayerNorm's epsilon, forward and backward, read at each call
BLOCK_NAMES = tuple("ln1_g ln1_b W_Q W_K W_V W_O ln2_g ln2_b W_1 b_1 W_2 b_2".split())  # one block's arrays
FFN_NAMES = ("ln2_g", "ln2_b", "W_1", "b_1", "W_2", "b_2")  # absent in an attention-only block (d_ff = 0)
LN_NAMES = ("ln1_g", "ln1_b", "ln2_g", "ln2_b")  # absent in a model without LayerNorm
ACTIVATIONS = ("relu", "gelu", "gelu_tanh")
_erf = np.frompyfunc(math.erf, 1, 1)  # math.erf, element by element (NumPy has no erf)


def prefix(layer: int) -> str:
    """The prefix of block ``layer``'s names: none for block 0 (the one-block names), ``h{layer}.`` after."""
    return "" if layer == 0 else f"h{layer}."


def n_layers_of(params) -> int:
    """The number of blocks of ``params``: block 0, then each ``h{l}.W_Q`` that follows."""
    n = 1
    while f"h{n}.W_Q" in params:
        n += 1
    return n


def block_names(params, layer: int = 0) -> tuple[str, ...]:
    """The names of block ``layer``'s arrays in ``params``, without prefix: :data:`BLOCK_NAMES`, less the
    feed-forward layer in an attention-only model (no ``W_1``) and the LayerNorms in a model without them."""
    names = BLOCK_NAMES if prefix(layer) + "W_1" in params else tuple(n for n in BLOCK_NAMES if n not in FFN_NAMES)
    return names if "lnf_g" in params else tuple(n for n in names if n not in LN_NAMES)


def block_params(params, layer: int) -> dict:
    """Block ``layer``'s arrays of the model ``params``, under their unprefixed names (``W_Q``, ...)."""
    return {name: params[prefix(layer) + name] for name in block_names(params, layer)}


def norm(P, name, x):
    """The LayerNorm ``name`` (``"ln1"``, ``"ln2"``) of ``P`` applied to ``x``, or ``x`` in a model without one."""
    return layer_norm(x, P[name + "_g"], P[name + "_b"], eps=LN_EPS) if name + "_g" in P else x


def norm_backward(dy, x, P, name, grads):
    """Backward of :func:`norm`: ``dx``, with the gain's and shift's gradients stored in ``grads``."""
    if name + "_g" not in P:
        return dy
    dx, grads[name + "_g"], grads[name + "_b"] = layer_norm_backward(dy, x, P[name + "_g"])
    return dx


def check_gelu_inputs(x, approximate) -> np.ndarray:
    """``x`` as a finite float array and ``approximate`` as ``"none"`` or ``"tanh"``."""
    x = float_array(x, "x")
    check_no_nan(x, "x", finite=True)
    check_choice(approximate, "approximate", ("none", "tanh"))
    return x


# --8<-- [start:gelu]
def gelu(x, approximate="none"):
    r"""GELU, $x\, \Phi(x) = \tfrac12 x \left(1 + \operatorname{erf}(x / \sqrt 2)\right)$, GPT-2's activation.

    $\Phi$ is the standard normal's cumulative distribution: the input is kept in proportion to how likely
    a standard normal is to be below it. ``approximate="tanh"`` is the formula GPT-2 was trained with,

    $$\tfrac12 x \left(1 + \tanh\left(\sqrt{2/\pi}\,(x + 0.044715\, x^3)\right)\right)$$

    within $5 \times 10^{-4}$ of the exact one; both are ``torch.nn.functional.gelu(x, approximate=...)``.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.block import gelu
    >>> x = np.array([-3.0, -0.5, 0.0, 0.5, 3.0])
    >>> print(gelu(x).round(4))
    [-0.004  -0.1543  0.      0.3457  2.996 ]
    >>> print(np.abs(gelu(x, approximate="tanh") - gelu(x)).max() < 5e-4)
    True
    """
    x = check_gelu_inputs(x, approximate)
    w = x.astype(np.float64)
    if approximate == "tanh":
        with np.errstate(over="ignore"):  # x^3 overflows past 1e102; tanh(inf) = 1 is then right
            inner = math.sqrt(2.0 / math.pi) * (w + 0.044715 * w**3)
        out = 0.5 * w * (1.0 + np.tanh(inner))
    else:
        out = 0.5 * w * (1.0 + np.asarray(_erf(w / math.sqrt(2.0)), dtype=np.float64))
    return np.asarray(out).astype(x.dtype, copy=False)


# --8<-- [end:gelu]


def gelu_derivative(x, approximate="none"):
    r"""$\frac{d}{dx} x \Phi(x) = \Phi(x) + x\, \varphi(x)$, or the derivative of the tanh formula."""
    w = x.astype(np.float64)
    if approximate == "tanh":
        c = math.sqrt(2.0 / math.pi)
        with np.errstate(over="ignore"):
            t = np.tanh(c * (w + 0.044715 * w**3))
            out = 0.5 * (1.0 + t) + 0.5 * w * (1.0 - t * t) * c * (1.0 + 3 * 0.044715 * w**2)
        out = np.where(np.isfinite(out), out, (w > 0).astype(np.float64))  # far out: 1 or 0
    else:
        cdf = 0.5 * (1.0 + np.asarray(_erf(w / math.sqrt(2.0)), dtype=np.float64))
        out = cdf + w * np.exp(-0.5 * w * w) / math.sqrt(2.0 * math.pi)
    return np.asarray(out).astype(x.dtype, copy=False)


def activate(u, activation):
    """The feed-forward non-linearity: ``"relu"``, ``"gelu"`` (exact) or ``"gelu_tanh"``."""
    if activation == "relu":
        return np.maximum(u, 0.0)
    return gelu(u, approximate="tanh" if activation == "gelu_tanh" else "none")


def activate_backward(du_out, u, activation):
    """``du_out`` times the activation's derivative at ``u``."""
    if activation == "relu":
        return du_out * (u > 0)  # ReLU passes gradient where u > 0
    return du_out * gelu_derivative(u, approximate="tanh" if activation == "gelu_tanh" else "none")


# --8<-- [start:block_forward]
def block_forward(P, x, n_heads, activation="relu", residual=True):
    r"""One pre-LN block: $X' = X + \operatorname{MHA}(\operatorname{LN}_1(X))$, $X'' = X' + \operatorname{FFN}(\operatorname{LN}_2(X'))$.

    ``P`` holds one block's arrays under the names of :data:`BLOCK_NAMES` (``W_Q``, ``ln2_g``, ...).
    Returns $X''$ and the intermediate arrays the backward pass needs. Parts can be left out, to measure
    what each buys: without ``W_1`` the block is attention only ($X'' = X'$), without ``ln1_g`` it has no
    LayerNorm, and ``residual=False`` replaces $X + F(X)$ by $F(X)$.
    """
    n, skip = x.shape[-2], 1.0 if residual else 0.0  # skip: the residual path, kept or cut
    a = norm(P, "ln1", x)  # LN_1(x)
    q = split_heads(a @ P["W_Q"], n_heads)  # (..., h, n, d_head)
    k = split_heads(a @ P["W_K"], n_heads)
    v = split_heads(a @ P["W_V"], n_heads)
    heads, weights = scaled_dot_product_attention(q, k, v, causal_mask(n))  # weights: (..., h, n, n)
    o = merge_heads(heads)  # (..., n, d)
    x1 = skip * x + o @ P["W_O"]  # residual around attention
    cache = {"a": a, "q": q, "k": k, "v": v, "weights": weights, "o": o, "x1": x1}
    if "W_1" not in P:  # attention only
        return x1, cache
    c = norm(P, "ln2", x1)  # LN_2(x1)
    u = c @ P["W_1"] + P["b_1"]  # (..., n, d_ff)
    r = activate(u, activation)  # ReLU or GELU
    x2 = skip * x1 + r @ P["W_2"] + P["b_2"]  # residual around feed-forward
    return x2, cache | {"c": c, "u": u, "r": r}


# --8<-- [end:block_forward]


def check_layer_norm_backward_inputs(dy, x, gamma, eps=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``dy``, ``x`` and ``gamma`` as finite float arrays in ``x``'s dtype (as in ``layer_norm``), shaped
    ``x.shape``, ``x.shape`` and ``(d,)``; ``eps`` as a float >= 0, or :data:`LN_EPS` as it is now if None."""
    eps = LN_EPS if eps is None else check_in_range(eps, "eps", 0.0)
    dy, x, gamma = float_array(dy, "dy"), float_array(x, "x"), float_array(gamma, "gamma")
    if x.ndim == 0 or x.shape[-1] == 0 or dy.shape != x.shape or gamma.shape != x.shape[-1:]:
        raise ValueError(
            f"layer_norm_backward needs dy shaped like x and gamma of shape (d,) with d = x.shape[-1]; "
            f"got dy {dy.shape}, x {x.shape}, gamma {gamma.shape}"
        )
    for name, a in (("dy", dy), ("x", x), ("gamma", gamma)):
        check_no_nan(a, name, finite=True)
    return dy.astype(x.dtype, copy=False), x, gamma.astype(x.dtype, copy=False), eps


# --8<-- [start:layer_norm_backward]
def layer_norm_backward(dy, x, gamma, eps=None):
    r"""Backward pass of $y = \gamma \odot \hat x + \beta$ with $\hat x = (x - \mu) / \sqrt{\sigma^2 + \varepsilon}$.

    With $g = \gamma \odot \partial L / \partial y$ and $s = \sqrt{\sigma^2 + \varepsilon}$, per token

    $$\frac{\partial L}{\partial x} = \frac{1}{s}\left(g - \operatorname{mean}(g) - \hat x\, \operatorname{mean}(g \odot \hat x)\right),$$

    where $\operatorname{mean}$ averages over the $d$ features: subtracting the mean and dividing by the
    spread both depend on every feature, and these two terms undo exactly that.

    ``eps`` is $\varepsilon \geq 0$; ``None`` takes ``transformer_math.block.LN_EPS`` as it is at the
    call, the value the model's forward pass uses.

    Returns
    -------
    dx, dgamma, dbeta : numpy.ndarray
        Shapes ``x.shape``, ``(d,)`` and ``(d,)``; the gains' gradients are summed over all tokens.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.model import layer_norm_backward
    >>> x = np.array([[1.0, 2.0, 4.0]])
    >>> dx, dg, db = layer_norm_backward(np.ones((1, 3)), x, np.ones(3))
    >>> print(np.abs(dx).max() < 1e-12, db)     # adding the same to every output changes nothing
    True [1. 1. 1.]
    """
    dy, x, gamma, eps = check_layer_norm_backward_inputs(dy, x, gamma, eps)  # eps=None: LN_EPS, read now
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is caught just below
        var = x.var(axis=-1, keepdims=True)
    if not np.all(
        np.isfinite(var)
    ):  # |x| past about 1e154: work on x / c, as x_hat does not change and dx scales by 1/c
        c = np.max(np.abs(x))
        dx, dgamma, dbeta = layer_norm_backward(dy, x / c, gamma, eps / c / c)
        return dx / c, dgamma, dbeta
    s = np.sqrt(var + eps)
    x_hat = (x - x.mean(axis=-1, keepdims=True)) / s
    g = dy * gamma
    dx = (g - g.mean(axis=-1, keepdims=True) - x_hat * (g * x_hat).mean(axis=-1, keepdims=True)) / s
    d = x.shape[-1]
    return dx, (dy * x_hat).reshape(-1, d).sum(axis=0), dy.reshape(-1, d).sum(axis=0)


# --8<-- [end:layer_norm_backward]


def weight_grad(inputs, d_outputs):
    """``inputs^T @ d_outputs`` summed over every token of every sequence: the gradient of a weight matrix."""
    return inputs.reshape(-1, inputs.shape[-1]).T @ d_outputs.reshape(-1, d_outputs.shape[-1])


# --8<-- [start:block_backward]
def block_backward(P, C, x, dx2, n_heads, activation="relu", residual=True):
    r"""From $\partial L/\partial X''$ back through one block: $\partial L/\partial X$ and the block's gradients.

    ``P`` is the block's arrays, ``C`` the cache :func:`block_forward` returned for input ``x``. Each line
    mirrors a forward line, read from the bottom: $Y = X W$ gives $\partial L/\partial W = X^\top
    \partial L/\partial Y$ and $\partial L/\partial X = \partial L/\partial Y\, W^\top$; a residual
    $Y = X + F(X)$ passes $\partial L/\partial Y$ through unchanged *and* through $F$.
    """
    d_head, grads, skip = C["q"].shape[-1], {}, 1.0 if residual else 0.0

    dx1 = dx2  # an attention-only block: x2 = x1
    if "W_1" in P:  # x2 = x1 + act(c @ W_1 + b_1) @ W_2 + b_2, c = LN_2(x1)
        grads["W_2"] = weight_grad(C["r"], dx2)
        grads["b_2"] = dx2.reshape(-1, dx2.shape[-1]).sum(axis=0)
        du = activate_backward(dx2 @ P["W_2"].T, C["u"], activation)  # ReLU: gradient only where u > 0
        grads["W_1"] = weight_grad(C["c"], du)
        grads["b_1"] = du.reshape(-1, du.shape[-1]).sum(axis=0)
        dx1_ffn = norm_backward(du @ P["W_1"].T, C["x1"], P, "ln2", grads)
        dx1 = skip * dx2 + dx1_ffn  # residual: both paths add up

    # x1 = x + merge(softmax(q k^T / sqrt(d_head)) v) @ W_O
    grads["W_O"] = weight_grad(C["o"], dx1)
    d_heads = split_heads(dx1 @ P["W_O"].T, n_heads)  # (..., h, n, d_head)
    w = C["weights"]
    dv = np.swapaxes(w, -1, -2) @ d_heads
    dw = d_heads @ np.swapaxes(C["v"], -1, -2)
    dscores = w * (dw - np.sum(dw * w, axis=-1, keepdims=True))  # softmax backward; 0 where masked
    dq = dscores @ C["k"] / math.sqrt(d_head)
    dk = np.swapaxes(dscores, -1, -2) @ C["q"] / math.sqrt(d_head)
    dq, dk, dv = merge_heads(dq), merge_heads(dk), merge_heads(dv)  # back to (..., n, d)
    grads["W_Q"] = weight_grad(C["a"], dq)
    grads["W_K"] = weight_grad(C["a"], dk)
    grads["W_V"] = weight_grad(C["a"], dv)
    da = dq @ P["W_Q"].T + dk @ P["W_K"].T + dv @ P["W_V"].T
    return skip * dx1 + norm_backward(da, x, P, "ln1", grads), grads


# --8<-- [end:block_backward]
