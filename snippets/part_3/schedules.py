"""What docs/part-3/schedules.md draws: the warm-up figure, and its longer example.

The chapter “Clipping and learning-rate schedules”. A function registered with ``@figure`` is drawn by
``hooks/figures.py`` as ``figures/NAME.light.svg`` and ``figures/NAME.dark.svg``. The page shows the sections
between ``--8<--`` markers.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from tools.figures import figure


# --8<-- [start:warmup-run]
def warmup_run(warmup_steps, seed=0, steps=300, peak_lr=0.1):
    """A 3-layer tanh network (width 32) fitted by Adam to y = sin(x · u) on mini-batches of 32, with the
    learning rate of ``warmup_cosine``. Returns the mini-batch loss at every step."""
    import numpy as np

    from transformer_math.optim import Adam
    from transformer_math.schedules import warmup_cosine

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
    """The page's example: the same run with and without warm-up, at a high and a lower peak, for 20 seeds; seed 0
    in full."""
    # --8<-- [start:warmup]
    import math

    import numpy as np

    for peak_lr in (0.1, 0.01):
        end = {}
        for warm in (0, 30):
            runs = [warmup_run(warm, seed, peak_lr=peak_lr) for seed in range(20)]
            end[warm] = np.array([losses[-50:].mean() for losses in runs])
            worst = [losses[:100].max() for losses in runs]
            first = " ".join(f"{loss:.2f}" for loss in runs[0][:3])
            print(
                f"peak {peak_lr:<4}, warm-up {warm:2d}: seed 0's steps 0-2 {first},"
                f" worst of the first 100 {min(worst):.1f} to {max(worst):.1f}"
            )
        gap = end[0] - end[30]
        print(
            f"peak {peak_lr:<4}, mean of the last 50: higher without warm-up on {np.sum(gap > 0)} of 20 seeds,"
            f" within 0.005 on {np.sum(np.abs(gap) < 0.005)}, median |gap| {np.median(np.abs(gap)):.3f}"
        )
    lopsided = 2 * sum(math.comb(20, k) for k in range(16, 21))  # comb(20, k): the ways k of 20 tosses are heads
    print(f"20 coin tosses, 16 or more the same way: {lopsided:,} of the 2**20 outcomes, 1 in {2**20 / lopsided:.0f}")
    # --8<-- [end:warmup]


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
