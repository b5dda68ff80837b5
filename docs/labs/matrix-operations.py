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
#     minutes: 20
#     difficulty: 1
#     path: false
# ---

# %% [markdown]
# # Lab: matrix operations
#
# **About 20 minutes · difficulty 1 of 3 (warm-up)** · after
# [Matrices](https://transformer-math.github.io/mathematics-for-transformers/part-1/matrices/)
#
# A Transformer spends nearly all its arithmetic in matrix products: the queries, keys and values, the
# scores of every query against every key, the feed-forward layer. Here you work one entry of a product
# by hand, find the product that scores every row of one matrix against every row of another, and
# write the product itself with loops, the way its definition reads.
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
import time

import numpy as np

from transformer_math.labs.matrix_operations import check

A = np.array([[1, 2], [3, 4]])
B = np.array([[5, 6], [7, 8]])

# %% [markdown]
# ## 1. One entry by hand
#
# Work out entry $(0, 1)$ of $AB$ (row 0, column 1, counting from 0) on paper, and type the number.

# %% tags=["exercise"]
entry_0_1 = ...  # a number you worked out by hand

# %% [markdown]
# <details><summary>Hint</summary>
#
# $(AB)_{ij} = \sum_k A_{ik} B_{kj}$: row $i$ of $A$ against column $j$ of $B$, entry by entry, summed.
#
# </details>
#
# <details><summary>Solution</summary>
#
# Row 0 of $A$ is $(1, 2)$, column 1 of $B$ is $(6, 8)$, and $1 \cdot 6 + 2 \cdot 8 = 22$.
#
# ```python
# entry_0_1 = 22
# ```
#
# </details>

# %%
check("entry_0_1", entry_0_1)

# %% [markdown]
# ## 2. Predict: does the order matter?
#
# For numbers, $ab = ba$. Before you run the cell after the next, write down whether `A @ B` and `B @ A`
# are `"equal"` or `"different"` for the $A$ and $B$ above.

# %% tags=["exercise"]
prediction = ...  # "equal" or "different"

# %% [markdown]
# <details><summary>Solution</summary>
#
# Any of the two is a right answer here, if you wrote it before running the next cells. One that reasons
# from the definition:
#
# ```python
# prediction = "different"
# ```
#
# Entry $(0, 1)$ of $AB$ takes row 0 of $A$ and column 1 of $B$; entry $(0, 1)$ of $BA$ takes row 0 of
# $B$ and column 1 of $A$: other numbers entirely.
#
# </details>

# %%
check("prediction", prediction)

# %%
# A @ B holds entry (0, 1): it is shown once exercise 1 is right.
if prediction is Ellipsis:
    print("Write your prediction first: this cell tests it.")
else:
    shown = check.passed("entry_0_1", entry_0_1)
    print("A @ B =", (A @ B).tolist() if shown else "(shown once entry_0_1 is right)", "  B @ A =", (B @ A).tolist())
    equal = "equal" if np.array_equal(A @ B, B @ A) else "different"
    print(f"You predicted {prediction!r}:", "it held." if prediction.strip().lower() == equal else "it did not hold.")

# %% [markdown]
# ## 3. Every row against every row
#
# Attention scores every query against every key: row $i$ of $Q$ against row $j$ of $K$, by their dot
# product. Write `row_dots(X, Y)`: for $X$ of shape $(n, d)$ and $Y$ of shape $(m, d)$, the $(n, m)$
# matrix whose entry $(i, j)$ is the dot product of row $i$ of $X$ with row $j$ of $Y$, in one line of
# NumPy.


# %% tags=["exercise"]
def row_dots(X, Y):
    X, Y = np.asarray(X), np.asarray(Y)
    return ...  # your code: shape (n, m)


# %% [markdown]
# <details><summary>Hint</summary>
#
# A product $PR$ pairs the *rows* of $P$ with the *columns* of $R$. Which matrix has the rows of $Y$ as
# its columns? Check the shapes: $(n, d)$ times what gives $(n, m)$?
#
# </details>
#
# <details><summary>Solution</summary>
#
# The transpose $Y^\top$, of shape $(d, m)$, has the rows of $Y$ as its columns:
#
# ```python
# def row_dots(X, Y):
#     X, Y = np.asarray(X), np.asarray(Y)
#     return X @ Y.T
# ```
#
# This is the $QK^\top$ of attention.
#
# </details>

# %%
check("row_dots", row_dots)

# %% [markdown]
# ## 4. The product with loops
#
# Write `matmul(X, Y)`, the product of an $n \times m$ matrix and an $m \times p$ matrix, with loops, from
# the definition of the product: no `@`, `np.matmul`, `np.dot`, `np.vdot`, `np.inner`, `np.outer`,
# `np.tensordot` or `np.einsum` (each multiplies whole rows, columns or matrices for you). The check runs your
# function on arrays that refuse all of these, under any name, and counts the multiplications written in
# your code (`*` or `np.multiply`): a product written with loops does at least one for every entry of the
# result. `X` and `Y` may also be nested lists.


# %% tags=["exercise"]
def matmul(X, Y):
    return ...  # your loops


# %% [markdown]
# <details><summary>Hint</summary>
#
# The result has shape $(n, p)$: start from `np.zeros((n, p))`, with `n, m = np.shape(X)` and
# `p = np.shape(Y)[1]`. Entry $(i, j)$ is $\sum_{k=0}^{m-1} X_{ik} Y_{kj}$: a loop over $i$, one over $j$
# inside it, and the sum over $k$, as a third loop or a `sum` of your own.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def matmul(X, Y):
#     n, m = np.shape(X)
#     p = np.shape(Y)[1]
#     result = np.zeros((n, p))
#     for i in range(n):
#         for j in range(p):
#             for k in range(m):
#                 result[i, j] += X[i][k] * Y[k][j]
#     return result
# ```
#
# </details>

# %%
check("matmul", matmul)

# %% [markdown]
# ## What you wrote
#
# Three nested loops do $n \cdot m \cdot p$ multiplications; `@` does the same ones, in compiled code that
# keeps the numbers in the processor's cache and uses several of them at once. On two $80 \times 80$
# matrices the difference is a factor of hundreds or more:

# %%
X = np.random.default_rng(0).normal(size=(80, 80))
if check.ready(matmul, A, B):
    start = time.perf_counter()
    matmul(X, X)
    loops = time.perf_counter() - start
    start = time.perf_counter()
    X @ X
    print(f"loops: {loops:.2f} s, @: {time.perf_counter() - start:.5f} s")

# %% [markdown]
# The library's `transformer_math.linalg.matmul_loops` is the same loops, with its inputs checked; the
# [attention lab](https://transformer-math.github.io/mathematics-for-transformers/labs/attention/) puts
# `row_dots` to work.
