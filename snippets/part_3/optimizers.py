"""Everything docs/part-3/optimizers.md draws or includes."""

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


# --8<-- [start:descent]
def descend(optimizer, lr, steps=50):
    """The path of one optimizer ("adam", "momentum" with mu = 0.9, "heavy ball": momentum with mu = 4/9, or else
    plain gradient descent) on f(x, y) = ((x - 2)^2 + 25 (y - 1)^2) / 2 from (-4, -1), and the loss at every point
    of it."""
    curvature, minimum = np.array([1.0, 25.0]), np.array([2.0, 1.0])
    p = np.array([-4.0, -1.0])
    if optimizer == "adam":
        opt = Adam([p], lr=lr)
    else:
        opt = SGD([p], lr=lr, momentum={"momentum": 0.9, "heavy ball": 4 / 9}.get(optimizer, 0.0))
    path = [p.copy()]
    for _ in range(steps):
        opt.step([curvature * (p - minimum)])  # the gradient of f
        path.append(p.copy())
    path = np.array(path)
    losses = 0.5 * np.sum(curvature * (path - minimum) ** 2, axis=1)
    return path, losses


# --8<-- [end:descent]


def valley() -> None:
    """The page's example: plain gradient descent, momentum and Adam on the valley, and Adam settling with exact
    gradients."""
    # --8<-- [start:valley]
    runs = [("descent", 0.075, 50), ("descent", 0.085, 50), ("descent", 0.01, 50), ("momentum", 0.01, 50)]
    runs += [("heavy ball", 1 / 9, 50), ("adam", 0.3, 50), ("adam", 0.3, 200)]
    for optimizer, lr, steps in runs:
        path, losses = descend(optimizer, lr, steps)
        print(f"{optimizer:10s} lr = {lr:<5.3g}  loss after {steps:3d} steps: {losses[-1]:.3g}")
    # --8<-- [end:valley]


RATES = [0.001, 0.003, 0.01, 0.02, 0.03, 0.05, 0.07, 0.079, 0.085, 0.1, 0.15, 0.3, 0.5, 1.0]
OPTIMIZERS = {"sgd": "gradient descent", "momentum": "momentum 0.9", "adam": "Adam"}


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


# --8<-- [start:minibatch-run]
def minibatch_runs(optimizer, lr, momentum=0.0, decay=False, steps=2000, seeds=range(20), batch=10, watch=None):
    """Linear regression, 1,000 noisy examples of 10 features whose sizes range from 1 to 0.1 (curvatures
    1 to 0.01), trained on mini-batches of ``batch`` by "sgd" (with ``momentum``) or "adam", with the
    learning rate constant or decayed linearly to 0, calling ``watch(opt)`` after each step if given. One run
    per seed, all at once: each array gets a first axis for the seed. Returns the excess loss L(w) - min L on
    all the data after every step, a row per seed."""
    import numpy as np

    from transformer_math.optim import SGD, Adam

    data = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(1000, 10)) * np.logspace(0, -1, 10)
        y = X @ rng.normal(size=10) + 0.5 * rng.normal(size=1000)
        data.append((X, y, rng.integers(1000, size=(steps, batch)), np.linalg.lstsq(X, y, rcond=None)[0]))
    X, y, rows, w_best = (np.array(a) for a in zip(*data))

    def times(A, w):
        """A @ w for each seed."""
        return (A @ w[:, :, None])[:, :, 0]

    def loss(w):
        return 0.5 * np.mean((times(X, w) - y) ** 2, axis=1)

    best = loss(w_best)  # the exact minimum, by NumPy
    w = np.zeros((len(X), 10))
    opt = Adam([w], lr=lr) if optimizer == "adam" else SGD([w], lr=lr, momentum=momentum)
    excess, seed = [], np.arange(len(X))[:, None]
    for t in range(steps):
        Xb, yb = X[seed, rows[:, t]], y[seed, rows[:, t]]
        g = times(Xb.transpose(0, 2, 1), times(Xb, w) - yb) / batch  # the gradient of the batch's loss
        if decay:
            opt.lr = lr * (1 - t / steps)
        opt.step([g])
        if watch:
            watch(opt)
        excess.append(loss(w) - best)
    return np.array(excess).T


# --8<-- [end:minibatch-run]

