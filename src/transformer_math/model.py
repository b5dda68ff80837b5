r"""The model of the one-block decoder-only Transformer: parameters, forward, backward by hand.

The whole model is a dictionary of NumPy arrays. With tokens $t_1, \dots, t_n$ and a pre-LayerNorm
block (as in GPT-2), the forward pass is

$$
\begin{aligned}
X_0 &= W_E[t] + PE \\
&\quad \text{embeddings plus positions, } (n, d) \\
X_1 &= X_0 + \operatorname{MHA}(\operatorname{LN}_1(X_0)) \\
&\quad \text{causal multi-head attention, residual} \\
X_2 &= X_1 + \operatorname{FFN}(\operatorname{LN}_2(X_1)) \\
&\quad \text{feed-forward, residual} \\
Z &= \operatorname{LN}_f(X_2)\, W_U \qquad \text{logits, } (n, V)
\end{aligned}
$$

with $\operatorname{FFN}(C) = \operatorname{ReLU}(C W_1 + b_1)\, W_2 + b_2$, and the loss is the mean cross
entropy of the logits against the next tokens. :func:`backward` applies the chain rule to each of these
lines in reverse order and returns the gradient of the loss with respect to *every* parameter. The
training loop is in :mod:`transformer_math.train`, decoding in :mod:`transformer_math.sample`.

The building blocks come from the rest of the library: ``softmax`` (:mod:`transformer_math.softmax`),
``layer_norm`` (:mod:`transformer_math.stats`), ``cross_entropy_from_logits``
(:mod:`transformer_math.information`) and the attention functions (:mod:`transformer_math.attention`).
Parameters of one float dtype keep it: float32 parameters give float32 logits and gradients.

Example
-------
>>> import numpy as np
>>> from transformer_math.model import forward, init_params
>>> params = init_params(vocab_size=5, d_model=8, d_ff=16, seed=0)
>>> logits, cache = forward(params, np.array([0, 1, 2, 3]), n_heads=2)
>>> logits.shape, logits.dtype
((4, 5), dtype('float64'))
"""

from __future__ import annotations

import math

import numpy as np

from transformer_math.attention import (
    causal_mask,
    merge_heads,
    positional_encoding,
    scaled_dot_product_attention,
    split_heads,
)
from transformer_math.checks import check_in_range, check_integer, check_no_nan, float_array, token_ids
from transformer_math.information import check_logits_and_targets, cross_entropy_from_logits
from transformer_math.softmax import softmax
from transformer_math.stats import layer_norm

__all__ = [
    "init_params",
    "forward",
    "backward",
    "cross_entropy_backward",
    "layer_norm_backward",
    "loss_and_grads",
]

LN_EPS = 1e-5
PARAM_NAMES = tuple(
    "W_E ln1_g ln1_b W_Q W_K W_V W_O ln2_g ln2_b W_1 b_1 W_2 b_2 lnf_g lnf_b W_U".split()
)  # init_params' keys


def check_params(params) -> np.dtype:
    """The one float dtype of ``params``, after checking it has every array of :func:`init_params`."""
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict of arrays made by init_params, got {type(params).__name__}")
    missing = [name for name in PARAM_NAMES if name not in params]
    if missing:
        raise ValueError(f"params lacks {', '.join(missing)}; make it with init_params")
    arrays = {name: float_array(params[name], f"params[{name!r}]") for name in PARAM_NAMES}
    dtypes = {a.dtype for a in arrays.values()}
    if len(dtypes) != 1:
        raise TypeError(f"params must all have one float dtype, got {', '.join(sorted(map(str, dtypes)))}")
    if arrays["W_E"].ndim != 2 or arrays["W_E"].size == 0:
        raise ValueError(f"params['W_E'] must have shape (vocab_size, d_model), got {arrays['W_E'].shape}")
    return dtypes.pop()


def check_model_inputs(params, tokens, n_heads) -> tuple[np.ndarray, int]:
    """``tokens`` as ids of shape ``(n,)`` or ``(batch, n)`` and ``n_heads`` as a divisor of ``d``."""
    check_params(params)
    vocab_size, d = params["W_E"].shape
    tokens = token_ids(tokens, "tokens", vocab_size, item="token")
    if tokens.ndim not in (1, 2) or tokens.shape[-1] == 0 or tokens.size == 0:
        raise ValueError(f"tokens must have shape (n,) or (batch, n) with n >= 1, got shape {tokens.shape}")
    n_heads = check_integer(n_heads, "n_heads", minimum=1)
    if d % n_heads != 0:
        raise ValueError(f"d_model = {d} is not divisible by n_heads = {n_heads}")
    return tokens, n_heads


