"""What docs/part-3/schedules.md draws: 3 figures, and its longer examples.

The chapter “Clipping and learning-rate schedules”. A function registered with ``@figure`` is drawn by
``hooks/figures.py`` as ``figures/NAME.light.svg`` and ``figures/NAME.dark.svg``. The page shows the sections
between ``--8<--`` markers.
"""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure


# --8<-- [start:spike-run]
def spike_run(optimizer="adam", spike=True, clip=None, steps=1000, seed=0):
    """Linear regression on mini-batches of 32 from 1,000 noisy examples; at step 100 one batch has
    corrupted targets (an outlier of size 1,000). Returns the full-data loss after every step, each
    step's largest move of a weight, and, for Adam, the root mean square of v after every step."""
    import numpy as np

    from transformer_math.optim import SGD, Adam, clip_grad_norm

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


# --8<-- [start:warmup-run]
def warmup_run(warmup_steps, seed=0, steps=300, peak_lr=0.1):
    """A 3-layer tanh network (width 32) fitted by Adam to y = sin(x · u) on mini-batches of 32, with the
    learning rate of ``warmup_cosine``. Returns the mini-batch loss at every step."""
    import numpy as np

    from transformer_math.optim import Adam, warmup_cosine

    rng = np.random.default_rng(seed)
    X_all = rng.normal(size=(2048, 8))
    y_all = np.sin(X_all @ rng.normal(size=(8, 1)))
    sizes = [8, 32, 32, 32]
    Ws = [rng.normal(size=(a, b)) / np.sqrt(a) for a, b in zip(sizes, sizes[1:])]
    W_out = rng.normal(size=(32, 1)) / np.sqrt(32)
    opt = Adam([*Ws, W_out], lr=peak_lr)
    losses = []
    for t in range(steps):
        batch = rng.integers(2048, size=32)
        hs = [X_all[batch]]
        for W in Ws:  # forward, keeping every layer's output
            hs.append(np.tanh(hs[-1] @ W))
        err = hs[-1] @ W_out - y_all[batch]
        losses.append(np.mean(err**2))
        d = 2 * err / 32  # backward: the matrix rules of the autodiff chapter
        grads = [hs[-1].T @ d]
        d = d @ W_out.T
        for W, h_in, h_out in zip(Ws[::-1], hs[-2::-1], hs[:0:-1]):
            d = d * (1 - h_out**2)  # through tanh
            grads.insert(0, h_in.T @ d)
            d = d @ W.T
        opt.lr = warmup_cosine(t, steps, warmup_steps, peak_lr)
        opt.step(grads)
    return np.array(losses)


# --8<-- [end:warmup-run]


def warmup() -> None:
    """The page's example: the same run with and without warm-up at a high peak, for three seeds."""
    # --8<-- [start:warmup]
    for seed in range(3):
        for warm in (0, 30):
            losses = warmup_run(warm, seed, peak_lr=0.1)
            first = " ".join(f"{loss:.2f}" for loss in losses[:4])
            print(
                f"seed {seed}, warm-up {warm:2d}: loss at steps 0-3 {first}, worst of the first 100 {losses[:100].max():.2f},"
                f" mean of the last 50 {losses[-50:].mean():.3f}"
            )
    # --8<-- [end:warmup]


def warmup_peaks() -> None:
    """The deeper page's example: warm-up at a high and at a lower peak learning rate, for three seeds."""
    # --8<-- [start:warmup-peaks]
    for peak_lr in (0.1, 0.01):
        for seed in range(3):
            for warm in (0, 30):
                losses = warmup_run(warm, seed, peak_lr=peak_lr)
                print(
                    f"peak {peak_lr:<4}, seed {seed}, warm-up {warm:2d}: worst of the first 100 {losses[:100].max():5.2f},"
                    f" mean of the last 50 {losses[-50:].mean():.3f}"
                )
    # --8<-- [end:warmup-peaks]


# --8<-- [start:inverse-sqrt]
def inverse_sqrt(step, d_model=512, warmup_steps=4000):
    """The original Transformer's schedule (Vaswani et al. 2017, eq. 3), for steps counted from 1:
    linear warm-up to the peak at warmup_steps, then decay as 1 / sqrt(step)."""
    return d_model**-0.5 * min(step**-0.5, step * warmup_steps**-1.5)


# --8<-- [end:inverse-sqrt]


@figure("schedules-compared")
def schedules_compared() -> Figure:
    """The original Transformer's inverse-square-root schedule beside warm-up + cosine with the same peak."""
    from transformer_math.optim import warmup_cosine

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


@figure("warmup-run")
def warmup_figure() -> Figure:
    """Mini-batch loss of the same small network with and without 30 steps of warm-up (seed 0)."""
    fig = Figure(figsize=(7, 3.2), layout="constrained")
    ax = fig.subplots()
    for colour, warm in [("C3", 0), ("C2", 30)]:
        losses = warmup_run(warm, seed=0)
        ax.semilogy(losses, color=colour, lw=1.2, label=f"warm-up {warm} steps" if warm else "no warm-up")
    ax.axvline(30, color="C5", lw=0.8, ls=":")
    ax.set_xlabel("step")
    ax.set_ylabel("mini-batch loss")
    ax.legend(fontsize=8)
    ax.set_title("Adam at peak η = 0.1, cosine decay to 0 over 300 steps", fontsize=10)
    return fig
