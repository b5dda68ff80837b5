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
# # Lab: softmax from scratch
#
# Softmax turns a vector of scores $x$ into probabilities:
#
# $$
# \operatorname{softmax}(x)_i = \frac{e^{x_i}}{\sum_j e^{x_j}}.
# $$
#
# Written exactly like that it overflows: $e^{1000}$ is larger than any float64. Because
# $\operatorname{softmax}(x - c) = \operatorname{softmax}(x)$ for every constant $c$, we subtract
# $c = \max_j x_j$ first, so the largest exponent is $e^0 = 1$. In this lab you write the stable
# version, then add a temperature, then apply it to each row of a matrix, as attention does.
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


# %% [markdown]
# ## 1. A stable softmax of a vector
#
# Subtract the maximum, exponentiate with `np.exp`, divide by the sum.


# %% tags=["exercise"]
def softmax(x):
    x = np.asarray(x, dtype=float)
    return ...  # your code


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def softmax(x):
#     x = np.asarray(x, dtype=float)
#     exp = np.exp(x - np.max(x))
#     return exp / np.sum(exp)
# ```
#
# </details>

# %%
check("softmax([2.5, 1.2, 0.3, 3.1])", lambda: softmax([2.5, 1.2, 0.3, 3.1]), [0.3120, 0.0850, 0.0346, 0.5684])
check("sum of softmax([1, 2, 3])", lambda: np.sum(softmax([1, 2, 3])), 1.0)
check("softmax([1000, 1001, 1002])", lambda: softmax([1000, 1001, 1002]), [0.0900, 0.2447, 0.6652])

# %% [markdown]
# ## 2. Temperature
#
# Dividing the scores by a temperature $\tau > 0$ before the softmax sharpens the distribution when
# $\tau < 1$ and flattens it when $\tau > 1$:
# $\operatorname{softmax}(x / \tau)$. Use your `softmax` from above.


# %% tags=["exercise"]
def softmax_with_temperature(x, temperature):
    x = np.asarray(x, dtype=float)
    return ...  # your code


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def softmax_with_temperature(x, temperature):
#     x = np.asarray(x, dtype=float)
#     return softmax(x / temperature)
# ```
#
# </details>

# %%
scores = [2.5, 1.2, 0.3, 3.1]
check("T = 0.5", lambda: softmax_with_temperature(scores, 0.5), [0.2269, 0.0169, 0.0028, 0.7534])
check("T = 10", lambda: softmax_with_temperature(scores, 10), [0.2672, 0.2346, 0.2144, 0.2837])

# %% [markdown]
# ## 3. Softmax of each row
#
# Attention applies softmax to each row of a score matrix separately: every row must sum to 1.
# Take the maximum and the sum along the last axis, with `axis=-1, keepdims=True` so that the
# shapes line up for broadcasting.


# %% tags=["exercise"]
def softmax_rows(S):
    S = np.asarray(S, dtype=float)
    return ...  # your code


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def softmax_rows(S):
#     S = np.asarray(S, dtype=float)
#     exp = np.exp(S - np.max(S, axis=-1, keepdims=True))
#     return exp / np.sum(exp, axis=-1, keepdims=True)
# ```
#
# </details>

# %%
S = [[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]
check("softmax_rows(S)", lambda: softmax_rows(S), [[0.0900, 0.2447, 0.6652], [1 / 3, 1 / 3, 1 / 3]])
huge = [[1000.0, 0.0], [0.0, -1000.0]]
check("softmax_rows(huge)", lambda: softmax_rows(huge), [[1, 0], [1, 0]])
