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
#     minutes: 120
#     difficulty: 3
#     path: true
# ---

# %% [markdown]
# # Lab: backward passes
#
# **About 120 minutes · difficulty 3 of 3 (hard)** · after
# [The gradient of softmax and cross entropy](https://transformer-math.github.io/mathematics-for-transformers/part-3/softmax-cross-entropy/)
# and [From logits to gradients](https://transformer-math.github.io/mathematics-for-transformers/part-4/backprop/);
# the lab of the one-day path, and practice for [your own GPT](https://transformer-math.github.io/mathematics-for-transformers/labs/your-own-gpt/)
#
# Three backward passes of the Transformer, derived by you and written for whole arrays at once: cross
# entropy, LayerNorm and attention. A backward pass takes $\bar Y = \partial L / \partial Y$, the gradient
# arriving from the layers above, and returns the gradient of each input, with the input's shape. The
# checks compare yours with the guide's library on hidden cases, with upstream gradients other than 1; while
# your code runs, the library's backward functions and its numerical gradient are refused to it, and each check
# has a case whose loss is so large that finite differences, of any step, lose the gradient in its rounding.
# Derive each gradient, do not measure it: automatic differentiation of any kind, dual numbers carried through
# a class of your own included, measures the gradient as finite differences do, and is not the exercise.
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

# numerical_gradient(f, x) measures the slope of f along each entry of x by central differences,
# (f(x + h e_i) - f(x - h e_i)) / 2h: an answer key you can see, after your gradient is written. Inside your
# exercises it refuses to run: a backward pass is derived, not measured.
from transformer_math.labs.backward_passes import check, numerical_gradient


def softmax(Z):
    exp = np.exp(Z - np.max(Z, axis=-1, keepdims=True))
    return exp / np.sum(exp, axis=-1, keepdims=True)


# %% [markdown]
# ## 1. One gradient, by hand
#
# One position, three tokens, logits $z = (0, \ln 3, 0)$ and target token 0. The loss is
# $L = -\log \operatorname{softmax}(z)_0$. Work out $\partial L / \partial z$ on paper: three numbers.

# %% tags=["exercise"]
grad_by_hand = ...  # a list of three numbers

# %% [markdown]
# <details><summary>Hint</summary>
#
# $L = \log \sum_j e^{z_j} - z_0$. Differentiate each term by $z_k$: the first gives
# $e^{z_k} / \sum_j e^{z_j} = \operatorname{softmax}(z)_k$, the second $-1$ if $k = 0$, else 0.
#
# </details>
#
# <details><summary>Solution</summary>
#
# $e^z = (1, 3, 1)$, so $\operatorname{softmax}(z) = (0.2, 0.6, 0.2)$; subtract 1 at the target, token 0:
#
# ```python
# grad_by_hand = [-0.8, 0.6, 0.2]
# ```
#
# The gradient is the prediction minus the truth: $\operatorname{softmax}(z) - \operatorname{onehot}(y)$.
#
# </details>

# %%
check("grad_by_hand", grad_by_hand)

# %% [markdown]
# ## 2. The cross-entropy backward pass
#
# A model's loss is the *mean* of the cross entropies of all its positions: for logits $Z$ of shape
# $(\dots, V)$ and targets $y$ of shape $(\dots)$, $L = -\frac1N \sum_t \log \operatorname{softmax}(Z_t)_{y_t}$
# over the $N$ positions of every sequence of the batch. Write `ce_backward(Z, y)`: $\partial L / \partial Z$,
# with the shape of $Z$, for logits of any size, in $O(NV)$ work: the checks time it on a wide case against the
# closed form, and a gradient measured one logit at a time, which takes a forward pass per logit ($NV^2$ work),
# is refused there.


# %% tags=["exercise"]
def ce_backward(Z, y):
    Z, y = np.asarray(Z, dtype=float), np.asarray(y)
    return ...  # your code: the shape of Z


# %% [markdown]
# <details><summary>Hint</summary>
#
# Row $t$ of $Z$ enters only the loss of position $t$, and that loss enters $L$ with the weight $\frac1N$:
# each row gets exercise 1's gradient of its own loss, divided by $N$ (`y.size`). `np.eye(V)[y]` gives the
# one-hot rows, for `y` of any shape; the `softmax` above is stable.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def ce_backward(Z, y):
#     Z, y = np.asarray(Z, dtype=float), np.asarray(y)
#     one_hot = np.eye(Z.shape[-1])[y]
#     return (softmax(Z) - one_hot) / y.size
# ```
#
# </details>

