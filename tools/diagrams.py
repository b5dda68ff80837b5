"""Helpers for the diagrams drawn from the library's arrays (the block, attention, multi-head attention).

Machinery shared by several chapters' modules in ``snippets/``: a matrix as a grid of cells, an arrow down,
and a figure sized to its drawing. ``docs/part-4/attention.md`` shows them between the ``--8<--`` markers.
"""

from __future__ import annotations

import numpy as np


# --8<-- [start:diagram-helpers]
def grid(
    ax,
    x,
    y,
    values,
    colour="C0",
    scale=None,
    numbers=False,
    masked=None,
    fontsize=10,
    width=1.0,
    hidden_label="−∞",
    signed=True,
    height=1.0,
):
    """Draw a matrix as a grid of cells (``width`` by ``height``) with its top-left corner at (x, y), row 0 on top.

    A cell's opacity grows with |value| / scale; ``colour`` is one colour, or one per column. Negative
    values take colour "C1" if ``signed``. ``masked`` cells (True) are left pale and show ``hidden_label``."""
    from matplotlib.patches import Rectangle

    values = np.atleast_2d(values)
    scale = scale or max(float(np.abs(values[np.isfinite(values)]).max()), 1e-9)
    for r, c in np.ndindex(values.shape):
        value = values[r, c]
        hidden = masked is not None and masked[r, c]
        fill = colour if isinstance(colour, str) else colour[c]
        if hidden:
            fill, alpha = "C5", 0.12
        else:
            fill = "C1" if signed and value < 0 else fill
            alpha = 0.12 + 0.6 * min(abs(value) / scale, 1.0)
        corner = (x + c * width, y - (r + 1) * height)
        ax.add_patch(Rectangle(corner, width, height, facecolor=fill, alpha=alpha, edgecolor="none"))
        ax.add_patch(Rectangle(corner, width, height, fill=False, edgecolor="C5", lw=0.6))
        if numbers:
            label = hidden_label if hidden else f"{value:.2f}".replace("-", "−")
            ax.text(x + (c + 0.5) * width, y - (r + 0.5) * height, label, ha="center", va="center", fontsize=fontsize)


def down_arrow(ax, x, y_from, y_to, label="", fontsize=11):
    """A vertical arrow from y_from down to y_to, with its label to the right."""
    ax.annotate("", xy=(x, y_to), xytext=(x, y_from), arrowprops={"arrowstyle": "-|>", "lw": 1.5, "color": "C5"})
    if label:
        ax.text(x + 0.3, (y_from + y_to) / 2, label, va="center", fontsize=fontsize)


def fit(fig, ax, width):
    """Size the figure to its drawing: ``width`` inches wide, equal scales on x and y, no empty margin."""
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    ax.set_aspect("equal")
    fig.subplots_adjust(left=0, right=1, bottom=0, top=1)
    fig.set_size_inches(width, width * (y1 - y0) / (x1 - x0))


# --8<-- [end:diagram-helpers]
