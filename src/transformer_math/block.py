r"""One pre-LayerNorm Transformer block, forward and backward, and the activations of its feed-forward layer.

A block takes the residual stream $X_0$ of shape $(n, d)$ and adds two things to it:

$$
\begin{aligned}
X_1 &= X_0 + \operatorname{MHA}(\operatorname{LN}_1(X_0)) \\
&\quad \text{causal multi-head attention} \\
X_2 &= X_1 + \operatorname{act}(\operatorname{LN}_2(X_1)\, W_1 + b_1)\, W_2 \\
&\qquad + b_2 \quad \text{feed-forward}
\end{aligned}
$$

with $\operatorname{act}$ the ReLU or the GELU (``gelu``; ``gelu_tanh`` is the form GPT-2 computed).
``transformer_math.model`` stacks $L$ of them between the embeddings and the logits, each block's $X_2$
the next one's $X_0$;
``block_backward`` is the chain rule through one block, from $\partial L / \partial X_2$ back to
$\partial L / \partial X_0$.

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

from transformer_math.attention import _attention, _merge_heads, _split_heads, causal_mask
from transformer_math.checks import check_choice, check_in_range, check_no_nan, float_array
from transformer_math.erf import _normal_cdf, blocks
from transformer_math.stats import normalise, row_means

__all__ = ["gelu"]

LN_EPS = 1e-5  # every LayerNorm's epsilon, forward and backward, read at each call
BLOCK_NAMES = tuple("ln1_g ln1_b W_Q W_K W_V W_O ln2_g ln2_b W_1 b_1 W_2 b_2".split())  # one block's arrays
FFN_NAMES = ("ln2_g", "ln2_b", "W_1", "b_1", "W_2", "b_2")  # absent in an attention-only block (d_ff = 0)
LN_NAMES = ("ln1_g", "ln1_b", "ln2_g", "ln2_b")  # absent in a model without LayerNorm
ACTIVATIONS = ("relu", "gelu", "gelu_tanh", "identity")  # identity: a linear FFN, a control
TANH_C, TANH_A = math.sqrt(2.0 / math.pi), 0.044715  # GPT-2's tanh form of GELU


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
    """The names of block ``layer``'s arrays in ``params``, without prefix: ``BLOCK_NAMES``, less the
    feed-forward layer in an attention-only model (no ``W_1``) and the LayerNorms in a model without them."""
    names = BLOCK_NAMES if prefix(layer) + "W_1" in params else tuple(n for n in BLOCK_NAMES if n not in FFN_NAMES)
    return names if "lnf_g" in params else tuple(n for n in names if n not in LN_NAMES)


def block_params(params, layer: int) -> dict:
    """Block ``layer``'s arrays of the model ``params``, under their unprefixed names (``W_Q``, ...)."""
    return {name: params[prefix(layer) + name] for name in block_names(params, layer)}


def linear(x, w, b=None):
    """``x @ w + b`` for activations ``x`` of shape ``(..., n, d)``.

    NumPy multiplies a 3-D ``x`` as a stack of ``(n, d)`` products. When each of them is large enough for BLAS to
    spread it over threads anyway (``n d d_out`` from 2**18), one product over every token of every sequence is
    faster; small ones stay a stack, each too small to be split. ``w`` is made C-contiguous: the stack's products
    with a transposed ``w`` (the backward pass's ``W.T``) are otherwise twice as slow."""
    w = w if w.flags.c_contiguous else np.ascontiguousarray(w)
    if x.ndim > 2 and x.shape[-2] * x.shape[-1] * w.shape[-1] >= 1 << 18:
        y = (x.reshape(-1, x.shape[-1]) @ w).reshape(*x.shape[:-1], w.shape[-1])
    else:
        y = x @ w
    if b is not None:
        y += b  # in place: no second array of y's size
    return y


def norm(P, name, x):
    """The LayerNorm ``name`` (``"ln1"``, ``"ln2"``) of ``P`` applied to ``x``, and what its backward pass needs,
    ``(x_hat, s)``; ``x`` itself (and ``None``) in a model without LayerNorm."""
    if name + "_g" not in P:
        return x, None
    x_hat, s = normalise(x, LN_EPS)  # (x - mu) / s, s = sqrt(var + eps), row by row
    y = x_hat * P[name + "_g"]
    y += P[name + "_b"]
    return y.astype(x.dtype, copy=False), (x_hat, s)


