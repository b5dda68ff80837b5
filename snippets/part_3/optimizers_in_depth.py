"""Everything docs/part-3/optimizers-in-depth.md draws or includes: momentum's heavy ball, Adam's largest step,
a spike in Adam's memory, and the original Transformer's schedule."""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure


def heavy_ball() -> None:
    """The deeper page's example: steps to a loss below 1e-6 on the valley, plain, with a guessed momentum and
    with Polyak's tuned heavy ball."""
    # --8<-- [start:heavy-ball]
    import numpy as np

    from transformer_math.optim import SGD

    curvature, minimum = np.array([1.0, 25.0]), np.array([2.0, 1.0])
    lam_min, lam_max = curvature.min(), curvature.max()
    rk = np.sqrt(lam_max / lam_min)  # the square root of the condition number, 5

    def steps_to_converge(lr, mu):
        p = np.array([-4.0, -1.0])
        opt = SGD([p], lr=lr, momentum=mu)
        for step in range(1, 10_001):
            opt.step([curvature * (p - minimum)])
            if 0.5 * np.sum(curvature * (p - minimum) ** 2) < 1e-6:
                return step

    runs = [
        ("plain, best fixed step", 2 / (lam_min + lam_max), 0.0),
        ("momentum, a guess", 0.05, 0.7),
        ("heavy ball, tuned", 4 / (np.sqrt(lam_min) + np.sqrt(lam_max)) ** 2, ((rk - 1) / (rk + 1)) ** 2),
    ]
    for name, lr, mu in runs:
        print(f"{name:23s} lr = {lr:.4f}, mu = {mu:.3f}: {steps_to_converge(lr, mu)} steps")
    # --8<-- [end:heavy-ball]


def settled_variances() -> None:
    """The fold's example: the variance momentum and SGD settle to under constant noise, solved exactly."""
    # --8<-- [start:settled-variance]
    import numpy as np

    def settled_variance(eta, mu, a):
        """Var(theta) that a step leaves unchanged, for gradients a theta + noise of variance 1."""
        R = np.array([[1 - eta * a, a], [-eta * mu, mu]])  # (theta, m) <- (theta, m) R, noise aside
        b = np.array([[-eta, 1.0]])  # the noise enters (theta, m) as xi b
        # S = R^T S R + b^T b is linear in S's four entries: solve it
        S = np.linalg.solve(np.eye(4) - np.kron(R.T, R.T), (b.T @ b).ravel()).reshape(2, 2)
        return S[0, 0]

    eta, mu = 0.05, 0.9
    formula = eta * (1 + mu) / (1 - mu) / (2 * (1 + mu) - eta)  # the closed form at a = 1
    print(f"steepest direction: momentum {settled_variance(eta, mu, 1.0):.6f}, closed form {formula:.6f}")
    print(f"momentum / SGD at 0.5: {settled_variance(eta, mu, 1.0) / settled_variance(0.5, 0.0, 1.0):.2f}")
    # the excess loss sums a V / 2; each direction's noise variance is proportional to a
    curvatures = np.logspace(0, -1, 10) ** 2
    whole = [sum(a * a * settled_variance(lr, m, a) for a in curvatures) for lr, m in ((eta, mu), (0.5, 0.0))]
    print(f"all ten directions: {whole[0] / whole[1]:.2f}")
    # --8<-- [end:settled-variance]


def adam_bound() -> None:
    """The deeper page's example: Adam's normalised step, with and without bias correction, for a gradient that
    grows 11% a step from the start or only after 3,000 steady steps, against the Cauchy-Schwarz bound."""
    # --8<-- [start:adam-bound]
    import numpy as np

    b1, b2 = 0.9, 0.999
    bound = (1 - b1) / np.sqrt((1 - b2) * (1 - b1**2 / b2))

    def ratios(gradient, steps):
        """(step, m / sqrt(v), m hat / sqrt(v hat)) after each of the given steps."""
        m = v = 0.0
        rows = []
        for t in range(1, max(steps) + 1):
            g = gradient(t)
            m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g**2
            if t in steps:
                rows.append((t, m / np.sqrt(v), (m / (1 - b1**t)) / np.sqrt(v / (1 - b2**t))))
        return rows

    print("step  m / sqrt(v)  m hat / sqrt(v hat)")
    for t, raw, corrected in ratios(lambda t: (b2 / b1) ** t, (1, 10, 30, 100, 1000, 3000)):
        print(f"{t:4d}  {raw:11.2f}  {corrected:19.2f}")  # the gradient grows by b2 / b1 = 1.11 a step
    _, _, late = ratios(lambda t: (b2 / b1) ** max(t - 3000, 0), (3050,))[0]
    print(f"steady for 3000 steps, then growing for 50: {late:.2f}")
    print(f"bound: {bound:.2f}")
    # --8<-- [end:adam-bound]


