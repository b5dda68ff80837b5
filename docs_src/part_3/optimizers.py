"""What docs/part-3/optimizers.md draws: 2 figures and 1 explorer.

The chapter “Gradient descent and optimizers”. A function registered with ``@figure`` is drawn by ``hooks/figures.py`` as
``figures/NAME.light.svg`` and ``figures/NAME.dark.svg``; one registered with ``@explorer`` becomes a figure the
reader moves (``hooks/explorers.py``). The page shows the sections between ``--8<--`` markers.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.explorers import (
    Explorer,
    build,
    choice,
    explorer,
    sig,
    slider,
    svg,
    text,
)
from tools.figures import figure
from transformer_math.optim import SGD, Adam


@figure("learning-rates")
# --8<-- [start:learning-rates]
def learning_rates() -> Figure:
    """Gradient descent on f(x, y) = (x² + 10 y²) / 2 with a learning rate too small, right, too large."""
    curvature = np.array([1.0, 10.0])  # the Hessian is diag(1, 10); steps above 2 / 10 diverge along y
    grid = np.linspace(-5.5, 5.5, 201)
    X, Y = np.meshgrid(grid, grid)
    runs = [("too small: η = 0.01", 0.01), ("about right: η = 0.18", 0.18), ("too large: η = 0.205", 0.205)]

    fig = Figure(figsize=(10, 3.8))
    for ax, (title, lr) in zip(fig.subplots(1, 3, sharey=True), runs):
        point, path = np.array([-5.0, 2.0]), []
        for _ in range(30):
            path.append(point.copy())
            point = point - lr * curvature * point  # the gradient of f is (x, 10 y)
        path = np.array(path)
        ax.contour(X, Y, (X**2 + 10 * Y**2) / 2, levels=[0.5, 2, 5, 10, 20, 40, 80], colors="C5", linewidths=0.8)
        ax.plot(path[:, 0], path[:, 1], "o-", color="C1", ms=3, lw=1)
        ax.plot(0, 0, "*", color="C2", ms=12)
        ax.set_title(title, fontsize=10)
        ax.set_aspect("equal")
        ax.set_xlim(-5.5, 5.5)
        ax.set_ylim(-5.5, 5.5)
    fig.suptitle("30 steps of gradient descent from (−5, 2); the minimum is the star")
    return fig


# --8<-- [end:learning-rates]


@figure("optimizers-compared")
# --8<-- [start:optimizers-compared]
def optimizers_compared() -> Figure:
    """SGD, SGD with momentum, Adam and AdamW on one ill-conditioned quadratic: paths and losses."""
    from transformer_math.optim import SGD, Adam, AdamW

    A = np.array([[1.0, 0.0], [0.0, 25.0]])  # curvatures 1 and 25: a long, narrow valley
    c = np.array([2.0, 1.0])  # the minimum
    loss = lambda p: 0.5 * (p - c) @ A @ (p - c)  # noqa: E731
    makers = [
        ("SGD, η = 0.075", lambda p: SGD(p, lr=0.075)),
        ("SGD + momentum 0.7, η = 0.05", lambda p: SGD(p, lr=0.05, momentum=0.7)),
        ("Adam, η = 0.3", lambda p: Adam(p, lr=0.3)),
        ("AdamW, η = 0.3, λ = 0.1", lambda p: AdamW(p, lr=0.3, weight_decay=0.1)),
    ]
    X, Y = np.meshgrid(np.linspace(-5, 3.5, 171), np.linspace(-2, 3, 101))

    fig = Figure(figsize=(10, 4.2))
    paths_ax, loss_ax = fig.subplots(1, 2, width_ratios=[1.4, 1])
    paths_ax.contour(
        X,
        Y,
        0.5 * ((X - c[0]) ** 2 + 25 * (Y - c[1]) ** 2),
        levels=[0.25, 1, 3, 6, 10, 18, 30, 45],
        colors="C5",
        linewidths=0.8,
    )
    for colour, (name, make) in zip(["C0", "C1", "C2", "C3"], makers):
        p = np.array([-4.0, -1.0])
        opt = make([p])
        path, losses = [p.copy()], [loss(p)]
        for _ in range(100):
            opt.step([A @ (p - c)])  # the gradient of the loss
            path.append(p.copy())
            losses.append(loss(p))
        path = np.array(path)
        paths_ax.plot(path[:, 0], path[:, 1], "o-", ms=2, lw=1, color=colour, label=name)
        loss_ax.semilogy(losses, color=colour, label=name)
    paths_ax.plot(*c, "*", color="C4", ms=14)
    paths_ax.set_title("paths from (−4, −1), 100 steps; the minimum is the star", fontsize=10)
    paths_ax.set_aspect("equal")
    loss_ax.legend(fontsize=8, loc="lower left")
    loss_ax.set_title("loss per step", fontsize=10)
    loss_ax.set_xlabel("step")
    fig.suptitle("One ill-conditioned problem, f(x, y) = ((x − 2)² + 25 (y − 1)²) / 2, four optimizers")
    return fig


# --8<-- [end:optimizers-compared]


# --8<-- [start:descent]
def descend(optimizer, lr, steps=50):
    """The path of one optimizer on f(x, y) = ((x - 2)^2 + 25 (y - 1)^2) / 2 from (-4, -1), and the
    loss at every point of it."""
    curvature, minimum = np.array([1.0, 25.0]), np.array([2.0, 1.0])
    p = np.array([-4.0, -1.0])
    if optimizer == "adam":
        opt = Adam([p], lr=lr)
    else:
        opt = SGD([p], lr=lr, momentum=0.9 if optimizer == "momentum" else 0.0)
    path = [p.copy()]
    for _ in range(steps):
        opt.step([curvature * (p - minimum)])  # the gradient of f
        path.append(p.copy())
    path = np.array(path)
    losses = 0.5 * np.sum(curvature * (path - minimum) ** 2, axis=1)
    return path, losses


# --8<-- [end:descent]

RATES = [0.001, 0.003, 0.01, 0.02, 0.03, 0.05, 0.07, 0.079, 0.085, 0.1, 0.15, 0.3, 0.5, 1.0]
OPTIMIZERS = {"sgd": "SGD", "momentum": "SGD with momentum 0.9", "adam": "Adam"}


@explorer("descent")
def descent_explorer() -> Explorer:
    x0, y0, unit = 20, 44, 35  # the plot: x from -5 to 4, y from -2 to 3, at 35 px per unit
    at = lambda x, y: (unit * (x + 5), unit * (3 - y))  # noqa: E731 - plane to the plot's pixels
    contours = []
    for level in [0.5, 2, 6, 14, 28]:  # f = level: an ellipse around the minimum (2, 1)
        t = np.linspace(0, 2 * np.pi, 61)
        ring = [at(2 + np.sqrt(2 * level) * np.cos(a), 1 + np.sqrt(2 * level / 25) * np.sin(a)) for a in t]
        coordinates = " ".join(f"{x:.1f},{y:.1f}" for x, y in ring)
        # Attributes, not classes: the page's CSS does not reach the copies a <use> draws.
        contours.append(f'<polyline points="{coordinates}" fill="none" stroke="currentColor" stroke-opacity="0.45"/>')
    # Drawn once on the page, used by all 42 frames: the contours, and the dot a path draws at every step.
    dot_at_step = '<marker id="xp-step" markerUnits="userSpaceOnUse" markerWidth="5" markerHeight="5" refX="2.5" '
    dot_at_step += 'refY="2.5"><circle class="xp-2" cx="2.5" cy="2.5" r="2.5"/></marker>'
    shared = f'<defs><g id="xp-descent-contours">{"".join(contours)}</g>{dot_at_step}</defs>'

    def draw(optimizer: str, lr: str) -> str:
        path, losses = descend(optimizer, float(lr))
        points = [at(x, y) for x, y in path]
        # Whole pixels (the plot is 315 px wide), each step relative to the last: short, and gzip finds repeats.
        # A path flung out is drawn to 1,000 px away (three plots), along its last step: off the plot, the rest is
        # not seen, and it may overflow to inf.
        points, far = np.array(points), 1_000
        out = np.flatnonzero(~np.all(np.abs(points) < far, axis=1))
        if out.size:
            last, step = points[out[0] - 1], points[out[0]] - points[out[0] - 1]
            end = [last + step * (far / np.max(np.abs(step)))] if np.all(np.isfinite(step)) else []
            points = np.vstack([points[: out[0]], *end])
        pixels = np.rint(points).astype(np.int64)
        steps = f"M{pixels[0, 0]} {pixels[0, 1]}l" + " ".join(f"{dx} {dy}" for dx, dy in np.diff(pixels, axis=0))
        marks = 'marker-start="url(#xp-step)" marker-mid="url(#xp-step)" marker-end="url(#xp-step)"'
        plot = ['<use href="#xp-descent-contours"/>', f'<path class="xp-line xp-2" d="{steps}" {marks}/>']
        plot.append(f'<circle class="xp-0" cx="{at(2, 1)[0]:.1f}" cy="{at(2, 1)[1]:.1f}" r="4"/>')
        body = [text(x0, 16, f"{OPTIMIZERS[optimizer]}, learning rate {float(lr):g}, 50 steps", anchor="start")]
        body.append(
            f'<svg x="{x0}" y="{y0 - 20}" width="{9 * unit}" height="{5 * unit}" viewBox="0 0 {9 * unit} {5 * unit}">'
            f'<rect class="xp-line xp-axis" x="0" y="0" width="{9 * unit}" height="{5 * unit}"/>{"".join(plot)}</svg>'
        )
        diverged = not losses[-1] < losses[0]
        rows = [(f"loss after {n:2d} steps", losses[n]) for n in (10, 25, 50)]
        for i, (words, value) in enumerate(rows):
            body.append(text(x0, 230 + 18 * i, f"{words}: {float(value):.3g}", anchor="start", value=sig(value)))
        end = f"ends at ({path[-1, 0]:.3g}, {path[-1, 1]:.3g})" + (", flung out: the steps grow" if diverged else "")
        body.append(text(x0, 230 + 18 * 3, end, anchor="start"))
        body += [f'<desc data-value="{sig(v)}">final {c} = {sig(v)}</desc>' for c, v in zip("xy", path[-1])]
        return svg(360, 296, f"{OPTIMIZERS[optimizer]} at learning rate {float(lr):g}", body)

    controls = [
        choice("optimizer", "Optimizer", OPTIMIZERS, "sgd"),
        slider("lr", "Learning rate", RATES, 0.03, lambda r: f"{r:g}"),
    ]
    caption = "50 steps from (-4, -1) towards the minimum (2, 1) of a narrow valley, its contours drawn in grey."
    return build("descent", caption, controls, draw, shared)


def adamw_vs_l2() -> None:
    """The page's example: Adam with an L2 penalty against AdamW's decoupled weight decay. It prints what the page shows; the page's block is this body."""
    # --8<-- [start:adamw-vs-l2]
    import numpy as np

    from transformer_math.optim import Adam, AdamW

    # Two parameters pulled towards 1, one by a steep loss, one by a very flat one:
    # L(w) = 1/2 * (100 * (w0 - 1)^2 + 0.01 * (w1 - 1)^2)
    curvature = np.array([100.0, 0.01])

    def grad_loss(w):
        return curvature * (w - 1.0)

    lam, lr, steps = 0.1, 0.01, 5000

    # Adam with an L2 term in the loss: the decay's gradient lam * w goes through m and v
    w_l2 = np.zeros(2)
    adam = Adam([w_l2], lr=lr)
    for _ in range(steps):
        adam.step([grad_loss(w_l2) + lam * w_l2])

    # AdamW: the decay is applied to w directly, outside m and v
    w_decoupled = np.zeros(2)
    adamw = AdamW([w_decoupled], lr=lr, weight_decay=lam)
    for _ in range(steps):
        adamw.step([grad_loss(w_decoupled)])

    print("Adam + L2:", np.round(w_l2, 4))
    print("AdamW:    ", np.round(w_decoupled, 4))
    print("L2 optimum a / (a + lam):", np.round(curvature / (curvature + lam), 4))
    # --8<-- [end:adamw-vs-l2]