# --8<-- [start:init_params]
def init_params(vocab_size, d_model, d_ff, seed=0, output_scale=1.0):
    r"""Random parameters of the one-block model, as a dictionary of float64 arrays.

    Weight matrices are drawn from $\mathcal{N}(0, 1/\text{fan-in})$, so a vector keeps roughly its size
    through each matrix product; LayerNorm gains start at 1, every bias and shift at 0.

    The logits $Z = \operatorname{LN}_f(X_2)\, W_U$ then have a spread of about 1, and random logits of
    spread $\sigma$ cost about $\ln V + \sigma^2/2$ nats rather than the uniform guess's $\ln V$.
    ``output_scale`` multiplies $W_U$ (and so the initial logits): 0.1 starts the model within a few
    hundredths of $\ln V$, close to the uniform guess.

    Parameters
    ----------
    vocab_size : int
        Number of tokens $V$.
    d_model : int
        Width $d$ of every token vector.
    d_ff : int
        Width of the feed-forward hidden layer (often $4d$).
    seed : int
        Seed of ``np.random.default_rng``.
    output_scale : float, default 1.0
        Factor $\geq 0$ on the output projection $W_U$; the other arrays do not depend on it.

    Returns
    -------
    dict of str to numpy.ndarray
        ``W_E`` $(V, d)$; ``ln1_g``, ``ln1_b`` $(d,)$; ``W_Q``, ``W_K``, ``W_V``, ``W_O`` $(d, d)$;
        ``ln2_g``, ``ln2_b`` $(d,)$; ``W_1`` $(d, d_{ff})$, ``b_1`` $(d_{ff},)$; ``W_2`` $(d_{ff}, d)$,
        ``b_2`` $(d,)$; ``lnf_g``, ``lnf_b`` $(d,)$; ``W_U`` $(d, V)$.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.model import init_params
    >>> params = init_params(vocab_size=5, d_model=8, d_ff=16)
    >>> sum(p.size for p in params.values())
    664
    >>> small = init_params(vocab_size=5, d_model=8, d_ff=16, output_scale=0.1)
    >>> bool(np.allclose(small["W_U"], 0.1 * params["W_U"]) and np.array_equal(small["W_E"], params["W_E"]))
    True
    """
    vocab_size = check_integer(vocab_size, "vocab_size", minimum=1)
    d_model = check_integer(d_model, "d_model", minimum=1)
    d_ff = check_integer(d_ff, "d_ff", minimum=1)
    rng = np.random.default_rng(check_integer(seed, "seed"))
    output_scale = check_in_range(output_scale, "output_scale", 0.0)

    def weight(fan_in, fan_out):
        return rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=(fan_in, fan_out))

    d = d_model
    return {
        "W_E": rng.normal(0.0, 1.0, size=(vocab_size, d)),
        "ln1_g": np.ones(d),
        "ln1_b": np.zeros(d),
        "W_Q": weight(d, d),
        "W_K": weight(d, d),
        "W_V": weight(d, d),
        "W_O": weight(d, d),
        "ln2_g": np.ones(d),
        "ln2_b": np.zeros(d),
        "W_1": weight(d, d_ff),
        "b_1": np.zeros(d_ff),
        "W_2": weight(d_ff, d),
        "b_2": np.zeros(d),
        "lnf_g": np.ones(d),
        "lnf_b": np.zeros(d),
        "W_U": output_scale * weight(d, vocab_size),
    }


# --8<-- [end:init_params]


