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
# # Lab: autodiff and a small network
#
# You build a reverse-mode autodiff engine, a `Value` that records how it was computed, and then
# train a small neural network with it on a two-dimensional toy problem. For every operation
# $c = \mathrm{op}(a, b)$ the backward pass adds the incoming gradient times the local derivative:
#
# $$
# \bar a \mathrel{+}= \bar c \, \frac{\partial c}{\partial a}, \qquad
# \bar b \mathrel{+}= \bar c \, \frac{\partial c}{\partial b},
# $$
#
# where $\bar v = \partial L / \partial v$. Visiting the values from the loss back to the inputs, each
# value's $\bar v$ is complete before it is passed on. The chapter
# [Automatic differentiation from scratch](https://transformer-math.github.io/mathematics-for-transformers/part-3/autodiff/) explains every line.
#
# **How to work:** each cell tagged `exercise` has a `...` for you to replace. Run the `check` cell
# under it: it prints **Correct**, or what is wrong. Solutions are under "Solution", folded.

# %% [markdown]
# Run this cell first. It defines `check`, which runs your answer, compares it with the expected
# numbers and prints **Correct** or what is wrong.

# %%
import base64
import io
import math

import numpy as np
from IPython.display import Markdown, display
from matplotlib.figure import Figure


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


# %% [markdown]
# ## The engine, with three pieces missing
#
# A `Value` holds a number (`data`), its gradient (`grad`), the values it was made from (`parents`)
# and a function `_backward` that passes its `grad` on to them. Addition is written out as the
# pattern to follow; subtraction and negation are built from `+` and `*`, so they need no rule of
# their own. `backward` sets $\bar L = 1$ and calls `_backward` on every value, from the last to
# the first, in the order your `topological_order` gives.


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
# Return every value that `root` depends on, `root` included, each one *after* all of its parents:
# visit a value's parents first (recursively), then append the value. Keep a set of the values
# already visited (`id(v)`), so that a value used twice is listed once.


# %% tags=["exercise"]
def topological_order(root):
    return ...  # your code: a list of Values, parents before children


# %% [markdown]
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
def after_parents(order):
    """True if every value comes after all its parents, None if a parent is missing."""
    if order is Ellipsis:
        return ...
    position = {id(v): i for i, v in enumerate(order)}
    return all(id(p) in position and position[id(p)] < position[id(v)] for v in order for p in v.parents)


def add_twice():
    a, b = Value(2.0), Value(3.0)
    d = (a + b) + a  # a is used twice
    d.backward()
    return a.grad, b.grad


a, b = Value(2.0), Value(3.0)
check("every value after its parents", lambda: after_parents(topological_order((a + b) + a)), True)
check("length of the order", lambda: len(topological_order((a + b) + a)), 4)
check("grads of (a + b) + a", add_twice, [2, 1])

# %% [markdown]
# ## 2. Multiplication
#
# For $c = a \cdot b$: $\partial c / \partial a = b$ and $\partial c / \partial b = a$. Each parent
# gets `out.grad` times its local derivative, *added* to what it already has.


# %% tags=["exercise"]
def mul(self, other):
    other = other if isinstance(other, Value) else Value(other)
    out = Value(self.data * other.data, (self, other))

    def _backward():
        self.grad += ...  # your code
        other.grad += ...  # your code

    out._backward = _backward
    return out


Value.__mul__ = mul

# %% [markdown]
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
def grads_of_product():
    a, b = Value(2.0), Value(-3.0)
    (a * b).backward()
    return a.grad, b.grad


def grad_of_square():
    x = Value(3.0)
    (x * x).backward()  # d(x^2)/dx = 2x
    return x.grad


check("grads of a * b", grads_of_product, [-3, 2])
check("grad of x * x", grad_of_square, 6)

# %% [markdown]
# ## 3. tanh
#
# The network's units squash their input with $\tanh$, whose derivative is
# $\frac{d}{dz} \tanh z = 1 - \tanh^2 z$: the output itself tells you the slope.


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
def grad_of_neuron():
    w, x, b = Value(0.5), Value(2.0), Value(-0.2)
    (w * x + b).tanh().backward()
    return w.grad, x.grad, b.grad


check("grads of tanh(w x + b)", grad_of_neuron, [1.11811, 0.279528, 0.559055])

# %% [markdown]
# ## 4. A gradient-descent step
#
# Move every parameter a little against its gradient, $\theta \leftarrow \theta - \eta\, \bar\theta$,
# by changing its `data` in place.


# %% tags=["exercise"]
def sgd_step(params, lr):
    for p in params:
        p.data -= ...  # your code


# %% [markdown]
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
def one_step():
    p = Value(1.0)
    p.grad = 0.5
    sgd_step([p], lr=0.1)
    return p.data


check("one step from 1.0 with grad 0.5", one_step, 0.95)

# %% [markdown]
# ## 5. Train a network
#
# The toy problem: 30 points in the square $[-1, 1]^2$, labelled $+1$ where $x_1 x_2 > 0$ (the
# top-right and bottom-left quarters) and $-1$ elsewhere. No straight line separates the two
# classes. The network has 2 inputs, 6 hidden $\tanh$ units and one $\tanh$ output:
# $\hat y = \tanh(w_2 \cdot \tanh(W_1 x + b_1) + b_2)$, 25 `Value`s in all. The loss is the
# mean squared error $L = \frac{1}{30} \sum_i (\hat y_i - y_i)^2$. The cell trains for 100 steps
# with your engine and your `sgd_step` (a few seconds).

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
try:
    for _ in range(100):
        loss = mse(model, X, y)
        loss.backward()
        sgd_step(model.parameters(), lr=0.5)
        losses.append(loss.data)
    print("loss at steps 0, 25, 50, 75, 99:", [round(losses[t], 4) for t in (0, 25, 50, 75, 99)])
except Exception as err:
    print(f"Training stopped at step {len(losses)}: {type(err).__name__}: {err}")
accuracy = np.mean(np.sign(model.predict(X)) == y)
print("training accuracy:", round(accuracy, 4))


# %%
def final_loss():
    return losses[-1] if len(losses) == 100 else ...


check("loss below 0.1 after 100 steps", lambda: final_loss() < 0.1, True)
check("training accuracy", lambda: accuracy if len(losses) == 100 else ..., 1.0)

# %% [markdown]
# ## 6. The decision boundary
#
# Where does the network say $+1$? The cell evaluates it on a grid over the square and shades the
# two regions; the boundary between them is the curve $\hat y = 0$. Before training (or while an
# exercise is unfinished) it lies wherever the random weights put it, and more than half of the points
# are on the wrong side; after training a band of $-1$ runs from the top left to the bottom right,
# between two regions of $+1$, and every point is on its side.

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
# About forty lines: a `Value` with three local rules, a topological sort and a loop. That is the
# whole of backpropagation; PyTorch's `loss.backward()` does the same on tensors, with one backward
# rule per operation such as $\bar X = \bar Y W^\top$ for a matrix product. The library's
# `autograd.Value` ([reference](https://transformer-math.github.io/mathematics-for-transformers/reference/autograd/)) is this engine with a few more operations and an
# explicit stack instead of recursion, so that a chain of any length works.
