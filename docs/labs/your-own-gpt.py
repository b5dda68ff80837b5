# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
#   lab:
#     minutes: 240
#     difficulty: 3
#     path: false
# ---

# %% [markdown]
# # Lab: your own GPT
#
# **About 240 minutes · difficulty 3 of 3 (hard)** writing every piece here (3 h 20 to 5 h); about 150 minutes
# with your pieces from the earlier labs pasted in (2 to 3 h). Both with the hints open when you are stuck; longer
# if you derive each piece from its goal alone. After
# [From logits to gradients](https://transformer-math.github.io/mathematics-for-transformers/part-4/backprop/) and
# [Training the tiny Transformer](https://transformer-math.github.io/mathematics-for-transformers/part-4/training/);
# the lab that follows the one-day path and its lab, backward passes.
#
# The pieces the earlier labs drill, to paste in if you did them: `layer_norm` from the block lab, `attention` from
# the attention lab, `ce_backward`, `layer_norm_backward` and `attention_backward` from backward passes,
# `adamw_step` from the Adam lab.
#
# A GPT whose every piece you write: token and position embeddings, $L$ pre-LN blocks of causal multi-head
# attention and a feed-forward layer, the forward pass to the logits, the loss, the backward pass to every
# gradient, derived and written by hand with no autograd (of any kind: forward-mode dual numbers carried through
# a class of your own measure the gradient as finite differences do, and are not the exercise), AdamW, and the
# training loop. Then it trains on Shakespeare and writes. Each piece is checked on hidden cases before the next
# one uses it, and none of the library's model code may run inside yours; the plumbing (a model as a dictionary
# of arrays, heads split and joined, batches of text, sampling) is given.
#
# Two labs off the path drill the hardest pieces on more cases, if you want practice first:
# [attention by hand](https://transformer-math.github.io/mathematics-for-transformers/labs/attention/) and
# [backward passes](https://transformer-math.github.io/mathematics-for-transformers/labs/backward-passes/). What
# you write there can be pasted here.
#
# **How to work:** run the first three cells. Each cell tagged `exercise` states a goal and holds a `...` to
# replace; the cell under it calls `check`, which runs your code on hidden cases and prints **Correct**, or what
# is wrong and on which case, or **Not yet** while the `...` is there. Under each exercise a hint and a solution
# are folded: open the hint first. The backward passes have two hints: the route (which chain-rule steps, which
# cached values), then the formula.

# %%
# The guide's library holds this lab's checks and the text the model learns from (NumPy is all it needs). On
# Colab, or in a Python without it, this cell installs it, pinned to the edition of this notebook.
import importlib
import os
import subprocess
import sys

