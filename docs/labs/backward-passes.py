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
# # Lab: backward passes that pass the gradient check
#
# Two backward passes of the Transformer, written by you and checked twice: against the library's
# own (`transformer_math.transformer`) and against finite differences with the library's
# `gradient_check`, which returns the largest relative error between your gradient and a numerical
# one. Around $10^{-7}$ or less means right; a wrong formula gives $10^{-2}$ or more.
#
# * **Cross entropy** of logits $Z$ (one row per position) against target tokens $y$, averaged over
#   the $N$ positions: $L = -\frac{1}{N} \sum_n \log \operatorname{softmax}(Z_n)_{y_n}$.
# * **LayerNorm** of each row $x \in \mathbb{R}^d$: $\hat x = (x - \mu) / s$ with
#   $s = \sqrt{\sigma^2 + \varepsilon}$, then $y = \gamma \odot \hat x + \beta$.
#
# The chapters [The gradient of softmax and cross entropy](https://transformer-math.github.io/mathematics-for-transformers/part-3/softmax-cross-entropy/) and
# [From logits to gradients](https://transformer-math.github.io/mathematics-for-transformers/part-4/backprop/) derive both. The lab needs the guide's library:
# `pip install git+https://github.com/transformer-math/mathematics-for-transformers`.
#
# **How to work:** each cell tagged `exercise` has a `...` for you to replace. Run the `check` cell
# under it: it prints **Correct**, or what is wrong. Solutions are under "Solution", folded.

# %% [markdown]
# Run this cell first. It defines `check`, which runs your answer, compares it with the expected
# numbers and prints **Correct** or what is wrong.

# %%
import numpy as np

from transformer_math.calculus import gradient_check
from transformer_math.transformer import cross_entropy_backward as library_ce_backward
from transformer_math.transformer import layer_norm_backward as library_ln_backward


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
        if "ellipsis" in str(err):  # an exercise this check needs still holds its ...
            return print(f"Not yet: {name} - replace the ... in the exercise.")
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


def error_of(f, grad, x):
    """gradient_check's error of the gradient grad of f at x (... while grad is unfinished)."""
    return ... if grad is Ellipsis else gradient_check(f, grad, x)


def row_sums(a):
    return ... if a is Ellipsis else np.sum(a, axis=-1)


# %% [markdown]
# The forward passes, given. `softmax` subtracts each row's maximum first, so it never overflows.


# %%
def softmax(Z):
    exp = np.exp(Z - np.max(Z, axis=-1, keepdims=True))
    return exp / np.sum(exp, axis=-1, keepdims=True)


def cross_entropy(Z, y):
    """Mean over the rows of -log softmax(Z)[target]."""
    return -np.mean(np.log(softmax(Z)[np.arange(len(y)), y]))


