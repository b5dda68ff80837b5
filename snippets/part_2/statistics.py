"""Everything docs/part-2/statistics.md draws or includes."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure


@figure("layer-norm-histogram")
# --8<-- [start:layer-norm-histogram]
def layer_norm_histogram() -> Figure:
    """The features of three tokens before and after LayerNorm: each token's own centre and spread are removed."""
    from transformer_math.stats import layer_norm

    rng = np.random.default_rng(0)
    d = 4096  # many features per token, so that each token's histogram is smooth
    centres = np.array([[-6.0], [2.0], [8.0]])
    spreads = np.array([[0.7], [3.0], [1.5]])
    x = rng.normal(loc=centres, scale=spreads, size=(3, d))  # (tokens, d): three very different tokens
    y = layer_norm(x)

    fig = Figure(figsize=(9, 3.6))
    before, after = fig.subplots(1, 2)
    for token in range(3):
        label = f"token {token}: mean {x[token].mean():.1f}, std {x[token].std():.1f}"
        before.hist(x[token], bins=80, color=f"C{token}", alpha=0.6, label=label)
        after.hist(y[token], bins=40, color=f"C{token}", alpha=0.4, histtype="stepfilled", label=f"token {token}")
    before.set_title("before: each token has its own centre, spread", fontsize=11)
    after.set_title("after LayerNorm: all at mean 0, std 1", fontsize=11)
    before.legend(fontsize=8, loc="upper left")
    after.legend(fontsize=8)
    for ax in (before, after):
        ax.set_xlabel("value of a feature")
        ax.set_yticks([])
    before.set_ylabel(f"count (of the {d} features)")
    return fig


# --8<-- [end:layer-norm-histogram]