# One BLAS thread, set before NumPy loads: over matrices this small, more threads mostly wait on each other.
os.environ.update(OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", VECLIB_MAXIMUM_THREADS="1")

try:
    import transformer_math.labs  # noqa: F401
except ImportError:
    library = "git+https://github.com/transformer-math/mathematics-for-transformers"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", library], check=True)
    importlib.invalidate_caches()

# %%
import time

import numpy as np

from transformer_math.data import decode, encode, split_text, vocabulary
from transformer_math.labs.your_own_gpt import check

# %% [markdown]
# Given: the plumbing. A model is a dictionary of arrays, named as the library names them: `W_E` $(V, d)$ and
# the learned positions `W_P` $(n_{\text{ctx}}, d)$, for each block $\ell$ the arrays of `BLOCK_NAMES` (block 0's
# under these names, block $\ell \ge 1$'s with the prefix `h{ℓ}.`), then `lnf_g`, `lnf_b` and `W_U` $(d, V)$.
# `new_model` draws one as GPT-2 starts: weights $\mathcal N(0, 1/\text{fan-in})$, the two matrices that write
# into the stream ($W_O$, $W_2$) also divided by $\sqrt{2L}$, gains 1, shifts and biases 0. `split_heads` turns
# $(\dots, n, d)$ into $(\dots, h, n, d/h)$, one slice per head, and `merge_heads` turns it back. `softmax` is
# the stable one, along the last axis.


# %%
def softmax(Z):
    exp = np.exp(Z - np.max(Z, axis=-1, keepdims=True))
    return exp / np.sum(exp, axis=-1, keepdims=True)


BLOCK_NAMES = ["ln1_g", "ln1_b", "W_Q", "W_K", "W_V", "W_O", "ln2_g", "ln2_b", "W_1", "b_1", "W_2", "b_2"]


def prefix(layer):
    return "" if layer == 0 else f"h{layer}."


def n_blocks(params):
    return 1 + sum(name.startswith("h") and name.endswith(".W_Q") for name in params)


def block_params(params, layer):
    return {name: params[prefix(layer) + name] for name in BLOCK_NAMES}


def split_heads(X, n_heads):
    *lead, n, d = X.shape
    return np.swapaxes(X.reshape(*lead, n, n_heads, d // n_heads), -2, -3)


def merge_heads(H):
    H = np.swapaxes(H, -2, -3)
    return H.reshape(*H.shape[:-2], -1)


def new_model(vocab, d, n_layers, n_ctx, seed=0):
    rng = np.random.default_rng(seed)

    def weight(fan_in, fan_out, scale=1.0):
        return scale * rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=(fan_in, fan_out))

    params = {"W_E": rng.normal(size=(vocab, d)), "W_P": rng.normal(size=(n_ctx, d))}
    out = 1 / np.sqrt(2 * n_layers)
    for layer in range(n_layers):
        p = prefix(layer)
        params |= {p + "ln1_g": np.ones(d), p + "ln1_b": np.zeros(d), p + "ln2_g": np.ones(d), p + "ln2_b": np.zeros(d)}
        params |= {
            p + "W_Q": weight(d, d),
            p + "W_K": weight(d, d),
            p + "W_V": weight(d, d),
            p + "W_O": weight(d, d, out),
        }
        params |= {
            p + "W_1": weight(d, 4 * d),
            p + "b_1": np.zeros(4 * d),
            p + "W_2": weight(4 * d, d, out),
            p + "b_2": np.zeros(d),
        }
    return params | {"lnf_g": np.ones(d), "lnf_b": np.zeros(d), "W_U": weight(d, vocab)}


# %% [markdown]
# ## Part A: the forward pass
#
# ### 1. LayerNorm
#
# Write `layer_norm(x, gamma, beta, eps=1e-5)`: each token's vector (the last axis of `x`, any leading axes)
# brought to mean 0 and variance 1 over its $d$ entries, then scaled by `gamma` and shifted by `beta`, entry by
# entry; `eps` is added to the variance, so that a constant vector does not divide by 0.


# %% tags=["exercise"]
def layer_norm(x, gamma, beta, eps=1e-5):
    return ...  # your code


# %% [markdown]
# <details><summary>Hint</summary>
#
# $\operatorname{LN}(x) = \gamma \odot (x - \mu)/\sqrt{\sigma^2 + \varepsilon} + \beta$, with $\mu$ and $\sigma^2$ the
# mean and the variance (divided by $d$, not $d - 1$) along the last axis, `keepdims=True` so they broadcast.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def layer_norm(x, gamma, beta, eps=1e-5):
#     x = np.asarray(x, dtype=float)
#     mu, var = x.mean(axis=-1, keepdims=True), x.var(axis=-1, keepdims=True)
#     return gamma * (x - mu) / np.sqrt(var + eps) + beta
# ```
#
# </details>

# %%
check("layer_norm", layer_norm)

# %% [markdown]
# ### 2. Attention
#
# Write `attention(Q, K, V, mask=None)` for queries $(\dots, n, d_k)$, keys $(\dots, m, d_k)$ and values
# $(\dots, m, d_v)$, any leading axes (a batch, heads): each query's output is an average of the value rows,
# weighted by how well the query matches each key, a match scored by a dot product scaled so that its spread
# does not grow with $d_k$. Where the boolean `mask` $(n, m)$ is `False`, the weight must be exactly 0.


# %% tags=["exercise"]
def attention(Q, K, V, mask=None):
    return ...  # your code


# %% [markdown]
# <details><summary>Hint</summary>
#
# $\operatorname{softmax}(QK^\top/\sqrt{d_k})\,V$, the softmax along each row; a score of $-\infty$ where the mask is
# `False` gets weight $e^{-\infty} = 0$ (`np.where(mask, scores, -np.inf)`). `np.swapaxes(K, -1, -2)` transposes
# the last two axes whatever comes before them.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def attention(Q, K, V, mask=None):
#     Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)
#     mask = None if mask is None else np.asarray(mask, dtype=bool)
#     scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
#     if mask is not None:
#         scores = np.where(mask, scores, -np.inf)
#     return softmax(scores) @ V
# ```
#
# </details>

# %%
check("attention", attention)

# %% [markdown]
# ### 3. Embeddings with positions
#
# Write `embed(params, tokens)`: the residual stream before the first block, for `tokens` of shape $(n,)$ or
# $(B, n)$: each token's row of $W_E$ plus the learned vector of its position, row $i$ of $W_P$ for position $i$.


# %% tags=["exercise"]
def embed(params, tokens):
    tokens = np.asarray(tokens)
    return ...  # your code: shape tokens.shape + (d,)


# %% [markdown]
# <details><summary>Hint</summary>
#
# $X^{(0)} = W_E[t] + W_P[{:}n]$: indexing with an array of ids picks rows, for a batch too, and the $(n, d)$
# positions broadcast over the batch.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def embed(params, tokens):
#     tokens = np.asarray(tokens)
#     return params["W_E"][tokens] + params["W_P"][: tokens.shape[-1]]
# ```
#
# </details>

# %%
check("embed", embed)

# %% [markdown]
# ### 4. A block, and what its backward pass will need
#
# Write `block_forward(x, p, n_heads)` for the stream `x` of shape $(\dots, n, d)$ and one block's arrays `p`:
# the pre-LN block $X_1 = X + \operatorname{MHA}(\operatorname{LN}_1(X))$ (the heads joined, then $W_O$),
# $X_2 = X_1 + \operatorname{FFN}(\operatorname{LN}_2(X_1))$ with
# $\operatorname{FFN}(C) = \operatorname{ReLU}(CW_1 + b_1)W_2 + b_2$, and causal attention in every head (no position
# sees a later one), computed with your pieces. Return the pair `(x2, cache)`: `cache` is a dictionary of
# whatever your `block_backward` will need (the inputs of each line you will differentiate). The check looks at
# `x2`, and at the cache as `block_backward` will read it: an entry named as in the hint (`x`, `a`, `q`, `k`,
# `v`, `mask`, `o`, `x1`, `c`, `u`, `r`) must hold that array (the same numbers in the same order, in its shape or
# another of its size; the mask the causal one), none may be the very array you return as `x2` (an
# `x1 += ...` writes $X_2$ over the cached $X_1$), and a second call must leave the first call's cache as it was.


# %% tags=["exercise"]
def block_forward(x, p, n_heads):
    return ...  # your code: x2, cache


# %% [markdown]
# <details><summary>Hint</summary>
#
# Split the projections into heads, `q = split_heads(a @ p["W_Q"], n_heads)` of shape $(\dots, h, n, d/h)$, so that
# your `attention` runs every head at once with one $(n, n)$ causal mask, and `merge_heads` the result before
# $W_O$. Keep in the cache the input of every layer that has weights ($a$, the joined heads $o$, $c$, the hidden
# $r$), what LayerNorm's backward needs ($x$, $x_1$), what attention's backward needs ($q$, $k$, $v$, the mask) and
# the ReLU's input $u$. The mask is `np.tril` of an $(n, n)$ block of `True`.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def block_forward(x, p, n_heads):
#     n = x.shape[-2]
#     mask = np.tril(np.ones((n, n), dtype=bool))
#     a = layer_norm(x, p["ln1_g"], p["ln1_b"])
#     q, k, v = (split_heads(a @ p[name], n_heads) for name in ("W_Q", "W_K", "W_V"))
#     o = merge_heads(attention(q, k, v, mask))
#     x1 = x + o @ p["W_O"]
#     c = layer_norm(x1, p["ln2_g"], p["ln2_b"])
#     u = c @ p["W_1"] + p["b_1"]
#     r = np.maximum(u, 0.0)
#     x2 = x1 + r @ p["W_2"] + p["b_2"]
#     return x2, {"x": x, "a": a, "q": q, "k": k, "v": v, "mask": mask, "o": o, "x1": x1, "c": c, "u": u, "r": r}
# ```
#
# </details>

# %%
check("block_forward", block_forward)

# %% [markdown]
# ### 5. The forward pass
#
# Write `gpt_forward(params, tokens, n_heads)`: the logits, shape `tokens.shape + (V,)`, through every block
# (`n_blocks(params)` of them) and the final LayerNorm and $W_U$, and a cache for `gpt_backward`: the caches of
# the blocks, the tokens, and anything else it will need (`gpt_backward` is not told `n_heads`: keep it too). The
# check looks at the logits, and at the cache as `gpt_backward` will read it: each block's cache as
# `block_forward`'s check does, an entry named as in the hint (`tokens`, `x`, `z`) must hold that value when the
# function returns (in its shape or another of its size, its numbers in the same order), and `n_heads` must be in
# it.


# %% tags=["exercise"]
def gpt_forward(params, tokens, n_heads):
    return ...  # your code: logits, cache


# %% [markdown]
# <details><summary>Hint</summary>
#
# $X^{(0)} = $ `embed(params, tokens)`, each block's `block_forward` on the stream, then
# $Z = \operatorname{LN}_f(X^{(L)})\, W_U$. The backward pass of the last line needs $X^{(L)}$ and the normalised
# $\operatorname{LN}_f(X^{(L)})$: keep them as `x` and `z`, beside `tokens`, `n_heads` and the list of the blocks'
# caches.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def gpt_forward(params, tokens, n_heads):
#     tokens = np.asarray(tokens)
#     x = embed(params, tokens)
#     blocks = []
#     for layer in range(n_blocks(params)):
#         x, block_cache = block_forward(x, block_params(params, layer), n_heads)
#         blocks.append(block_cache)
#     z = layer_norm(x, params["lnf_g"], params["lnf_b"])
#     return z @ params["W_U"], {"tokens": tokens, "n_heads": n_heads, "blocks": blocks, "x": x, "z": z}
# ```
#
# </details>

# %%
check("gpt_forward", gpt_forward)

# %% [markdown]
# ### 6. The loss, and where the backward pass starts
#
# Write `cross_entropy(logits, targets)`: the mean, over every position of every sequence, of $-\log$ of the
# probability that the softmax of that position's logits gives its target token, finite for logits in the
# thousands (computing the softmax first overflows there). Then write `ce_backward(logits, targets)`: the
# gradient of that mean loss with respect to the logits, an array of their shape, in $O(NV)$ work for $N$
# positions of $V$ logits (timed on a wide case: a gradient measured one logit at a time is refused).


# %% tags=["exercise"]
def cross_entropy(logits, targets):
    return ...  # your code: a number


def ce_backward(logits, targets):
    return ...  # your code: d loss / d logits


# %% [markdown]
# <details><summary>Hint: the route</summary>
#
# One position's loss, $-\log \operatorname{softmax}(z)_y$, is $\log\sum_j e^{z_j}$ minus one logit. Subtracting
# the same number from every logit of a position changes neither the softmax nor the loss: choose the number
# that makes every exponent at most 0. For the gradient, differentiate that expression with respect to one logit
# $z_k$: the first term gives an entry of the softmax, the second counts only when $k$ is the target; the mean
# over the positions scales each position's gradient.
#
# </details>
#
# <details><summary>Hint: the formula</summary>
#
# With $m = \max_j z_j$, $\log\sum_j e^{z_j} = m + \log\sum_j e^{z_j - m}$. The derivative of one position's loss
# is $\operatorname{softmax}(z) - \operatorname{onehot}(y)$ (prediction minus target); the mean over $N$
# positions divides it by $N$. `np.take_along_axis(z, targets[..., None], axis=-1)` picks each position's $z_y$.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def cross_entropy(logits, targets):
#     z, targets = np.asarray(logits, dtype=float), np.asarray(targets)
#     m = np.max(z, axis=-1, keepdims=True)
#     log_sum_exp = m[..., 0] + np.log(np.sum(np.exp(z - m), axis=-1))
#     return float(np.mean(log_sum_exp - np.take_along_axis(z, targets[..., None], axis=-1)[..., 0]))
#
#
# def ce_backward(logits, targets):
#     z, targets = np.asarray(logits, dtype=float), np.asarray(targets)
#     return (softmax(z) - np.eye(z.shape[-1])[targets]) / targets.size
# ```
#
# </details>

# %%
check("cross_entropy", cross_entropy)
check("ce_backward", ce_backward)

# %% [markdown]
# ## Part B: the backward pass
#
# ### 7. LayerNorm's backward pass
#
# For $y = $ `layer_norm(x, gamma, beta)` and $\bar y = \partial L/\partial y$, write
# `layer_norm_backward(dy, x, gamma, eps=1e-5)`: return $\partial L/\partial x$ (the shape of `x`) and the
# gradients of `gamma` and `beta` (shape $(d,)$, summed over every token). Every entry of $x$ moves its row's
# mean and variance, so each $\bar x$ entry collects from the whole row; still, write it in $O(d)$ work per token,
# without a $d \times d$ Jacobian per token (timed on a wide case, where that matrix is refused).


# %% tags=["exercise"]
def layer_norm_backward(dy, x, gamma, eps=1e-5):
    return ...  # your code: dx, dgamma, dbeta


# %% [markdown]
# <details><summary>Hint: the route</summary>
#
# Write the forward pass as steps whose derivatives are simple: $\mu = \operatorname{mean}(x)$, $c = x - \mu$,
# $\sigma^2 = \operatorname{mean}(c^2)$, $s = \sqrt{\sigma^2 + \varepsilon}$, $\hat x = c/s$, $y = \gamma \odot \hat x + \beta$,
# along each row. Go back from $\bar y$: $\bar\gamma$ and $\bar\beta$ come from the last step (every token uses
# the same $\gamma$ and $\beta$, so their gradients add over the tokens), and $\bar{\hat x} = \gamma \odot \bar y$.
# From $\hat x$ back to $x$ there are three paths: directly through $c$, through $\mu$, and through $\sigma^2$
# (and $s$); add them. You need only $x$ itself: recompute $\hat x$ and $s$ from it.
#
# </details>
#
# <details><summary>Hint: the formula</summary>
#
# With $g = \gamma \odot \bar y$: $\bar\gamma = \sum \bar y \odot \hat x$, $\bar\beta = \sum \bar y$ over the tokens,
# and, along each row,
#
# $$\bar x = \big(g - \operatorname{mean}(g) - \hat x \operatorname{mean}(g \odot \hat x)\big)/s,$$
#
# the sum of the direct path, the path through $\mu$ and the path through $\sigma^2$ ([From logits to gradients](https://transformer-math.github.io/mathematics-for-transformers/part-4/backprop/#layernorm-step-by-step)
# derives it step by step).
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def layer_norm_backward(dy, x, gamma, eps=1e-5):
#     dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)
#     s = np.sqrt(x.var(axis=-1, keepdims=True) + eps)
#     x_hat = (x - x.mean(axis=-1, keepdims=True)) / s
#     g = gamma * dy
#     dx = (g - g.mean(axis=-1, keepdims=True) - x_hat * (g * x_hat).mean(axis=-1, keepdims=True)) / s
#     d = x.shape[-1]
#     return dx, (dy * x_hat).reshape(-1, d).sum(axis=0), dy.reshape(-1, d).sum(axis=0)
# ```
#
# </details>

# %%
check("layer_norm_backward", layer_norm_backward)

# %% [markdown]
# ### 8. Attention's backward pass
#
# For $O = $ `attention(Q, K, V, mask)` and $\bar O = \partial L/\partial O$, write
# `attention_backward(dO, Q, K, V, mask)`: return $\bar Q$, $\bar K$ and $\bar V$, any leading axes. The softmax
# couples every score of a row: differentiate through it row by row.


# %% tags=["exercise"]
def attention_backward(dO, Q, K, V, mask):
    return ...  # your code: dQ, dK, dV


# %% [markdown]
# <details><summary>Hint: the route</summary>
#
# Recompute the forward pass from `Q`, `K`, `V` and the mask: the scores $S$, the weights
# $P = \operatorname{softmax}(S)$ row by row, $O = PV$. Then go back through its three steps. $O = PV$ and
# $S = QK^\top/\sqrt{d_k}$ are products of matrices: each factor's gradient is the upstream gradient times the
# other factor, transposed on the side that makes the shapes fit. Between them, the softmax of a row couples all
# its entries: $\partial P_{ij}/\partial S_{ik} = P_{ij}(\delta_{jk} - P_{ik})$; contract that with $\bar P$, row by
# row. What does a masked score, whose $P$ is 0, receive?
#
# </details>
#
# <details><summary>Hint: the formula</summary>
#
# $\bar V = P^\top \bar O$, $\bar P = \bar O V^\top$, $\bar S = P \odot (\bar P - \operatorname{rowsum}(P \odot \bar P))$,
# $\bar Q = \bar S K/\sqrt{d_k}$ and $\bar K = \bar S^\top Q/\sqrt{d_k}$. A masked score has $P = 0$, so it passes no
# gradient.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def attention_backward(dO, Q, K, V, mask):
#     dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))
#     scale = np.sqrt(Q.shape[-1])
#     S = Q @ np.swapaxes(K, -1, -2) / scale
#     if mask is not None:
#         S = np.where(mask, S, -np.inf)
#     P = softmax(S)
#     dV = np.swapaxes(P, -1, -2) @ dO
#     dP = dO @ np.swapaxes(V, -1, -2)
#     dS = P * (dP - np.sum(P * dP, axis=-1, keepdims=True))
#     return dS @ K / scale, np.swapaxes(dS, -1, -2) @ Q / scale, dV
# ```
#
# </details>

# %%
check("attention_backward", attention_backward)

# %% [markdown]
# ### 9. The block's backward pass
#
# Write `block_backward(dx2, p, cache, n_heads)`: given $\bar X_2 = \partial L/\partial X_2$ and the cache of
# `block_forward`, return $\bar X$ and the gradients of the block's twelve arrays, as a dictionary by the names
# of `BLOCK_NAMES`. Go through the forward lines in reverse, with your backward pieces (timed on a wide case, as
# is `gpt_backward`: a gradient measured entry by entry, a forward pass for each, is refused).


# %% tags=["exercise"]
def block_backward(dx2, p, cache, n_heads):
    return ...  # your code: dx, grads


# %% [markdown]
# <details><summary>Hint: the route</summary>
#
# Take the lines of your `block_forward` from the last to the first. Three kinds of step appear, and each needs
# its input from the cache: a linear layer $Y = XW + b$ (its $X$: $r$, $c$, $o$ or $a$), the ReLU (its input
# $u$), and a residual $X_2 = X_1 + F(X_1)$, through which the gradient arrives by two paths that add up. The
# two LayerNorms and the attention are your backward pieces, fed from the cache ($x$ and $x_1$; $q$, $k$, $v$ and
# the mask, all heads at once). The order: $W_2, b_2$; the ReLU; $W_1, b_1$; LayerNorm 2; the first residual;
# $W_O$; the heads; $W_Q, W_K, W_V$, which all read $a$; LayerNorm 1; the second residual.
#
# </details>
#
# <details><summary>Hint: the formula</summary>
#
# * $Y = XW + b$ (over every token of every sequence): $\bar W = X^\top \bar Y$ and $\bar b = \sum \bar Y$, with $X$
#   and $\bar Y$ reshaped to $(\text{tokens}, \cdot)$; and $\bar X = \bar Y W^\top$.
# * $r = \operatorname{ReLU}(u)$: $\bar u = \bar r \odot [u > 0]$.
# * $X_2 = X_1 + F(X_1)$: $\bar X_1 = \bar X_2 + $ (what comes back through $F$).
# * The heads: `split_heads` the gradient of the joined heads, run your `attention_backward` on all heads at
#   once, `merge_heads` the three results; $\bar a$ is the sum of the three terms $\bar q W_Q^\top$, $\bar k W_K^\top$,
#   $\bar v W_V^\top$.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def weight_grad(inputs, d_out):
#     return inputs.reshape(-1, inputs.shape[-1]).T @ d_out.reshape(-1, d_out.shape[-1])
#
#
# def block_backward(dx2, p, cache, n_heads):
#     C, g = cache, {}
#     g["W_2"], g["b_2"] = weight_grad(C["r"], dx2), dx2.reshape(-1, dx2.shape[-1]).sum(axis=0)
#     du = (dx2 @ p["W_2"].T) * (C["u"] > 0)
#     g["W_1"], g["b_1"] = weight_grad(C["c"], du), du.reshape(-1, du.shape[-1]).sum(axis=0)
#     dx1_ffn, g["ln2_g"], g["ln2_b"] = layer_norm_backward(du @ p["W_1"].T, C["x1"], p["ln2_g"])
#     dx1 = dx2 + dx1_ffn  # the residual path and the feed-forward path
#     g["W_O"] = weight_grad(C["o"], dx1)
#     dq, dk, dv = attention_backward(split_heads(dx1 @ p["W_O"].T, n_heads), C["q"], C["k"], C["v"], C["mask"])
#     dq, dk, dv = merge_heads(dq), merge_heads(dk), merge_heads(dv)
#     g["W_Q"], g["W_K"], g["W_V"] = weight_grad(C["a"], dq), weight_grad(C["a"], dk), weight_grad(C["a"], dv)
#     da = dq @ p["W_Q"].T + dk @ p["W_K"].T + dv @ p["W_V"].T
#     dx_attn, g["ln1_g"], g["ln1_b"] = layer_norm_backward(da, C["x"], p["ln1_g"])
#     return dx1 + dx_attn, g
# ```
#
# </details>

# %%
check("block_backward", block_backward)

# %% [markdown]
# ### 10. The backward pass of the whole model
#
# Write `gpt_backward(params, cache, dlogits)`: given $\partial L/\partial Z$ and the cache of `gpt_forward`, the
# gradient of every parameter, a dictionary with the keys of `params`.


# %% tags=["exercise"]
def gpt_backward(params, cache, dlogits):
    return ...  # your code: {name: gradient}


# %% [markdown]
# <details><summary>Hint: the route</summary>
#
# Reverse `gpt_forward`: the unembedding $Z = \operatorname{LN}_f(X^{(L)})\,W_U$ is a linear layer (its input, the
# normalised stream, is in your cache), then the final LayerNorm (its input $X^{(L)}$), then the blocks from the
# last to the first, each passing $\bar X$ down and giving its arrays' gradients, to store under its prefix. At the
# bottom, $X^{(0)}$ is a sum of two lookups, so $\bar X^{(0)}$ flows to both: each row goes to the row of $W_E$ and
# the row of $W_P$ it was read from.
#
# </details>
#
# <details><summary>Hint: the formula</summary>
#
# $\bar W_U = \hat X^\top \bar Z$ over every position, $\bar X = \bar Z W_U^\top$ into your `layer_norm_backward`,
# then `block_backward` block by block. Each position's $\bar X^{(0)}$ row is added to its token's row of
# $\bar W_E$ (a token used twice gets both: `np.add.at`), and, summed over the batch, to its position's row of
# $\bar W_P$; the rows of $W_P$ past $n$ get 0.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def gpt_backward(params, cache, dlogits):
#     grads = {"W_U": weight_grad(cache["z"], dlogits)}
#     dx, grads["lnf_g"], grads["lnf_b"] = layer_norm_backward(dlogits @ params["W_U"].T, cache["x"], params["lnf_g"])
#     for layer in reversed(range(n_blocks(params))):
#         p = block_params(params, layer)
#         dx, block_grads = block_backward(dx, p, cache["blocks"][layer], cache["n_heads"])
#         grads |= {prefix(layer) + name: value for name, value in block_grads.items()}
#     tokens, d = cache["tokens"], dx.shape[-1]
#     grads["W_E"] = np.zeros_like(params["W_E"])
#     np.add.at(grads["W_E"], tokens.reshape(-1), dx.reshape(-1, d))
#     grads["W_P"] = np.zeros_like(params["W_P"])
#     grads["W_P"][: tokens.shape[-1]] = dx.reshape(-1, tokens.shape[-1], d).sum(axis=0)
#     return grads
# ```
#
# </details>

# %%
check("gpt_backward", gpt_backward)

# %% [markdown]
# ## Part C: AdamW and the training loop
#
# ### 11. AdamW
#
# Write `adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8)`: one step of
# Adam ([optimizers](https://transformer-math.github.io/mathematics-for-transformers/part-3/optimizers/)) at step
# `t` counting from 1, with its bias correction and $\epsilon$ added after the square root, and a weight decay
# that shrinks $\theta$ towards 0 at the rate $\lambda$ (`weight_decay`) per unit of learning rate, independently
# of the gradient: it never enters $m$ and $v$, and it acts on $\theta$ as it was at the start of the step.
# Return the new `theta`, `m` and `v` (uncorrected) as new arrays.


# %% tags=["exercise"]
def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):
    return ...  # your code: theta, m, v


# %% [markdown]
# <details><summary>Hint: the route</summary>
#
# Adam's step, as in the [Adam lab](https://transformer-math.github.io/mathematics-for-transformers/labs/adam/):
# update the two running averages with `g`, correct their start at 0, and step by the ratio that does not change
# with the gradient's scale. The decay is a separate change of $\theta$ of $-\eta\lambda\theta$ a step, computed
# from $\theta$ as it was before the step; it must not enter $m$ or $v$, which would divide it by
# $\sqrt{\hat v}$ with the rest.
#
# </details>
#
# <details><summary>Hint: the formula</summary>
#
# $m \leftarrow \beta_1 m + (1 - \beta_1) g$, $v \leftarrow \beta_2 v + (1 - \beta_2) g^2$,
# $\hat m = m/(1 - \beta_1^t)$, $\hat v = v/(1 - \beta_2^t)$, and
# $\theta \leftarrow \theta - \eta\lambda\theta - \eta\,\hat m/(\sqrt{\hat v} + \epsilon)$, with $\theta$ on the right as it was
# before the step. `m = beta1 * m + ...` makes a new array; `m *= beta1` would change the caller's.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):
#     theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))
#     theta = theta - lr * weight_decay * theta
#     m = beta1 * m + (1 - beta1) * g
#     v = beta2 * v + (1 - beta2) * g**2
#     return theta - lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps), m, v
# ```
#
# </details>

# %%
check("adamw_step", adamw_step)

# %% [markdown]
# ### 12. The training loop
#
# Write `train(params, batches, n_heads, lr=3e-3, weight_decay=0.1)`: for each `(inputs, targets)` of the
# iterable `batches`, one step: the forward pass, the loss (keep it: return the list of losses, each measured
# before its step), the backward pass (your `ce_backward`, then your `gpt_backward`, each called once a step: the
# check follows what they return), and one `adamw_step` of
# every parameter, $t$ counting the steps from 1, each parameter with its own $m$ and $v$ (zeros at the start).
# Decay the matrices only (the arrays of two dimensions), as nanoGPT does: gains, shifts and biases get
# `weight_decay=0`. Update `params` in place, so that the caller's model learns.


# %% tags=["exercise"]
def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):
    return ...  # your code: the list of losses