def norm_backward(dy, saved, P, name, grads):
    """Backward of ``norm`` from what it ``saved``: ``dx``, with the gain's and shift's gradients in ``grads``."""
    if saved is None:
        return dy
    dx, grads[name + "_g"], grads[name + "_b"] = _layer_norm_backward(dy, *saved, P[name + "_g"])
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
    erf is ``transformer_math.erf.erf``'s formula, within 1 ulp of ``math.erf`` in float64; in float32 and
    float16 it is evaluated in float32, as PyTorch's is (within 3 ulp of $x\, \Phi(x)$ for $x \ge -1$).

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
    return _gelu(x, approximate)[0]


def _gelu(x, approximate="none"):
    r"""GELU without the checks, and its gate $g(x) = \mathrm{GELU}(x) / x$: $\Phi(x)$, or the tanh form's.

    Computed a block of entries at a time, so that each block's temporaries stay in the CPU's cache."""
    gate_of = _normal_cdf if approximate == "none" else _tanh_gate
    flat = np.ascontiguousarray(x).reshape(-1)
    out, gate = np.empty_like(flat), np.empty_like(flat)
    for block in blocks(flat.size):
        gate[block] = gate_of(flat[block])
        np.multiply(flat[block], gate[block], out=out[block])  # x g(x)
    return out.reshape(x.shape), gate.reshape(x.shape)


# --8<-- [end:gelu]


def _tanh_gate(x):
    r"""$\tfrac12 (1 + \tanh(\sqrt{2/\pi}\,(x + 0.044715 x^3)))$, in float32 at least, then in ``x``'s dtype."""
    w = x.astype(np.promote_types(x.dtype, np.float32), copy=False)
    with np.errstate(over="ignore"):  # x^3 overflows past 1e102 (float64): tanh(inf) = 1 is then right
        inner = w * w
        inner *= TANH_A
        inner += 1.0
        inner *= w
        inner *= TANH_C
    np.tanh(inner, out=inner)
    inner += 1.0
    inner *= 0.5
    return inner.astype(x.dtype, copy=False)


def gelu_derivative(x, approximate="none"):
    r"""$\frac{d}{dx} x \Phi(x) = \Phi(x) + x\, \varphi(x)$, or the derivative of the tanh formula."""
    x = check_gelu_inputs(x, approximate)
    return _gelu_derivative(x, _gelu(x, approximate)[1], approximate)


def _gelu_derivative(x, gate, approximate="none"):
    r"""GELU's derivative from $x$ and its gate $g$: $g + x\, g'(x)$, with $\Phi' = \varphi$ for the exact form."""
    w = x.astype(np.promote_types(x.dtype, np.float32), copy=False)
    with np.errstate(over="ignore", invalid="ignore"):  # x^2 past the float range: its exp, or g(1 - g), is 0
        if approximate == "none":
            slope = w * w
            slope *= -0.5
            np.exp(slope, out=slope)  # exp(-x^2 / 2)
            slope *= 1.0 / math.sqrt(2.0 * math.pi)  # phi(x)
        else:  # tanh = 2g - 1, so d tanh / d inner = 1 - tanh^2 = 4 g (1 - g)
            slope = w * w
            slope *= 3 * TANH_A
            slope += 1.0
            slope *= 2 * TANH_C
            slope *= gate
            slope *= 1.0 - gate
            slope[~np.isfinite(slope)] = 0.0  # inf * 0 far out, where the gate is exactly 0 or 1
        slope *= w  # x g'(x)
    slope += gate
    return slope.astype(x.dtype, copy=False)


def activate(u, activation):
    """The feed-forward non-linearity as ``u`` times a gate, and the gate: ``u > 0`` (ReLU), or GELU's;
    ``"identity"`` returns ``u`` itself and no gate (a linear FFN, to measure what the non-linearity buys)."""
    if activation == "relu":
        return np.maximum(u, 0.0), u > 0
    if activation == "identity":
        return u, None
    return _gelu(u, approximate="tanh" if activation == "gelu_tanh" else "none")


def activate_backward(du_out, u, gate, activation):
    """``du_out`` times the activation's derivative at ``u``, from the ``gate`` ``activate`` returned; in place,
    a block at a time (a block's temporaries stay in the CPU's cache)."""
    if activation == "relu":
        du_out *= gate  # ReLU passes gradient where u > 0
        return du_out
    if activation == "identity":  # derivative 1 everywhere
        return du_out
    approximate = "tanh" if activation == "gelu_tanh" else "none"
    flat, u, gate = du_out.reshape(-1), u.reshape(-1), gate.reshape(-1)
    for block in blocks(flat.size):
        flat[block] *= _gelu_derivative(u[block], gate[block], approximate)
    return du_out


