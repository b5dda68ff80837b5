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
# Three backward passes of the Transformer, derived and written by you, and checked against finite
# differences: the library's `numerical_gradient` (the slope of the loss along each entry, measured)
# and `gradient_check`, which returns the largest relative error between your gradient and the
# numerical one. Around $10^{-7}$ or less means right; a wrong formula gives $10^{-2}$ or more. The
# lab does not import the library's own backward functions: the only answer key is the measured
# slope.
#
# * **Cross entropy** of logits $Z$ (one row per position) against target tokens $y$, averaged over
#   the $N$ positions: $L = -\frac{1}{N} \sum_n \log \operatorname{softmax}(Z_n)_{y_n}$.
# * **LayerNorm** of each row $x \in \mathbb{R}^d$: $\hat x = (x - \mu) / s$ with
#   $s = \sqrt{\sigma^2 + \varepsilon}$, then $y = \gamma \odot \hat x + \beta$.
# * **Attention** of queries $Q$, keys $K$ and values $V$ with a causal mask.
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

from transformer_math.calculus import gradient_check, numerical_gradient


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
# For $N$ positions the loss is the *mean* of the $N$ losses of exercise 1, one per row of $Z$, and row
# $n$ of $Z$ enters only the $n$-th of them. Write $\partial L / \partial Z$, shape $(N, V)$, for all rows at
# once (`np.eye(V)[y]` gives the one-hot rows).


# %% tags=["exercise"]
def ce_backward(Z, y):
    return ...  # your code: shape (N, V)


# %% [markdown]
# <details><summary>Solution</summary>
#
# Row $n$ gets exercise 1's gradient of its own loss, times the $\frac1N$ of the mean.
#
# ```python
# def ce_backward(Z, y):
#     one_hot = np.eye(Z.shape[-1])[y]
#     return (softmax(Z) - one_hot) / len(y)
# ```
#
# </details>

# %%
check("ce_backward(Z, y)", lambda: ce_backward(Z, y), numerical_gradient(lambda Z: cross_entropy(Z, y), Z))
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
# The gradient $\bar y = \partial L / \partial y$ arrives from above, shape $(n, d)$, one row per token;
# the bar marks gradients. In $y_{ti} = \gamma_i \hat x_{ti} + \beta_i$, feature $i$'s gain and shift
# are used by every token $t$. Work out $\bar\gamma_i = \partial L / \partial \gamma_i$ and
# $\bar\beta_i$ with the chain rule (a parameter used several times collects a term from each use), then
# write them for all features at once.

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
# $\partial y_{ti} / \partial \gamma_i = \hat x_{ti}$ and $\partial y_{ti} / \partial \beta_i = 1$, for every token
# $t$, so $\bar\gamma_i = \sum_t \bar y_{ti} \hat x_{ti}$ and $\bar\beta_i = \sum_t \bar y_{ti}$: sums over the
# tokens, axis 0.
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
check(
    "dgamma", lambda: ln_param_grads(dy, x)[0], numerical_gradient(lambda g: np.sum(dy * layer_norm(x, g, beta)), gamma)
)
check(
    "dbeta", lambda: ln_param_grads(dy, x)[1], numerical_gradient(lambda b: np.sum(dy * layer_norm(x, gamma, b)), beta)
)
check(
    "gradient_check of dgamma",
    lambda: error_of(lambda g: np.sum(dy * layer_norm(x, g, beta)), ln_param_grads(dy, x)[0], gamma),
    0.0,
    tol=1e-6,
)

# %% [markdown]
# ## 4. LayerNorm: the gradient of the input
#
# Every $\hat x_r$ depends on every $x_{r'}$ of its row, through $\mu$ and $s$. Differentiating
# $\hat x_r = (x_r - \mu)/s$ (with $\partial \mu / \partial x_{r'} = 1/d$ and
# $\partial s / \partial x_{r'} = \hat x_{r'} / d$) gives, for one row,
#
# $$
# \frac{\partial \hat x_r}{\partial x_{r'}} = \frac{1}{s}\left(\delta_{r r'} - \frac{1}{d} - \frac{\hat x_r \hat x_{r'}}{d}\right),
# $$
#
# where $\delta_{r r'}$ is 1 if $r = r'$ and 0 otherwise. With $g = \gamma \odot \bar y$ (the gradient
# reaching $\hat x$), the chain rule gives $\bar x_{r'} = \sum_r g_r\, \partial \hat x_r / \partial x_{r'}$.
# Carry out that sum on paper, one term of the bracket at a time, and write the result for every row
# at once, with no loop and no $d \times d$ matrix: each of the three terms becomes a vector of the row,
# a mean over the row, or a product of the two.