# %% [markdown]
# <details><summary>Hint</summary>
#
# `for t, (x, y) in enumerate(batches, start=1)`. The gradient of the loss with respect to the logits is your
# `ce_backward`. `params[name][...] = new` writes into the caller's array; `params[name] = new` would too (the
# caller holds the same dictionary), as long as you keep the dictionary itself.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):
#     m = {name: np.zeros_like(value) for name, value in params.items()}
#     v = {name: np.zeros_like(value) for name, value in params.items()}
#     losses = []
#     for t, (x, y) in enumerate(batches, start=1):
#         logits, cache = gpt_forward(params, x, n_heads)
#         losses.append(cross_entropy(logits, y))
#         grads = gpt_backward(params, cache, ce_backward(logits, y))
#         for name in params:
#             decay = weight_decay if params[name].ndim >= 2 else 0.0
#             params[name], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, lr, decay)
#     return losses
# ```
#
# </details>

# %%
check("train", train)

# %% [markdown]
# ## 13. Predict, then train on Shakespeare
#
# The text is the library's megabyte of Shakespeare, ten tragedies, one character a token: the model trains on
# nine plays and is measured on the tenth, *Antony and Cleopatra*, which it never reads. A model that ignores the
# context and predicts every character by its frequency in the training plays (each count plus one, so that no
# character has probability 0) scores the *unigram* cross entropy on the held-out play, printed below. Your
# model trains for `STEPS` steps on random windows of `N_CTX` characters. Before you run it, write down whether
# its held-out loss `"beats it"` or `"does not"`.

