"""Everything docs/part-2/information.md draws or includes."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure
from transformer_math.information import kl_divergence


@figure("coin-entropy")
# --8<-- [start:coin-entropy]
def coin_entropy() -> Figure:
    """Entropy of a coin with P(heads) = p: zero when certain, largest (ln 2) when fair."""
    from transformer_math.information import entropy

    p = np.linspace(0, 1, 201)
    h = entropy(np.stack([p, 1 - p], axis=-1))  # one two-outcome distribution per row

    fig = Figure(figsize=(6, 3.8))
    ax = fig.subplots()
    ax.plot(p, h, color="C0")
    ax.axhline(np.log(2), color="C1", linestyle=":", linewidth=1)
    ax.text(0.02, np.log(2) + 0.02, "ln 2 = 0.693 nats (fair coin)", color="C1", fontsize=9)
    ax.plot([0.8], [entropy([0.8, 0.2])], "o", color="C2")
    ax.annotate(
        "p = 0.8: H = 0.500",
        (0.8, float(entropy([0.8, 0.2]))),
        xytext=(0.62, 0.25),
        arrowprops={"arrowstyle": "->", "color": "C2"},
        color="C2",
        fontsize=9,
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 0.8)
    ax.set_xlabel("p = P(heads)")
    ax.set_ylabel("entropy H (nats)")
    ax.set_title("Entropy of a coin")
    return fig


# --8<-- [end:coin-entropy]


@figure("cross-entropy-curve")
# --8<-- [start:cross-entropy-curve]
def cross_entropy_curve() -> Figure:
    """The loss of one prediction, -ln p(correct): small when confident and right, unbounded when wrong."""
    p = np.linspace(0.005, 1, 400)

    fig = Figure(figsize=(6, 3.8))
    ax = fig.subplots()
    ax.plot(p, -np.log(p), color="C0")
    for q, color, where in [(0.8, "C2", (0.5, 1.4)), (0.1, "C1", (0.2, 3.2))]:
        ax.plot([q], [-np.log(q)], "o", color=color)
        ax.annotate(
            f"p = {q}: loss {-np.log(q):.3f}",
            (q, -np.log(q)),
            xytext=where,
            arrowprops={"arrowstyle": "->", "color": color},
            color=color,
            fontsize=9,
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 5.5)
    ax.set_xlabel("probability the model gave the correct token")
    ax.set_ylabel("loss = -ln p (nats)")
    ax.set_title("Cross entropy of one prediction")
    return fig


# --8<-- [end:cross-entropy-curve]


# --8<-- [start:kl-directions]
def kl_best_fits():
    """Fit one Gaussian Q to a two-peaked P on a grid, once by forward KL(P || Q), once by reverse KL(Q || P).

    Returns the grid, P, and the best Q, its mean and its standard deviation for each direction."""
    x = np.linspace(-10, 10, 201)  # wide enough that the forward fit's tails are not cut off

    def bell(mu, sigma):  # a Gaussian shape on the grid, normalised to sum to 1
        w = np.exp(-((x - mu) ** 2) / (2 * sigma**2))
        return w / w.sum()

    p = 0.5 * bell(-2.5, 0.7) + 0.5 * bell(2.5, 0.7)  # two peaks
    mus, sigmas = np.linspace(-4, 4, 81), np.linspace(0.3, 4.0, 38)
    candidates = [(mu, sigma) for mu in mus for sigma in sigmas]
    Q = np.array([bell(mu, sigma) for mu, sigma in candidates])  # every candidate Q, one per row
    fits = {}
    P = np.broadcast_to(p, Q.shape)  # P repeated, to compare with every candidate at once
    for name, kls in [("forward", kl_divergence(P, Q)), ("reverse", kl_divergence(Q, P))]:
        best = int(np.argmin(kls))
        fits[name] = (Q[best], *candidates[best])
    return x, p, fits


# --8<-- [end:kl-directions]


@figure("kl-directions")
def kl_directions() -> Figure:
    """Forward KL spreads one Gaussian over both peaks of P; reverse KL settles on one peak."""
    x, p, fits = kl_best_fits()
    fig = Figure(figsize=(6, 3.6))
    ax = fig.subplots()
    ax.fill_between(x, p, color="C0", alpha=0.3, label="P (two peaks)")
    for (name, (q, mu, sigma)), color, style in zip(fits.items(), ["C1", "C2"], ["-", "--"]):
        label = f"best Q by {name} KL (mean {mu:.1f}, sd {sigma:.1f})"
        ax.plot(x, q, color=color, linestyle=style, linewidth=2, label=label)
    ax.set_xlabel("outcome")
    ax.set_ylabel("probability")
    ax.set_ylim(0, max(p.max(), max(f[0].max() for f in fits.values())) * 1.45)
    ax.set_title("One Gaussian fitted to two peaks")
    ax.legend(fontsize=8, loc="upper left")
    return fig
