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
#     minutes: 55
#     difficulty: 2
#     path: false
# ---

# %% [markdown]
# # Lab: the Transformer block
#
# **About 55 minutes · difficulty 2 of 3 (standard)** · after
# [The Transformer block](https://transformer-math.github.io/mathematics-for-transformers/part-4/block/) and
# the [attention lab](https://transformer-math.github.io/mathematics-for-transformers/labs/attention/)
#
# You build the forward pass of a GPT with NumPy alone, and work out why it is built the way it is: a
# normalisation that makes what a sub-layer sees independent of the scale of the stream, the feed-forward
# layer, a block that a colleague wired wrong and you diagnose from what it does, and the whole pass from
# token ids to logits through however many blocks a model holds. The checks compare your functions with the
# guide's library on hidden models, whose gains, shifts and biases are drawn at random, so that a LayerNorm
# that forgets $\gamma$ shows.
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

from transformer_math.labs.transformer_block import check

# %% [markdown]
# Given: the causal multi-head attention of the attention lab, the sinusoidal positions of
# [Embeddings](https://transformer-math.github.io/mathematics-for-transformers/part-4/embeddings/), and the
# names of a model's arrays. A model is a dictionary: `W_E` $(V, d)$, `W_U` $(d, V)$, the final LayerNorm's
# `lnf_g` and `lnf_b`, and for each block $\ell$ the arrays of `BLOCK_NAMES`, block 0's under these names
# and block $\ell \ge 1$'s with the prefix `h{ℓ}.` (`h1.W_Q`, ...); `block_params` gives one block's arrays
# under the plain names. How many blocks a model has, only its keys say.