# %%
STEPS, N_CTX, BATCH, D, LAYERS, HEADS = 600, 32, 16, 48, 2, 4

train_text, held_out_text = split_text("shakespeare")
chars = vocabulary(train_text)
train_ids, held_out_ids = encode(train_text, chars), encode(held_out_text, chars)
frequency = (np.bincount(train_ids, minlength=len(chars)) + 1) / (len(train_ids) + len(chars))
unigram = -np.mean(np.log(frequency[held_out_ids]))
print(f"{len(train_ids):,} characters to train on, {len(held_out_ids):,} held out; V = {len(chars)}")
print(f"uniform guess {np.log(len(chars)):.3f} nats, unigram {unigram:.3f}")

# %% tags=["exercise"]
prediction = ...  # "beats it" or "does not"

# %% [markdown]
# <details><summary>Solution</summary>
#
# Either is a right answer here, if you wrote it before running the next cells. One that reasons from the
# architecture:
#
# ```python
# prediction = "beats it"
# ```
#
# The unigram model is what a network learns first; attention lets every position use the characters before it,
# and after a few hundred steps the letters inside a word are far more predictable from their neighbours than
# from their frequencies.
#
# </details>

# %%
check("prediction", prediction)


# %%
def windows(source, count, rng):
    starts = rng.integers(0, len(source) - N_CTX - 1, size=count)
    return np.stack([source[s : s + N_CTX] for s in starts]), np.stack([source[s + 1 : s + N_CTX + 1] for s in starts])


