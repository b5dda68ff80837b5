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
#     minutes: 35
#     difficulty: 2
#     path: false
# ---

# %% [markdown]
# # Lab: Adam and AdamW
#
# **About 35 minutes · difficulty 2 of 3 (standard)** · after
# [Gradient descent and optimizers](https://transformer-math.github.io/mathematics-for-transformers/part-3/optimizers/)
#
# Adam keeps two running averages per parameter, of the gradient $g$ and of its square, and steps by their
# ratio, so that every entry moves by about the learning rate $\eta$ whatever the scale of its gradient:
#
# $$m \leftarrow \beta_1 m + (1 - \beta_1)\, g, \qquad v \leftarrow \beta_2 v + (1 - \beta_2)\, g^2 ,$$
#
# entry by entry, both starting at 0. You find out what starting at 0 does and how Adam undoes it, write a
# step of Adam and one of AdamW, and predict how the two ways of decaying weights differ.
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

from transformer_math.labs.adam import check

# %% [markdown]
# ## 1. A running average that starts at zero
#
# Feed the same gradient $g$ into $m \leftarrow \beta_1 m + (1 - \beta_1) g$ again and again, from $m = 0$.
# Write `m_after_steps(g, beta1, t)`: $m$ after $t$ steps, in closed form (no loop), for a number or an
# array $g$.


# %% tags=["exercise"]
def m_after_steps(g, beta1, t):
    g = np.asarray(g, dtype=float)
    return ...  # your code


# %% [markdown]
# <details><summary>Hint</summary>
#
# Write out the first three: $m_1 = (1 - \beta_1) g$, $m_2 = \beta_1 (1 - \beta_1) g + (1 - \beta_1) g$, ...
# The sum $(1 - \beta_1)(1 + \beta_1 + \dots + \beta_1^{t-1})$ is a geometric series.
#
# </details>
#
# <details><summary>Solution</summary>
#
# $m_t = (1 - \beta_1) g \sum_{k=0}^{t-1} \beta_1^k = g\,(1 - \beta_1^t)$:
#
# ```python
# def m_after_steps(g, beta1, t):
#     g = np.asarray(g, dtype=float)
#     return g * (1 - beta1**t)
# ```
#
# </details>

# %%
check("m_after_steps", m_after_steps)

# %% [markdown]
# With $\beta_1 = 0.9$ the average is $0.1g$ after one step and still only $0.65g$ after ten: too small, for
# no reason but its start. Dividing by $1 - \beta_1^t$ gives back $g$ exactly, from the first step on; Adam
# does that to both averages, $\hat m = m / (1 - \beta_1^t)$ and $\hat v = v / (1 - \beta_2^t)$: the **bias
# correction**.
#
# ## 2. Without the correction, by hand
#
# Adam's step is $\eta\, \hat m / (\sqrt{\hat v} + \epsilon)$. Take the first step ($t = 1$) *without* the
# correction, $\eta\, m / \sqrt v$, for one entry with gradient $g = 2$, $\beta_1 = 0.9$, $\beta_2 = 0.999$ and
# $\eta = 0.1$ (leave out $\epsilon$). How long is it? Four decimals.

# %% tags=["exercise"]
uncorrected_first_step = ...  # a number

# %% [markdown]
# <details><summary>Hint</summary>
#
# After one step from 0, $m = (1 - \beta_1) g$ and $v = (1 - \beta_2) g^2$.
#
# </details>
#
# <details><summary>Solution</summary>
#
# $m = 0.2$, $v = 0.004$, $m / \sqrt v = 3.162$, and the step is $0.3162$: more than three times the step of
# $\eta = 0.1$ that the corrected Adam takes. Without the correction
# $m / \sqrt v = (1 - \beta_1)/\sqrt{1 - \beta_2} \approx 3.16$ at $t = 1$, whatever $g$ is.
#
# ```python
# uncorrected_first_step = 0.1 * 0.2 / np.sqrt(0.004)
# ```
#
# </details>

# %%
check("uncorrected_first_step", uncorrected_first_step)

# %% [markdown]
# ## 3. One Adam step
#
# Write `adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8)`: one step of Adam at step
# `t` (counting from 1), from the state `m`, `v`, with bias correction, returning the new `theta`, `m` and
# `v` as new arrays (the caller's arrays stay as they are).


# %% tags=["exercise"]
def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):
    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))
    return ...  # your code: theta, m, v


