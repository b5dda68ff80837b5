r"""A one-block decoder-only Transformer in plain NumPy: forward, backward by hand, and training.

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
lines in reverse order and returns the gradient of the loss with respect to *every* parameter;
:func:`train` hands those gradients to :class:`~transformer_math.optim.AdamW`.

The building blocks come from the rest of the library: ``softmax`` and ``log_softmax``
(:mod:`transformer_math.softmax`), ``layer_norm`` (:mod:`transformer_math.stats`),
``cross_entropy_from_logits`` (:mod:`transformer_math.information`), the attention functions
(:mod:`transformer_math.attention`) and ``AdamW`` (:mod:`transformer_math.optim`).

Example
-------
>>> from transformer_math.transformer import forward, init_params
>>> import numpy as np
>>> params = init_params(vocab_size=5, d_model=8, d_ff=16, seed=0)
>>> tokens = np.array([0, 1, 2, 3])
>>> logits, cache = forward(params, tokens, n_heads=2)
>>> logits.shape
(4, 5)
"""

from __future__ import annotations

import numpy as np

from transformer_math.attention import (
    causal_mask,
    merge_heads,
    positional_encoding,
    scaled_dot_product_attention,
    split_heads,
)
from transformer_math.checks import check_integer, check_no_nan, check_number, float_array, token_ids
from transformer_math.information import check_logits_and_targets, cross_entropy_from_logits
from transformer_math.optim import AdamW, clip_grad_norm, warmup_cosine
from transformer_math.softmax import softmax
from transformer_math.stats import layer_norm

__all__ = [
    "init_params",
    "forward",
    "backward",
    "cross_entropy_backward",
    "layer_norm_backward",
    "loss_and_grads",
    "make_windows",
    "train",
    "sampling_distribution",
    "sample_token",
    "generate",
]

LN_EPS = 1e-5
PARAM_NAMES = tuple(
    "W_E ln1_g ln1_b W_Q W_K W_V W_O ln2_g ln2_b W_1 b_1 W_2 b_2 lnf_g lnf_b W_U".split()
)  # init_params' keys


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
    >>> from transformer_math.transformer import init_params
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
    output_scale = check_number(output_scale, "output_scale")
    if output_scale < 0:
        raise ValueError(f"output_scale must be >= 0, got {output_scale!r}")

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
    >>> from transformer_math.transformer import forward, init_params
    >>> params = init_params(vocab_size=5, d_model=8, d_ff=16)
    >>> logits, cache = forward(params, np.array([[0, 1, 2], [3, 4, 0]]), n_heads=2)
    >>> logits.shape, cache["weights"].shape
    ((2, 3, 5), (2, 2, 3, 3))
    """
    missing = [name for name in PARAM_NAMES if name not in params]
    if missing:
        raise ValueError(f"params lacks {', '.join(missing)}; make it with init_params")
    vocab_size, d = params["W_E"].shape
    tokens = token_ids(tokens, "tokens", vocab_size, item="token")
    if tokens.ndim not in (1, 2) or tokens.shape[-1] == 0:
        raise ValueError(f"tokens must have shape (n,) or (batch, n) with n >= 1, got shape {tokens.shape}")
    n_heads = check_integer(n_heads, "n_heads", minimum=1)
    if d % n_heads != 0:
        raise ValueError(f"d_model = {d} is not divisible by n_heads = {n_heads}")
    n = tokens.shape[-1]

    x0 = params["W_E"][tokens] + positional_encoding(n, d)  # (..., n, d)
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
    >>> from transformer_math.transformer import cross_entropy_backward
    >>> g = cross_entropy_backward(np.array([[0.0, 0.0]]), np.array([1]))
    >>> print(g)
    [[ 0.5 -0.5]]
    """
    logits, targets = check_logits_and_targets(logits, targets)  # as cross_entropy_from_logits checks them
    one_hot = np.eye(logits.shape[-1])[targets]  # (..., V): 1 at each target
    return (softmax(logits, axis=-1) - one_hot) / targets.size  # prediction minus target