# --8<-- [start:spike-run]
def spike_run(optimizer="adam", spike=True, clip=None, steps=1000, seed=0):
    """Linear regression on mini-batches of 32 from 1,000 noisy examples; at step 100 one batch has
    corrupted targets (an outlier of size 1,000). Returns the full-data loss after every step, each
    step's largest move of a weight, and, for Adam, the root mean square of v after every step."""
    import numpy as np

    from transformer_math.optim import SGD, Adam
    from transformer_math.schedules import clip_grad_norm

    rng = np.random.default_rng(seed)
    corruption = np.random.default_rng(seed + 1).normal(size=32)  # its own generator: every run sees the same batches
    X = rng.normal(size=(1000, 10))
    y = X @ rng.normal(size=10) + 0.5 * rng.normal(size=1000)
    w = np.zeros(10)
    opt = Adam([w], lr=0.01) if optimizer == "adam" else SGD([w], lr=0.05)
    losses, moves, v_size = [], [], []
    for t in range(steps):
        batch = rng.integers(1000, size=32)
        target = y[batch] + (1000.0 * corruption if spike and t == 100 else 0.0)
        g = X[batch].T @ (X[batch] @ w - target) / 32  # the mini-batch gradient of half the mean squared error
        if clip is not None:
            (g,), _ = clip_grad_norm([g], max_norm=clip)  # clip first, then step
        before = w.copy()
        opt.step([g])
        losses.append(0.5 * np.mean((X @ w - y) ** 2))
        moves.append(np.max(np.abs(w - before)))
        v_size.append(np.sqrt(np.mean(opt.v[0])) if optimizer == "adam" else np.nan)
    return np.array(losses), np.array(moves), np.array(v_size)


# --8<-- [end:spike-run]


def spike() -> None:
    """The page's example: one corrupted batch under SGD, under Adam, and under Adam with clipping. It
    prints what the page shows; the page's block is this body after the function above."""
    # --8<-- [start:spike]
    print("                     loss at step  99     100     300     999   largest move at step 100")
    runs = [("SGD, spike", "sgd", True, None), ("Adam, no spike", "adam", False, None)]
    runs += [("Adam, spike", "adam", True, None), ("Adam, spike, clipped", "adam", True, 5.0)]
    for name, optimizer, spike, clip in runs:
        losses, moves, _ = spike_run(optimizer, spike=spike, clip=clip)
        row = " ".join(f"{losses[t]:7.3f}" for t in (99, 100, 300, 999))
        print(f"{name:20s}       {row}   {moves[100]:7.3f}")
    # --8<-- [end:spike]


@functools.cache
def _spike_runs():
    return {
        "Adam, no spike": spike_run("adam", spike=False),
        "Adam, spike at step 100": spike_run("adam", spike=True),
        "Adam, spike, clipped at 5": spike_run("adam", spike=True, clip=5.0),
    }


@figure("spike-under-adam")
def spike_under_adam() -> Figure:
    """Loss and the size of Adam's v for a calm run, a run with one corrupted batch, and the same run clipped."""
    fig = Figure(figsize=(5.5, 6), layout="constrained")  # two rows: readable on a phone
    loss_ax, v_ax = fig.subplots(2, 1, sharex=True)
    for colour, style, (name, (losses, _, v_size)) in zip(["C0", "C3", "C2"], ["-", "-", "--"], _spike_runs().items()):
        shown = np.arange(0, 1000, 4)  # every 4th step: a lighter SVG
        shown = np.union1d(shown, [99, 100, 101])  # but the spike itself, exactly
        loss_ax.semilogy(shown, losses[shown], style, color=colour, lw=1.3, label=name)
        v_ax.semilogy(shown, v_size[shown], style, color=colour, lw=1.3, label=name)
    loss_ax.set_title("loss", fontsize=10)
    loss_ax.legend(fontsize=8, loc="upper right")
    v_ax.set_title("size of v, √mean(v)", fontsize=10)
    v_ax.set_xlabel("step")
    fig.suptitle("One corrupted batch at step 100 under Adam (η = 0.01)")
    return fig


# --8<-- [start:inverse-sqrt]
def inverse_sqrt(step, d_model=512, warmup_steps=4000):
    """The original Transformer's schedule (Vaswani et al. 2017, eq. 3), for steps counted from 1:
    linear warm-up to the peak at warmup_steps, then decay as 1 / sqrt(step)."""
    return d_model**-0.5 * min(step**-0.5, step * warmup_steps**-1.5)


# --8<-- [end:inverse-sqrt]


@figure("schedules-compared")
def schedules_compared() -> Figure:
    """The original Transformer's inverse-square-root schedule beside warm-up + cosine with the same peak."""
    from transformer_math.schedules import warmup_cosine

    steps = np.arange(1, 100_001, 100)
    inv = np.array([inverse_sqrt(t) for t in steps])
    peak = inverse_sqrt(4000)
    cos = np.array([warmup_cosine(t - 1, 100_000, 4000, peak, 0.1 * peak) for t in steps])
    fig = Figure(figsize=(7, 3.2), layout="constrained")
    ax = fig.subplots()
    ax.plot(steps, inv * 1e4, color="C0", lw=1.8, label="inverse square root (Vaswani et al. 2017)")
    ax.plot(steps, cos * 1e4, color="C1", lw=1.8, label="warm-up + cosine to 10% (GPT-3 style)")
    ax.axvline(4000, color="C5", lw=0.8, ls=":")
    ax.text(5000, 0.3, "end of warm-up, 4,000 steps", fontsize=8, color="C5")
    ax.set_xlabel("step")
    ax.set_ylabel("learning rate (× 10⁻⁴)")
    ax.set_ylim(0, 8)
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title("Two schedules with the same warm-up and peak, 100,000 steps", fontsize=10)
    return fig