# --8<-- [start:block_forward]
def block_forward(P, x, n_heads, activation="relu", residual=True):
    r"""One pre-LN block: $X_1 = X_0 + \operatorname{MHA}(\operatorname{LN}_1(X_0))$, $X_2 = X_1 + \operatorname{FFN}(\operatorname{LN}_2(X_1))$.

    ``P`` holds one block's arrays under the names of ``BLOCK_NAMES`` (``W_Q``, ``ln2_g``, ...).
    Returns $X_2$ and the intermediate arrays the backward pass needs. Parts can be left out, to measure
    what each buys: without ``W_1`` the block is attention only ($X_2 = X_1$), without ``ln1_g`` it has no
    LayerNorm, and ``residual=False`` replaces $X + F(X)$ by $F(X)$.
    """
    n, skip = x.shape[-2], 1.0 if residual else 0.0  # skip: the residual path, kept or cut
    a, ln1 = norm(P, "ln1", x)  # LN_1(x), and what its backward pass needs
    q = _split_heads(linear(a, P["W_Q"]), n_heads)  # (..., h, n, d_head)
    k = _split_heads(linear(a, P["W_K"]), n_heads)
    v = _split_heads(linear(a, P["W_V"]), n_heads)
    heads, weights = _attention(q, k, v, causal_mask(n))  # weights: (..., h, n, n)
    o = _merge_heads(heads)  # (..., n, d)
    x1 = skip * x + linear(o, P["W_O"])  # residual around attention
    cache = {"a": a, "ln1": ln1, "q": q, "k": k, "v": v, "weights": weights, "o": o, "x1": x1}
    if "W_1" not in P:  # attention only
        return x1, cache
    c, ln2 = norm(P, "ln2", x1)  # LN_2(x1)
    u = linear(c, P["W_1"], P["b_1"])  # (..., n, d_ff)
    r, gate = activate(u, activation)  # ReLU or GELU: r = u * gate, the gate kept for the backward pass
    x2 = skip * x1 + linear(r, P["W_2"], P["b_2"])  # residual around feed-forward
    return x2, cache | {"c": c, "ln2": ln2, "u": u, "r": r, "gate": gate}


# --8<-- [end:block_forward]