# --8<-- [end:cross_entropy_backward]


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
    >>> from transformer_math.transformer import layer_norm_backward
    >>> x = np.array([[1.0, 2.0, 4.0]])
    >>> dx, dg, db = layer_norm_backward(np.ones((1, 3)), x, np.ones(3))
    >>> print(np.abs(dx).max() < 1e-12, db)     # adding the same to every output changes nothing
    True [1. 1. 1.]
    """
    dy, x, gamma = float_array(dy, "dy"), float_array(x, "x"), float_array(gamma, "gamma")
    if x.ndim == 0 or x.shape[-1] == 0 or dy.shape != x.shape or gamma.shape != x.shape[-1:]:
        raise ValueError(
            f"layer_norm_backward needs dy shaped like x and gamma of shape (d,) with d = x.shape[-1]; "
            f"got dy {dy.shape}, x {x.shape}, gamma {gamma.shape}"
        )
    for name, a in (("dy", dy), ("x", x), ("gamma", gamma)):
        check_no_nan(a, name, finite=True)
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
    >>> from transformer_math.transformer import backward, forward, init_params
    >>> params = init_params(vocab_size=5, d_model=8, d_ff=16)
    >>> logits, cache = forward(params, np.array([0, 1, 2]), n_heads=2)
    >>> grads = backward(params, cache, np.ones_like(logits))
    >>> all(grads[name].shape == params[name].shape for name in params)
    True
    """
    P, C = params, cache
    dlogits = float_array(dlogits, "dlogits")
    if dlogits.shape != C["z"].shape[:-1] + P["W_U"].shape[-1:]:
        raise ValueError(
            f"dlogits must be shaped like the logits, {C['z'].shape[:-1] + P['W_U'].shape[-1:]}, got {dlogits.shape}"
        )
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
    dq = dscores @ C["k"] / np.sqrt(d_head)
    dk = np.swapaxes(dscores, -1, -2) @ C["q"] / np.sqrt(d_head)
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
    >>> from transformer_math.transformer import init_params, loss_and_grads
    >>> params = init_params(vocab_size=5, d_model=8, d_ff=16)
    >>> loss, grads = loss_and_grads(params, np.array([0, 1, 2]), np.array([1, 2, 3]), n_heads=2)
    >>> print(round(loss, 4), sorted(grads) == sorted(params))
    1.8768 True
    """
    logits, cache = forward(params, tokens, n_heads)
    loss = cross_entropy_from_logits(logits, targets)
    return loss, backward(params, cache, cross_entropy_backward(logits, targets))


# --8<-- [end:loss_and_grads]


# --8<-- [start:make_windows]
def make_windows(stream, seq_len):
    r"""Every window of ``seq_len`` tokens of a token stream, with the next token of each as its target.

    Window $i$ is ``stream[i : i + seq_len]``; its targets are the same window shifted by one,
    ``stream[i + 1 : i + seq_len + 1]``.

    Returns
    -------
    inputs, targets : numpy.ndarray
        Both of shape ``(len(stream) - seq_len, seq_len)``.

    Examples
    --------
    >>> from transformer_math.transformer import make_windows
    >>> x, y = make_windows([0, 1, 2, 3, 4], seq_len=3)
    >>> print(x, y, sep="\n")
    [[0 1 2]
     [1 2 3]]
    [[1 2 3]
     [2 3 4]]
    """
    stream = np.asarray(stream)
    if stream.ndim != 1 or stream.dtype == bool or not np.issubdtype(stream.dtype, np.integer):
        raise ValueError(
            f"stream must be a 1-D array of integer token ids, got shape {stream.shape}, dtype {stream.dtype}"
        )
    seq_len = check_integer(seq_len, "seq_len", minimum=1)
    if len(stream) <= seq_len:
        raise ValueError(f"need a stream longer than seq_len = {seq_len}, got {len(stream)} tokens")
    starts = np.arange(len(stream) - seq_len)[:, None]
    offsets = np.arange(seq_len)[None, :]
    return stream[starts + offsets], stream[starts + offsets + 1]


# --8<-- [end:make_windows]


# --8<-- [start:train]
def train(
    params,
    tokens,
    targets,
    n_heads,
    steps,
    lr=1e-2,
    weight_decay=0.01,
    max_grad_norm=None,
    warmup_steps=None,
    batch_size=None,
    seed=0,
):
    r"""Training with AdamW; ``params`` is updated in place. Returns the loss before each step.

    Each step is the whole diagram: forward to the logits, cross entropy, backward to every gradient,
    and one AdamW update of every parameter. Two options of larger training runs are available:
    ``max_grad_norm`` clips the global norm of the gradients (:func:`~transformer_math.optim.clip_grad_norm`)
    and ``warmup_steps`` replaces the constant ``lr`` by a warm-up to ``lr`` followed by a cosine decay
    to 0 (:func:`~transformer_math.optim.warmup_cosine`). Both are off by default.

    By default every step uses every window (full batch). With ``batch_size`` each step uses that many
    windows, drawn at random (with replacement) by ``np.random.default_rng(seed)``, and the losses
    returned are those of these mini-batches.

    Examples
    --------
    >>> from transformer_math.transformer import init_params, make_windows, train
    >>> params = init_params(vocab_size=3, d_model=8, d_ff=16)
    >>> x, y = make_windows([0, 1, 2] * 4, seq_len=4)
    >>> losses = train(params, x, y, n_heads=2, steps=30)
    >>> bool(losses[-1] < losses[0] / 10)
    True
    >>> params = init_params(vocab_size=3, d_model=8, d_ff=16)   # again, clipped and scheduled
    >>> losses = train(params, x, y, n_heads=2, steps=30, lr=0.03, max_grad_norm=1.0, warmup_steps=5)
    >>> bool(losses[-1] < losses[0] / 10)
    True
    >>> params = init_params(vocab_size=3, d_model=8, d_ff=16)   # again, 4 random windows a step
    >>> losses = train(params, x, y, n_heads=2, steps=30, batch_size=4, seed=0)
    >>> bool(losses[-1] < losses[0] / 10)
    True
    """
    steps = check_integer(steps, "steps")
    if batch_size is not None:
        batch_size = check_integer(batch_size, "batch_size", minimum=1)
        tokens, targets = np.asarray(tokens), np.asarray(targets)
        if tokens.ndim != 2 or targets.shape != tokens.shape:
            raise ValueError(
                f"batch_size needs tokens and targets of one shape (windows, n); "
                f"got tokens {tokens.shape}, targets {targets.shape}"
            )
        rng = np.random.default_rng(check_integer(seed, "seed"))
    names = list(params)
    optimizer = AdamW([params[name] for name in names], lr=lr, weight_decay=weight_decay)
    losses = []
    for t in range(steps):
        if batch_size is None:
            loss, grads = loss_and_grads(params, tokens, targets, n_heads)
        else:
            rows = rng.integers(0, len(tokens), size=batch_size)  # a random mini-batch of windows
            loss, grads = loss_and_grads(params, tokens[rows], targets[rows], n_heads)
        grads = [grads[name] for name in names]
        if max_grad_norm is not None:
            grads, _ = clip_grad_norm(grads, max_grad_norm)
        if warmup_steps is not None:
            optimizer.lr = warmup_cosine(t, steps, warmup_steps, peak_lr=lr)
        optimizer.step(grads)
        losses.append(loss)
    return losses


# --8<-- [end:train]


# --8<-- [start:sampling_distribution]
def sampling_distribution(logits, temperature=1.0, top_k=None, top_p=None):
    r"""The distribution the next token is drawn from: $\operatorname{softmax}(z / T)$, optionally truncated.

    * ``temperature`` $T$: below 1 sharpens the distribution, above 1 flattens it; $T = 0$ is the
      limit $T \to 0$, all the probability on the largest logit (greedy decoding).
    * ``top_k``: keep only the $k$ most probable tokens.
    * ``top_p`` (nucleus sampling): keep the fewest most probable tokens whose probabilities add up to at
      least $p$.

    Whatever is kept is renormalised to sum to 1; the rest gets probability exactly 0.

    Parameters
    ----------
    logits : array_like
        Shape ``(V,)``, the scores of the next token.
    temperature : float, default 1.0
        $T \geq 0$.
    top_k : int, optional
        $1 \leq k \leq V$.
    top_p : float, optional
        $0 < p \leq 1$.

    Returns
    -------
    numpy.ndarray
        Shape ``(V,)``, non-negative, summing to 1.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.transformer import sampling_distribution
    >>> logits = np.array([2.0, 1.0, 0.0, -1.0])
    >>> print(sampling_distribution(logits).round(4))
    [0.6439 0.2369 0.0871 0.0321]
    >>> print(sampling_distribution(logits, top_k=2).round(4))       # the 2 largest, renormalised
    [0.7311 0.2689 0.     0.    ]
    >>> print(sampling_distribution(logits, top_p=0.85).round(4))    # 0.64 + 0.24 = 0.88 >= 0.85
    [0.7311 0.2689 0.     0.    ]
    """
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError(f"logits must be a non-empty vector of shape (V,), got shape {z.shape}")
    if not np.all(np.isfinite(z)):
        raise ValueError("logits contain nan or inf")
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float, np.number)):
        raise TypeError(f"temperature must be a number, got {temperature!r}")
    if not (np.isfinite(temperature) and temperature >= 0):
        raise ValueError(f"temperature must be >= 0 (0 means greedy), got {temperature!r}")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer))):
        raise TypeError(f"top_k must be an integer, got {top_k!r}")
    if top_k is not None and not 1 <= top_k <= z.size:
        raise ValueError(f"top_k must be an integer in 1 .. {z.size} (the vocabulary), got {top_k!r}")
    if top_p is not None and (isinstance(top_p, bool) or not isinstance(top_p, (int, float, np.number))):
        raise TypeError(f"top_p must be a number, got {top_p!r}")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1], got {top_p!r}")
    if temperature == 0:
        return np.eye(z.size)[np.argmax(z)]  # greedy: everything on the largest logit
    z = z / temperature
    if top_k is not None:
        kept = np.argsort(-z, kind="stable")[: int(top_k)]  # the k largest (ties: the lower id)
        z = np.where(np.isin(np.arange(z.size), kept), z, -np.inf)
    p = softmax(z)
    if top_p is not None:
        order = np.argsort(-p, kind="stable")
        before = np.cumsum(p[order]) - p[order]  # probability of the tokens ranked above each one
        p[order[before >= top_p]] = 0.0  # keep a token while the ones above it hold less than top_p
        p = p / p.sum()
    return p


# --8<-- [end:sampling_distribution]


# --8<-- [start:sample_token]
def sample_token(logits, rng, temperature=1.0, top_k=None, top_p=None):
    r"""Draw one token id from :func:`sampling_distribution`; ``temperature=0`` takes the argmax, no draw.

    Parameters
    ----------
    logits : array_like
        Shape ``(V,)``.
    rng : numpy.random.Generator
        The source of randomness, e.g. ``np.random.default_rng(0)``: the same seed, the same tokens.
    temperature, top_k, top_p
        As in :func:`sampling_distribution`.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.transformer import sample_token
    >>> rng = np.random.default_rng(0)
    >>> logits = np.array([2.0, 1.0, 0.0, -1.0])
    >>> [sample_token(logits, rng) for _ in range(8)]
    [0, 0, 0, 0, 1, 2, 0, 1]
    >>> [sample_token(logits, rng, top_k=2) for _ in range(8)]   # only tokens 0 and 1 remain
    [0, 1, 1, 0, 1, 0, 0, 0]
    >>> sample_token(logits, rng, temperature=0)                  # greedy
    0
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), got {rng!r}")
    p = sampling_distribution(logits, temperature, top_k, top_p)
    if temperature == 0:
        return int(np.argmax(p))  # greedy uses no randomness: rng is left as it was
    return int(rng.choice(p.size, p=p))