# %% tags=["exercise"]
def ln_dx(dy, x, gamma, eps=1e-5):
    s = np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    x_hat = (x - x.mean(axis=-1, keepdims=True)) / s
    g = gamma * dy
    return ...  # your code: shape (n, d)


# %% [markdown]
# <details><summary>Solution</summary>
#
# The $\delta$ term keeps $g_{r'}$; the $-\tfrac1d$ term gives $-\tfrac1d \sum_r g_r = -\operatorname{mean}(g)$;
# the last gives $-\hat x_{r'} \tfrac1d \sum_r g_r \hat x_r = -\hat x_{r'} \operatorname{mean}(g \odot \hat x)$. All three
# are divided by $s$:
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
check("ln_dx", lambda: ln_dx(dy, x, gamma), numerical_gradient(lambda x: np.sum(dy * layer_norm(x, gamma, beta)), x))
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
# ## 5. Attention's backward pass
#
# Attention, in index form, for queries $i$, keys $j$ and features $c$, with the causal mask:
#
# $$
# S_{ij} = \frac{1}{\sqrt{d_k}} \sum_c Q_{ic} K_{jc} \;(\text{or } -\infty \text{ if } j > i), \qquad
# P_{ij} = \frac{e^{S_{ij}}}{\sum_{j'} e^{S_{ij'}}}, \qquad O_{ic} = \sum_j P_{ij} V_{jc}.
# $$
#
# Given $\bar O = \partial L / \partial O$, go backwards one line at a time. For each line, ask which
# entries of the output an entry of the input reaches, and sum over them. For the softmax, the rule of
# Part III holds row by row: $\bar S_{ij} = P_{ij}\,(\bar P_{ij} - \sum_{j'} P_{ij'} \bar P_{ij'})$. Return
# $\bar Q$, $\bar K$ and $\bar V$, each with the shape of its input. The forward pass is given.


# %%
def attention(Q, K, V, mask):
    S = np.where(mask, Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)
    return softmax(S) @ V


n, d_k, d_v = 4, 3, 2
Q, K, V = rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k)), rng.normal(size=(n, d_v))
mask = np.tril(np.ones((n, n), dtype=bool))
dO = rng.normal(size=(n, d_v))  # dL/dO, as it would arrive from W_O


def attention_loss(Q, K, V):
    return np.sum(dO * attention(Q, K, V, mask))


def part(grads, index):
    return ... if grads is Ellipsis else grads[index]


# %% tags=["exercise"]
def attention_backward(dO, Q, K, V, mask):
    ...  # your code
    return ...  # dQ, dK, dV


# %% [markdown]
# <details><summary>Solution</summary>
#
# $V_{jc}$ reaches $O_{ic}$ for every query $i$, with weight $P_{ij}$: $\bar V = P^\top \bar O$.
# $P_{ij}$ reaches $O_{ic}$ for every $c$: $\bar P = \bar O V^\top$. Then the softmax rule gives $\bar S$
# (0 at a masked pair, where $P_{ij} = 0$). $Q_{ic}$ reaches $S_{ij}$ for every key $j$:
# $\bar Q = \bar S K / \sqrt{d_k}$; $K_{jc}$ reaches $S_{ij}$ for every query $i$: $\bar K = \bar S^\top Q / \sqrt{d_k}$.
#
# ```python
# def attention_backward(dO, Q, K, V, mask):
#     S = np.where(mask, Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)
#     P = softmax(S)
#     dV = P.T @ dO
#     dP = dO @ V.T
#     dS = P * (dP - np.sum(P * dP, axis=-1, keepdims=True))
#     dQ = dS @ K / np.sqrt(Q.shape[-1])
#     dK = dS.T @ Q / np.sqrt(Q.shape[-1])
#     return dQ, dK, dV
# ```
#
# </details>

# %%
grads = attention_backward(dO, Q, K, V, mask)
check("gradient_check of dQ", lambda: error_of(lambda Q: attention_loss(Q, K, V), part(grads, 0), Q), 0.0, tol=1e-6)
check("gradient_check of dK", lambda: error_of(lambda K: attention_loss(Q, K, V), part(grads, 1), K), 0.0, tol=1e-6)
check("gradient_check of dV", lambda: error_of(lambda V: attention_loss(Q, K, V), part(grads, 2), V), 0.0, tol=1e-6)

# %% [markdown]
# The last key gets a gradient only from the last query, the only one that may see it: the masked pairs
# pass no gradient, yet every token still learns, as a query and as a key of the queries that see it.
#
# ## What you built
#
# The first and the most intricate backward rules of the Transformer's backward pass. The library's
# `backward` ([From logits to gradients](https://transformer-math.github.io/mathematics-for-transformers/part-4/backprop/)) starts with
# `cross_entropy_backward`, calls `layer_norm_backward` three times, once per LayerNorm of the block,
# and runs your attention backward once per head, batched: the same formulas as yours.