def layer_norm(x, gamma, beta, eps=1e-5):
    x_hat = (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    return gamma * x_hat + beta


rng = np.random.default_rng(0)
Z = rng.normal(size=(4, 5))  # 4 positions, a vocabulary of 5
y = np.array([1, 0, 4, 1])  # the target token of each position
print("loss:", round(cross_entropy(Z, y), 4))

# %% [markdown]
# ## 1. One gradient by hand
#
# For one position ($N = 1$), the gradient of $-\log \operatorname{softmax}(z)_y$ with respect to
# the logits is $\operatorname{softmax}(z) - \operatorname{onehot}(y)$: the predicted probabilities,
# minus 1 at the target. Work it out on paper for $z = (0, 0, 0)$ and $y = 1$.

# %% tags=["exercise"]
grad_by_hand = ...  # a list of three numbers

# %% [markdown]
# <details><summary>Solution</summary>
#
# Equal logits give $\operatorname{softmax}(z) = (\tfrac13, \tfrac13, \tfrac13)$; subtract 1 at
# position 1.
#
# ```python
# grad_by_hand = [1 / 3, -2 / 3, 1 / 3]
# ```
#
# </details>

# %%
check("grad_by_hand", lambda: grad_by_hand, [1 / 3, -2 / 3, 1 / 3])

# %% [markdown]
# ## 2. The cross-entropy backward pass
#
# For $N$ positions the loss is a mean, so every row of the gradient is divided by $N$:
# $\partial L / \partial Z = (\operatorname{softmax}(Z) - \operatorname{onehot}(y)) / N$, shape
# $(N, V)$. `np.eye(V)[y]` gives the one-hot rows.


# %% tags=["exercise"]
def ce_backward(Z, y):
    return ...  # your code: shape (N, V)


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def ce_backward(Z, y):
#     one_hot = np.eye(Z.shape[-1])[y]
#     return (softmax(Z) - one_hot) / len(y)
# ```
#
# </details>

# %%
check("ce_backward(Z, y)", lambda: ce_backward(Z, y), library_ce_backward(Z, y))
check(
    "gradient_check of ce_backward",
    lambda: error_of(lambda Z: cross_entropy(Z, y), ce_backward(Z, y), Z),
    0.0,
    tol=1e-6,
)
check("row sums of ce_backward(Z, y)", lambda: row_sums(ce_backward(Z, y)), np.zeros(4))

# %% [markdown]
# Each row sums to 0: adding the same number to every logit of a row changes no probability, so it
# cannot change the loss.
#
# ## 3. LayerNorm: the gradients of the gain and the shift
#
# With $\bar y = \partial L / \partial y$ arriving from above (shape $(n, d)$, one row per token),
# $y = \gamma \odot \hat x + \beta$ gives, for each feature $i$, summed over the tokens $t$:
#
# $$
# \bar\gamma_i = \sum_t \bar y_{ti}\, \hat x_{ti}, \qquad \bar\beta_i = \sum_t \bar y_{ti}.
# $$
#
# They are summed because the same $\gamma$ and $\beta$ serve every token.

# %%
x = rng.normal(size=(3, 6)) * 2 + 1  # 3 tokens, d = 6
gamma = rng.normal(size=6)
beta = rng.normal(size=6)
dy = rng.normal(size=(3, 6))  # dL/dy, as it would arrive from the layers above
eps = 1e-5


# %% tags=["exercise"]
def ln_param_grads(dy, x, eps=1e-5):
    x_hat = (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    dgamma = ...  # your code: shape (d,)
    dbeta = ...  # your code: shape (d,)
    return dgamma, dbeta


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def ln_param_grads(dy, x, eps=1e-5):
#     x_hat = (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)
#     dgamma = np.sum(dy * x_hat, axis=0)
#     dbeta = np.sum(dy, axis=0)
#     return dgamma, dbeta
# ```
#
# </details>

# %%
_, library_dgamma, library_dbeta = library_ln_backward(dy, x, gamma)
check("dgamma", lambda: ln_param_grads(dy, x)[0], library_dgamma)
check("dbeta", lambda: ln_param_grads(dy, x)[1], library_dbeta)
check(
    "gradient_check of dgamma",
    lambda: error_of(lambda g: np.sum(dy * layer_norm(x, g, beta)), ln_param_grads(dy, x)[0], gamma),
    0.0,
    tol=1e-6,
)

# %% [markdown]
# ## 4. LayerNorm: the gradient of the input
#
# Every $\hat x_i$ depends on every $x_j$ of its row, through $\mu$ and $s$:
# $\partial \hat x_i / \partial x_j = (\delta_{ij} - \tfrac1d - \tfrac1d \hat x_i \hat x_j) / s$.
# Multiplied by $g = \gamma \odot \bar y$ and summed over $i$, that gives for each row
#
# $$
# \begin{aligned}
# \bar x = \tfrac{1}{s} \big(&g - \operatorname{mean}(g) \\
#   &- \hat x \operatorname{mean}(g \odot \hat x)\big),
# \end{aligned}
# $$
#
# where $\operatorname{mean}$ averages over the $d$ features (`axis=-1, keepdims=True`); the bar is kept
# for gradients. The two subtracted terms undo what the centring and the scaling did.


# %% tags=["exercise"]
def ln_dx(dy, x, gamma, eps=1e-5):
    s = np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    x_hat = (x - x.mean(axis=-1, keepdims=True)) / s
    g = gamma * dy
    return ...  # your code: shape (n, d)


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def ln_dx(dy, x, gamma, eps=1e-5):
#     s = np.sqrt(x.var(axis=-1, keepdims=True) + eps)
#     x_hat = (x - x.mean(axis=-1, keepdims=True)) / s
#     g = gamma * dy
#     return (g - g.mean(axis=-1, keepdims=True) - x_hat * (g * x_hat).mean(axis=-1, keepdims=True)) / s
# ```
#
# </details>

# %%
library_dx, _, _ = library_ln_backward(dy, x, gamma)
check("ln_dx", lambda: ln_dx(dy, x, gamma), library_dx)
check(
    "gradient_check of ln_dx",
    lambda: error_of(lambda x: np.sum(dy * layer_norm(x, gamma, beta)), ln_dx(dy, x, gamma), x),
    0.0,
    tol=1e-6,
)
check("row sums of ln_dx", lambda: row_sums(ln_dx(dy, x, gamma)), np.zeros(3))

# %% [markdown]
# The rows of $\bar x$ sum to 0 too: moving every feature of a token by the same amount moves its
# mean and nothing else, and LayerNorm subtracts the mean.
#
# ## What you built
#
# The first and the most intricate backward rules of the Transformer's backward pass. The library's
# `backward` ([From logits to gradients](https://transformer-math.github.io/mathematics-for-transformers/part-4/backprop/)) starts with
# `cross_entropy_backward` and calls `layer_norm_backward` three times, once per LayerNorm of the
# block, with the same formulas as yours.
