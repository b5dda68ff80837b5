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
#     minutes: 60
#     difficulty: 2
#     path: false
# ---

# %% [markdown]
# # Lab: depth, RMSNorm and RoPE
#
# **About 60 minutes · difficulty 2 of 3 (standard)** · after
# [The Transformer block](https://transformer-math.github.io/mathematics-for-transformers/part-4/block/),
# [From GPT-2 to Llama](https://transformer-math.github.io/mathematics-for-transformers/part-4/modern/) and the
# [Transformer block lab](https://transformer-math.github.io/mathematics-for-transformers/labs/transformer-block/)
#
# A model of $L$ blocks runs them one after the other on one residual stream, $X^{(\ell)}$ after $\ell$
# blocks: $X^{(0)} = W_E[t] + PE$, $X^{(\ell+1)} = \operatorname{Block}_\ell(X^{(\ell)})$, and
# $Z = \operatorname{LN}_f(X^{(L)})\, W_U$. Each block *adds* to the stream and takes nothing away. You measure
# what that does to the stream's size, then make two of the changes that lead from GPT-2 to Llama: RMSNorm
# in place of LayerNorm, and rotary positions (RoPE) on the queries and keys in place of a position vector
# added to the embeddings.
#
# **How to work:** run the first two cells. Each cell tagged `exercise` states a goal and holds a `...`
# to replace; the cell under it calls `check`, which runs your code on hidden cases and prints
# **Correct**, or what is wrong and on which case, or **Not yet** while the `...` is there. Under each
# exercise a hint and a solution are folded: open the hint first.

# %%
# The guide's library holds this lab's checks (NumPy is all it needs). On Colab, or in a Python without
# it, this cell installs it, pinned to the edition of this notebook.
import importlib
import subprocess
import sys

try:
    import transformer_math.labs  # noqa: F401
except ImportError:
    library = "git+https://github.com/transformer-math/mathematics-for-transformers"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", library], check=True)
    importlib.invalidate_caches()

# %%
import numpy as np

from transformer_math.labs.depth_rmsnorm_rope import check

# %% [markdown]
# Given: the forward pass of the Transformer block lab. A model is a dictionary of arrays, block 0's under
# the names of `BLOCK_NAMES` and block $\ell \ge 1$'s with the prefix `h{ℓ}.`; `block(x, p, n_heads)` is one
# pre-LN block, and `random_model(n_layers, scale)` draws a model as it is before training (gains 1, shifts
# and biases 0), with the two matrices that write into the stream, $W_O$ and $W_2$, multiplied by `scale`.


