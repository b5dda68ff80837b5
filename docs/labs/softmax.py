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
# # Lab: softmax from scratch
#
# **About 20 minutes · difficulty 1 of 3 (warm-up)** · after
# [Softmax](https://transformer-math.github.io/mathematics-for-transformers/part-2/softmax/) and
# [Numerical stability](https://transformer-math.github.io/mathematics-for-transformers/part-2/numerical-stability/)
#
# A model's last layer gives one score per token of the vocabulary, and attention gives one score per
# pair of tokens; softmax turns each row of scores into probabilities,
# $\operatorname{softmax}(x)_i = e^{x_i} / \sum_j e^{x_j}$. Written exactly like that, it fails on scores
# a trained model produces every day. You will see it fail, then write the version that does not, and
# give it a temperature, the knob a chatbot's sampler turns.
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

from transformer_math.labs.softmax import check

# %% [markdown]
# ## 1. Predict: the formula as written
#
# Here is softmax exactly as the formula reads. A float64 holds numbers up to about $1.8 \times 10^{308}$,
# so $e^{x}$ is fine up to $x \approx 709$. Before you run the next cell, write down what
# `naive_softmax([1000, 1001, 1002])` returns: the right probabilities (`"right"`), infinities (`"inf"`),
# not-a-number (`"nan"`) or zeros (`"0"`).


# %%
def naive_softmax(x):
    e = np.exp(np.asarray(x, dtype=float))
    return e / np.sum(e)


# %% tags=["exercise"]
prediction = ...  # "right", "inf", "nan" or "0"

# %% [markdown]
# <details><summary>Solution</summary>
#
# Any of the four is a right answer here, if you wrote it before running the next cell. One that reasons
# from the formula:
#
# ```python
# prediction = "nan"
# ```
#
# $e^{1000}$ overflows to `inf`, and so does the sum, so every entry is $\infty / \infty$, which is
# not a number.
#
# </details>

# %%
check("prediction", prediction)

# %%
with np.errstate(over="ignore", invalid="ignore"):  # the warnings say what the output shows
    result = naive_softmax([1000, 1001, 1002])
print("naive_softmax([1000, 1001, 1002]) =", result)
if prediction is not Ellipsis:
    held = {"nan": np.isnan(result).all(), "inf": np.isinf(result).all(), "0": (result == 0).all()}
    print(f"You predicted {prediction!r}:", "it held." if held.get(prediction, False) else "it did not hold.")

# %% [markdown]
# The scores themselves are harmless: the probabilities they stand for are about 0.09, 0.24 and 0.67.
# Only the way the formula reaches them overflows.
#
# ## 2. A softmax that never overflows
#
# Write `softmax(x)`: the probabilities of the scores along the last axis of `x`, so that a vector gives
# one distribution and a 2-D array one distribution per row, as attention needs (any number of leading
# axes, and lists too). It must give the right numbers for `[1000, 1001, 1002]`, for
# `[-1000, 0, 1000]`, and for rows that lie far apart from each other. Leave `x` as it is: compute the
# result in a new array, with no less precision than `x` (float64 scores give float64 probabilities).


# %% tags=["exercise"]
def softmax(x):
    x = np.asarray(x, dtype=float)
    return ...  # your code: the shape of x, each row summing to 1


# %% [markdown]
# <details><summary>Hint</summary>
#
# Multiplying the numerator and the denominator by the same $e^{-c}$ changes nothing:
#
# $$\operatorname{softmax}(x)_i = \frac{e^{x_i - c}}{\sum_j e^{x_j - c}} \quad \text{for any number } c.$$
#
# Which $c$ makes every exponent at most 0 (nothing overflows) and one of them exactly 0 (the sum is at
# least 1, so the division is safe)? Take it for each row on its own: along `axis=-1`, with
# `keepdims=True` so that it broadcasts against `x`.
#
# </details>
#
# <details><summary>Solution</summary>
#
# $c = \max_j x_j$, row by row:
#
# ```python
# def softmax(x):
#     x = np.asarray(x, dtype=float)
#     exp = np.exp(x - np.max(x, axis=-1, keepdims=True))
#     return exp / np.sum(exp, axis=-1, keepdims=True)
# ```
#
# The smallest entries may still underflow to 0, which is harmless: their true probability is below
# $10^{-308}$.
#
# </details>

# %%
check("softmax", softmax)

# %% [markdown]
# ## 3. Temperature
#
# A sampler reshapes the model's distribution with a temperature $T > 0$. Write
# `softmax_with_temperature(x, temperature)`, with your `softmax`, such that
#
# * $T = 1$ gives softmax itself;
# * a small $T$ puts nearly all the probability on the largest score, a large $T$ spreads it almost
#   evenly;
# * the order of the probabilities stays the order of the scores, whatever $T$.


# %% tags=["exercise"]
def softmax_with_temperature(x, temperature):
    x = np.asarray(x, dtype=float)
    return ...  # your code, with your softmax


# %% [markdown]
# <details><summary>Hint</summary>
#
# The ratio of two probabilities is $p_i / p_j = e^{x_i - x_j}$: only the gaps between the scores
# matter. Which operation on the scores makes every gap larger for $T < 1$ and smaller for $T > 1$, and
# leaves it alone at $T = 1$?
#
# </details>
#
# <details><summary>Solution</summary>
#
# Divide the scores by $T$: every gap becomes $(x_i - x_j) / T$.
#
# ```python
# def softmax_with_temperature(x, temperature):
#     x = np.asarray(x, dtype=float)
#     return softmax(x / temperature)
# ```
#
# At $T = 0.01$ the scores become hundreds or thousands: your stable `softmax` is what keeps this one
# finite.
#
# </details>

# %%
check("softmax_with_temperature", softmax_with_temperature)

# %%
scores = [2.5, 1.2, 0.3, 3.1]
if check.ready(softmax_with_temperature, scores, 1.0):
    for t in (0.1, 1.0, 10.0):
        print(f"T = {t:>4}:", np.round(softmax_with_temperature(scores, t), 3))

# %% [markdown]
# ## What you wrote
#
# The softmax every attention layer and every output layer of a Transformer runs, and the temperature of
# [sampling](https://transformer-math.github.io/mathematics-for-transformers/part-4/decoding/#choosing-the-next-token). The
# library's `transformer_math.softmax.softmax` is the same computation, with its inputs checked and a
# `temperature` argument; the
# [cross-entropy lab](https://transformer-math.github.io/mathematics-for-transformers/labs/cross-entropy/)
# takes the logarithm of it without ever computing it.
