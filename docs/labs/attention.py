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
# # Lab: attention by hand
#
# **About 55 minutes · difficulty 2 of 3 (standard)** · after
# [Attention](https://transformer-math.github.io/mathematics-for-transformers/part-4/attention/) and
# [Multi-head attention](https://transformer-math.github.io/mathematics-for-transformers/part-4/multi-head/);
# practice, off the one-day path, for [your own GPT](https://transformer-math.github.io/mathematics-for-transformers/labs/your-own-gpt/)
#
# Each token of a sequence asks a question (its query), offers a label (its key) and carries a content
# (its value), all three made from its embedding by a matrix: $Q = XW_Q$, $K = XW_K$, $V = XW_V$. Every
# query scores every key, the scores of one query become weights, and the query's output is the weighted
# average of the values. You work one score by hand, then write the mask that keeps a language model from
# looking ahead, attention itself for any shapes, and the multi-head attention of a Transformer block.
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

from transformer_math.labs.attention import check

# four tokens with embeddings of width 3, and projections to queries, keys and values of width d_k = 2
X = np.array([[1, 0, 1], [0, 2, 0], [1, 1, 1], [0, 0, 1]], dtype=float)
W_Q = np.array([[1, 0], [0, 1], [1, -1]], dtype=float)
W_K = np.array([[1, 0], [0, 1], [0, 1]], dtype=float)
W_V = np.array([[1, 0], [0, 1], [2, 0]], dtype=float)

# %% [markdown]
# ## 1. One score, by hand
#
# How strongly does token 1 (the second row, counting from 0) look at token 0? Work out its raw score,
# the dot product $q_1 \cdot k_0$ before any scaling, on paper, from $X$ and the projections.

# %% tags=["exercise"]
score_1_0 = ...  # a number

# %% [markdown]
# <details><summary>Hint</summary>
#
# The query of token 1 is row 1 of $X$ times $W_Q$: $q_1 = x_1 W_Q$; the key of token 0 is
# $k_0 = x_0 W_K$. Then the dot product of the two rows.
#
# </details>
#
# <details><summary>Solution</summary>
#
# $q_1 = (0, 2, 0)\, W_Q = (0, 2)$ and $k_0 = (1, 0, 1)\, W_K = (1, 1)$, so
# $q_1 \cdot k_0 = 0 \cdot 1 + 2 \cdot 1 = 2$.
#
# ```python
# score_1_0 = 2
# ```
#
# </details>

# %%
check("score_1_0", score_1_0)

# %% [markdown]
# ## 2. The causal mask
#
# A language model predicts each token from the tokens *before* it, so query $i$ may see key $j$ only
# if $j \le i$. Write `causal_mask(n)`: an $(n, n)$ boolean array, `True` where query $i$ (row) may see key
# $j$ (column).


# %% tags=["exercise"]
def causal_mask(n):
    return ...  # your code: shape (n, n), dtype bool


# %% [markdown]
# <details><summary>Hint</summary>
#
# Draw it for $n = 3$: row 0 sees only column 0, row 2 sees all three. Which triangle is that, and does
# it include the diagonal? NumPy has `np.tril` and `np.triu`.
#
# </details>
#
# <details><summary>Solution</summary>
#
# The lower triangle, diagonal included: a token sees itself.
#
# ```python
# def causal_mask(n):
#     return np.tril(np.ones((n, n), dtype=bool))
# ```
#
# </details>

# %%
check("causal_mask", causal_mask)

# %% [markdown]
# ## 3. Attention
#
# Write `attention(Q, K, V, mask=None)`, the output of every query, for queries $Q$ of shape
# $(\dots, n_q, d_k)$, keys $K$ of shape $(\dots, n_k, d_k)$ and values $V$ of shape $(\dots, n_k, d_v)$
# (the leading axes, if any, are a batch and heads: every slice is attended on its own). What it must give:
#
# * each query's output is an average of the value rows, with weights over the keys that sum to 1, taken by
#   a softmax from the query's scores, and a score grows with how well query and key agree;
# * the scores' spread must not grow with the width: for queries and keys of independent entries of
#   variance 1, a score has a spread of about 1 whether $d_k$ is 4 or 4096 (else a wide model's softmax
#   saturates into one-hot weights);
# * where `mask` is `False`, query $i$ may not see key $j$: its weight there must be exactly 0;
#   `mask=None` means no mask.
#
# Scores may be in the thousands.


# %% tags=["exercise"]
def attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)
    mask = None if mask is None else np.asarray(mask, dtype=bool)  # it may come as a list
    return ...  # your code: shape (..., n_q, d_v)