# %%
def positional_encoding(n, d):
    angle = np.arange(n)[:, None] / 10000 ** (np.arange(0, d, 2) / d)
    pe = np.zeros((n, d))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle), np.cos(angle[:, : d // 2])
    return pe


def layer_norm(x, gamma, beta, eps=1e-5):
    mu, var = x.mean(axis=-1, keepdims=True), x.var(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_head, n = X.shape[-1] // n_heads, X.shape[-2]
    causal = np.tril(np.ones((n, n), dtype=bool))
    heads = []
    for head in range(n_heads):
        q, k, v = (M[..., head * d_head : (head + 1) * d_head] for M in (X @ W_Q, X @ W_K, X @ W_V))
        scores = np.where(causal, q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head), -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        heads.append(weights / weights.sum(axis=-1, keepdims=True) @ v)
    return np.concatenate(heads, axis=-1) @ W_O


def block(x, p, n_heads):
    x = x + multi_head_attention(layer_norm(x, p["ln1_g"], p["ln1_b"]), p["W_Q"], p["W_K"], p["W_V"], p["W_O"], n_heads)
    u = layer_norm(x, p["ln2_g"], p["ln2_b"]) @ p["W_1"] + p["b_1"]
    return x + np.maximum(u, 0.0) @ p["W_2"] + p["b_2"]


BLOCK_NAMES = ["ln1_g", "ln1_b", "W_Q", "W_K", "W_V", "W_O", "ln2_g", "ln2_b", "W_1", "b_1", "W_2", "b_2"]


def block_params(params, layer):
    prefix = "" if layer == 0 else f"h{layer}."
    return {name: params[prefix + name] for name in BLOCK_NAMES}


def n_blocks(params):
    return 1 + sum(name.startswith("h") and name.endswith(".W_Q") for name in params)


def random_model(n_layers, scale, V=5, d=8, d_ff=16, seed=2):
    r = np.random.default_rng(seed)
    model = {"W_E": r.normal(size=(V, d)), "W_U": r.normal(size=(d, V)) / np.sqrt(d)}
    model |= {"lnf_g": np.ones(d), "lnf_b": np.zeros(d)}
    for layer in range(n_layers):
        prefix = "" if layer == 0 else f"h{layer}."
        for name in BLOCK_NAMES:
            if name.startswith("W"):
                fan_in, fan_out = {"W_1": (d, d_ff), "W_2": (d_ff, d)}.get(name, (d, d))
                factor = scale if name in ("W_O", "W_2") else 1.0
                model[prefix + name] = factor * r.normal(size=(fan_in, fan_out)) / np.sqrt(fan_in)
            else:
                size = d_ff if name == "b_1" else d
                model[prefix + name] = np.ones(size) if name.endswith("_g") else np.zeros(size)
    return model


tokens = np.array([0, 1, 2, 3])
deep = random_model(12, scale=1.0)  # 12 blocks as drawn
deep_scaled = random_model(12, scale=1 / np.sqrt(2 * 12))  # W_O and W_2 times 1/sqrt(2L), as GPT-2 does

# %% [markdown]
# ## 1. Predict: the stream of 12 blocks
#
# Every block adds two terms to the stream, one from attention and one from the feed-forward layer, each
# of roughly the size the block's matrices give it. Before you measure, write down what the size of the
# stream of `deep` (12 blocks as drawn) does from $X^{(0)}$ to $X^{(12)}$: it `"grows"`, or it `"stays"` near
# its first size.

# %% tags=["exercise"]
prediction = ...  # "grows" or "stays"

# %% [markdown]
# <details><summary>Solution</summary>
#
# Either is a right answer here, if you wrote it before running the cells after the next exercise. One
# that reasons from the sum:
#
# ```python
# prediction = "grows"
# ```
#
# $X^{(12)} = X^{(0)} + \sum_\ell (\Delta^{\text{attn}}_\ell + \Delta^{\text{ffn}}_\ell)$: 24 terms that do not
# cancel, so the sum grows with their number (like $\sqrt{24}$ if they were independent).
#
# </details>

# %%
check("prediction", prediction)

# %% [markdown]
# ## 2. How big the stream gets
#
# Write `stream_sizes(params, tokens, n_heads)`: the root mean square of the stream's entries,
# $\sqrt{\operatorname{mean}\big((X^{(\ell)})^2\big)}$ over all of them (every token, every feature, every
# sequence of a batch), for $\ell = 0, 1, \dots, L$: an array of $L + 1$ numbers, the size of $X^{(0)}$ first.
# Use the given `block`, `block_params` and `n_blocks`.


# %% tags=["exercise"]
def stream_sizes(params, tokens, n_heads):
    tokens = np.asarray(tokens)
    return ...  # your code: shape (L + 1,)


# %% [markdown]
# <details><summary>Hint</summary>
#
# Start from $X^{(0)} = W_E[t] + PE$ (`positional_encoding(n, d)` with $n$ the length of a sequence, the last
# axis of `tokens`), record its size, then run the blocks one by one, recording the size after each.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def stream_sizes(params, tokens, n_heads):
#     tokens = np.asarray(tokens)
#     x = params["W_E"][tokens] + positional_encoding(tokens.shape[-1], params["W_E"].shape[1])
#     sizes = [np.sqrt(np.mean(x**2))]
#     for layer in range(n_blocks(params)):
#         x = block(x, block_params(params, layer), n_heads)
#         sizes.append(np.sqrt(np.mean(x**2)))
#     return np.array(sizes)
# ```
#
# </details>

# %%
check("stream_sizes", stream_sizes)

# %%
if check.ready(stream_sizes, deep, tokens, 2) and prediction is not Ellipsis:
    drawn, scaled = stream_sizes(deep, tokens, 2), stream_sizes(deep_scaled, tokens, 2)
    for what, sizes in [("as drawn", drawn), ("1/sqrt(2L)", scaled)]:
        print(f"{what:>10}: size after 0, 3, 6, 9, 12 blocks:", np.round(sizes[::3], 2))
    grows = "grows" if drawn[-1] > 1.5 * drawn[0] else "stays"
    print(f"You predicted {prediction!r}:", "it held." if prediction.strip().lower() == grows else "it did not hold.")

# %% [markdown]
# The two models differ only in $W_O$ and $W_2$. GPT-2 (Radford et al., 2019) multiplies these by
# $1/\sqrt{2L}$ at initialisation, so that the $2L$ terms together have about the size of one, and the
# stream of the scaled model stays near its starting size. Training then changes the weights, and a trained
# model's stream can still grow with depth: the norm before each sub-layer is what keeps what the sub-layer
# *reads* at a steady size either way.
#
# ## 3. RMSNorm
#
# LayerNorm re-centres each token (subtracts the mean of its features) and re-scales it. RMSNorm (Zhang and
# Sennrich, 2019), in Llama and most open models since, only re-scales: it divides each token by the root
# mean square of its features and multiplies by a gain $\gamma$, with no shift. Write
# `rms_norm(x, gamma, eps=1e-6)` for `x` of shape $(\dots, d)$, each token on its own, with $\varepsilon$
# added where LayerNorm adds it.


# %% tags=["exercise"]
def rms_norm(x, gamma, eps=1e-6):
    x = np.asarray(x, dtype=float)
    return ...  # your code: the shape of x


# %% [markdown]
# <details><summary>Hint</summary>
#
# $$\operatorname{RMSNorm}(x) = \gamma \odot \frac{x}{\sqrt{\frac1d \sum_r x_r^2 + \varepsilon}}$$
#
# The mean of the squares along `axis=-1`, `keepdims=True`.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def rms_norm(x, gamma, eps=1e-6):
#     x = np.asarray(x, dtype=float)
#     return gamma * x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps)
# ```
#
# Like LayerNorm it makes a sub-layer's input independent of the stream's size, up to $\varepsilon$: for
# $c > 0$, $\operatorname{RMSNorm}(cx) = \gamma \odot x / \sqrt{\operatorname{mean}(x^2) + \varepsilon / c^2}$.
#
# </details>

# %%
check("rms_norm", rms_norm)

# %% [markdown]
# ## 4. LayerNorm from RMSNorm
#
# LayerNorm and RMSNorm divide by different things, yet one is the other applied to a changed input. Write
# `layer_norm_from_rms(x, gamma, eps=1e-5)`, LayerNorm without its shift ($\beta = 0$), whose result is what
# your `rms_norm` returns: the check runs it a second time with an `rms_norm` that answers its value with each
# entry moved by an amount of its own, and each entry of your result must move with it; it also records what your
# `rms_norm` is given, which must be the changed input and `gamma`.


# %% tags=["exercise"]
def layer_norm_from_rms(x, gamma, eps=1e-5):
    x = np.asarray(x, dtype=float)
    return ...  # your code, with rms_norm


# %% [markdown]
# <details><summary>Hint</summary>
#
# The variance of $x$ is the mean of the squares of $x - \mu$, so the root mean square of $x - \mu$ is the
# standard deviation of $x$:
#
# $$\begin{aligned} \operatorname{LN}(x) - \beta &= \gamma \odot \frac{x - \mu}{\sqrt{\operatorname{mean}\big((x - \mu)^2\big) + \varepsilon}} \\ &= \operatorname{RMSNorm}(x - \mu). \end{aligned}$$
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def layer_norm_from_rms(x, gamma, eps=1e-5):
#     x = np.asarray(x, dtype=float)
#     return rms_norm(x - x.mean(axis=-1, keepdims=True), gamma, eps)
# ```
#
# What RMSNorm drops is the centring: add the same amount to every feature of a token and LayerNorm does
# not notice, RMSNorm does. Zhang and Sennrich found the centring dispensable in their experiments.
#
# </details>

# %%
check("layer_norm_from_rms", layer_norm_from_rms)

# %% [markdown]
# ## 5. Rotary positions
#
# RoPE (Su et al., 2021) adds nothing to the embeddings: inside attention, it turns each query and each key
# by angles that grow with its position. Take the features of a row $x$ at position $m$ in neighbouring
# pairs $(x_{2r}, x_{2r+1})$, $r = 0, \dots, d/2 - 1$ ($d$ the width of the row, a head's width in a model),
# and turn pair $r$ by the angle $m\omega_r$, with the frequency $\omega_r = \text{base}^{-2r/d}$, base
# 10000 by default: pair 0 turns by one radian per position, the last pair very slowly. Write
# `apply_rope(x, positions, base=10000.0)` for `x` of shape $(\dots, n, d)$, $d$ even: row $i$ of the last two
# axes is at position `positions[i]`.


# %% tags=["exercise"]
def apply_rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=float)
    return ...  # your code: the shape of x


# %% [markdown]
# <details><summary>Hint</summary>
#
# Turning the pair $(a, b)$ by the angle $\alpha$ (counter-clockwise, as the rotation matrices of Part I):
#
# $$(a, b) \mapsto (a \cos\alpha - b \sin\alpha,\; a \sin\alpha + b \cos\alpha).$$
#
# The angles form an $(n, d/2)$ array, `np.asarray(positions)[:, None] * omega`; the pairs are `x[..., 0::2]`
# and `x[..., 1::2]`, each of shape $(\dots, n, d/2)$: the shapes broadcast.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def apply_rope(x, positions, base=10000.0):
#     x = np.asarray(x, dtype=float)
#     d = x.shape[-1]
#     omega = base ** (-np.arange(0, d, 2) / d)  # (d/2,): one frequency per pair
#     angle = np.asarray(positions)[:, None] * omega  # (n, d/2)
#     cos, sin = np.cos(angle), np.sin(angle)
#     even, odd = x[..., 0::2], x[..., 1::2]
#     out = np.empty_like(x)
#     out[..., 0::2] = even * cos - odd * sin
#     out[..., 1::2] = even * sin + odd * cos
#     return out
# ```
#
# Hugging Face's Llama pairs feature $r$ with feature $r + d/2$ instead: the same idea on the features in
# another order, with other numbers. The paper, Meta's code and the guide's library pair neighbours.
#
# </details>

# %%
check("apply_rope", apply_rope)

# %% [markdown]
# ## 6. RoPE inside attention
#
# In a model, RoPE turns the queries and the keys of each head, not the token. Write
# `rope_attention_scores(X, W_Q, W_K, n_heads)`: the scores of the `multi_head_attention` given at the top,
# before its mask and softmax, with RoPE on each head's queries and keys: for `X` of shape $(\dots, n, d)$,
# an array of shape $(\dots, \text{n\_heads}, n, n)$ whose entry $[h, i, j]$ is head $h$'s score of query $i$
# against key $j$, the tokens at positions $0, 1, \dots, n - 1$. The check runs it on 1, 2, 3 and 4 heads, one
# sequence and a batch.


# %% tags=["exercise"]
def rope_attention_scores(X, W_Q, W_K, n_heads):
    X = np.asarray(X, dtype=float)
    return ...  # your code: shape (..., n_heads, n, n)


# %% [markdown]
# <details><summary>Hint</summary>
#
# Head $h$ owns columns $h d_h$ to $(h + 1) d_h - 1$ of `X @ W_Q` and of `X @ W_K`, with
# $d_h = d / \text{n\_heads}$, as in `multi_head_attention`. RoPE turns the pairs of *those* $d_h$ features,
# with the frequencies of a row of width $d_h$: turning all $d$ columns at once gives the heads after the
# first other frequencies. The scale is that of the head, $1/\sqrt{d_h}$. `np.stack(..., axis=-3)` puts the
# heads in front of the $(n, n)$ scores.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def rope_attention_scores(X, W_Q, W_K, n_heads):
#     X = np.asarray(X, dtype=float)
#     n, d_head = X.shape[-2], X.shape[-1] // n_heads
#     positions = np.arange(n)
#     scores = []
#     for head in range(n_heads):
#         columns = slice(head * d_head, (head + 1) * d_head)
#         q = apply_rope((X @ W_Q)[..., columns], positions)
#         k = apply_rope((X @ W_K)[..., columns], positions)
#         scores.append(q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head))
#     return np.stack(scores, axis=-3)
# ```
#
# </details>

# %%
check("rope_attention_scores", rope_attention_scores)

# %% [markdown]
# Now one token repeated at positions 0 to 4, through two heads: with RoPE, does a head's score depend on the
# positions $i$ and $j$, or only on their distance $j - i$? Each diagonal of a head's scores is one distance.

# %%
rng = np.random.default_rng(1)
token, W_Q, W_K = rng.normal(size=8), rng.normal(size=(8, 8)), rng.normal(size=(8, 8))
X = np.tile(token, (5, 1))
if check.ready(rope_attention_scores, X, W_Q, W_K, 2):
    S = rope_attention_scores(X, W_Q, W_K, 2)
    spread = max(np.ptp(np.diagonal(S[h], offset)) for h in range(2) for offset in range(-4, 5))
    XP = X + positional_encoding(5, 8)  # positions added to the token instead
    Q, K = XP @ W_Q, XP @ W_K
    added = max(
        np.ptp(np.diagonal(Q[:, c] @ K[:, c].T / 2, offset))
        for c in (slice(0, 4), slice(4, 8))
        for offset in range(-4, 5)
    )
    print(f"largest spread along a diagonal (one distance j - i): RoPE {spread:.1e}, positions added {added:.2f}")

# %% [markdown]
# Every diagonal of the RoPE scores holds one number, up to rounding: the positions enter only through their
# distance, in every head. With the position vectors added to the token instead, the score depends on $i$ and
# $j$ each.
#
# ## What you wrote
#
# The measure of a deep stack's stream, and the two changes of Llama's block that concern normalisation and
# positions, equal to the library's `transformer_math.modern` on hidden cases. A block with `rms_norm` in
# place of `layer_norm`, and `apply_rope` on each head's queries and keys (not its values: they are what a
# query reads, not how it finds it), is Llama's block but for its feed-forward layer, SwiGLU, in
# [From GPT-2 to Llama](https://transformer-math.github.io/mathematics-for-transformers/part-4/modern/).