def check_layer_norm_backward_inputs(dy, x, gamma, eps=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``dy``, ``x`` and ``gamma`` as finite float arrays in ``x``'s dtype (as in ``layer_norm``), shaped
    ``x.shape``, ``x.shape`` and ``(d,)``; ``eps`` as a float >= 0, or ``LN_EPS`` as it is now if None."""
    eps = LN_EPS if eps is None else check_in_range(eps, "eps", 0.0)
    dy, x, gamma = float_array(dy, "dy"), float_array(x, "x"), float_array(gamma, "gamma")
    if x.ndim == 0 or x.shape[-1] == 0 or dy.shape != x.shape or gamma.shape != x.shape[-1:]:
        raise ValueError(
            f"layer_norm_backward needs dy shaped like x and gamma of shape (d,) with d = x.shape[-1]; "
            f"got dy {dy.shape}, x {x.shape}, gamma {gamma.shape}"
        )
    for name, a in (("dy", dy), ("x", x), ("gamma", gamma)):
        check_no_nan(a, name, finite=True)
    if eps == 0 and np.any(np.max(x, axis=-1) == np.min(x, axis=-1)):
        raise ValueError("layer_norm_backward with eps=0 at a constant vector divides by a spread of 0; use eps > 0")
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
        Shapes ``x.shape``, ``(d,)`` and ``(d,)``; the gradients of $\gamma$ and $\beta$ are summed over all tokens.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.model import layer_norm_backward
    >>> x = np.array([[1.0, 2.0, 4.0]])
    >>> dx, dg, db = layer_norm_backward(np.ones((1, 3)), x, np.ones(3))
    >>> print(np.abs(dx).max() < 1e-12, db)     # sum(y) = sum(beta) whatever x: dx = 0
    True [1. 1. 1.]
    """
    dy, x, gamma, eps = check_layer_norm_backward_inputs(dy, x, gamma, eps)  # eps=None: LN_EPS, read now
    x_hat, s = normalise(x, eps)  # each row scaled by its own power of 2 if it must be
    return _layer_norm_backward(dy, x_hat, s, gamma)


def _layer_norm_backward(dy, x_hat, s, gamma):
    """``layer_norm_backward`` from ``x_hat`` and ``s`` (as ``normalise`` gives them),
    without the checks: the model's backward pass reuses those of its forward pass."""
    d = x_hat.shape[-1]
    dgamma = np.einsum("ij,ij->j", dy.reshape(-1, d), x_hat.reshape(-1, d))  # dy x_hat, summed over tokens
    dbeta = dy.reshape(-1, d).sum(axis=0)
    g = dy * gamma
    dx = g - row_means(g)  # g - mean(g), per token ...
    g *= x_hat
    dx -= x_hat * row_means(g)  # ... - x_hat mean(g x_hat)
    dx /= s
    return dx.astype(dy.dtype, copy=False), dgamma.astype(dy.dtype, copy=False), dbeta


# --8<-- [end:layer_norm_backward]


def weight_grad(inputs, d_outputs):
    """``inputs^T @ d_outputs`` summed over every token of every sequence: the gradient of a weight matrix."""
    return inputs.reshape(-1, inputs.shape[-1]).T @ d_outputs.reshape(-1, d_outputs.shape[-1])


# --8<-- [start:block_backward]
def block_backward(P, C, dx2, n_heads, activation="relu", residual=True):
    r"""From $\partial L/\partial X_2$ back through one block: $\partial L/\partial X_0$ and the block's gradients.

    ``P`` is the block's arrays, ``C`` the cache ``block_forward`` returned. Each line
    mirrors a forward line, read from the bottom: $Y = X W$ gives $\partial L/\partial W = X^\top
    \partial L/\partial Y$ and $\partial L/\partial X = \partial L/\partial Y\, W^\top$; a residual
    $Y = X + F(X)$ passes $\partial L/\partial Y$ through unchanged *and* through $F$.
    """
    d_head, grads, skip = C["q"].shape[-1], {}, 1.0 if residual else 0.0

    dx1 = dx2  # an attention-only block: x2 = x1
    if "W_1" in P:  # x2 = x1 + act(c @ W_1 + b_1) @ W_2 + b_2, c = LN_2(x1)
        grads["W_2"] = weight_grad(C["r"], dx2)
        grads["b_2"] = dx2.reshape(-1, dx2.shape[-1]).sum(axis=0)
        du = activate_backward(linear(dx2, P["W_2"].T), C["u"], C["gate"], activation)  # ReLU: only where u > 0
        grads["W_1"] = weight_grad(C["c"], du)
        grads["b_1"] = du.reshape(-1, du.shape[-1]).sum(axis=0)
        dx1_ffn = norm_backward(linear(du, P["W_1"].T), C["ln2"], P, "ln2", grads)
        dx1 = skip * dx2 + dx1_ffn  # residual: both paths add up

    # x1 = x + merge(softmax(q k^T / sqrt(d_head)) v) @ W_O
    grads["W_O"] = weight_grad(C["o"], dx1)
    d_heads = _split_heads(linear(dx1, P["W_O"].T), n_heads)  # (..., h, n, d_head)
    w = C["weights"]
    dv = np.swapaxes(w, -1, -2) @ d_heads  # swapaxes(-1, -2): every (n, n) matrix transposed, w^T d_heads
    dw = np.swapaxes(C["v"] @ np.swapaxes(d_heads, -1, -2), -1, -2)  # dP = d_heads v^T, computed transposed as w is
    dscores = dw - (dw * w).sum(axis=-1, keepdims=True)  # softmax backward: w (dw - rowsum(dw w)) ...
    dscores *= w  # ... 0 where masked
    dscores /= math.sqrt(d_head)  # the scores were q k^T / sqrt(d_head)
    dq = dscores @ C["k"]
    dk = np.swapaxes(dscores, -1, -2) @ C["q"]
    dq, dk, dv = _merge_heads(dq), _merge_heads(dk), _merge_heads(dv)  # back to (..., n, d)
    grads["W_Q"] = weight_grad(C["a"], dq)
    grads["W_K"] = weight_grad(C["a"], dk)
    grads["W_V"] = weight_grad(C["a"], dv)
    da = linear(dq, P["W_Q"].T) + linear(dk, P["W_K"].T) + linear(dv, P["W_V"].T)
    return skip * dx1 + norm_backward(da, C["ln1"], P, "ln1", grads), grads


# --8<-- [end:block_backward]