# %% [markdown]
# <details><summary>Hint</summary>
#
# $$\begin{aligned} m &\leftarrow \beta_1 m + (1 - \beta_1)\, g, \quad v \leftarrow \beta_2 v + (1 - \beta_2)\, g^2, \\ \hat m &= \frac{m}{1 - \beta_1^t}, \quad \hat v = \frac{v}{1 - \beta_2^t}, \quad \theta \leftarrow \theta - \eta \, \frac{\hat m}{\sqrt{\hat v} + \epsilon}. \end{aligned}$$
#
# `m = beta1 * m + ...` makes a new array; `m *= beta1` would change the caller's.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):
#     theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))
#     m = beta1 * m + (1 - beta1) * g
#     v = beta2 * v + (1 - beta2) * g**2
#     m_hat = m / (1 - beta1**t)
#     v_hat = v / (1 - beta2**t)
#     return theta - lr * m_hat / (np.sqrt(v_hat) + eps), m, v
# ```
#
# </details>

# %%
check("adam_step", adam_step)

# %% [markdown]
# ## 4. AdamW
#
# AdamW (Loshchilov and Hutter) decays the weights *apart from* the gradient: each step first shrinks
# $\theta$ towards 0 by the learning rate times the weight decay $\lambda$, then takes Adam's step computed
# from the loss gradient alone, so that the decay never enters $m$ and $v$ (PyTorch's convention). Write
# `adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8)` with your
# `adam_step`.


# %% tags=["exercise"]
def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.asarray(theta, dtype=float)
    return ...  # your code: theta, m, v


# %% [markdown]
# <details><summary>Hint</summary>
#
# $\theta \leftarrow \theta - \eta\lambda\theta$, then Adam's step from $g$. The order matters a little: the
# decay uses $\theta$ as it was before the step.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):
#     theta = np.asarray(theta, dtype=float)
#     theta = theta - lr * weight_decay * theta
#     return adam_step(theta, g, m, v, t, lr, beta1, beta2, eps)
# ```
#
# </details>

# %%
check("adamw_step", adamw_step)

# %% [markdown]
# ## 5. Predict: decoupled, or an L2 term?
#
# The older way to decay weights adds $\frac{\lambda}{2} \lVert \theta \rVert^2$ to the loss, that is
# $\lambda\theta$ to the gradient, and lets Adam normalise it with the rest: `adam_l2_step` below. Take a
# weight the loss does not care about ($g = 0$) at $\theta = 10$, with $\lambda = 0.01$ and $\eta = 0.1$, for
# 10 steps. Before you run the cell after the next, write down which moves it further towards 0:
# `"adam + l2"` or `"adamw"`.


# %%
def adam_l2_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01):
    return adam_step(theta, np.asarray(g) + weight_decay * np.asarray(theta), m, v, t, lr)


# %% tags=["exercise"]
prediction = ...  # "adam + l2" or "adamw"

# %% [markdown]
# <details><summary>Solution</summary>
#
# Either is a right answer here, if you wrote it before running the next cells. One that reasons from
# Adam's normalisation:
#
# ```python
# prediction = "adam + l2"
# ```
#
# With the L2 term the whole gradient is $\lambda\theta$, and Adam divides it by its own size: a step of
# about $\eta = 0.1$, whatever $\lambda$. AdamW shrinks by the factor $1 - \eta\lambda = 0.999$ a step.
#
# </details>

# %%
check("prediction", prediction)


# %%
def ten_steps(step):
    theta, m, v = np.array([10.0]), np.zeros(1), np.zeros(1)
    for t in range(1, 11):
        theta, m, v = step(theta, np.zeros(1), m, v, t, lr=0.1, weight_decay=0.01)
    return theta[0]


if check.ready(adamw_step, np.ones(1), np.ones(1), np.zeros(1), np.zeros(1), 1) and prediction is not Ellipsis:
    l2, decoupled = ten_steps(adam_l2_step), ten_steps(adamw_step)
    print(f"after 10 steps from 10: Adam + L2 {l2:.4f}, AdamW {decoupled:.4f}")
    further = "adam + l2" if l2 < decoupled else "adamw"
    print(f"You predicted {prediction!r}:", "it held." if prediction == further else "it did not hold.")

# %% [markdown]
# With the L2 term, the decay a weight feels depends on its gradient history through $\hat v$, so $\lambda$
# and $\eta$ pull on each other; decoupled, the decay is exactly $\eta\lambda\theta$ per step, and the two can
# be tuned apart. That is the point of AdamW.
#
# ## What you wrote
#
# The optimizer that trains almost every Transformer, equal on hidden states to the library's
# `transformer_math.optim.AdamW`, which [your own GPT](https://transformer-math.github.io/mathematics-for-transformers/labs/your-own-gpt/)
# puts to work on a whole model's parameters.
