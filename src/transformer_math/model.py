r"""The decoder-only Transformer of $L$ pre-LN blocks: parameters, forward, backward by hand.

The whole model is a dictionary of NumPy arrays. With tokens $t_1, \dots, t_n$ and pre-LayerNorm
blocks (as in GPT-2), the forward pass is

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
entropy of the logits against the next tokens. With ``n_layers=L`` the two middle lines repeat $L$ times
(``transformer_math.block``), each block adding to the same residual stream. ``backward`` applies
the chain rule to each of these lines in reverse order and returns the gradient of the loss with respect
to *every* parameter. The training loop is in ``transformer_math.train``, decoding in
``transformer_math.sample``.

Options, as in GPT-2: ``activation="gelu"`` (or ``"gelu_tanh"``), learned positions
(``init_params(positions="learned", n_ctx=...)``) and tied embeddings, $W_U = W_E^\top$ (``tie_embeddings=True``).

Block 0's arrays keep the one-block names (``W_Q``, ``ln1_g``, ...); block $l \geq 1$'s carry the prefix
``h{l}.`` (``h1.W_Q``), as nanoGPT's ``transformer.h.1``. Parameters of one float dtype keep it: float32
parameters give float32 logits and gradients.

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

from transformer_math.attention import positional_encoding
from transformer_math.block import (
    BLOCK_NAMES,
    LN_EPS,  # noqa: F401 - importable from here, as from transformer_math.transformer
    block_backward,
    block_forward,
    block_params,
    layer_norm_backward,
    linear,
    n_layers_of,
    norm,
    norm_backward,
    prefix,
    weight_grad,
)
from transformer_math.checks import token_ids
from transformer_math.information import check_logits_and_targets
from transformer_math.model_checks import (  # noqa: F401 - check_params, check_model_inputs: importable from here
    check_backward_inputs,
    check_init_options,
    check_model_inputs,
    check_params,
    model_signature,
)
from transformer_math.softmax import softmax

__all__ = [
    "init_params",
    "forward",
    "backward",
    "cross_entropy_backward",
    "layer_norm_backward",
    "loss_and_grads",
]

PARAM_NAMES = ("W_E", *BLOCK_NAMES, "lnf_g", "lnf_b", "W_U")  # the one-block model's keys


# --8<-- [start:init_params]
def init_params(
    vocab_size,
    d_model,
    d_ff,
    seed=0,
    output_scale=1.0,
    n_layers=1,
    scale_residual=None,
    positions="sinusoidal",
    n_ctx=None,
    tie_embeddings=False,
    layer_norm=True,
):
    r"""Random parameters of a model of ``n_layers`` blocks, as a dictionary of float64 arrays.

    Weight matrices are drawn from $\mathcal{N}(0, 1/\text{fan-in})$, so a vector keeps roughly its size
    through each matrix product; an untied $W_E$ is drawn from $\mathcal{N}(0, 1)$, so that its rows
    (length about $\sqrt d$) are of the size of the sinusoidal positions' ($\sqrt{d/2}$). LayerNorm gains
    start at 1, every bias and shift at 0.

    With LayerNorm, the logits $Z = \operatorname{LN}_f(X_2)\, W_U$ then have a spread of about 1
    ($\operatorname{LN}_f$ rescales the last stream); without it the spread, and the gap below, is larger. Gaussian logits of mean
    0 and standard deviation $\sigma$, independent of the target, cost on average between $\ln V$ and
    $\ln V + \sigma^2/2$ nats: Jensen's inequality both ways, $\mathbb{E} \log \sum_j e^{z_j} \leq \log
    \mathbb{E} \sum_j e^{z_j}$ above and the convexity of log-sum-exp below; the upper bound is close when
    $V$ is large. ``output_scale`` multiplies $W_U$ (and so the initial logits): 0.1 starts a model with
    LayerNorm within about $0.1^2/2 = 0.005$ of $\ln V$, close to the uniform guess.

    A block with a feed-forward layer adds two terms to the residual stream, $2L$ in all for $L$ such
    blocks; an attention-only block (``d_ff=0``) adds one. The GPT-2 paper scales the matrices that write
    into the stream, $W_O$ and $W_2$, by $1/\sqrt{N}$, $N$ "the number of residual layers", so that their
    sum has about the spread of one; nanoGPT reads $N$ as the number of these terms, $2L$, and so does the
    library. For attention-only blocks it scales $W_O$ by $1/\sqrt{2L}$ all the same, smaller than the
    $1/\sqrt{L}$ that one term per block would give. ``scale_residual=None`` scales when ``n_layers > 1``; a one-block
    model keeps the unscaled matrices that Part IV's pages were recorded with. ``True`` or ``False``
    decides it for any $L$.

    Parameters
    ----------
    vocab_size : int
        Number of tokens $V$.
    d_model : int
        Width $d$ of every token vector.
    d_ff : int
        Width of the feed-forward hidden layer (often $4d$); 0 makes attention-only blocks.
    seed : int
        Seed of ``np.random.default_rng``.
    output_scale : float, default 1.0
        Factor $\geq 0$ on the output projection $W_U$; the other arrays do not depend on it.
    n_layers : int, default 1
        Number of blocks $L \geq 1$.
    scale_residual : bool or None, default None
        Multiply $W_O$ and $W_2$ by $1/\sqrt{2L}$ (nanoGPT's rule); ``None``: when $L > 1$.
    positions : {"sinusoidal", "learned"}
        Fixed sinusoids (no parameters), or a learned table ``W_P`` of shape ``(n_ctx, d)``.
    n_ctx : int, optional
        The longest sequence learned positions can hold; only with ``positions="learned"``.
    tie_embeddings : bool, default False
        No ``W_U``: the logits are $\operatorname{LN}_f(X)\, W_E^\top$. $W_E$ is then drawn with spread
        $1/\sqrt d$, the spread of an untied $W_U$.
    layer_norm : bool, default True
        ``False``: no LayerNorm anywhere (no ``ln1_*``, ``ln2_*``, ``lnf_*``), to measure what it buys.

    Returns
    -------
    dict of str to numpy.ndarray
        ``W_E`` $(V, d)$; ``ln1_g``, ``ln1_b`` $(d,)$; ``W_Q``, ``W_K``, ``W_V``, ``W_O`` $(d, d)$;
        ``ln2_g``, ``ln2_b`` $(d,)$; ``W_1`` $(d, d_{ff})$, ``b_1`` $(d_{ff},)$; ``W_2`` $(d_{ff}, d)$,
        ``b_2`` $(d,)$; the same for each block $l \geq 1$ as ``h{l}.W_Q``, ...; ``lnf_g``, ``lnf_b``
        $(d,)$; ``W_U`` $(d, V)$ unless tied; ``W_P`` $(n_{ctx}, d)$ if learned.

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
    >>> deep = init_params(vocab_size=5, d_model=8, d_ff=16, n_layers=2)
    >>> [name for name in deep if name.startswith("h1.W")]
    ['h1.W_Q', 'h1.W_K', 'h1.W_V', 'h1.W_O', 'h1.W_1', 'h1.W_2']
    """
    vocab_size, d, d_ff, n_layers, n_ctx, residual = check_init_options(
        vocab_size,
        d_model,
        d_ff,
        seed,
        output_scale,
        n_layers,
        scale_residual,
        positions,
        n_ctx,
        tie_embeddings,
        layer_norm,
    )  # residual: 1 / sqrt(2L), or 1
    rng = np.random.default_rng(seed)

    def weight(fan_in, fan_out, scale=1.0):
        return scale * rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=(fan_in, fan_out))

    embed_std = 1.0 / math.sqrt(d) if tie_embeddings else 1.0
    params = {"W_E": rng.normal(0.0, embed_std, size=(vocab_size, d))}
    for layer in range(n_layers):
        p = prefix(layer)
        params |= {p + "ln1_g": np.ones(d), p + "ln1_b": np.zeros(d)}
        params |= {p + "W_Q": weight(d, d), p + "W_K": weight(d, d), p + "W_V": weight(d, d)}
        params |= {p + "W_O": weight(d, d, residual)}
        if d_ff > 0:  # d_ff = 0: an attention-only block
            params |= {p + "ln2_g": np.ones(d), p + "ln2_b": np.zeros(d)}
            params |= {p + "W_1": weight(d, d_ff), p + "b_1": np.zeros(d_ff)}
            params |= {p + "W_2": weight(d_ff, d, residual), p + "b_2": np.zeros(d)}
    params |= {"lnf_g": np.ones(d), "lnf_b": np.zeros(d)}
    if not layer_norm:  # no LayerNorm anywhere: drop every gain and shift
        params = {name: value for name, value in params.items() if name.split(".")[-1][:2] != "ln"}
    if not tie_embeddings:
        params["W_U"] = output_scale * weight(d, vocab_size)
    if positions == "learned":
        params["W_P"] = rng.normal(0.0, embed_std, size=(n_ctx, d))  # as W_E
    return params


# --8<-- [end:init_params]


# --8<-- [start:forward]
def forward(params, tokens, n_heads, activation="relu", tie_embeddings=False, residual=True):
    r"""Logits of the next token at every position, and the intermediate arrays the backward pass needs.

    Parameters
    ----------
    params : dict of str to numpy.ndarray
        As made by ``init_params``.
    tokens : array_like of int
        Token ids, shape ``(n,)`` or ``(batch, n)``.
    n_heads : int
        Number of attention heads $h$; must divide $d$.
    activation : {"relu", "gelu", "gelu_tanh", "identity"}, default "relu"
        The feed-forward non-linearity, ReLU by default; ``"identity"`` makes the FFN linear, a control.
    tie_embeddings : bool, default False
        The logits are $Z_f W_E^\top$ (a model made with ``init_params(tie_embeddings=True)``).
    residual : bool, default True
        ``False`` cuts the residual paths: each block computes $F(X)$ instead of $X + F(X)$.

    Returns
    -------
    logits : numpy.ndarray
        Shape ``tokens.shape + (V,)``.
    cache : dict
        The intermediate arrays of the forward pass, keyed by the names used in ``backward``:
        block 0's as ``"x1"``, ``"weights"``, ..., block $l$'s as ``"h{l}.x1"``, ...

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.model import forward, init_params
    >>> params = init_params(vocab_size=5, d_model=8, d_ff=16)
    >>> logits, cache = forward(params, np.array([[0, 1, 2], [3, 4, 0]]), n_heads=2)
    >>> logits.shape, cache["weights"].shape
    ((2, 3, 5), (2, 2, 3, 3))
    """
    tokens, n_heads = check_model_inputs(params, tokens, n_heads, activation, tie_embeddings, residual)
    return _forward(params, tokens, n_heads, activation, tie_embeddings, residual)


def _forward(params, tokens, n_heads, activation="relu", tie_embeddings=False, residual=True):
    """``forward`` without the checks: what ``train`` runs at every step."""
    n, d = tokens.shape[-1], params["W_E"].shape[1]
    pe = params["W_P"][:n] if "W_P" in params else positional_encoding(n, d, dtype=params["W_E"].dtype)

    x = params["W_E"][tokens] + pe  # (..., n, d): embeddings plus positions
    cache = {"tokens": tokens, "n_heads": n_heads, "activation": activation, "residual": residual, "x0": x}
    for layer in range(n_layers_of(params)):  # each block adds to the residual stream
        p = prefix(layer)
        x, block_cache = block_forward(block_params(params, layer), x, n_heads, activation, residual)
        cache |= {p + name: value for name, value in block_cache.items()} | {p + "x2": x}
    z, lnf = norm(params, "lnf", x)  # LN_f(x)
    logits = linear(z, params["W_E"].T if tie_embeddings else params["W_U"])  # (..., n, V)
    cache |= {"z": z, "lnf": lnf, "tie_embeddings": tie_embeddings, "model": model_signature(params)}
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


# --8<-- [start:backward]
def backward(params, cache, dlogits):
    r"""Gradients of the loss with respect to every parameter, by the chain rule, from ``dlogits``.

    Each forward line $Y = X W$ gives $\partial L/\partial W = X^\top \partial L/\partial Y$ and
    $\partial L/\partial X = \partial L/\partial Y\, W^\top$; a residual $Y = X + F(X)$ passes
    $\partial L/\partial Y$ through unchanged *and* through $F$ (``block_backward``,
    once per block, the last first); an embedding lookup adds each token's row gradient into its row of
    $W_E$. With tied embeddings $W_E$ also gets the gradient of $W_U = W_E^\top$: the two paths add up.

    Parameters
    ----------
    params : dict of str to numpy.ndarray
    cache : dict
        From ``forward``.
    dlogits : numpy.ndarray
        $\partial L / \partial Z$, shaped like the logits (see ``cross_entropy_backward``).

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
    dlogits = check_backward_inputs(params, cache, dlogits)
    return _backward(params, cache, dlogits)


def _backward(params, cache, dlogits):
    """``backward`` without the checks."""
    P, C = params, cache
    n_layers, tied = n_layers_of(P), C["tie_embeddings"]
    grads = {}

    # logits = z @ W_U, z = LN_f(x): x is the last block's output
    dW_U = weight_grad(C["z"], dlogits)
    dz = linear(dlogits, P["W_E"] if tied else P["W_U"].T)
    dx = norm_backward(dz, C["lnf"], P, "lnf", grads)

    for layer in reversed(range(n_layers)):  # the last block first
        p = prefix(layer)
        names = ("a", "ln1", "q", "k", "v", "weights", "o", "x1", "c", "ln2", "u", "r", "gate")  # "c" on: with a FFN
        block_cache = {name: C[p + name] for name in names if p + name in C}
        dx, block_grads = block_backward(
            block_params(P, layer), block_cache, dx, C["n_heads"], C["activation"], C["residual"]
        )
        grads |= {p + name: g for name, g in block_grads.items()}

    # x0 = W_E[tokens] + PE: each position's gradient goes to its token's row
    grads["W_E"] = dW_U.T.copy() if tied else np.zeros_like(P["W_E"])  # tied: W_U = W_E^T's path too
    add_rows(grads["W_E"], C["tokens"].reshape(-1), dx.reshape(-1, dx.shape[-1]))
    if not tied:
        grads["W_U"] = dW_U
    if "W_P" in P:  # learned positions: position i's gradient, summed over the batch
        grads["W_P"] = np.zeros_like(P["W_P"])
        grads["W_P"][: dx.shape[-2]] = dx.reshape(-1, *dx.shape[-2:]).sum(axis=0)
    return {name: grads[name] for name in params}  # same order as params


# --8<-- [end:backward]


def add_rows(target, rows, values):
    """``target[rows[i]] += values[i]`` for every ``i``, repeated rows adding up: ``np.add.at``, written as a sort
    of the rows and one ``np.add.reduceat`` over each run of equal rows.

    Which is faster depends on the shape. Single-threaded CPU time with NumPy 2.4.6, ``np.add.at`` over
    ``add_rows`` for (target rows, values rows, columns): 1.6 at (65, 256, 32), 2.8 at (65, 2048, 64),
    0.86 at (65, 4096, 128), 0.65 at (65, 16384, 256), 0.11 at (5, 8, 8)."""
    order = np.argsort(rows, kind="stable")
    rows, values = rows[order], values[order]
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])  # where each run of equal rows begins
    target[rows[starts]] += np.add.reduceat(values, starts, axis=0)


