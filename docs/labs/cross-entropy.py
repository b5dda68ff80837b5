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
# # Lab: cross entropy
#
# A language model predicts a probability distribution $\hat{y}$ over the next token; the right
# answer is a one-hot vector $y$. The cross entropy loss is
#
# $$
# H(y, \hat{y}) = -\sum_i y_i \log \hat{y}_i ,
# $$
#
# which for a one-hot $y$ is just $-\log \hat{y}_{\text{target}}$: the negative log of the
# probability the model gave the right token. In this lab you compute it from probabilities, then
# directly from logits with the log-sum-exp trick, the way training code does.
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
# ## 1. One loss, by hand
#
# The model gives the right token probability $0.5$. What is the loss? Use the natural logarithm
# and type the number to four decimals.

# %% tags=["exercise"]
loss_at_one_half = ...  # a number


# %% [markdown]
# <details><summary>Solution</summary>
#
# $-\log 0.5 = \log 2 \approx 0.6931$.
#
# ```python
# loss_at_one_half = 0.6931
# ```
#
# </details>

# %%
check("loss_at_one_half", lambda: loss_at_one_half, np.log(2))

# %% [markdown]
# ## 2. Cross entropy from probabilities
#
# Clip the predictions to $[10^{-15}, 1 - 10^{-15}]$ with `np.clip` so that $\log 0$ never
# happens, then apply the formula.


# %% tags=["exercise"]
def cross_entropy(y_true, y_pred):
    y_true = np.asarray(y_true, dtype=float)
    y_pred = np.asarray(y_pred, dtype=float)
    return ...  # your code


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def cross_entropy(y_true, y_pred):
#     y_true = np.asarray(y_true, dtype=float)
#     y_pred = np.asarray(y_pred, dtype=float)
#     y_pred = np.clip(y_pred, 1e-15, 1 - 1e-15)
#     return -np.sum(y_true * np.log(y_pred))
# ```
#
# </details>

# %%
y = [0, 1, 0]
check("cross_entropy(y, [0.1, 0.8, 0.1])", lambda: cross_entropy(y, [0.1, 0.8, 0.1]), 0.2231)
check("a confident right answer", lambda: cross_entropy(y, [0, 1, 0]), 0.0)
check("a confident wrong answer", lambda: cross_entropy(y, [1, 0, 0]), 34.5388)

# %% [markdown]
# ## 3. Cross entropy from logits
#
# Models output logits $z$, not probabilities. Since $\log \operatorname{softmax}(z)_t =
# z_t - \log \sum_j e^{z_j}$, the loss for target index $t$ is
#
# $$
# \log \sum_j e^{z_j} - z_t ,
# $$
#
# and $\log \sum_j e^{z_j} = m + \log \sum_j e^{z_j - m}$ with $m = \max_j z_j$ never overflows.


# %% tags=["exercise"]
def cross_entropy_from_logits(logits, target):
    z = np.asarray(logits, dtype=float)
    return ...  # your code


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def cross_entropy_from_logits(logits, target):
#     z = np.asarray(logits, dtype=float)
#     m = np.max(z)
#     return m + np.log(np.sum(np.exp(z - m))) - z[target]
# ```
#
# </details>

# %%
check("logits [2.0, 1.0, 0.1], target 0", lambda: cross_entropy_from_logits([2.0, 1.0, 0.1], 0), 0.4170)
check("huge logits", lambda: cross_entropy_from_logits([1000, 0, 0], 1), 1000.0)