# %%
def causal_attention(Q, K, V):
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    n = Q.shape[-2]
    scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ V


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_head = X.shape[-1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [causal_attention(*(M[..., h * d_head : (h + 1) * d_head] for M in (Q, K, V))) for h in range(n_heads)]
    return np.concatenate(heads, axis=-1) @ W_O


def positional_encoding(n, d):
    angle = np.arange(n)[:, None] / 10000 ** (np.arange(0, d, 2) / d)
    pe = np.zeros((n, d))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle), np.cos(angle[:, : d // 2])
    return pe


BLOCK_NAMES = ["ln1_g", "ln1_b", "W_Q", "W_K", "W_V", "W_O", "ln2_g", "ln2_b", "W_1", "b_1", "W_2", "b_2"]


def block_params(params, layer):
    prefix = "" if layer == 0 else f"h{layer}."
    return {name: params[prefix + name] for name in BLOCK_NAMES}


rng = np.random.default_rng(0)
V, d, d_ff = 5, 8, 16
params = {"W_E": rng.normal(size=(V, d)), "lnf_g": np.ones(d), "lnf_b": np.zeros(d), "W_U": rng.normal(size=(d, V))}
params |= {name: rng.normal(size=(d, d)) / np.sqrt(d) for name in ("W_Q", "W_K", "W_V", "W_O")}
params |= {"W_1": rng.normal(size=(d, d_ff)) / np.sqrt(d), "W_2": rng.normal(size=(d_ff, d)) / np.sqrt(d_ff)}
params |= {"b_1": np.zeros(d_ff), "b_2": np.zeros(d), "ln1_g": np.ones(d), "ln2_g": np.ones(d)}
params |= {"ln1_b": np.zeros(d), "ln2_b": np.zeros(d)}  # a one-block model, as initialised, for the prediction

# %% [markdown]
# ## 1. A normalisation the sub-layers can rely on
#
# The stream a sub-layer reads changes size from block to block and from token to token. Write
# `layer_norm(x, gamma, beta, eps=1e-5)` so that what comes out does not care: for `x` of any shape, each
# token (each row along the last axis) is mapped so that its $d$ features have **mean 0 and mean square 1**,
# whatever constant was added to all of them and whatever positive factor they were all multiplied by;
# then feature $j$ is multiplied by `gamma[j]` and shifted by `beta[j]`. A token whose features are all
# equal has no spread to divide by: wherever you divide by a spread $s$, divide by $\sqrt{s^2 + \varepsilon}$
# instead.


# %% tags=["exercise"]
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=float)
    return ...  # your code: the shape of x


# %% [markdown]
# <details><summary>Hint</summary>
#
# Adding $c$ to every feature moves only their mean: subtract it. Multiplying by $a > 0$ multiplies the
# centred features and their root mean square by $a$: divide by that. Together,
#
# $$\operatorname{LN}(x) = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \varepsilon}} + \beta ,$$
#
# with $\mu$ and $\sigma^2$ the mean and the variance of each token's features (`axis=-1`, `keepdims=True`);
# "mean square 1" asks for the variance that divides by $d$, NumPy's default.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def layer_norm(x, gamma, beta, eps=1e-5):
#     x = np.asarray(x, dtype=float)
#     mu = x.mean(axis=-1, keepdims=True)
#     var = x.var(axis=-1, keepdims=True)
#     return gamma * (x - mu) / np.sqrt(var + eps) + beta
# ```
#
# </details>

# %%
check("layer_norm", layer_norm)

# %%
if check.ready(layer_norm, np.ones((1, 4)), np.ones(4), np.zeros(4)):
    token, g, b = np.array([[1.0, 4.0, -2.0, 3.0]]), np.ones(4), np.zeros(4)
    for shown in (token, 100 * token - 7):
        out = layer_norm(shown, g, b)
        print(f"features {shown[0]}: out {out[0].round(3)}, mean {out.mean():.3f}, mean square {np.mean(out**2):.3f}")

# %% [markdown]
# ## 2. The feed-forward layer
#
# Write `feed_forward(C, W_1, b_1, W_2, b_2)`, the chapter's feed-forward layer: every token of `C`, shape
# $(\dots, d)$, goes on its own through a hidden layer of ReLUs and back to width $d$. Which matrix comes
# first, and the hidden width, follow from the arrays' shapes.


# %% tags=["exercise"]
def feed_forward(C, W_1, b_1, W_2, b_2):
    return ...  # your code: the shape of C


# %% [markdown]
# <details><summary>Hint</summary>
#
# $\operatorname{FFN}(C) = \operatorname{ReLU}(C W_1 + b_1)\, W_2 + b_2$, with $\operatorname{ReLU}(u) = \max(u, 0)$
# entry by entry (`np.maximum`). The ReLU sits between the two layers: without it the two would be one
# linear layer, $C\,(W_1 W_2) + (b_1 W_2 + b_2)$.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def feed_forward(C, W_1, b_1, W_2, b_2):
#     return np.maximum(C @ W_1 + b_1, 0.0) @ W_2 + b_2
# ```
#
# </details>

# %%
check("feed_forward", feed_forward)

# %% [markdown]
# ## 3. Diagnose a block
#
# A colleague wrote GPT-2's pre-LN block from the chapter's diagram, and it is wrong. `probe(block)` measures
# three things a pre-LN block does, on a model as initialised:
#
# * **passes through**: with $W_O$, $W_2$ and $b_2$ zero the sub-layers write nothing, and the block must give
#   back its input (the largest change is printed);
# * **writes at any scale**: what the block adds to the stream, `block(10 * x) - 10 * x` against
#   `block(x) - x`; a sub-layer that reads a normalised copy of the stream writes about as much either way;
# * **depth**: the root mean square of the stream through a stack of 24 such blocks.
#
# Run the probe on the suspect, work out which lines break which property, and write the block as it
# should be.


# %%
def suspect_block(x, p, n_heads):
    x = x + multi_head_attention(x, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], n_heads)
    x = layer_norm(x, p["ln2_g"], p["ln2_b"])
    return x + feed_forward(x, p["W_1"], p["b_1"], p["W_2"], p["b_2"])


