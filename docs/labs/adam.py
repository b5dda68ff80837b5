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
# Adam keeps two running averages per parameter entry, both starting at 0: $m$ of the gradient $g$ and $v$ of
# its square,
#
# $$\begin{aligned} m &\leftarrow \beta_1 m + (1 - \beta_1)\, g, \\ v &\leftarrow \beta_2 v + (1 - \beta_2)\, g^2 , \end{aligned}$$
#
# and steps by their ratio. You work out what starting at 0 does to them and how to undo it, build Adam's step
# from what it is for, then decay weights the way AdamW does and see why adding the decay to the gradient is
# not the same under Adam.
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
# Write `m_after_steps(g, beta1, t)`: $m$ after $t$ steps, in closed form (no loop, and no sum over the
# steps: the next exercise solves the closed form for $g$), for a number or an array $g$.


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
# no reason but its start at 0. The average is *biased towards 0* early on, and $v$ is too, more so, since
# $\beta_2$ is closer to 1.
#
# ## 2. Undo the start at zero
#
# Write `unbias(m, beta, t)`: from the average $m$ after $t$ steps (and its $\beta$) alone, an estimate
# $\hat m$ that is an unbiased average of a steady gradient: whenever every gradient so far was the same $g$,
# $\hat m = g$ exactly, at every $t$ from the first step on. The same function will serve $v$, with $\beta_2$.


# %% tags=["exercise"]
def unbias(m, beta, t):
    m = np.asarray(m, dtype=float)
    return ...  # your code


# %% [markdown]
# <details><summary>Hint</summary>
#
# Exercise 1 says what $m$ is after $t$ steps of a steady $g$: $m_t = (1 - \beta^t)\, g$. Solve it for $g$.
#
# </details>
#
# <details><summary>Solution</summary>
#
# $\hat m = m_t / (1 - \beta^t)$, Adam's **bias correction**. It matters early and fades: $1 - 0.9^t$ is
# within 1 % of 1 after 44 steps, $1 - 0.999^t$ only after 4,603.
#
# ```python
# def unbias(m, beta, t):
#     m = np.asarray(m, dtype=float)
#     return m / (1 - beta**t)
# ```
#
# </details>

# %%
check("unbias", unbias)

# %% [markdown]
# ## 3. One Adam step
#
# Adam moves every entry of $\theta$ against its gradient by about the learning rate $\eta$ when that gradient
# is steady, *whatever the gradient's scale*: an entry whose gradients are near $10^3$ and one whose gradients
# are near $10^{-3}$ take steps of the same size. Build that step from the two unbiased averages: find the
# ratio of them that does not change when every gradient is multiplied by the same factor. Add $\epsilon$ to
# the denominator of that ratio (after any square root, as PyTorch does), so that an entry whose gradients are
# all 0 does not divide by 0.
#
# Write `adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8)`: one step at step `t`
# (counting from 1), with this step's gradient `g` taken into `m` and `v` first, returning the new `theta`, `m`
# and `v` (the averages as they were before any correction, for the next step) as new arrays: the caller's
# arrays stay as they are.


# %% tags=["exercise"]
def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):
    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))
    return ...  # your code: theta, m, v


# %% [markdown]
# <details><summary>Hint</summary>
#
# Multiply every gradient by a factor $c$. $\hat m$ averages gradients, so it scales by $c$; $\hat v$ averages
# their squares, so it scales by $c^2$, and $\sqrt{\hat v}$ by $|c|$. So $\hat m / \sqrt{\hat v}$ does not change:
# for a steady gradient $g$ it is $g / |g| = \pm 1$, and a step of $\eta$ times it is about $\eta$, whatever the
# gradient's scale. Take this step's `g` into `m` and `v`, correct both with your `unbias`, then write the step.
# $\epsilon$ goes outside the square root, added to $\sqrt{\hat v}$ after the correction, where PyTorch puts it
# (the $\hat\epsilon$ form after Kingma & Ba's Algorithm 1, corrections folded into $\eta$, differs slightly).
# `m = beta1 * m + ...` makes a new array; `m *= beta1` would change the caller's.
#
# </details>
#
# <details><summary>Solution</summary>
#
# $\hat m / \sqrt{\hat v}$: after $m \leftarrow \beta_1 m + (1 - \beta_1)\, g$ and
# $v \leftarrow \beta_2 v + (1 - \beta_2)\, g^2$,
#
# $$\hat m = \frac{m}{1 - \beta_1^t}, \quad \hat v = \frac{v}{1 - \beta_2^t}, \quad \theta \leftarrow \theta - \eta \, \frac{\hat m}{\sqrt{\hat v} + \epsilon}.$$
#
# ```python
# def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):
#     theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))
#     m = beta1 * m + (1 - beta1) * g
#     v = beta2 * v + (1 - beta2) * g**2
#     return theta - lr * unbias(m, beta1, t) / (np.sqrt(unbias(v, beta2, t)) + eps), m, v
# ```
#
# </details>