# %%
check("ce_backward", ce_backward)

# %% [markdown]
# ## 3. Predict: the sum of a row
#
# Before you run the next cell, write down what each row of `ce_backward(Z, y)` sums to, for the four
# positions below: `"0"`, `"1"` or `"1/n"` (one over the number of positions).

# %% tags=["exercise"]
prediction = ...  # "0", "1" or "1/n"

# %% [markdown]
# <details><summary>Solution</summary>
#
# Any of the three is a right answer here, if you wrote it before running the next cell. One that reasons
# from the loss:
#
# ```python
# prediction = "0"
# ```
#
# Adding the same number to every logit of a row changes no probability, so it cannot change the loss: the
# slope along $(1, 1, \dots, 1)$, which is the row's sum, is 0.
#
# </details>

# %%
check("prediction", prediction)

# %%
rng = np.random.default_rng(0)
Z, y = rng.normal(size=(4, 5)), np.array([1, 0, 4, 1])
if check.ready(ce_backward, Z, y) and prediction is not Ellipsis:
    sums = ce_backward(Z, y).sum(axis=-1)
    print("row sums:", sums.round(12))
    said = {"0": 0.0, "1": 1.0, "1/n": 1 / len(y)}.get(prediction)
    print(
        f"You predicted {prediction!r}:",
        "it held." if said is not None and np.allclose(sums, said) else "it did not hold.",
    )

    def loss(Z):
        return -np.mean(np.log(softmax(Z)[np.arange(len(y)), y]))

    measured = numerical_gradient(loss, Z)
    print(f"largest difference from the measured slope: {np.abs(ce_backward(Z, y) - measured).max():.1e}")

# %% [markdown]
# The measured slope agrees to about $10^{-11}$: the rounding of a central difference. That is how a
# gradient is checked when there is no answer key: the guide's `gradient_check` does it for any function.
#
# ## 4. LayerNorm's backward pass
#
# LayerNorm normalises each token $x \in \mathbb{R}^d$ (a row along the last axis): $\hat x = (x - \mu)/s$ with
# $s = \sqrt{\sigma^2 + \varepsilon}$, then $y = \gamma \odot \hat x + \beta$; $\gamma$ and $\beta$ are shared by
# every token. Write `layer_norm_backward(dy, x, gamma, eps=1e-5)`: given $\bar y$ (the shape of $x$, any
# number of leading axes), return $(\bar x, \bar\gamma, \bar\beta)$, shaped like $x$, $\gamma$ and $\beta$,
# in $O(d)$ work per token, without forming a $d \times d$ Jacobian for each token: the checks time it on a wide
# case, where either that matrix or a gradient measured one entry at a time ($d^2$ work per token) is refused.


# %% tags=["exercise"]
def layer_norm_backward(dy, x, gamma, eps=1e-5):
    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)
    return ...  # your code: dx, dgamma, dbeta


# %% [markdown]
# <details><summary>Hint</summary>
#
# **The gain and the shift.** $\partial y_{tr} / \partial \gamma_r = \hat x_{tr}$ and
# $\partial y_{tr} / \partial \beta_r = 1$ for every token $t$: a parameter used by every token collects a term
# from each, a sum over every axis but the last.
#
# **The input.** Every $\hat x_r$ depends on every $x_{r'}$ of its token, through $\mu$ and $s$. With
# $\partial \mu / \partial x_{r'} = 1/d$ and $\partial s / \partial x_{r'} = \hat x_{r'} / d$,
#
# $$\frac{\partial \hat x_r}{\partial x_{r'}} = \frac{1}{s}\left(\delta_{r r'} - \frac{1}{d} - \frac{\hat x_r \hat x_{r'}}{d}\right),$$
#
# and with $g = \gamma \odot \bar y$ (the gradient reaching $\hat x$),
# $\bar x_{r'} = \sum_r g_r\, \partial \hat x_r / \partial x_{r'}$. Carry out the sum one term of the bracket at a
# time: each becomes a vector of the token, a mean over the token, or a product of the two. No loop and no
# $d \times d$ matrix.
#
# </details>
#
# <details><summary>Solution</summary>
#
# The $\delta$ term keeps $g_{r'}$; the $-\tfrac1d$ term gives $-\operatorname{mean}(g)$; the last gives
# $-\hat x_{r'} \operatorname{mean}(g \odot \hat x)$. All three are divided by $s$:
#
# ```python
# def layer_norm_backward(dy, x, gamma, eps=1e-5):
#     dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)
#     s = np.sqrt(x.var(axis=-1, keepdims=True) + eps)
#     x_hat = (x - x.mean(axis=-1, keepdims=True)) / s
#     g = gamma * dy
#     dx = (g - g.mean(axis=-1, keepdims=True) - x_hat * (g * x_hat).mean(axis=-1, keepdims=True)) / s
#     d = x.shape[-1]
#     dgamma = (dy * x_hat).reshape(-1, d).sum(axis=0)
#     dbeta = dy.reshape(-1, d).sum(axis=0)
#     return dx, dgamma, dbeta
# ```
#
# </details>

