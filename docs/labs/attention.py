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
# ---

# %% [markdown]
# # Lab: attention by hand
#
# One attention head, four tokens, every number checked. Each row of $X$ is the embedding of one
# token ($d_{\text{model}} = 3$); three weight matrices project it to a query, a key and a value
# of size $d_k = 2$:
#
# $$
# Q = X W_Q, \quad K = X W_K, \quad V = X W_V .
# $$
#
# Then each token scores every token, the scores become weights, and the output is a weighted
# average of the values:
#
# $$
# \operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V .
# $$
#
# The last two exercises go on to what a Transformer adds: a causal mask, so that no token looks
# ahead, and two heads that attend independently.
#
# **How to work:** each cell tagged `exercise` has a `...` for you to replace. Run the `check` cell
# under it: it prints **Correct**, or what is wrong. Solutions are under "Solution", folded.

# %% [markdown]
# Run this cell first. It defines `check`, which runs your answer, compares it with the expected
# numbers and prints **Correct** or what is wrong.

# %%
import numpy as np


def check(name, answer, expected, tol=1e-4):
    """Print "Correct: name" if answer() equals expected, else what's wrong."""
    try:
        got = answer()
        if got is Ellipsis:
            return print(f"Not yet: {name} - replace the ... in the exercise.")
        if got is None:
            return print(f"Wrong: {name} is None - a missing return?")
        got = np.asarray(got, dtype=float)
    except Exception as err:
        return print(f"Wrong: {name} raised {type(err).__name__}: {err}")
    expected = np.asarray(expected, dtype=float)
    if got.shape != expected.shape:
        print(f"Wrong: {name} has shape {got.shape}, not {expected.shape}.")
    elif not np.all(np.isfinite(got)):
        print(f"Wrong: {name} contains inf or nan:\n{got}")
    elif not np.allclose(got, expected, rtol=0, atol=tol):
        print(f"Wrong: {name} is\n{np.round(got, 4)}\nbut should be\n{np.round(expected, 4)}")
    else:
        print(f"Correct: {name}")


# %%
X = np.array([[1, 0, 1], [0, 2, 0], [1, 1, 0], [0, 0, 1]], dtype=float)
W_Q = np.array([[1, 0], [0, 1], [1, -1]], dtype=float)
W_K = np.array([[1, 0], [0, 1], [0, 1]], dtype=float)
W_V = np.array([[1, 0], [0, 1], [2, 0]], dtype=float)

# %% [markdown]
# ## 1. Queries, keys and values
#
# Each is a $4 \times 2$ matrix: one row per token.

# %% tags=["exercise"]
Q = ...
K = ...
V = ...

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# Q = X @ W_Q
# K = X @ W_K
# V = X @ W_V
# ```
#
# </details>

# %%
check("Q", lambda: Q, [[2, -1], [0, 2], [1, 1], [1, -1]])
check("K", lambda: K, [[1, 1], [0, 2], [1, 1], [0, 1]])
check("V", lambda: V, [[3, 0], [0, 2], [1, 1], [2, 0]])

# %% [markdown]
# ## 2. One score, by hand
#
# How much does token 1 (the second row, counting from 0) look at token 0? Its raw score is the
# dot product $q_1 \cdot k_0$ of row 1 of $Q$ and row 0 of $K$. Work it out on paper.

# %% tags=["exercise"]
score_1_0 = ...  # a number


# %% [markdown]
# <details><summary>Solution</summary>
#
# $q_1 = (0, 2)$ and $k_0 = (1, 1)$, so $q_1 \cdot k_0 = 0 \cdot 1 + 2 \cdot 1 = 2$.
#
# ```python
# score_1_0 = 2
# ```
#
# </details>

# %%
check("score_1_0", lambda: score_1_0, 2)

# %% [markdown]
# ## 3. All the scaled scores
#
# The $4 \times 4$ matrix $S = Q K^\top / \sqrt{d_k}$: entry $(i, j)$ says how much token $i$
# looks at token $j$. Dividing by $\sqrt{d_k}$ keeps the scores from growing with the size of the
# vectors.

# %% tags=["exercise"]
d_k = 2
S = ...

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# d_k = 2
# S = Q @ K.T / np.sqrt(d_k)
# ```
#
# </details>

# %%
raw_scores = [[1, -2, 1, -1], [2, 4, 2, 2], [2, 2, 2, 1], [0, -2, 0, -1]]
check("S", lambda: S, np.array(raw_scores) / np.sqrt(2))

# %% [markdown]
# ## 4. Attention weights
#
# Softmax of each row of $S$ (subtract each row's maximum first). Every row of the weights is a
# probability distribution over the four tokens.