# %%
check("adam_step", adam_step)

# %% [markdown]
# ## 4. Without the correction, by hand
#
# Take Adam's first step ($t = 1$) with both corrections left out, $\eta\, m / \sqrt v$, for one entry with
# gradient $g = 2$, $\beta_1 = 0.9$, $\beta_2 = 0.999$ and $\eta = 0.1$ (leave out $\epsilon$). How long is it?
# Four decimals.

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
# $m / \sqrt v = (1 - \beta_1)/\sqrt{1 - \beta_2} \approx 3.16$ at $t = 1$, whatever $g$ is: the two biases do
# not cancel, because $v$'s is the larger.
#
# ```python
# uncorrected_first_step = 0.1 * 0.2 / np.sqrt(0.004)
# ```
#
# </details>

# %%
check("uncorrected_first_step", uncorrected_first_step)

# %% [markdown]
# ## 5. AdamW
#
# Weight decay pulls every weight towards 0, so that a weight the loss does not need fades away. AdamW
# (Loshchilov and Hutter) asks for a decay that shrinks $\theta$ towards 0 at the rate $\lambda$ (the weight
# decay) per unit of learning rate, *independently of the gradient and of its scale*, on top of Adam's step
# from the loss gradient alone. Within a step, the decay acts on $\theta$ as it was at the start of the step
# (PyTorch's convention). Write
# `adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8)` with your
# `adam_step`.


# %% tags=["exercise"]
def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.asarray(theta, dtype=float)
    return ...  # your code: theta, m, v


# %% [markdown]
# <details><summary>Hint</summary>
#
# A rate $\lambda$ per unit of learning rate is a change of $-\eta\lambda\theta$ over a step:
# $\theta \leftarrow \theta - \eta\lambda\theta$, then Adam's step from $g$. Anything that enters $m$ and $v$ is
# divided by $\sqrt{\hat v}$, so the decay must stay out of them.
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
# ## 6. Predict: decoupled, or an L2 term?
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
def shrink(step, gradient, steps=10):
    """How far `steps` steps of `step` take theta = 10 towards 0, beyond what Adam alone does, when every
    gradient is `gradient`: the decay's own share of the move."""
    moved = []
    for decay in (0.01, 0.0):
        theta, m, v = np.array([10.0]), np.zeros(1), np.zeros(1)
        for t in range(1, steps + 1):
            theta, m, v = step(theta, np.full(1, gradient), m, v, t, lr=0.1, weight_decay=decay)
        moved.append(theta[0])
    return moved[1] - moved[0]


if check.ready(adamw_step, np.ones(1), np.ones(1), np.zeros(1), np.zeros(1), 1) and prediction is not Ellipsis:
    l2, decoupled = 10 - shrink(adam_l2_step, 0.0), 10 - shrink(adamw_step, 0.0)
    print(f"after 10 steps from 10 with g = 0: Adam + L2 {l2:.4f}, AdamW {decoupled:.4f}")
    further = "adam + l2" if l2 < decoupled else "adamw"
    held = prediction.strip().lower() == further  # read as check reads it: capitals and outer spaces aside
    print(f"You predicted {prediction!r}:", "it held." if held else "it did not hold.")
    print("the decay's share of the move in 10 steps, for a steady gradient of size")
    for gradient in (0.0, 1e-3, 1.0, 1e3):
        l2, decoupled = (round(shrink(step, gradient), 4) + 0.0 for step in (adam_l2_step, adamw_step))
        print(f"  {gradient:6g}: Adam + L2 {l2:.4f}, AdamW {decoupled:.4f}")

# %% [markdown]
# With the L2 term, what the decay does to a weight depends on that weight's gradients: alone, Adam normalises
# it into a full step of about $\eta$; beside any steady gradient, of size $10^{-3}$ as of $10^{3}$, it all but
# vanishes (it even shortens the step a little, since it adds to $v$). So $\lambda$ and $\eta$ pull on each
# other, and a weight with steady gradients is hardly decayed at all. Decoupled, the decay's share is
# $\eta\lambda\theta$ a step whatever the gradient, and the two can be tuned apart. That is the point of AdamW.
#
# ## What you wrote
#
# The optimizer that trains almost every Transformer, equal on hidden states to the library's
# `transformer_math.optim.AdamW`, which [your own GPT](https://transformer-math.github.io/mathematics-for-transformers/labs/your-own-gpt/)
# puts to work on a whole model's parameters.