# --8<-- [start:forward]
def forward(params, tokens, n_heads):
    r"""Logits of the next token at every position, and the intermediate arrays the backward pass needs.

    Parameters
    ----------
    params : dict of str to numpy.ndarray
        As made by :func:`init_params`.
    tokens : array_like of int
        Token ids, shape ``(n,)`` or ``(batch, n)``.
    n_heads : int
        Number of attention heads $h$; must divide $d$.

    Returns
    -------
    logits : numpy.ndarray
        Shape ``tokens.shape + (V,)``.
    cache : dict
        The intermediate arrays of the forward pass, keyed by the names used in :func:`backward`.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.model import forward, init_params
    >>> params = init_params(vocab_size=5, d_model=8, d_ff=16)
    >>> logits, cache = forward(params, np.array([[0, 1, 2], [3, 4, 0]]), n_heads=2)
    >>> logits.shape, cache["weights"].shape
    ((2, 3, 5), (2, 2, 3, 3))
    """
    tokens, n_heads = check_model_inputs(params, tokens, n_heads)
    n, d = tokens.shape[-1], params["W_E"].shape[1]

    x0 = params["W_E"][tokens] + positional_encoding(n, d, dtype=params["W_E"].dtype)  # (..., n, d)
    a = layer_norm(x0, params["ln1_g"], params["ln1_b"], eps=LN_EPS)
    q = split_heads(a @ params["W_Q"], n_heads)  # (..., h, n, d_head)
    k = split_heads(a @ params["W_K"], n_heads)
    v = split_heads(a @ params["W_V"], n_heads)
    heads, weights = scaled_dot_product_attention(q, k, v, causal_mask(n))  # weights: (..., h, n, n)
    o = merge_heads(heads)  # (..., n, d)
    x1 = x0 + o @ params["W_O"]  # residual around attention
    c = layer_norm(x1, params["ln2_g"], params["ln2_b"], eps=LN_EPS)
    u = c @ params["W_1"] + params["b_1"]  # (..., n, d_ff)
    r = np.maximum(u, 0.0)  # ReLU
    x2 = x1 + r @ params["W_2"] + params["b_2"]  # residual around feed-forward
    z = layer_norm(x2, params["lnf_g"], params["lnf_b"], eps=LN_EPS)
    logits = z @ params["W_U"]  # (..., n, V)

    cache = {
        "tokens": tokens,
        "n_heads": n_heads,
        "x0": x0,
        "a": a,
        "q": q,
        "k": k,
        "v": v,
        "weights": weights,
        "o": o,
        "x1": x1,
        "c": c,
        "u": u,
        "r": r,
        "x2": x2,
        "z": z,
    }
    return logits, cache


# --8<-- [end:forward]


# --8<-- [start:cross_entropy_backward]
def cross_entropy_backward(logits, targets):
    r"""Gradient of the mean cross entropy with respect to the logits: $(\operatorname{softmax}(z) - \text{onehot}(y)) / N$.

    $N$ is the number of positions the loss averages over.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.model import cross_entropy_backward
    >>> g = cross_entropy_backward(np.array([[0.0, 0.0]]), np.array([1]))
    >>> print(g)
    [[ 0.5 -0.5]]
    """
    logits, targets = check_logits_and_targets(logits, targets)  # as cross_entropy_from_logits checks them
    one_hot = np.eye(logits.shape[-1], dtype=logits.dtype)[targets]  # (..., V): 1 at each target
    return (softmax(logits, axis=-1) - one_hot) / targets.size  # prediction minus target


# --8<-- [end:cross_entropy_backward]


def check_layer_norm_backward_inputs(dy, x, gamma) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``dy``, ``x`` and ``gamma`` as finite float arrays in ``x``'s dtype (as in ``layer_norm``), shaped
    ``x.shape``, ``x.shape`` and ``(d,)``."""
    dy, x, gamma = float_array(dy, "dy"), float_array(x, "x"), float_array(gamma, "gamma")
    if x.ndim == 0 or x.shape[-1] == 0 or dy.shape != x.shape or gamma.shape != x.shape[-1:]:
        raise ValueError(
            f"layer_norm_backward needs dy shaped like x and gamma of shape (d,) with d = x.shape[-1]; "
            f"got dy {dy.shape}, x {x.shape}, gamma {gamma.shape}"
        )
    for name, a in (("dy", dy), ("x", x), ("gamma", gamma)):
        check_no_nan(a, name, finite=True)
    return dy.astype(x.dtype, copy=False), x, gamma.astype(x.dtype, copy=False)


# --8<-- [start:layer_norm_backward]
def layer_norm_backward(dy, x, gamma, eps=LN_EPS):
    r"""Backward pass of $y = \gamma \odot \hat x + \beta$ with $\hat x = (x - \mu) / \sqrt{\sigma^2 + \varepsilon}$.

    With $g = \gamma \odot \partial L / \partial y$ and $s = \sqrt{\sigma^2 + \varepsilon}$, per token

    $$\frac{\partial L}{\partial x} = \frac{1}{s}\left(g - \operatorname{mean}(g) - \hat x\, \operatorname{mean}(g \odot \hat x)\right),$$

    where $\operatorname{mean}$ averages over the $d$ features: subtracting the mean and dividing by the
    spread both depend on every feature, and these two terms undo exactly that.

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
    dy, x, gamma = check_layer_norm_backward_inputs(dy, x, gamma)
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