def probe(block, d=16, d_ff=64, depth=24, seed=1):
    r = np.random.default_rng(seed)
    stack = []
    for _ in range(depth):
        p = {name: r.normal(size=(d, d)) / np.sqrt(d) for name in ("W_Q", "W_K", "W_V", "W_O")}
        p |= {"W_1": r.normal(size=(d, d_ff)) / np.sqrt(d), "W_2": r.normal(size=(d_ff, d)) / np.sqrt(d_ff)}
        p |= {"b_1": np.zeros(d_ff), "b_2": np.zeros(d), "ln1_g": np.ones(d), "ln1_b": np.zeros(d)}
        stack.append(p | {"ln2_g": np.ones(d), "ln2_b": np.zeros(d)})
    x = r.normal(size=(6, d))
    silent = stack[0] | {"W_O": np.zeros((d, d)), "W_2": np.zeros((d_ff, d)), "b_2": np.zeros(d)}
    change = np.abs(block(x, silent, 2) - x).max()
    ratio = np.sqrt(np.mean((block(10 * x, stack[0], 2) - 10 * x) ** 2) / np.mean((block(x, stack[0], 2) - x) ** 2))
    sizes = [np.sqrt(np.mean(x**2))]
    for p in stack:
        x = block(x, p, 2)
        sizes.append(np.sqrt(np.mean(x**2)))
    print(f"  passes through: largest change {change:.2g}")
    print(f"  writes at any scale: the stream 10 times larger, the block writes {ratio:.3g} times as much")
    print("  depth: the stream's size after 0, 6, 12, 18, 24 blocks:", [float(f"{v:.3g}") for v in sizes[::6]])


pieces = (check.ready(layer_norm, np.ones((1, 2)), np.ones(2), np.zeros(2)),)
pieces += (check.ready(feed_forward, np.ones((1, 2)), np.ones((2, 3)), np.ones(3), np.ones((3, 2)), np.ones(2)),)
if all(pieces):
    print("the suspect block:")
    probe(suspect_block)
else:
    print("The probe waits for exercises 1 and 2: the suspect uses your layer_norm and feed_forward.")


# %% tags=["exercise"]
def transformer_block(x, p, n_heads):
    return ...  # your code: the block as it should be, the shape of x


# %% [markdown]
# <details><summary>Hint</summary>
#
# Line 2 normalises the stream itself, so nothing the block's input held survives it: "passes through"
# fails. Line 1 lets attention read the raw stream, so what it writes grows with the stream and a deep
# stack's stream grows by a factor per block (fix line 2 alone and the depth probe shows it). The pre-LN
# block only ever *adds* to the stream, and each sub-layer reads a LayerNorm'd copy, `ln1` for attention and
# `ln2` for the feed-forward layer:
#
# $$\begin{aligned} X_1 &= X + \operatorname{MHA}(\operatorname{LN}_1(X)), \\ X_2 &= X_1 + \operatorname{FFN}(\operatorname{LN}_2(X_1)). \end{aligned}$$
#
# The feed-forward layer reads $X_1$, the stream *after* attention added to it.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def transformer_block(x, p, n_heads):
#     a = layer_norm(x, p["ln1_g"], p["ln1_b"])
#     x = x + multi_head_attention(a, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], n_heads)
#     c = layer_norm(x, p["ln2_g"], p["ln2_b"])
#     return x + feed_forward(c, p["W_1"], p["b_1"], p["W_2"], p["b_2"])
# ```
#
# Passes through: the change is 0. Any scale: close to 1, since LayerNorm does not see the factor (not
# exactly 1: $\varepsilon$, and the ReLU's bias $b_1$). Depth: the stream grows, but as a sum of 48 terms of
# bounded size, not by a factor per block.
#
# </details>

# %%
check("transformer_block", transformer_block)

# %%
if check.ready(transformer_block, np.zeros((1, 2)), {n: np.zeros((2, 2)) for n in BLOCK_NAMES}, 1):
    print("your block:")
    probe(transformer_block)

