"""Everything docs/part-4/multi-head.md draws or includes."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.diagrams import down_arrow, fit, grid
from tools.figures import figure


@figure("multi-head-flow")
# --8<-- [start:multi-head-flow]
def multi_head_flow() -> Figure:
    """Multi-head attention as the library runs it, one matrix per step, with the shapes it reports:
    project, split into heads, attend per head, merge the heads side by side, mix them with W_O."""
    from transformer_math.attention import causal_mask, merge_heads, scaled_dot_product_attention, split_heads

    rng = np.random.default_rng(0)
    n, d, h = 4, 8, 2
    d_head = d // h
    x = rng.normal(size=(n, d))
    W_Q, W_K, W_V, W_O = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(4))
    Q = x @ W_Q
    q, k, v = split_heads(Q, h), split_heads(x @ W_K, h), split_heads(x @ W_V, h)  # (h, n, d_head)
    heads, weights = scaled_dot_product_attention(q, k, v, mask=causal_mask(n))
    merged = merge_heads(heads)  # (n, d)
    out = merged @ W_O
    by_head = [f"C{c // d_head}" for c in range(d)]  # column c belongs to head c // d_head + 1

    fig = Figure()
    ax = fig.subplots()
    gap = 1.0  # between the heads
    tall = n * 0.7  # height of a matrix: rows of 0.7
    centre = d / 2

    def title(x, y, text, colour=None):
        ax.text(x, y + 0.25, text, ha="center", va="bottom", fontsize=11, color=colour)

    def one(y, matrix, colour, text):  # one (n, d) matrix
        grid(ax, 0, y, matrix, colour=colour, scale=2, signed=False, height=0.7)
        title(centre, y, text)

    def per_head(y, arrays, name, scale=2):  # an (h, n, ...) array: one matrix per head, side by side
        for j, array in enumerate(arrays):
            x = j * (array.shape[-1] + gap) - gap / 2
            grid(ax, x, y, array, colour=f"C{j}", scale=scale, signed=False, height=0.7)
            title(x + array.shape[-1] / 2, y, name.format(head=j + 1), colour=f"C{j}")

    def step(y, label, below=0.0):  # an arrow down from the matrix at y (and its caption) to the next one
        top = y - tall - 0.2 - below
        down_arrow(ax, centre, top, top - 1.1, label)
        return top - 2.0

    y = 0.0
    one(y, x, "C5", f"$X$: $(n, d) = {x.shape}$")
    y = step(y, r"$\cdot\, W_Q$ (and $W_K$, $W_V$)")
    one(y, Q, by_head, f"$Q = X\\,W_Q$: ${Q.shape}$")
    y = step(y, "split_heads")
    per_head(y, q, "$Q_{head}$")
    ax.text(centre, y - tall - 0.3, f"$(h, n, d_\\mathrm{{head}}) = {q.shape}$", ha="center", va="top", fontsize=11)
    y = step(y, "attention per head", below=0.9)
    per_head(y, weights, "$P_{head}$", scale=1)
    ax.text(centre, y - tall - 0.3, f"weights $(h, n, n) = {weights.shape}$", ha="center", va="top", fontsize=11)
    y = step(y, r"$\cdot\, V_\ell$", below=0.9)
    per_head(y, heads, r"head$_{head}$")
    ax.text(
        centre,
        y - tall - 0.3,
        f"heads $(h, n, d_\\mathrm{{head}}) = {heads.shape}$",
        ha="center",
        va="top",
        fontsize=11,
    )
    y = step(y, "merge_heads", below=0.9)
    one(y, merged, by_head, f"$O$, heads side by side: {merged.shape}")
    y = step(y, r"$\cdot\, W_O$ mixes the heads")
    one(y, out, "C2", f"output $O\\,W_O$: $(n, d) = {out.shape}$")
    ax.set_xlim(-0.8, d + 0.8)
    ax.set_ylim(y - tall - 0.2, 1.2)
    ax.axis("off")
    fit(fig, ax, width=3.9)
    return fig


# --8<-- [end:multi-head-flow]
