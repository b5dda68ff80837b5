"""Everything docs/part-4/embeddings.md draws or includes."""

from __future__ import annotations

from matplotlib.figure import Figure

from tools.figures import figure


@figure("positional-encoding-heatmap")
# --8<-- [start:positional-encoding-heatmap]
def positional_encoding_heatmap() -> Figure:
    """The sinusoidal positional encoding: one row per position, one column per feature."""
    from transformer_math.attention import positional_encoding

    pe = positional_encoding(seq_len=40, d_model=16)  # (40, 16)
    fig = Figure(figsize=(8, 4.2), layout="constrained")  # room for the colour bar
    heat, waves = fig.subplots(1, 2, width_ratios=[1.1, 1])
    image = heat.imshow(pe, cmap="coolwarm", vmin=-1, vmax=1, aspect="auto")
    heat.set_xlabel("column")
    heat.set_ylabel("position pos")
    heat.set_title("PE[pos, column]: fast waves left, slow right", fontsize=11)
    heat.grid(False)
    fig.colorbar(image, ax=heat, shrink=0.8)
    for column, colour in [(0, "C0"), (2, "C1"), (4, "C2")]:
        waves.plot(pe[:, column], color=colour, label=f"column {column}")
    waves.set_xlabel("position pos")
    waves.set_title("three columns as functions of pos", fontsize=11)
    waves.set_ylim(-1.1, 1.55)  # free band above the waves
    waves.set_yticks([-1, -0.5, 0, 0.5, 1])
    waves.legend(fontsize=9, loc="upper center", ncols=3)
    return fig


# --8<-- [end:positional-encoding-heatmap]
