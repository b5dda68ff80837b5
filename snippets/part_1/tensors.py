"""Everything docs/part-1/tensors.md draws or includes."""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from tools.figures import figure


def _draw_block(ax, x0, y0, rows, cols, depth, colour, cell=0.25, skew=0.35):
    """Draw a (depth, rows, cols) array as stacked sheets seen from the front, the first sheet in front."""
    from matplotlib.patches import Polygon

    for k in reversed(range(depth)):
        dx, dy = k * skew * cell * 2, k * skew * cell * 2
        for r in range(rows):
            for c in range(cols):
                x, y = x0 + dx + c * cell, y0 + dy - (r + 1) * cell
                square = [(x, y), (x + cell, y), (x + cell, y + cell), (x, y + cell)]
                alpha = 0.55 if k == 0 else 0.25
                ax.add_patch(Polygon(square, closed=True, facecolor=colour, edgecolor="C5", lw=0.5, alpha=alpha))


@figure("tensor-shape")
# --8<-- [start:tensor-shape]
def tensor_shape() -> Figure:
    """A (batch, seq, d_model) activation: a stack of sequences, each a matrix with one row per token."""
    batch, seq, d_model = 3, 4, 8
    cell = 0.25

    fig = Figure(figsize=(7.5, 3.4))
    ax = fig.subplots()
    _draw_block(ax, 0, 0, seq, d_model, batch, "C0", cell=cell, skew=0.6)
    ax.text(
        d_model * cell / 2,
        -seq * cell - 0.12,
        f"d_model = {d_model} features per token",
        ha="center",
        va="top",
        fontsize=10,
    )
    ax.text(-0.1, -seq * cell / 2, f"seq = {seq} tokens\n(one row each)", ha="right", va="center", fontsize=10)
    back = (batch - 1) * 0.6 * cell * 2
    ax.text(
        d_model * cell + back + 0.1,
        back - 0.1,
        f"batch = {batch} sequences,\nsequence 0 in front",
        fontsize=10,
        va="center",
    )
    ax.add_patch(Rectangle((0, -2 * cell), d_model * cell, cell, fill=False, edgecolor="C1", lw=2.5))
    ax.annotate(
        "X[0, 1]: token 1 of sequence 0,\nshape (d_model,) = (8,)",
        xy=(d_model * cell, -1.5 * cell),
        xytext=(d_model * cell + back + 0.1, -1.9 * cell),
        color="C1",
        va="center",
        fontsize=10,
        arrowprops={"arrowstyle": "->", "color": "C1"},
    )
    ax.set_xlim(-1.8, 6.2)
    ax.set_ylim(-1.6, 1.1)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"X.shape = (batch, seq, d_model) = ({batch}, {seq}, {d_model})", fontsize=11)
    return fig


# --8<-- [end:tensor-shape]


