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
#     minutes: 40
#     difficulty: 2
#     path: false
# ---

# %% [markdown]
# # Lab: autodiff and a small network
#
# **About 40 minutes · difficulty 2 of 3 (standard)** · after
# [Automatic differentiation from scratch](https://transformer-math.github.io/mathematics-for-transformers/part-3/autodiff/)
#
# You build a reverse-mode autodiff engine, a `Value` that records how it was computed, and train a small
# neural network with it on a two-dimensional toy problem. For every operation $c = \mathrm{op}(a, b)$ the
# backward pass adds the incoming gradient times the local derivative,
# $\bar a \mathrel{+}= \bar c \, \partial c / \partial a$, where $\bar v = \partial L / \partial v$; visiting
# the values from the loss back to the inputs, each $\bar v$ is complete before it is passed on.
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
import base64
import io
import math

import numpy as np
from IPython.display import Markdown, display
from matplotlib.figure import Figure

from transformer_math.labs.autodiff_mlp import check

# %% [markdown]
# ## The engine, with its pieces missing
#
# A `Value` holds a number (`data`), its gradient (`grad`), the values it was made from (`parents`) and a
# function `_backward` that passes its `grad` on to them. Addition is written out as the pattern to follow;
# subtraction and negation are built from `+` and `*`. `backward` sets $\bar L = 1$ and calls `_backward`
# on every value, from the last to the first, in the order your `topological_order` gives.


# %%
class Value:
    def __init__(self, data, parents=()):
        self.data = float(data)
        self.grad = 0.0
        self.parents = parents
        self._backward = lambda: None

    def __repr__(self):
        return f"Value(data={self.data:.4g}, grad={self.grad:.4g})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other))

        def _backward():  # d(a + b)/da = 1 and d(a + b)/db = 1
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    __radd__ = __add__

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __rmul__(self, other):
        return self * other

    def backward(self):
        order = topological_order(self)
        for v in order:
            v.grad = 0.0  # start clean
        self.grad = 1.0  # dL/dL
        for v in reversed(order):
            v._backward()


# %% [markdown]
# ## 1. The order of the backward pass
#
# A value's `_backward` may run only once its own `grad` is complete: after every value that uses it has
# passed its gradient on. Write `topological_order(root)`: every value `root` depends on, `root`
# included, each exactly once, each *after* all of its parents, so that `backward` can walk the list in
# reverse. A value may be used by several others (`a` in `(a + b) + a`), at any depth of the graph.


# %% tags=["exercise"]
def topological_order(root):
    return ...  # your code: a list of Values, every value after its parents


# %% [markdown]
# <details><summary>Hint</summary>
#
# Depth first: to place a value, first place each of its parents (the same way, recursively), then append
# the value itself. Keep the values already placed in a set (of `id(v)`), so that a value reached twice is
# placed once. An order by distance from the root, reversed, is not enough: a value can be near the root
# along one path and far along another.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def topological_order(root):
#     order, seen = [], set()
#
#     def visit(v):
#         if id(v) not in seen:
#             seen.add(id(v))
#             for parent in v.parents:
#                 visit(parent)
#             order.append(v)  # after all its parents
#
#     visit(root)
#     return order
# ```
#
# </details>

# %%
check("topological_order", topological_order)

# %% [markdown]
# ## 2. Multiplication
#
# Complete the backward rule of $c = a \cdot b$: what each parent's gradient gains from `out.grad`. The
# check builds expressions with your `Value`, such as `x * x` and `a * b + a * c`, runs them backward from
# gradients other than 1, and compares every gradient with the library's.


# %% tags=["exercise"]
def mul(self, other):
    other = other if isinstance(other, Value) else Value(other)
    out = Value(self.data * other.data, (self, other))

    def _backward(): ...  # your code: what self.grad and other.grad gain

    out._backward = _backward
    return out


Value.__mul__ = mul

# %% [markdown]
# <details><summary>Hint</summary>
#
# $\partial c / \partial a = b$ and $\partial c / \partial b = a$: each parent gains `out.grad` times its
# local derivative, added to its `grad` with `+=` (a value may feed several others). In `x * x` both parents
# are the same value: with `+=` it gains both terms, $2x$.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def mul(self, other):
#     other = other if isinstance(other, Value) else Value(other)
#     out = Value(self.data * other.data, (self, other))
#
#     def _backward():
#         self.grad += other.data * out.grad
#         other.grad += self.data * out.grad
#
#     out._backward = _backward
#     return out
#
#
# Value.__mul__ = mul
# ```
#
# </details>