def check_backward_inputs(params, cache, dlogits) -> np.ndarray:
    """``dlogits`` as a finite array of the parameters' dtype, shaped like the logits of ``cache``."""
    dtype = check_params(params)
    if not isinstance(cache, dict) or "z" not in cache or "n_heads" not in cache:
        raise TypeError(f"cache must be the dict that forward returns, got {type(cache).__name__}")
    dlogits = float_array(dlogits, "dlogits")
    shape = cache["z"].shape[:-1] + params["W_U"].shape[-1:]
    if dlogits.shape != shape:
        raise ValueError(f"dlogits must be shaped like the logits, {shape}, got {dlogits.shape}")
    check_no_nan(dlogits, "dlogits", finite=True)
    if dlogits.dtype != dtype:
        raise TypeError(f"dlogits has dtype {dlogits.dtype}, but the parameters have dtype {dtype}")
    return dlogits


# --8<-- [start:backward]
def backward(params, cache, dlogits):
    r"""Gradients of the loss with respect to every parameter, by the chain rule, from ``dlogits``.

    Each forward line $Y = X W$ gives $\partial L/\partial W = X^\top \partial L/\partial Y$ and
    $\partial L/\partial X = \partial L/\partial Y\, W^\top$; a residual $Y = X + F(X)$ passes
    $\partial L/\partial Y$ through unchanged *and* through $F$; an embedding lookup adds each token's
    row gradient into its row of $W_E$.

    Parameters
    ----------
    params : dict of str to numpy.ndarray
    cache : dict
        From :func:`forward`.
    dlogits : numpy.ndarray
        $\partial L / \partial Z$, shaped like the logits (see :func:`cross_entropy_backward`).

    Returns
    -------
    dict of str to numpy.ndarray
        One gradient per parameter, same keys and shapes as ``params``.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.model import backward, forward, init_params
    >>> params = init_params(vocab_size=5, d_model=8, d_ff=16)
    >>> logits, cache = forward(params, np.array([0, 1, 2]), n_heads=2)
    >>> grads = backward(params, cache, np.ones_like(logits))
    >>> all(grads[name].shape == params[name].shape for name in params)
    True
    """
    P, C = params, cache
    dlogits = check_backward_inputs(params, cache, dlogits)
    n_heads, d_head = C["n_heads"], C["q"].shape[-1]
    grads = {}

    # logits = z @ W_U, z = LN_f(x2)
    grads["W_U"] = weight_grad(C["z"], dlogits)
    dz = dlogits @ P["W_U"].T
    dx2, grads["lnf_g"], grads["lnf_b"] = layer_norm_backward(dz, C["x2"], P["lnf_g"])

    # x2 = x1 + relu(c @ W_1 + b_1) @ W_2 + b_2, c = LN_2(x1)
    grads["W_2"] = weight_grad(C["r"], dx2)
    grads["b_2"] = dx2.reshape(-1, dx2.shape[-1]).sum(axis=0)
    du = (dx2 @ P["W_2"].T) * (C["u"] > 0)  # ReLU passes gradient where u > 0
    grads["W_1"] = weight_grad(C["c"], du)
    grads["b_1"] = du.reshape(-1, du.shape[-1]).sum(axis=0)
    dc = du @ P["W_1"].T
    dx1_ffn, grads["ln2_g"], grads["ln2_b"] = layer_norm_backward(dc, C["x1"], P["ln2_g"])
    dx1 = dx2 + dx1_ffn  # residual: both paths add up

    # x1 = x0 + merge(softmax(q k^T / sqrt(d_head)) v) @ W_O
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
    dx0_attn, grads["ln1_g"], grads["ln1_b"] = layer_norm_backward(da, C["x0"], P["ln1_g"])
    dx0 = dx1 + dx0_attn

    # x0 = W_E[tokens] + PE: each position's gradient goes to its token's row
    grads["W_E"] = np.zeros_like(P["W_E"])
    np.add.at(grads["W_E"], C["tokens"].reshape(-1), dx0.reshape(-1, dx0.shape[-1]))
    return {name: grads[name] for name in params}  # same order as params


# --8<-- [end:backward]


# --8<-- [start:loss_and_grads]
def loss_and_grads(params, tokens, targets, n_heads):
    r"""Mean cross entropy of the next-token predictions, and its gradient for every parameter.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.model import init_params, loss_and_grads
    >>> params = init_params(vocab_size=5, d_model=8, d_ff=16)
    >>> loss, grads = loss_and_grads(params, np.array([0, 1, 2]), np.array([1, 2, 3]), n_heads=2)
    >>> print(round(loss, 4), sorted(grads) == sorted(params))
    1.8768 True
    """
    logits, cache = forward(params, tokens, n_heads)
    loss = cross_entropy_from_logits(logits, targets)
    return loss, backward(params, cache, cross_entropy_backward(logits, targets))


# --8<-- [end:loss_and_grads]