# --8<-- [start:loss_and_grads]
def loss_and_grads(params, tokens, targets, n_heads, activation="relu", tie_embeddings=False, residual=True):
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
    tokens, n_heads = check_model_inputs(params, tokens, n_heads, activation, tie_embeddings, residual)
    targets = token_ids(targets, "targets", params["W_E"].shape[0])
    if targets.shape != tokens.shape:
        raise ValueError(f"targets must have the shape of tokens, {tokens.shape}, got {targets.shape}")
    return _loss_and_grads(params, tokens, targets, n_heads, activation, tie_embeddings, residual)


def _loss_and_grads(params, tokens, targets, n_heads, activation="relu", tie_embeddings=False, residual=True):
    """``loss_and_grads`` without the checks: forward, the loss and its gradient for the logits, backward."""
    logits, cache = _forward(params, tokens, n_heads, activation, tie_embeddings, residual)
    loss, dlogits = _cross_entropy_and_grad(logits, targets)
    return loss, _backward(params, cache, dlogits)


def _cross_entropy_and_grad(logits, targets):
    r"""The mean cross entropy and its gradient ``cross_entropy_backward``, from one exponential of the logits."""
    z = logits.reshape(-1, logits.shape[-1])
    rows, y = np.arange(len(z)), targets.reshape(-1)
    with np.errstate(over="ignore"):  # a shift past -1.8e308 gives -inf, whose exp is 0
        shifted = z - np.max(z, axis=-1, keepdims=True)
    p = np.exp(shifted)
    total = np.sum(p, axis=-1, keepdims=True)
    picked = shifted[rows, y] - np.log(total[:, 0])  # log_softmax at the targets, as cross_entropy_from_logits
    p /= total  # softmax
    p[rows, y] -= 1  # prediction minus target
    p /= len(z)
    return float(0.0 - np.mean(picked)), p.reshape(logits.shape)


# --8<-- [end:loss_and_grads]
