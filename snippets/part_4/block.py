"""Everything docs/part-4/block.md draws or includes."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure


@figure("block-diagram")
# --8<-- [start:block-diagram]
def block_diagram() -> Figure:
    """The pre-LN block: a residual stream with two branches, each LayerNorm then a sub-layer then +.

    The shapes are read from a real forward pass of the library's model (n = 4, d = 8, d_ff = 32, V = 5)."""
    from matplotlib.patches import Circle, FancyBboxPatch

    from transformer_math.transformer import forward, init_params

    params = init_params(vocab_size=5, d_model=8, d_ff=32, seed=0)
    tokens = np.array([0, 1, 2, 3])  # "the cat sat on"
    logits, cache = forward(params, tokens, n_heads=2)

    def shape(array):
        return str(tuple(array.shape))

    fig = Figure(figsize=(4.3, 9.0))
    ax = fig.subplots()
    stream, side = 2.4, 7.7  # x of the residual stream and of the branches

    def box(x, y, text, colour, width=4.0):
        ax.add_patch(
            FancyBboxPatch(
                (x - width / 2, y - 0.55),
                width,
                1.1,
                boxstyle="round,pad=0.1",
                facecolor=colour,
                alpha=0.25,
                edgecolor=colour,
                lw=1.5,
            )
        )
        ax.text(x, y, text, ha="center", va="center", fontsize=12)

    def arrow(start, end, colour="C5", lw=1.5):
        ax.annotate(
            "",
            xy=end,
            xytext=start,
            arrowprops={"arrowstyle": "-|>", "lw": lw, "color": colour, "shrinkA": 0, "shrinkB": 0},
        )

    def plus(y):
        ax.add_patch(Circle((stream, y), 0.4, facecolor="none", edgecolor="C0", lw=2))
        ax.text(stream, y, "+", ha="center", va="center", fontsize=15, color="C0")

    box(stream, 21.0, f"tokens $t$  {shape(cache['tokens'])}", "C5", width=4.6)
    arrow((stream, 20.35), (stream, 19.45))
    box(stream, 18.8, r"$X_0 = W_E[t] + PE$", "C3", width=4.6)
    ax.plot([stream, stream], [18.15, 3.95], color="C0", lw=4, solid_capstyle="butt")  # the residual stream
    ax.text(stream - 0.45, 9.2, "residual stream", rotation=90, ha="center", va="center", fontsize=12, color="C0")
    # attention branch
    y_out, y_back = 16.6, 12.4
    ax.text(stream + 0.3, 17.5, f"$X_0$ {shape(cache['x0'])}", va="center", fontsize=11)
    arrow((stream, y_out), (side - 2.05, y_out))
    box(side, y_out, r"$\mathrm{LN}_1$", "C4")
    arrow((side, y_out - 0.65), (side, 15.05))
    ax.text(side + 0.2, 15.35, f"$A$ {shape(cache['a'])}", va="center", fontsize=11)
    box(side, 14.4, f"MHA: $h$ = {cache['n_heads']} heads,\ncausal mask", "C1", width=5.0)
    ax.plot([side, side], [13.75, y_back], color="C5", lw=1.5)
    arrow((side, y_back), (stream + 0.4, y_back))
    o_shape = shape(cache["o"] @ params["W_O"])
    ax.text((stream + side) / 2 + 0.3, y_back + 0.35, f"$O\\,W_O$ {o_shape}", ha="center", fontsize=11)
    plus(y_back)
    ax.text(stream + 0.3, y_back - 0.9, f"$X_1$ {shape(cache['x1'])}", va="center", fontsize=11)
    # feed-forward branch
    y_out, y_back = 10.6, 6.0
    arrow((stream, y_out), (side - 2.05, y_out))
    box(side, y_out, r"$\mathrm{LN}_2$", "C4")
    arrow((side, y_out - 0.65), (side, 9.05))
    ax.text(side + 0.2, 9.35, f"$C$ {shape(cache['c'])}", va="center", fontsize=11)
    box(side, 8.1, f"FFN: ReLU hidden\nlayer $R$ {shape(cache['r'])}", "C2", width=5.0)
    ax.plot([side, side], [7.25, y_back], color="C5", lw=1.5)
    arrow((side, y_back), (stream + 0.4, y_back))
    ffn_shape = shape(cache["r"] @ params["W_2"] + params["b_2"])
    ax.text((stream + side) / 2 + 0.3, y_back + 0.35, f"$R\\,W_2 + b_2$ {ffn_shape}", ha="center", fontsize=11)
    plus(y_back)
    ax.text(stream + 0.3, y_back - 0.9, f"$X_2$ {shape(cache['x2'])}", va="center", fontsize=11)
    # the frame of the block, then the head of the model
    ax.add_patch(
        FancyBboxPatch((0.55, 4.6), 9.85, 13.05, boxstyle="round,pad=0.1", fill=False, edgecolor="C5", lw=1, ls="--")
    )
    ax.text(10.3, 5.0, "one block", ha="right", va="center", fontsize=11, color="C5")
    arrow((stream, 4.0), (stream, 3.55), colour="C0", lw=2)
    box(stream, 2.9, r"$Z = \mathrm{LN}_f(X_2)\, W_U$", "C3", width=4.6)
    arrow((stream, 2.25), (stream, 1.35))
    box(stream, 0.7, f"logits $Z$  {shape(logits)}", "C5", width=4.6)
    ax.text(
        side + 0.3,
        1.8,
        f"$n$ = {len(tokens)}, $d$ = {params['W_E'].shape[1]}\n"
        f"$d_{{ff}}$ = {params['W_1'].shape[1]}, $V$ = {params['W_E'].shape[0]}",
        ha="center",
        va="center",
        fontsize=11,
    )
    ax.set_xlim(-0.2, 10.6)
    ax.set_ylim(-0.1, 21.8)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


# --8<-- [end:block-diagram]
