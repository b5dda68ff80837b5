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
#     minutes: 25
#     difficulty: 2
#     path: false
# ---

# %% [markdown]
# # Lab: cross entropy
#
# **About 25 minutes · difficulty 2 of 3 (standard)** · after
# [Entropy and cross entropy](https://transformer-math.github.io/mathematics-for-transformers/part-2/information/)
# and the [softmax lab](https://transformer-math.github.io/mathematics-for-transformers/labs/softmax/)
#
# A language model predicts a distribution $\hat y$ over the next token; the right answer is a
# distribution $y$, usually one-hot. Training minimises the cross entropy
# $H(y, \hat y) = -\sum_i y_i \log \hat y_i$, averaged over every position of every sequence. You compute
# it from probabilities, find out what one confident mistake costs, and then compute it from the
# model's logits directly, the way training code does, for logits of any size.
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

from transformer_math.labs.cross_entropy import check

# %% [markdown]
# ## 1. One loss, by hand
#
# The model gives the right token the probability $\tfrac12$. What does this one prediction cost, in
# nats (natural logarithm)? Four decimals.

# %% tags=["exercise"]
loss_at_one_half = ...  # a number

# %% [markdown]
# <details><summary>Hint</summary>
#
# With a one-hot $y$, every term of the sum is 0 except the target's: the loss is
# $-\log \hat y_{\text{target}}$.
#
# </details>
#
# <details><summary>Solution</summary>
#
# $-\ln \tfrac12 = \ln 2 \approx 0.6931$: one bit, in nats.
#
# ```python
# loss_at_one_half = 0.6931
# ```
#
# </details>

# %%
check("loss_at_one_half", loss_at_one_half)

# %% [markdown]
# ## 2. Cross entropy from probabilities
#
# Write `cross_entropy(y_true, y_pred)` for distributions along the last axis: one number for one pair
# of distributions, and the mean over the rows for a batch (any number of leading axes). The targets may
# be one-hot or any distribution. Two edges, as the definition has them: where `y_true` is 0, the term
# is 0 whatever `y_pred` says, even `y_pred = 0` (a target that cannot happen costs nothing); where
# `y_true` is positive and `y_pred` is exactly 0, the loss is $+\infty$. No clipping. "One number" means a
# Python float or an array of shape `()`: not an array of shape `(1,)` or `(1, 1)`.


# %% tags=["exercise"]
def cross_entropy(y_true, y_pred):
    y_true = np.asarray(y_true, dtype=float)
    y_pred = np.asarray(y_pred, dtype=float)
    return ...  # your code: one number


# %% [markdown]
# <details><summary>Hint</summary>
#
# `np.log(0)` is `-inf` (with a warning), and `0 * -inf` is `nan`, not 0. Compute the terms only where
# $y_i > 0$: `np.where(y_true > 0, ..., 0.0)`, with the logarithm taken of something that is never 0
# in the branch you keep. Sum along `axis=-1`, then take the mean of what is left.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def cross_entropy(y_true, y_pred):
#     y_true = np.asarray(y_true, dtype=float)
#     y_pred = np.asarray(y_pred, dtype=float)
#     safe = np.where(y_true > 0, y_pred, 1.0)  # log(1) = 0 where the target is 0
#     with np.errstate(divide="ignore"):  # log(0) = -inf where y_pred = 0 and the target is not
#         terms = np.where(y_true > 0, y_true * np.log(safe), 0.0)
#     return float(np.mean(-np.sum(terms, axis=-1)))
# ```
#
# </details>

# %%
check("cross_entropy", cross_entropy)

# %% [markdown]
# ## 3. Predict: one confident mistake
#
# A model gives the right token the probability 0.9 at nine positions, and 0.001 at the tenth. Each of
# the nine costs $-\ln 0.9 \approx 0.105$. Before you run the cell after the next, write down whether the
# mean loss over the ten positions is near `"0.1"` or near `"0.8"`.

# %% tags=["exercise"]
prediction = ...  # "0.1" or "0.8"

# %% [markdown]
# <details><summary>Solution</summary>
#
# Either is a right answer here, if you wrote it before running the next cells. One that reasons from
# the logarithm:
#
# ```python
# prediction = "0.8"
# ```
#
# $-\ln 0.001 \approx 6.9$: the one mistake costs as much as sixty-six right answers at 0.9, and the mean
# is $(9 \times 0.105 + 6.9) / 10 \approx 0.79$.
#
# </details>

# %%
check("prediction", prediction)

# %%
targets = np.eye(2)[np.zeros(10, dtype=int)]  # the right token is token 0, ten times
predictions = np.array([[0.9, 0.1]] * 9 + [[0.001, 0.999]])
if check.ready(cross_entropy, targets, predictions) and prediction is not Ellipsis:
    mean = cross_entropy(targets, predictions)
    print(
        f"mean loss {mean:.3f}; you predicted {prediction!r}:",
        "it held." if abs(mean - float(prediction)) < 0.2 else "it did not hold.",
    )

# %% [markdown]
# The logarithm makes a model pay most for being sure and wrong. That is why a model trained with cross
# entropy hedges: putting 0.001 on a token that then occurs costs 6.9 nats, and nothing can win that back.
#
# ## 4. Cross entropy from logits
#
# A model outputs logits $z$, one row per position, not probabilities. Write
# `cross_entropy_from_logits(logits, targets)`: the mean over the positions of
# $-\log \operatorname{softmax}(z)_{\text{target}}$, for logits of shape $(\dots, V)$ and integer targets of
# shape $(\dots)$, one per position (a single position: logits of shape $(V,)$ and one integer). It must be
# right for logits as large as `[1000, 0, 0]`, where softmax gives an exact 0 and its logarithm $-\infty$,
# though the loss is a plain 1000.


# %% tags=["exercise"]
def cross_entropy_from_logits(logits, targets):
    z = np.asarray(logits, dtype=float)
    targets = np.asarray(targets)
    return ...  # your code: one number


# %% [markdown]
# <details><summary>Hint</summary>
#
# Take the logarithm before you compute any probability:
#
# $$\begin{aligned} -\log \operatorname{softmax}(z)_t &= -\log \frac{e^{z_t}}{\sum_j e^{z_j}} \\ &= \log \sum_j e^{z_j} - z_t , \end{aligned}$$
#
# and $\log \sum_j e^{z_j} = m + \log \sum_j e^{z_j - m}$ with $m = \max_j z_j$ (the softmax lab's shift),
# row by row. To pick $z_t$ in every row, `np.take_along_axis(z, targets[..., None], axis=-1)`.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def cross_entropy_from_logits(logits, targets):
#     z = np.asarray(logits, dtype=float)
#     targets = np.asarray(targets)
#     m = np.max(z, axis=-1, keepdims=True)
#     log_sum_exp = m[..., 0] + np.log(np.sum(np.exp(z - m), axis=-1))  # shape (...)
#     picked = np.take_along_axis(z, targets[..., None], axis=-1)[..., 0]  # z_t of every position
#     return float(np.mean(log_sum_exp - picked))
# ```
#
# </details>

# %%
check("cross_entropy_from_logits", cross_entropy_from_logits)

# %% [markdown]
# ## What you wrote
#
# The loss that trains every language model, in the form training code computes it: the library's
# `transformer_math.information.cross_entropy_from_logits`, and PyTorch's `F.cross_entropy`. Its gradient
# with respect to the logits is one line, $\operatorname{softmax}(z) - \operatorname{onehot}(t)$, which the
# [backward-passes lab](https://transformer-math.github.io/mathematics-for-transformers/labs/backward-passes/)
# has you derive.