# %%
check("mul", Value)

# %% [markdown]
# ## 3. tanh
#
# The network's units squash their input with $\tanh$. Complete its backward rule; derive the derivative
# of $\tanh z = (e^z - e^{-z}) / (e^z + e^{-z})$ first, and write it with the output $t = \tanh z$, which
# `_backward` already has: the rule needs `t` and `out.grad`, nothing more. The check runs your rule with
# `tanh`, `cosh`, `exp` and complex numbers refused to it, so that the derivative cannot be measured instead;
# a closed form in $e^z$ (the quotient rule's $4/(e^z + e^{-z})^2$) is refused too: write the rule in `t`.
# It also runs your rule again with `t` set to another number, which a rule written in `t` follows.


# %% tags=["exercise"]
def tanh(self):
    t = math.tanh(self.data)
    out = Value(t, (self,))

    def _backward():
        self.grad += ...  # your code

    out._backward = _backward
    return out


Value.tanh = tanh

# %% [markdown]
# <details><summary>Hint</summary>
#
# The quotient rule, with $(e^z - e^{-z})' = e^z + e^{-z}$ and $(e^z + e^{-z})' = e^z - e^{-z}$, gives
# $\frac{d}{dz}\tanh z = 1 - \tanh^2 z$.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def tanh(self):
#     t = math.tanh(self.data)
#     out = Value(t, (self,))
#
#     def _backward():
#         self.grad += (1 - t**2) * out.grad
#
#     out._backward = _backward
#     return out
#
#
# Value.tanh = tanh
# ```
#
# </details>

# %%
check("tanh", Value)

# %% [markdown]
# ## 4. A gradient-descent step
#
# Write `sgd_step(params, lr)`: move every parameter a small step, of size `lr` times its gradient, in the
# direction that lowers the loss, by changing its `data` in place (the network holds these very objects).


# %% tags=["exercise"]
def sgd_step(params, lr):
    for p in params:
        p.data -= ...  # your code


# %% [markdown]
# <details><summary>Hint</summary>
#
# The gradient points uphill: $\theta \leftarrow \theta - \eta\, \bar\theta$. `p = p - ...` would make a
# new local name and leave the parameter as it was; change `p.data`.
#
# </details>
#
# <details><summary>Solution</summary>
#
# ```python
# def sgd_step(params, lr):
#     for p in params:
#         p.data -= lr * p.grad
# ```
#
# </details>

# %%
check("sgd_step", sgd_step)

# %% [markdown]
# ## 5. Predict, then train a network
#
# The toy problem: 30 points in the square $[-1, 1]^2$, labelled $+1$ where $x_1 x_2 > 0$ (the top-right
# and bottom-left quarters) and $-1$ elsewhere. No straight line separates the two classes. The network has 2
# inputs, 6 hidden $\tanh$ units and one $\tanh$ output, $\hat y = \tanh(w_2 \cdot \tanh(W_1 x + b_1) + b_2)$:
# 25 `Value`s in all. The loss is the mean squared error over the 30 points, and training is 100 steps of
# your `sgd_step` with $\eta = 0.5$. Before you run it, write down whether it gets every one of the 30
# training points right: `"yes"` or `"no"`.

# %% tags=["exercise"]
prediction = ...  # "yes" or "no"

# %% [markdown]
# <details><summary>Solution</summary>
#
# Either is a right answer here, if you wrote it before running the next cells. One that reasons from the
# network:
#
# ```python
# prediction = "yes"
# ```
#
# Each tanh unit draws one soft line, and the output combines them: six are enough to carve out two
# opposite quarters around 30 points. Whether 100 steps from this start find such weights is what the run
# shows.
#
# </details>

# %%
check("prediction", prediction)

# %%
rng = np.random.default_rng(0)
X = rng.uniform(-1, 1, size=(30, 2))
y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)