# %% [markdown]
# <details><summary>Hint</summary>
#
# Query $i$ and key $j$ agree by their dot product $q_i \cdot k_j = \sum_{c=1}^{d_k} q_{ic} k_{jc}$: a sum of
# $d_k$ independent terms of mean 0 and variance 1, so its variance is $d_k$ and its spread $\sqrt{d_k}$.
# Dividing by $\sqrt{d_k}$ brings the spread back to 1:
#
# $$\operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V,$$
#
# with the softmax taken along the keys (the last axis of the scores), stably, as in the softmax lab. With
# leading axes, $K^\top$ must swap only the last two: `np.swapaxes(K, -1, -2)`. A masked score becomes
# $-\infty$ before the softmax (`np.where(mask, scores, -np.inf)`), and $e^{-\infty} = 0$.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def attention(Q, K, V, mask=None):
#     Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)
#     mask = None if mask is None else np.asarray(mask, dtype=bool)  # it may come as a list
#     scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])  # (..., n_q, n_k)
#     if mask is not None:
#         scores = np.where(mask, scores, -np.inf)
#     weights = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
#     weights = weights / np.sum(weights, axis=-1, keepdims=True)
#     return weights @ V
# ```
#
# </details>

# %%
check("attention", attention)

# %% [markdown]
# ## 4. Predict: the first token
#
# Take the four tokens above, with $Q = XW_Q$, $K = XW_K$, $V = XW_V$ and the causal mask. Before you run
# the cell after the next, write down what the output of token 0 is: its `"own value"` $v_0$, or the
# `"average"` of the four values.

# %% tags=["exercise"]
prediction = ...  # "own value" or "average"

# %% [markdown]
# <details><summary>Solution</summary>
#
# Either is a right answer here, if you wrote it before running the next cells. One that reasons from
# the mask:
#
# ```python
# prediction = "own value"
# ```
#
# Row 0 of the causal mask lets token 0 see only itself: one weight, 1, on $v_0$.
#
# </details>

# %%
check("prediction", prediction)

# %%
Q, K, V = X @ W_Q, X @ W_K, X @ W_V
if check.ready(attention, Q, K, V, np.tril(np.ones((4, 4), dtype=bool))) and prediction is not Ellipsis:
    out = attention(Q, K, V, np.tril(np.ones((4, 4), dtype=bool)))
    print("output of token 0:", out[0], "  v_0:", V[0], "  the average of the values:", V.mean(axis=0))
    own = "own value" if np.allclose(out[0], V[0]) else "average"
    print(f"You predicted {prediction!r}:", "it held." if prediction.strip().lower() == own else "it did not hold.")

# %% [markdown]
# The first token of every sequence attends only to itself, whatever the weights: under the causal mask
# its output is a function of its own embedding alone.
#
# ## 5. Multi-head attention
#
# A Transformer block runs $h$ heads side by side. Write `multi_head_attention(X, W_Q, W_K, W_V, W_O,
# n_heads)` for $X$ of shape $(\dots, n, d)$ and four $(d, d)$ matrices: $h$ independent causal attention
# heads of width $d / h$, head $\ell$ working on the $\ell$-th block of $d / h$ columns of $XW_Q$, $XW_K$ and
# $XW_V$, their outputs joined in that order and mixed by $W_O$. It must work for any number of heads that
# divides $d$, and for a batch of sequences.


# %% tags=["exercise"]
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    X = np.asarray(X, dtype=float)
    return ...  # your code: shape (..., n, d)


# %% [markdown]
# <details><summary>Hint</summary>
#
# Project once, $Q = XW_Q$, $K = XW_K$, $V = XW_V$, each $(\dots, n, d)$; head $\ell$ runs your causal
# attention on its $d_{\text{head}} = d / h$ columns of each; join the heads' outputs side by side in the order
# of their columns and multiply by $W_O$. A loop over the heads works:
# `cols = slice(l * d_head, (l + 1) * d_head)`, `Q[..., cols]`, and `np.concatenate(outputs, axis=-1)`. Without a loop, reshape the last axis $(d,)$ into
# $(h, d_{\text{head}})$ and move the head axis in front of the tokens, so that your `attention` sees
# arrays of shape $(\dots, h, n, d_{\text{head}})$; then undo both moves. Each head scales by
# $\sqrt{d_{\text{head}}}$, the width of its own vectors, which your `attention` does by itself.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
#     X = np.asarray(X, dtype=float)
#     d = X.shape[-1]
#     d_head = d // n_heads
#     Q, K, V = X @ W_Q, X @ W_K, X @ W_V
#     mask = causal_mask(X.shape[-2])
#     heads = []
#     for l in range(n_heads):
#         cols = slice(l * d_head, (l + 1) * d_head)
#         heads.append(attention(Q[..., cols], K[..., cols], V[..., cols], mask))
#     return np.concatenate(heads, axis=-1) @ W_O
# ```
#
# </details>

# %%
check("multi_head_attention", multi_head_attention)

# %% [markdown]
# ## What you wrote
#
# The attention of a GPT, token ids aside: the library's `transformer_math.attention.multi_head_attention`
# is the same computation, with the heads split by a reshape and its inputs checked. The
# [Transformer block lab](https://transformer-math.github.io/mathematics-for-transformers/labs/transformer-block/)
# puts it between LayerNorms and a feed-forward layer, and the
# [backward-passes lab](https://transformer-math.github.io/mathematics-for-transformers/labs/backward-passes/)
# derives its gradient.
