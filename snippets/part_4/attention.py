"""Everything docs/part-4/attention.md draws or includes."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.diagrams import down_arrow, fit, grid
from tools.explorers import (
    Explorer,
    bars,
    build,
    explorer,
    heatmap,
    slider,
    svg,
    text,
    toggle,
)
from tools.figures import figure
from transformer_math.attention import causal_mask, scaled_dot_product_attention


@figure("attention-steps")
# --8<-- [start:attention-steps]
def attention_steps() -> Figure:
    """Attention step by step on four tokens, with the library's numbers: Q, K, V, then the scaled scores,
    the causal mask, the softmax weights and the output, each drawn as its matrix of values."""
    from transformer_math.attention import causal_mask, scaled_dot_product_attention
    from transformer_math.softmax import softmax

    words = ["the", "cat", "sat", "on"]
    rng = np.random.default_rng(0)
    n, d_k = 4, 2
    q, k, v = (rng.normal(size=(n, d_k)) for _ in range(3))
    mask = causal_mask(n)
    output, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    scores = q @ k.T / np.sqrt(d_k)  # S = Q K^T / sqrt(d_k), what the function computes first
    masked = np.where(mask, scores, -np.inf)
    assert np.allclose(softmax(masked, axis=-1), weights)  # the picture shows the library's own steps

    fig = Figure()
    ax = fig.subplots()
    left, cw, gap = 1.5, 1.5, 0.35  # room for the token names; cell width; gap between Q, K and V

    def rows(y):
        for i, word in enumerate(words):
            ax.text(left - 0.15, y - i - 0.5, word, ha="right", va="center", fontsize=11)

    def title(x, y, text):
        ax.text(x, y + 0.25, text, ha="center", va="bottom", fontsize=11)

    y = 0.0
    for j, (name, matrix) in enumerate([("Q", q), ("K", k), ("V", v)]):  # three (n, d_k) matrices
        x = left + j * (d_k * cw + gap)
        grid(ax, x, y, matrix, colour="C0", scale=2, numbers=True, fontsize=9, width=cw)
        title(x + d_k * cw / 2, y, f"${name}$")
    rows(y)
    title(left + 3 * d_k * cw / 2 + gap, y + 1.0, f"$Q, K, V$: each $(n, d_k) = {q.shape}$")
    centre = left + n * cw / 2
    steps = [
        (r"$S = Q K^\top$ / √$d_k$", scores, None, "C0", 2, f"scores $S$: $(n, n) = {scores.shape}$"),
        ("causal mask", scores, ~mask, "C0", 2, r"$-\infty$ where key $j$ > query $i$"),
        ("softmax of each row", weights, ~mask, "C2", 1, r"weights $P$: each row sums to 1"),
    ]
    for arrow_label, matrix, hidden, colour, scale, caption in steps:
        hidden_label = "0" if matrix is weights else "−∞"  # exp(-inf) = 0
        down_arrow(ax, centre, y - n - 0.2, y - n - 1.5, arrow_label)
        y -= n + 2.3
        grid(ax, left, y, matrix, colour, scale, numbers=True, masked=hidden, width=cw, hidden_label=hidden_label)
        title(centre, y, caption)
        rows(y)
    down_arrow(ax, centre, y - n - 0.2, y - n - 1.5, r"weighted average: $P\,V$")
    y -= n + 2.3
    grid(ax, left, y, output, colour="C0", scale=2, numbers=True, width=cw)
    title(left + d_k * cw / 2 + 1.0, y, f"output $(n, d_v) = {output.shape}$")
    rows(y)
    ax.set_xlim(0, left + 3 * d_k * cw + 2 * gap + 0.3)
    ax.set_ylim(y - n - 0.2, 2.0)
    ax.axis("off")
    fit(fig, ax, width=4.0)
    return fig


# --8<-- [end:attention-steps]


@figure("attention-scaling")
# --8<-- [start:attention-scaling]
def attention_scaling() -> Figure:
    """Why divide by sqrt(d_k): dot products of random vectors grow like sqrt(d_k) and saturate softmax."""
    from transformer_math.softmax import softmax

    rng = np.random.default_rng(0)
    widths = np.array([2, 4, 8, 16, 32, 64, 128, 256, 512])
    spread, top_raw, top_scaled = [], [], []
    for d_k in widths:
        q = rng.normal(size=(2000, d_k))  # entries with mean 0, variance 1
        k = rng.normal(size=(2000, 8, d_k))  # 8 keys per query
        scores = np.einsum("bd,bkd->bk", q, k)  # (2000, 8) dot products
        spread.append(scores.std())
        top_raw.append(softmax(scores).max(axis=-1).mean())
        top_scaled.append(softmax(scores / np.sqrt(d_k)).max(axis=-1).mean())

    fig = Figure(figsize=(9, 3.8))
    left, right = fig.subplots(1, 2)
    left.plot(widths, spread, "o", color="C0", label="std of q · k (measured)")
    left.plot(widths, np.sqrt(widths), color="C1", label="sqrt(d_k)")
    left.plot(widths, np.array(spread) / np.sqrt(widths), "s", color="C2", label="std of q · k / sqrt(d_k)")
    left.set_xscale("log", base=2)
    left.set_yscale("log", base=2)
    left.set_xlabel("d_k")
    left.set_title("spread of the scores", fontsize=11)
    left.legend(fontsize=9)
    right.plot(widths, top_raw, "o-", color="C1", label="softmax(q · k)")
    right.plot(widths, top_scaled, "s-", color="C2", label="softmax(q · k / sqrt(d_k))")
    right.axhline(1 / 8, color="C5", ls="--", lw=1, label="uniform over 8 keys")
    right.set_xscale("log", base=2)
    right.set_ylim(0, 1.05)
    right.set_xlabel("d_k")
    right.set_title("mean largest weight among 8 keys", fontsize=11)
    right.legend(fontsize=9)
    return fig


# --8<-- [end:attention-scaling]


@figure("causal-attention-heatmap")
# --8<-- [start:causal-attention-heatmap]
def causal_attention_heatmap() -> Figure:
    """Causal attention weights of six tokens: the upper triangle is exactly 0, every row sums to 1."""
    from transformer_math.attention import causal_mask, scaled_dot_product_attention

    words = ["the", "cat", "sat", "on", "the", "mat"]
    rng = np.random.default_rng(0)
    q, k, v = (rng.normal(size=(6, 4)) for _ in range(3))
    _, weights = scaled_dot_product_attention(q, k, v, mask=causal_mask(6))

    fig = Figure(figsize=(5, 4.4))
    ax = fig.subplots()
    image = ax.imshow(weights, cmap="viridis", vmin=0, vmax=1)
    for i in range(6):
        for j in range(6):
            shade = "black" if weights[i, j] > 0.5 else "white"
            ax.text(j, i, f"{weights[i, j]:.2f}", ha="center", va="center", fontsize=9, color=shade)
    ax.set_xticks(range(6), words)
    ax.set_yticks(range(6), words)
    ax.set_xlabel("key (attended to)")
    ax.set_ylabel("query (attending)")
    ax.grid(False)
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig


# --8<-- [end:causal-attention-heatmap]


TOKENS = ["the", "cat", "sat", "on", "the", "mat"]


# --8<-- [start:attention-weights]
def attention_weights(causal, scaled):
    """The 6 x 6 attention weights of random queries and keys of width d_k = 64 for "the cat sat on the mat",
    with or without the causal mask, and with or without the division by sqrt(d_k)."""
    rng = np.random.default_rng(1)
    d_k = 64
    q, k, v = (rng.normal(size=(6, d_k)) for _ in range(3))
    if not scaled:
        q = q * np.sqrt(d_k)  # the library divides q k^T by sqrt(d_k); this undoes it: softmax(q k^T)
    mask = causal_mask(6) if causal else None
    _, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    return weights


# --8<-- [end:attention-weights]


@explorer("attention")
def attention_explorer() -> Explorer:
    cell, x0 = 34, 110

    def draw(query: str, causal: str, scaled: str) -> str:
        i = int(float(query))
        weights = attention_weights(causal == "on", scaled == "on")
        word = f'"{TOKENS[i]}" ({i + 1})'
        body = [text(20, 18, f"query {word} attends to", anchor="start")]
        body += bars([f"{t}" for t in TOKENS], weights[i], 20, 30, 330, 110)
        top = 200
        body.append(text(20, top - 8, "all six queries (rows) over the keys (columns)", anchor="start"))
        body += heatmap(weights, x0, top + 16, cell, lambda r, c: f"{TOKENS[r]} ({r + 1}) to {TOKENS[c]} ({c + 1})")
        for n, token in enumerate(TOKENS):
            body.append(text(x0 + n * cell + cell / 2, top + 10, token, size=11))
            body.append(text(x0 - 6, top + 16 + n * cell + cell / 2 + 4, f"{token} ({n + 1})", anchor="end", size=11))
        body.append(
            f'<rect class="xp-2 xp-line" x="{x0 - 2}" y="{top + 16 + i * cell - 2}" width="{6 * cell + 3}" '
            f'height="{cell + 3}" stroke-width="3"/>'
        )
        return svg(360, top + 16 + 6 * cell + 6, f"Attention weights of query {word}", body)

    controls = [
        slider("query", "Query token", range(6), 2, lambda i: f'"{TOKENS[int(i)]}" ({int(i) + 1} of 6)'),
        toggle("causal", "Causal mask", True, "off: every key", "on: earlier keys only"),
        toggle("scaled", "Divide by the square root of d_k", True, "off: softmax(q k^T)", "on: softmax(q k^T / 8)"),
    ]
    caption = (
        "Attention weights of random queries and keys of width 64, from the library's scaled_dot_product_attention."
    )
    return build("attention", caption, controls, draw)