# %%
check("layer_norm_backward", layer_norm_backward)

# %% [markdown]
# The rows of $\bar x$ sum to 0, as those of the cross-entropy gradient do: moving every feature of a token by
# the same amount moves its mean and nothing else, and LayerNorm subtracts the mean.
#
# ## 5. Attention's backward pass
#
# Attention, in index form, for queries $i$, keys $j$ and features $c$, with a mask:
#
# $$\begin{aligned} S_{ij} &= \frac{1}{\sqrt{d_k}} \sum_c Q_{ic} K_{jc} \\ &\quad (-\infty \text{ where masked}), \\ P_{ij} &= \frac{e^{S_{ij}}}{\sum_{j'} e^{S_{ij'}}}, \\ O_{ic} &= \sum_j P_{ij} V_{jc} . \end{aligned}$$
#
# Write `attention_backward(dO, Q, K, V, mask)`: given $\bar O$, return $(\bar Q, \bar K, \bar V)$, each with the
# shape of its input, for any leading axes (a batch, heads) and `mask=None` for no mask. Recompute what the
# forward pass made.


# %% tags=["exercise"]
def attention_backward(dO, Q, K, V, mask):
    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))
    return ...  # your code: dQ, dK, dV


# %% [markdown]
# <details><summary>Hint</summary>
#
# Go backwards one line at a time, and for each ask which entries of the output an entry of the input
# reaches, then sum over them. $V_{jc}$ reaches $O_{ic}$ for every query $i$, with the weight $P_{ij}$.
# $P_{ij}$ reaches $O_{ic}$ for every $c$. For the softmax, Part III's rule holds row by row:
# $\bar S_{ij} = P_{ij}\,(\bar P_{ij} - \sum_{j'} P_{ij'} \bar P_{ij'})$, which is 0 where $P_{ij} = 0$ (masked).
# $Q_{ic}$ reaches $S_{ij}$ for every key $j$; $K_{jc}$ reaches it for every query $i$. Transposes of the last
# two axes: `np.swapaxes(A, -1, -2)`.
#
# </details>
#
# <details><summary>Solution</summary>
#
# $\bar V = P^\top \bar O$, $\bar P = \bar O V^\top$, the softmax rule for $\bar S$, then
# $\bar Q = \bar S K / \sqrt{d_k}$ and $\bar K = \bar S^\top Q / \sqrt{d_k}$:
#
# ```python
# def attention_backward(dO, Q, K, V, mask):
#     dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))
#     scale = np.sqrt(Q.shape[-1])
#     S = Q @ np.swapaxes(K, -1, -2) / scale
#     if mask is not None:
#         S = np.where(mask, S, -np.inf)
#     P = softmax(S)
#     dV = np.swapaxes(P, -1, -2) @ dO
#     dP = dO @ np.swapaxes(V, -1, -2)
#     dS = P * (dP - np.sum(P * dP, axis=-1, keepdims=True))
#     dQ = dS @ K / scale
#     dK = np.swapaxes(dS, -1, -2) @ Q / scale
#     return dQ, dK, dV
# ```
#
# </details>

# %%
check("attention_backward", attention_backward)

# %% [markdown]
# Under the causal mask the last key gets a gradient only from the last query, the only one that may see
# it: masked pairs pass no gradient, yet every token still learns, as a query and as a key of the queries
# that see it.
#
# ## What you wrote
#
# The first and the most intricate rules of a Transformer's backward pass. The library's `backward`
# ([From logits to gradients](https://transformer-math.github.io/mathematics-for-transformers/part-4/backprop/))
# starts with `cross_entropy_backward`, calls `layer_norm_backward` once per LayerNorm, and runs your
# attention backward once per block, on all heads at once. In
# [your own GPT](https://transformer-math.github.io/mathematics-for-transformers/labs/your-own-gpt/) they
# train a model.