# %% tags=["exercise"]
weights = ...

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# exp = np.exp(S - np.max(S, axis=-1, keepdims=True))
# weights = exp / np.sum(exp, axis=-1, keepdims=True)
# ```
#
# </details>

# %%
check(
    "weights",
    lambda: weights,
    [
        [0.4232, 0.0507, 0.4232, 0.1029],
        [0.1406, 0.5783, 0.1406, 0.1406],
        [0.2863, 0.2863, 0.2863, 0.1412],
        [0.3655, 0.0889, 0.3655, 0.1802],
    ],
)
check("row sums of weights", lambda: np.sum(weights, axis=-1), [1, 1, 1, 1])

# %% [markdown]
# ## 5. The output
#
# Each token's output is the average of the value vectors, weighted by its row of attention
# weights: $\text{out} = \text{weights} \cdot V$.

# %% tags=["exercise"]
out = ...

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# out = weights @ V
# ```
#
# </details>

# %%
check("out", lambda: out, [[1.8985, 0.5247], [0.8435, 1.2971], [1.4274, 0.8588], [1.8223, 0.5432]])

# %% [markdown]
# ## 6. A causal mask
#
# A language model predicts each token from the tokens *before* it, so token $i$ may look only at
# tokens $j \le i$. The **causal mask** is True on and below the diagonal. Where it is False the
# score becomes $-\infty$ before the softmax, so that weight is exactly $e^{-\infty} = 0$ and the
# rest of the row shares all the weight.

# %% tags=["exercise"]
causal = ...  # a (4, 4) boolean array, True where j <= i (np.tril helps)
masked_weights = ...  # softmax of each row of S, with the scores where causal is False set to -inf

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# causal = np.tril(np.ones((4, 4), dtype=bool))
# masked = np.where(causal, S, -np.inf)
# exp = np.exp(masked - np.max(masked, axis=-1, keepdims=True))
# masked_weights = exp / np.sum(exp, axis=-1, keepdims=True)
# ```
#
# </details>

# %%
check("causal", lambda: causal, np.tril(np.ones((4, 4))))
check(
    "masked_weights",
    lambda: masked_weights,
    [[1, 0, 0, 0], [0.1956, 0.8044, 0, 0], [1 / 3, 1 / 3, 1 / 3, 0], [0.3655, 0.0889, 0.3655, 0.1802]],
)

# %% [markdown]
# Token 0 can only look at itself, so its weight is 1 there. The last row is the row of step 4:
# the last token sees everything anyway.
#
# ## 7. Two heads
#
# Multi-head attention splits the *projected* features, the columns of $Q = X W_Q$, $K$ and $V$,
# into heads that attend independently; every column was computed from all the features of $X$, so
# each head still reads the whole token. Here $d_k = 2$ splits into two heads of width 1: head 0 uses
# column 0 of $Q$, $K$ and $V$, head 1 column 1.
# Each head scales its scores by $\sqrt{d_{\text{head}}}$, the width of *its* vectors, here
# $\sqrt 1$. The two outputs, side by side, make a $4 \times 2$ result. Write `attend` for any
# width, with the mask, then use it for both heads.


# %% tags=["exercise"]
def attend(Q, K, V, mask):
    return ...  # your code: softmax(Q K^T / sqrt(d), masked) @ V, with d = Q.shape[-1]


two_heads = ...  # your code: attend on columns [0] of Q, K, V and on columns [1], side by side


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def attend(Q, K, V, mask):
#     scores = np.where(mask, Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)
#     exp = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
#     return exp / np.sum(exp, axis=-1, keepdims=True) @ V
#
#
# two_heads = np.concatenate([attend(Q[:, [h]], K[:, [h]], V[:, [h]], causal) for h in range(2)], axis=1)
# ```
#
# </details>

# %%
check(
    "attend(Q, K, V, causal)", lambda: attend(Q, K, V, causal), [[3, 0], [0.5867, 1.6089], [4 / 3, 1], [1.8223, 0.5432]]
)
check("two_heads", lambda: two_heads, [[3, 0], [1.5, 1.7616], [1.6893, 1.3642], [1.7311, 0.5154]])

# %% [markdown]
# Row 1 differs between the two results: one head of width 2 mixed both features into one set of
# weights, $(0.20, 0.80)$; the two heads of width 1 weigh the tokens differently, $(0.5, 0.5)$ for
# feature 0 and $(0.12, 0.88)$ for feature 1. A real model then multiplies the joined heads by
# $W_O$ ([Multi-head attention](https://transformer-math.github.io/mathematics-for-transformers/part-4/multi-head/)); the library's `multi_head_attention`
# does all of it for $h$ heads at once.