# --8<-- [end:sample_token]


# --8<-- [start:generate]
def generate(params, prompt, n_new, n_heads, context=None, temperature=0.0, top_k=None, top_p=None, seed=0):
    r"""Continue ``prompt`` by ``n_new`` tokens, each drawn by :func:`sample_token` from the last position's logits.

    With the default ``temperature=0`` each new token is the most probable one (greedy decoding, no
    randomness); with ``temperature > 0`` it is sampled, optionally from the ``top_k`` or ``top_p``
    most probable tokens only, by ``np.random.default_rng(seed)``: the same seed gives the same text.
    The model only ever saw sequences of its training length, so ``context`` (if given) keeps just the
    last ``context`` tokens as its input.

    Examples
    --------
    >>> from transformer_math.transformer import generate, init_params
    >>> params = init_params(vocab_size=3, d_model=8, d_ff=16)
    >>> len(generate(params, [0, 1], n_new=3, n_heads=2))
    5
    >>> a = generate(params, [0, 1], n_new=6, n_heads=2, temperature=1.0, seed=3)
    >>> a == generate(params, [0, 1], n_new=6, n_heads=2, temperature=1.0, seed=3)
    True
    """
    if np.ndim(prompt) != 1 or len(prompt) == 0:
        raise ValueError(f"prompt must be a non-empty 1-D sequence of token ids, got {prompt!r}")
    tokens = [int(t) for t in token_ids(prompt, "prompt", params["W_E"].shape[0], item="token")]
    n_new = check_integer(n_new, "n_new")
    if context is not None:
        context = check_integer(context, "context", minimum=1)
    sampling_distribution(np.zeros(params["W_E"].shape[0]), temperature, top_k, top_p)  # checks them once
    if (top_k is not None or top_p is not None) and temperature == 0:
        raise ValueError("top_k and top_p need temperature > 0; temperature = 0 is greedy decoding")
    rng = np.random.default_rng(seed)
    for _ in range(n_new):
        window = tokens if context is None else tokens[-context:]
        logits, _ = forward(params, np.array(window), n_heads)
        tokens.append(sample_token(logits[-1], rng, temperature, top_k, top_p))
    return tokens


# --8<-- [end:generate]