# %% [markdown]
# ## 4. Predict: two sentences that start alike
#
# With the vocabulary `["the", "cat", "sat", "on", "mat"]`, take "the cat sat" (`[0, 1, 2]`) and "the mat"
# (`[0, 4]`). Before you run the cell after the next, write down whether the logits at position 0, the
# model's guess after "the", are the `"same"` for both or `"different"`.

# %% tags=["exercise"]
prediction = ...  # "same" or "different"

# %% [markdown]
# <details><summary>Solution</summary>
#
# Either is a right answer here, if you wrote it before running the next cells. One that reasons from
# the block:
#
# ```python
# prediction = "same"
# ```
#
# Position 0 sees only itself under the causal mask, LayerNorm and the feed-forward layer work on each
# token alone, and its position is 0 in both: every number at position 0 is the same.
#
# </details>

# %%
check("prediction", prediction)

# %% [markdown]
# ## 5. The forward pass
#
# Write `forward_pass(params, tokens, n_heads)`: the logits of the next token at every position, shape
# `tokens.shape + (V,)`, for `tokens` of shape $(n,)$ or a batch $(B, n)$, with the model of
# [the chapter](https://transformer-math.github.io/mathematics-for-transformers/part-4/block/): sinusoidal
# positions, every block of `params` in order, then the final LayerNorm and $W_U$. The hidden models have one,
# two, three or twelve blocks and one, two or four heads; how many blocks, only the keys of `params` tell.


# %% tags=["exercise"]
def forward_pass(params, tokens, n_heads):
    tokens = np.asarray(tokens)
    return ...  # your code: the logits


# %% [markdown]
# <details><summary>Hint</summary>
#
# $$\begin{aligned} X^{(0)} &= W_E[t] + PE, \\ X^{(\ell+1)} &= \operatorname{Block}_\ell(X^{(\ell)}), \quad \ell = 0, \dots, L - 1, \\ Z &= \operatorname{LN}_f(X^{(L)})\, W_U . \end{aligned}$$
#
# `params["W_E"][tokens]` picks the rows, for a batch too; `positional_encoding(n, d)` has shape $(n, d)$,
# with $n$ the last axis of `tokens`, and broadcasts over a batch. Block $\ell \ge 1$ has the key
# `f"h{ℓ}.W_Q"`: count them, and add block 0.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def forward_pass(params, tokens, n_heads):
#     tokens = np.asarray(tokens)
#     W_E = params["W_E"]
#     x = W_E[tokens] + positional_encoding(tokens.shape[-1], W_E.shape[1])
#     n_layers = 1 + sum(name.endswith(".W_Q") for name in params)
#     for layer in range(n_layers):
#         x = transformer_block(x, block_params(params, layer), n_heads)
#     return layer_norm(x, params["lnf_g"], params["lnf_b"]) @ params["W_U"]
# ```
#
# </details>

# %%
check("forward_pass", forward_pass)

# %%
if check.ready(forward_pass, params, [0, 1, 2], 2) and prediction is not Ellipsis:
    first = forward_pass(params, [0, 1, 2], 2)[0], forward_pass(params, [0, 4], 2)[0]
    print("position 0 of 'the cat sat':", first[0].round(4))
    print("position 0 of 'the mat':    ", first[1].round(4))
    same = "same" if np.allclose(*first) else "different"
    print(f"You predicted {prediction!r}:", "it held." if prediction.strip().lower() == same else "it did not hold.")

# %% [markdown]
# ## What you wrote
#
# The model of Part IV, token ids in and next-token logits out, in some twenty lines of NumPy, equal to the
# library's `forward` on models you have not seen. The
# [backward-passes lab](https://transformer-math.github.io/mathematics-for-transformers/labs/backward-passes/)
# differentiates its hardest pieces, and
# [your own GPT](https://transformer-math.github.io/mathematics-for-transformers/labs/your-own-gpt/) trains it,
# every piece yours.
