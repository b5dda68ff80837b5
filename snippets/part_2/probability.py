"""Everything docs/part-2/probability.md draws or includes."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure


@figure("law-of-large-numbers")
# --8<-- [start:law-of-large-numbers]
def law_of_large_numbers() -> Figure:
    """The share of each token among n samples settles on its probability as n grows."""
    tokens = ["cat", "dog", "bird"]
    probs = np.array([0.70, 0.20, 0.10])
    rng = np.random.default_rng(0)
    draws = rng.choice(len(tokens), size=10_000, p=probs)
    n = np.arange(1, draws.size + 1)

    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    band_n = np.geomspace(1, draws.size, 200)  # a smooth curve needs few points on a log axis
    se = np.sqrt(probs[0] * (1 - probs[0]) / band_n)  # the standard error of cat's share
    ax.fill_between(
        band_n,
        probs[0] - 2 * se,
        probs[0] + 2 * se,
        color="C0",
        alpha=0.15,
        linewidth=0,
        label="cat: P ± 2 standard errors",
    )
    for k, (token, p) in enumerate(zip(tokens, probs)):
        share = np.cumsum(draws == k) / n  # share of token k among the first n samples
        ax.plot(n, share, color=f"C{k}", label=f"{token} (P = {p:.2f})")
        ax.axhline(p, color=f"C{k}", linestyle=":", linewidth=1)
    ax.set_xscale("log")
    ax.set_ylim(0, 1)
    ax.set_xlabel("number of samples n (log scale)")
    ax.set_ylabel("share of samples")
    ax.set_title("Sampled frequencies approach the probabilities")
    ax.legend(loc="upper right", fontsize=9)
    return fig


# --8<-- [end:law-of-large-numbers]


def sampling() -> None:
    """The page's example: sampled shares approach the probabilities as the number of samples grows. It prints what the page shows; the page's block is this body."""
    # --8<-- [start:sampling]
    import numpy as np

    tokens = np.array(["cat", "dog", "bird"])
    probs = np.array([0.70, 0.20, 0.10])
    print(0.70 + 0.20 + 0.10, "  == 1:", probs.sum() == 1.0, "  close to 1:", bool(np.isclose(probs.sum(), 1.0)))

    rng = np.random.default_rng(0)

    print("first ten samples:", rng.choice(tokens, size=10, p=probs))
    print()
    print(f"{'n':>9}   {'cat':>6} {'dog':>6} {'bird':>6}   largest gap to P")
    for n in [10, 100, 1_000, 10_000, 100_000, 1_000_000]:
        samples = rng.choice(len(tokens), size=n, p=probs)  # token ids 0, 1, 2
        counts = np.bincount(samples, minlength=len(tokens))
        shares = counts / n
        gap = np.max(np.abs(shares - probs))
        print(f"{n:>9}   {shares[0]:6.4f} {shares[1]:6.4f} {shares[2]:6.4f}   {gap:.4f}")

    print()
    print("counts behind the last line:", dict(zip(tokens.tolist(), counts.tolist())))
    # --8<-- [end:sampling]