def batches(steps, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield windows(train_ids, BATCH, rng)


def held_out_loss(params, count=256):
    x, y = windows(held_out_ids, count, np.random.default_rng(1))
    return cross_entropy(gpt_forward(params, x, HEADS)[0], y)


tiny = new_model(3, 8, 1, 4)
ready = check.ready(gpt_forward, tiny, [0, 1], 2) and check.ready(train, tiny, [], 2) and prediction is not Ellipsis
if ready:
    params = new_model(len(chars), D, LAYERS, N_CTX, seed=0)
    start = time.process_time()
    losses = train(params, batches(STEPS), HEADS)
    seconds = time.process_time() - start
    marks = [0, STEPS // 3, 2 * STEPS // 3, STEPS - 1]
    print("training loss at steps", marks, ":", [round(losses[t], 3) for t in marks])
    held_out = held_out_loss(params)
    print(f"{STEPS} steps in {seconds:.1f} s of CPU; held-out loss {held_out:.3f}, unigram {unigram:.3f}")
    beats = "beats it" if held_out < unigram else "does not"
    held = prediction.strip().lower() == beats  # read as check reads it: capitals and outer spaces aside
    print(f"You predicted {prediction!r}:", "it held." if held else "it did not hold.")
else:
    print("Training waits for your pieces and your prediction.")

# %% [markdown]
# ## 14. Let it write
#
# `sample` continues a prompt one character at a time with your `gpt_forward`: it draws the next character from
# $\operatorname{softmax}(z/T)$ of the last position's logits, at the temperature $T$, and keeps the last `N_CTX`
# characters as the model's input, the longest window it was trained on.


# %%
def sample(params, prompt, n_new, temperature=0.8, seed=0):
    rng = np.random.default_rng(seed)
    tokens = encode(prompt, chars).tolist()
    for _ in range(n_new):
        logits, _ = gpt_forward(params, np.array(tokens[-N_CTX:]), HEADS)
        p = softmax(logits[-1] / temperature)
        tokens.append(int(rng.choice(len(chars), p=p)))
    return decode(tokens, chars)


if ready:
    print(sample(params, "HAMLET.\n", 300))

# %% [markdown]
# After 600 steps on windows of 32 characters the model has learned the look of the text: lines of verse that
# begin with a capital, words of plausible length between spaces, the commonest short words (*the*, *of*, *my*,
# *you*) among invented ones. It has not learned to mean anything.
#
# **The longer run.** Readable lines take a larger model and minutes, not seconds, of training.
# [A model that writes](https://transformer-math.github.io/mathematics-for-transformers/part-4/a-model-that-writes/)
# measures them with the library's model, which computes what yours computes, in float32 and with nanoGPT's
# recipe (batches of 12 windows of 64 characters, $W_U$ tied to $W_E$, the gradients clipped, a warm-up and a
# cosine schedule of the learning rate), on one CPU core: 2 blocks of width 64 reach a held-out loss of 1.673
# nats per character after 15,600 steps and 3.9 minutes, 4 blocks of width 128 reach 1.563 after 12,600 steps
# and 13.6 minutes, and write speeches in real words in the shape of a play. Your code runs those sizes if you
# set `D`, `LAYERS`, `N_CTX`, `BATCH` and `STEPS`; in float64 and without the schedule and the clipping its
# minutes and its losses will not be the same: those are the page's measurements, not your notebook's.
#
# ## What you built
#
# A GPT from token ids to samples, its backward pass by hand and its optimizer: about 150 lines of NumPy, equal
# on hidden models to the guide's library, which is equal to PyTorch. What separates it from GPT-2 is size
# (GPT-2 small: 12 blocks of width 768, 50,257 tokens of byte-pair encoding, a context of 1,024) and the data,
# not the mathematics.
