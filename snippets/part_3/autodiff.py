"""Everything docs/part-3/autodiff.md draws or includes."""

from __future__ import annotations

from matplotlib.figure import Figure

from tools.figures import figure


@figure("computation-graph")
# --8<-- [start:computation-graph]
def computation_graph() -> Figure:
    """The graph of one neuron, y = tanh(w x + b), with each value's data and grad after backward()."""
    from matplotlib.patches import Circle, FancyBboxPatch

    from transformer_math.autograd import Value

    w, x, b = Value(0.5), Value(2.0), Value(-0.2)
    wx = w * x
    z = wx + b
    y = z.tanh()
    y.backward()
    names = {id(w): "w", id(x): "x", id(b): "b", id(wx): "w·x", id(z): "z", id(y): "y"}
    where = {
        id(w): (0, 2.2),
        id(x): (0, 0.8),
        id(b): (2.4, -0.6),
        id(wx): (2.4, 1.5),
        id(z): (4.8, 0.6),
        id(y): (7.2, 0.6),
    }

    fig = Figure(figsize=(9, 3.6))
    ax = fig.subplots()
    for node in (wx, z, y):  # every computed value: a circle for its operation, arrows in and out
        cx, cy = where[id(node)][0] - 1.0, where[id(node)][1]
        ax.add_patch(Circle((cx, cy), 0.34, fill=False, edgecolor="C3", lw=1.5))
        ax.text(
            cx,
            cy,
            {"*": "×", "+": "+", "tanh": "tanh"}[node.op],
            ha="center",
            va="center",
            color="C3",
            fontsize=8 if node.op == "tanh" else 13,
        )
        for parent in node.parents:
            px, py = where[id(parent)]
            ax.annotate(
                "",
                xy=(cx - 0.34, cy),
                xytext=(px + 0.62, py),
                arrowprops={"arrowstyle": "->", "color": "C5", "lw": 1.2},
            )
        ax.annotate(
            "",
            xy=(cx + 1.0 - 0.62, cy),
            xytext=(cx + 0.34, cy),
            arrowprops={"arrowstyle": "->", "color": "C5", "lw": 1.2},
        )
    for node in (w, x, b, wx, z, y):  # every value: a box with its name, data and grad
        px, py = where[id(node)]
        ax.add_patch(
            FancyBboxPatch(
                (px - 0.6, py - 0.38), 1.2, 0.76, boxstyle="round,pad=0.02", fill=False, edgecolor="C0", lw=1.5
            )
        )
        ax.text(px, py + 0.17, f"{names[id(node)]} = {node.data:.4g}", ha="center", va="center", fontsize=10)
        ax.text(px, py - 0.17, f"grad {node.grad:.4f}", ha="center", va="center", fontsize=9, color="C1")
    ax.set_xlim(-0.8, 8.0)
    ax.set_ylim(-1.2, 2.8)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title("Forward: data flows right. Backward: grad = ∂y/∂(value) flows left.", fontsize=10)
    return fig


# --8<-- [end:computation-graph]


def tiny_mlp() -> None:
    """The page's example: a two-layer network built from ``Value`` learns XOR. It prints what the page
    shows; the page's block is this body."""
    # --8<-- [start:tiny-mlp]
    import random

    from transformer_math.autograd import Value

    random.seed(0)

    class Neuron:
        """tanh(w · x + b), or w · x + b without the tanh: one output from n_in inputs."""

        def __init__(self, n_in):
            self.w = [Value(random.uniform(-1, 1)) for _ in range(n_in)]
            self.b = Value(0.0)

        def __call__(self, x, act=True):
            z = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
            return z.tanh() if act else z

        def params(self):
            return self.w + [self.b]

    hidden = [Neuron(2) for _ in range(4)]  # 2 inputs -> 4 tanh units
    output = Neuron(4)  # 4 units -> 1 number
    params = [p for neuron in hidden + [output] for p in neuron.params()]

    def mlp(x):
        return output([neuron(x) for neuron in hidden], act=False)

    data = [([0.0, 0.0], -1.0), ([0.0, 1.0], 1.0), ([1.0, 0.0], 1.0), ([1.0, 1.0], -1.0)]  # XOR
    for step in range(201):
        loss = sum((mlp(x) - y) ** 2 for x, y in data) / len(data)  # mean squared error
        loss.backward()  # fills p.grad for all 17 parameters
        for p in params:
            p.data -= 0.1 * p.grad  # one step of gradient descent
        if step % 50 == 0:
            print(f"step {step:3d}  loss {loss.data:.4f}")
    print("predictions:", [round(mlp(x).data, 3) for x, _ in data], " targets: [-1, 1, 1, -1]")
    # --8<-- [end:tiny-mlp]