@figure("broadcasting")
# --8<-- [start:broadcasting]
def broadcasting() -> Figure:
    """Broadcasting: shapes line up from the right, and the bias of shape (d,) is repeated over every token."""
    fig = Figure(figsize=(8, 3.2))
    ax = fig.subplots()
    cell = 0.3
    seq, d = 3, 4
    for r in range(seq):  # XW: (seq, d)
        for c in range(d):
            ax.add_patch(Rectangle((c * cell, -(r + 1) * cell), cell, cell, facecolor="C0", edgecolor="C5", alpha=0.5))
    ax.text(d * cell / 2, 0.12, "XW: (seq, d) = (3, 4)", ha="center", fontsize=10)
    ax.text(d * cell + 0.25, -seq * cell / 2, "+", fontsize=18, va="center")
    x0 = d * cell + 0.7
    for r in range(seq):  # the bias, drawn solid once and faded where it is repeated
        for c in range(d):
            ax.add_patch(
                Rectangle(
                    (x0 + c * cell, -(r + 1) * cell),
                    cell,
                    cell,
                    facecolor="C1",
                    edgecolor="C5",
                    alpha=0.6 if r == 0 else 0.2,
                    ls="-" if r == 0 else "--",
                )
            )
    ax.text(x0 + d * cell / 2, 0.12, "b: (d,) = (4,)", ha="center", fontsize=10)
    ax.text(x0 + d * cell + 0.1, -2 * cell, "repeated\nfor every\ntoken", fontsize=9, va="center", color="C1")
    ax.text(x0 + d * cell + 0.8, -seq * cell / 2, "=", fontsize=18, va="center")
    x1 = x0 + d * cell + 1.25
    for r in range(seq):
        for c in range(d):
            ax.add_patch(
                Rectangle((x1 + c * cell, -(r + 1) * cell), cell, cell, facecolor="C2", edgecolor="C5", alpha=0.5)
            )
    ax.text(x1 + d * cell / 2, 0.12, "XW + b: (3, 4)", ha="center", fontsize=10)
    shapes = "shapes line up from the right:\n    XW  (3, 4)\n     b     (4,)\nXW + b  (3, 4)"
    ax.text(0, -seq * cell - 0.25, shapes, fontsize=9, va="top", family="monospace")
    ax.set_xlim(-0.1, x1 + d * cell + 0.1)
    ax.set_ylim(-2.4, 0.45)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


# --8<-- [end:broadcasting]


@figure("head-split")
# --8<-- [start:head-split]
def head_split() -> Figure:
    """Splitting d_model into heads: reshape (seq, d_model) -> (seq, h, d_head), transpose -> (h, seq, d_head)."""
    seq, d_model, heads = 3, 8, 2
    d_head = d_model // heads
    cell = 0.3
    colours = ["C0", "C1"]

    fig = Figure(figsize=(8, 3.0))
    ax = fig.subplots()
    for r in range(seq):  # one sequence: (seq, d_model), columns coloured by the head they go to
        for c in range(d_model):
            ax.add_patch(
                Rectangle(
                    (c * cell, -(r + 1) * cell), cell, cell, facecolor=colours[c // d_head], edgecolor="C5", alpha=0.55
                )
            )
            ax.text((c + 0.5) * cell, -(r + 0.5) * cell, str(r * d_model + c), ha="center", va="center", fontsize=7)
    ax.text(d_model * cell / 2, 0.12, "Q[0]: (seq, d_model) = (3, 8)", ha="center", fontsize=10)
    ax.annotate(
        "",
        xy=(d_model * cell + 1.0, -seq * cell / 2),
        xytext=(d_model * cell + 0.15, -seq * cell / 2),
        arrowprops={"arrowstyle": "->", "lw": 1.5},
    )
    ax.text(d_model * cell + 0.57, -seq * cell / 2 + 0.15, "reshape +\ntranspose", ha="center", fontsize=8)
    x0 = d_model * cell + 1.2
    for j in range(heads):  # each head: (seq, d_head), its own matrix
        xj = x0 + j * (d_head * cell + 0.45)
        for r in range(seq):
            for c in range(d_head):
                ax.add_patch(
                    Rectangle(
                        (xj + c * cell, -(r + 1) * cell), cell, cell, facecolor=colours[j], edgecolor="C5", alpha=0.55
                    )
                )
                ax.text(
                    xj + (c + 0.5) * cell,
                    -(r + 0.5) * cell,
                    str(r * d_model + j * d_head + c),
                    ha="center",
                    va="center",
                    fontsize=7,
                )
        ax.text(xj + d_head * cell / 2, 0.12, f"head {j + 1}: (3, 4)", ha="center", fontsize=10, color=colours[j])
    ax.text(
        0,
        -seq * cell - 0.3,
        "(seq, d_model) -> (seq, h, d_head) -> (h, seq, d_head): every head sees every "
        "token,\nbut only its own d_head = 4 columns of each",
        fontsize=9,
        va="top",
    )
    ax.set_xlim(-0.1, x0 + heads * (d_head * cell + 0.45))
    ax.set_ylim(-1.75, 0.45)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


# --8<-- [end:head-split]
