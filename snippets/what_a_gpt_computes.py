"""Everything docs/what-a-gpt-computes.md draws: the map of the whole model."""

from __future__ import annotations

from matplotlib.figure import Figure

from tools.figures import figure

# The forward pass, top to bottom: each step's name, a second line (a formula or a shape), and the parts of the
# guide that teach its mathematics. Steps 2 and 3 make a block, repeated L times.
STEPS = [
    ("tokens", "$n$ token ids", ""),
    ("embedding + position", "$X$, one row per token: $(n, d)$", "I vectors\nIV embeddings"),
    ("$X$ += attention(LayerNorm($X$))", "softmax$(QK^\\top\\!/\\sqrt{d_k})\\,V$", "I dot product\nII softmax"),
    ("$X$ += feed-forward(LayerNorm($X$))", "ReLU$(XW_1)\\,W_2$", "II variance\nI matrices"),
    ("LayerNorm, unembedding", "logits $Z$: $(n, V)$", "I matrices"),
    ("softmax of the last row", "next-token probabilities", "II probability"),
]
COLOURS = ["C5", "C3", "C1", "C2", "C3", "C5"]


@figure("gpt-map")
def gpt_map() -> Figure:
    """The forward pass as a column of boxes, the block's two steps framed as repeated L times, and beside each
    step the parts of the guide that teach it."""
    from matplotlib.patches import FancyBboxPatch

    fig = Figure(figsize=(4.6, 6.4))
    ax = fig.subplots()
    x, width, gap = 2.8, 5.2, 1.75
    ys = [-i * gap for i in range(len(STEPS))]
    for (name, detail, taught), colour, y in zip(STEPS, COLOURS, ys):
        ax.add_patch(
            FancyBboxPatch(
                (x - width / 2, y - 0.5),
                width,
                1.0,
                boxstyle="round,pad=0.08",
                facecolor=colour,
                alpha=0.22,
                edgecolor=colour,
            )
        )
        ax.text(x, y + 0.2, name, ha="center", va="center", fontsize=9.5)
        ax.text(x, y - 0.22, detail, ha="center", va="center", fontsize=9)
        ax.text(x + width / 2 + 0.5, y, taught, va="center", fontsize=8.5, color="C0")
    for upper, lower in zip(ys, ys[1:]):
        ax.annotate("", xy=(x, lower + 0.6), xytext=(x, upper - 0.6), arrowprops={"arrowstyle": "-|>", "color": "C5"})
    top, bottom = ys[2] + 0.75, ys[3] - 0.75
    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2 - 0.25, bottom),
            width + 0.5,
            top - bottom,
            boxstyle="round,pad=0.05",
            fill=False,
            ls="--",
            edgecolor="C5",
        )
    )
    ax.text(x - width / 2 - 0.2, bottom - 0.08, "a block, × $L$", va="top", fontsize=8.5, color="C5")
    ax.set_xlim(x - width / 2 - 0.4, x + width / 2 + 2.8)
    ax.set_ylim(ys[-1] - 0.7, ys[0] + 0.7)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig
