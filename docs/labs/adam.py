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
# # Lab: Adam and AdamW
#
# You write the two optimizers that train almost every Transformer, step by step, and compare them
# with the library's `optim.Adam` and `optim.AdamW`. At step $t = 1, 2, \ldots$, for a parameter
# $\theta$ with gradient $g$, entry by entry:
#
# $$
# \begin{aligned}
# m &\leftarrow \beta_1 m + (1 - \beta_1)\, g, \\
# v &\leftarrow \beta_2 v + (1 - \beta_2)\, g^2, \\
# \hat m &= \frac{m}{1 - \beta_1^t}, \quad \hat v = \frac{v}{1 - \beta_2^t}, \\
# \theta &\leftarrow \theta - \eta \, \frac{\hat m}{\sqrt{\hat v} + \epsilon}.
# \end{aligned}
# $$
#
# $m$ and $v$ start at 0, so for the first steps they are too small; dividing by $1 - \beta^t$, the
# **bias correction**, undoes that. You will watch it at work. The chapter
# [Gradient descent and optimizers](https://transformer-math.github.io/mathematics-for-transformers/part-3/optimizers/) derives every line. The lab needs the
# guide's library: `pip install git+https://github.com/transformer-math/mathematics-for-transformers`.
#
# **How to work:** each cell tagged `exercise` has a `...` for you to replace. Run the `check` cell
# under it: it prints **Correct**, or what is wrong. Solutions are under "Solution", folded.

# %% [markdown]
# Run this cell first. It defines `check`, which runs your answer, compares it with the expected
# numbers and prints **Correct** or what is wrong.

# %%
import numpy as np

from transformer_math.optim import Adam, AdamW


def check(name, answer, expected, tol=1e-6):
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
        print(f"Wrong: {name} is\n{np.round(got, 6)}\nbut should be\n{np.round(expected, 6)}")
    else:
        print(f"Correct: {name}")


# %% [markdown]
# ## 1. A running average that starts at zero
#
# Feed the same gradient $g = 2$ five times into $m \leftarrow \beta_1 m + (1 - \beta_1) g$ with
# $\beta_1 = 0.9$, starting from $m = 0$. Collect $m$ after each step in `m_raw`, and the corrected
# $\hat m = m / (1 - \beta_1^t)$ in `m_hat` ($t = 1, \ldots, 5$).

# %% tags=["exercise"]
beta1, g = 0.9, 2.0
m_raw, m_hat = [], []
m = 0.0
for t in range(1, 6):
    correction = 1 - beta1**t
    ...  # your code: update m, append m to m_raw and m / correction to m_hat

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# beta1, g = 0.9, 2.0
# m_raw, m_hat = [], []
# m = 0.0
# for t in range(1, 6):
#     correction = 1 - beta1**t
#     m = beta1 * m + (1 - beta1) * g
#     m_raw.append(m)
#     m_hat.append(m / correction)
# ```
#
# </details>


# %%
def filled(values):
    return values if len(values) else ...


check("m_raw", lambda: filled(m_raw), [0.2, 0.38, 0.542, 0.6878, 0.81902])
check("m_hat", lambda: filled(m_hat), [2, 2, 2, 2, 2])
for t, (raw, corrected) in enumerate(zip(m_raw, m_hat), start=1):
    print(f"t = {t}:  m = {raw:.4f}   1 - beta1^t = {1 - beta1**t:.4f}   m_hat = {corrected:.4f}")

# %% [markdown]
# The raw average creeps up from 0.2 towards 2; it would take about 30 steps to get close. The
# corrected one is exactly 2 from the first step: after $t$ constant steps, $m = g(1 - \beta_1^t)$,
# and the correction divides that factor out.
#
# ## 2. One Adam step
#
# Write the whole step. It returns the new $\theta$, $m$ and $v$ (arrays, entry by entry); `t`
# counts from 1.


# %% tags=["exercise"]
def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):
    return ...  # your code: return theta, m, v


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):
#     m = beta1 * m + (1 - beta1) * g
#     v = beta2 * v + (1 - beta2) * g**2
#     m_hat = m / (1 - beta1**t)
#     v_hat = v / (1 - beta2**t)
#     theta = theta - lr * m_hat / (np.sqrt(v_hat) + eps)
#     return theta, m, v
# ```
#
# </details>

# %%
grads = [np.array([0.5, -100.0]), np.array([0.4, 50.0]), np.array([-0.1, 20.0])]


def three_steps(step, **options):
    """theta, m, v after three steps of `step` from theta = (1, -2), m = v = 0."""
    theta, m, v = np.array([1.0, -2.0]), np.zeros(2), np.zeros(2)
    for t, g in enumerate(grads, start=1):
        result = step(theta, g, m, v, t, lr=0.1, **options)
        if result is Ellipsis:
            return ..., ..., ...
        theta, m, v = result
    return theta, m, v