MINIBATCH_RUNS = {
    "SGD, η = 0.2": ("sgd", 0.2, 0.0, False),
    "SGD, η = 0.5": ("sgd", 0.5, 0.0, False),
    "SGD, η = 0.5 decayed to 0": ("sgd", 0.5, 0.0, True),
    "momentum 0.9, η = 0.05": ("sgd", 0.05, 0.9, False),
    "Adam, η = 0.05": ("adam", 0.05, 0.0, False),
    "Adam, η = 0.05 decayed to 0": ("adam", 0.05, 0.0, True),
}


def minibatch() -> None:
    """The page's example: the runs of the figure, and larger batches, each over 20 seeds."""
    # --8<-- [start:minibatch]
    import numpy as np

    runs = {
        "SGD, lr 0.2": ("sgd", 0.2, 0.0, False, 10),
        "SGD, lr 0.5": ("sgd", 0.5, 0.0, False, 10),
        "SGD, lr 0.5 decayed to 0": ("sgd", 0.5, 0.0, True, 10),
        "SGD, lr 0.5, batches of 40": ("sgd", 0.5, 0.0, False, 40),
        "momentum 0.9, lr 0.05": ("sgd", 0.05, 0.9, False, 10),
        "Adam, lr 0.05": ("adam", 0.05, 0.0, False, 10),
        "Adam, lr 0.05 decayed to 0": ("adam", 0.05, 0.0, True, 10),
    }
    print("excess loss, mean of 20 seeds")
    print("                           after step 100   mean of the last 500")
    floor = {}
    for name, (optimizer, lr, momentum, decay, batch) in runs.items():
        excess = minibatch_runs(optimizer, lr, momentum, decay, batch=batch)
        floor[name] = excess[:, -500:].mean(axis=1)
        mean = excess.mean(axis=0)
        print(f"{name:27s} {mean[99]:13.2e}   {mean[-500:].mean():13.2e}")
    ratio = floor["momentum 0.9, lr 0.05"] / floor["SGD, lr 0.5"]  # per seed: the same batches
    typical, error = ratio.mean(), ratio.std(ddof=1) / np.sqrt(20)  # a mean and its standard error
    print(
        f"floor of momentum / SGD at 0.5: {typical:.2f} (standard error {error:.2f}), lower on {np.sum(ratio < 1)} of 20"
    )
    # --8<-- [end:minibatch]


def adam_steps() -> None:
    """The fold's example: how far Adam's step reaches on the steepest weight as v hat forgets."""
    # --8<-- [start:adam-steps]
    import numpy as np

    reach = []  # eta / sqrt(v hat) on the steepest weight (the first), a value per seed

    def watch(opt):
        reach.append(opt.lr / np.sqrt(opt.v[0][:, 0] / (1 - opt.beta2**opt.t)))

    minibatch_runs("adam", 0.05, watch=watch)
    for step in (100, 2000):
        print(f"step {step:4d}: mean {np.mean(reach[step - 1]):.3f}, median {np.median(reach[step - 1]):.3f}")
    # --8<-- [end:adam-steps]


@figure("minibatch-regression")
def minibatch_regression() -> Figure:
    """Excess loss per step, the mean of 20 seeds, of the runs of MINIBATCH_RUNS: SGD's floor, decay, momentum
    and Adam."""
    fig = Figure(figsize=(5.5, 6.5), layout="constrained")  # two rows: readable on a phone
    left, right = fig.subplots(2, 1, sharex=True, sharey=True)
    results = {name: minibatch_runs(*args).mean(axis=0) for name, args in MINIBATCH_RUNS.items()}  # of 20 seeds
    steps = np.arange(20, len(results["SGD, η = 0.5"]) + 1)[::10]  # every 10th: a lighter SVG
    for ax, names in [(left, list(results)[:3]), (right, list(results)[3:])]:
        if ax is right:
            smooth = np.convolve(results["SGD, η = 0.5"], np.ones(20) / 20, mode="valid")
            ax.loglog(steps, smooth[::10], color="C5", lw=0.8, alpha=0.6, label="SGD, η = 0.5")
        for colour, name in zip(["C0", "C1", "C2"], names):
            smooth = np.convolve(results[name], np.ones(20) / 20, mode="valid")  # mean of 20 steps
            ax.loglog(steps, smooth[::10], color=colour, lw=1.2, label=name)
        ax.legend(fontsize=8, loc="upper right")
        ax.set_ylabel("L(w) − L(w_best)")
    right.set_xlabel("step (each point: the mean of 20 steps of 20 seeds)")
    left.set_title("SGD: the noise floor and decay", fontsize=10)
    right.set_title("momentum and Adam", fontsize=10)
    fig.suptitle("Linear regression on mini-batches of 10, condition number about 100")
    return fig