class MLP:
    """2 inputs -> 6 tanh units -> 1 tanh output, every weight a Value."""

    def __init__(self, hidden=6, seed=0):
        rng = np.random.default_rng(seed)
        self.W1 = [[Value(w) for w in row] for row in rng.normal(0, 1, (hidden, 2))]
        self.b1 = [Value(0.0) for _ in range(hidden)]
        self.w2 = [Value(w) for w in rng.normal(0, 1 / np.sqrt(hidden), hidden)]
        self.b2 = Value(0.0)

    def parameters(self):
        return [w for row in self.W1 for w in row] + self.b1 + self.w2 + [self.b2]

    def __call__(self, x):
        h = [sum((w * xi for w, xi in zip(row, x)), b).tanh() for row, b in zip(self.W1, self.b1)]
        return sum((w * hi for w, hi in zip(self.w2, h)), self.b2).tanh()

    def predict(self, points):
        """The same network on plain NumPy arrays, for many points at once."""
        W1 = np.array([[w.data for w in row] for row in self.W1])
        b1 = np.array([b.data for b in self.b1])
        w2 = np.array([w.data for w in self.w2])
        return np.tanh(np.tanh(points @ W1.T + b1) @ w2 + self.b2.data)


def mse(model, X, y):
    total = Value(0.0)
    for x, target in zip(X, y):
        error = model(x) - target
        total = total + error * error
    return total * (1 / len(X))


model = MLP(seed=0)
losses = []
if prediction is Ellipsis:
    print("Write your prediction first: the training waits for it.")
else:
    try:
        for _ in range(100):
            loss = mse(model, X, y)
            loss.backward()
            sgd_step(model.parameters(), lr=0.5)
            losses.append(loss.data)
        print("loss at steps 0, 25, 50, 75, 99:", [round(losses[t], 4) for t in (0, 25, 50, 75, 99)])
    except Exception as err:  # an exercise above is unfinished or wrong: its check says which
        print(f"Training stopped at step {len(losses)}: {type(err).__name__}: {err}")
accuracy = np.mean(np.sign(model.predict(X)) == y)
print("training accuracy:", round(accuracy, 4))
if len(losses) == 100:
    print(
        f"You predicted {prediction!r}:",
        "it held." if (prediction.strip().lower() == "yes") == (accuracy == 1.0) else "it did not hold.",
    )

# %% [markdown]
# ## 6. The decision boundary
#
# Where does the network say $+1$? The cell evaluates it on a grid over the square and shades the two
# regions; the boundary between them is the curve $\hat y = 0$. Before training (or while an exercise is
# unfinished) it lies wherever the random weights put it; after training a band of $-1$ runs from the top
# left to the bottom right, between two regions of $+1$.

# %%
grid = np.linspace(-1.2, 1.2, 121)
g1, g2 = np.meshgrid(grid, grid)
scores = model.predict(np.column_stack([g1.ravel(), g2.ravel()])).reshape(g1.shape)

fig = Figure(figsize=(4, 4), dpi=80, facecolor="white", layout="constrained")
ax = fig.add_subplot()
ax.contourf(g1, g2, scores, levels=[-1, 0, 1], colors=["C0", "C1"], alpha=0.3)
ax.contour(g1, g2, scores, levels=[0], colors="black", linewidths=1)
ax.scatter(*X[y > 0].T, marker="o", color="C1", edgecolor="black", label="$y = +1$")
ax.scatter(*X[y < 0].T, marker="s", color="C0", edgecolor="black", label="$y = -1$")
ax.set(xlabel="$x_1$", ylabel="$x_2$", title=f"accuracy {accuracy:.0%} after {len(losses)} steps")
ax.legend(loc="upper left", fontsize=8)
png = io.BytesIO()
fig.savefig(png, format="png")
description = (
    f"Decision boundary of the network after {len(losses)} training steps: the square shaded in two "
    f"colours by the sign of the output, with the 30 training points as circles (+1) and squares (-1); "
    f"training accuracy {accuracy:.0%}."
)
display(Markdown(f"![{description}](data:image/png;base64,{base64.b64encode(png.getvalue()).decode()})"))

# %% [markdown]
# ## What you built
#
# About forty lines: a `Value` with three local rules, a topological sort and a loop. That is the whole of
# backpropagation; PyTorch's `loss.backward()` does the same on tensors, with one backward rule per
# operation such as $\bar X = \bar Y W^\top$ for a matrix product. The library's `autograd.Value`
# ([reference](https://transformer-math.github.io/mathematics-for-transformers/reference/autograd/)) is this
# engine with a few more operations and an explicit stack instead of recursion, so that a chain of any length
# works.