w = np.array([1.0, -2.0])
library = Adam([w], lr=0.1)
for g in grads:
    library.step([g])
check("theta after 3 Adam steps", lambda: three_steps(adam_step)[0], w)
check("m after 3 Adam steps", lambda: three_steps(adam_step)[1], library.m[0])
check("v after 3 Adam steps", lambda: three_steps(adam_step)[2], library.v[0])

# %% [markdown]
# The two entries' gradients differ by a factor of 200 at the first step, yet both entries moved by
# about $\eta = 0.1$: dividing by $\sqrt{\hat v}$ gives each entry its own scale.
#
# ## 3. Without the correction, by hand
#
# Take the first step ($t = 1$) of Adam *without* bias correction, for a single entry with
# gradient $g = 2$: $m = 0.1 \cdot 2$, $v = 0.001 \cdot 4$ and the step is
# $\eta\, m / \sqrt v$ with $\eta = 0.1$ (leave out $\epsilon$). How long is it?

# %% tags=["exercise"]
uncorrected_first_step = ...  # a number

# %% [markdown]
# <details><summary>Solution</summary>
#
# $m / \sqrt v = 0.2 / \sqrt{0.004} = 0.2 / 0.0632 = 3.162$, so the step is $0.3162$: more than three
# times the step of $\eta = 0.1$ that the corrected Adam takes. Without correction,
# $m / \sqrt v = (1 - \beta_1) / \sqrt{1 - \beta_2} \approx 3.16$ at $t = 1$, whatever $g$ is.
#
# ```python
# uncorrected_first_step = 0.1 * 0.2 / np.sqrt(0.004)
# ```
#
# </details>

# %%
check("uncorrected_first_step", lambda: uncorrected_first_step, 0.1 * 0.2 / np.sqrt(0.004), tol=1e-4)

# %% [markdown]
# ## 4. AdamW
#
# AdamW shrinks the parameters towards 0 *before* Adam's step, by the learning rate times the weight
# decay $\lambda$, and keeps the decay out of $m$ and $v$ (PyTorch's convention):
# $\theta \leftarrow \theta - \eta \lambda \theta$, then Adam's step from the loss gradient alone.
# Use your `adam_step`.


# %% tags=["exercise"]
def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):
    return ...  # your code: return theta, m, v


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):
#     theta = theta - lr * weight_decay * theta
#     return adam_step(theta, g, m, v, t, lr, beta1, beta2, eps)
# ```
#
# </details>

# %%
w = np.array([1.0, -2.0])
library = AdamW([w], lr=0.1, weight_decay=0.5)
for g in grads:
    library.step([g])
check("theta after 3 AdamW steps", lambda: three_steps(adamw_step, weight_decay=0.5)[0], w)
check("m after 3 AdamW steps", lambda: three_steps(adamw_step, weight_decay=0.5)[1], library.m[0])

# %% [markdown]
# ## 5. Decoupled, or an L2 term?
#
# The older way to decay weights adds $\frac{\lambda}{2} \lVert \theta \rVert^2$ to the loss, that
# is $\lambda \theta$ to the gradient, and lets Adam divide it by $\sqrt{\hat v}$ with the rest.
# Write that step, with your `adam_step`.


# %% tags=["exercise"]
def adam_l2_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01):
    return ...  # your code: return theta, m, v


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def adam_l2_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01):
#     return adam_step(theta, g + weight_decay * theta, m, v, t, lr)
# ```
#
# </details>

# %% [markdown]
# A weight the loss does not care about ($g = 0$) starts at 10, with $\lambda = 0.01$. With the L2
# term its whole gradient is $\lambda \theta$, and Adam normalises that to a step of about
# $\eta = 0.1$ whatever $\lambda$ is; AdamW shrinks it by the factor $1 - \eta\lambda$ per step.


# %%
def ten_steps(step):
    theta, m, v = np.array([10.0]), np.zeros(1), np.zeros(1)
    for t in range(1, 11):
        result = step(theta, np.zeros(1), m, v, t, lr=0.1, weight_decay=0.01)
        if result is Ellipsis:
            return ...
        theta, m, v = result
    return theta


w = np.array([10.0])
library = Adam([w], lr=0.1)
for _ in range(10):
    library.step([0.01 * w])  # the gradient of the L2 term
check("Adam + L2 after 10 steps", lambda: ten_steps(adam_l2_step), w)
check("AdamW after 10 steps", lambda: ten_steps(adamw_step), [10 * 0.999**10])
print("Adam + L2:", np.round(w, 4), "  AdamW:", np.round(10 * 0.999**10, 4))

# %% [markdown]
# Adam with L2 moved the weight from 10 to about 9, AdamW to 9.90. With the L2 term, the decay a
# weight feels depends on its gradient history through $\hat v$, so $\lambda$ and $\eta$ pull on each
# other; decoupled, the decay is exactly $\eta\lambda\theta$ per step, and the two can be tuned
# separately. That is the point of Loshchilov and Hutter's AdamW.
