"""Everything docs/part-1/matrices.md draws or includes."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure


@figure("linear-map-grid")
# --8<-- [start:linear-map-grid]
def linear_mapgrid() -> Figure:
    """A matrix moves every point of the plane: the grid, the unit square and the two basis vectors, as rows
    x -> x W, so the images of e1 and e2 are the rows of W."""
    W = np.array([[2.0, 0.0], [1.0, 1.0]])
    ticks = np.arange(-4, 5)
    line = np.linspace(-4, 4, 2)

    fig = Figure(figsize=(9, 4.5))
    before, after = fig.subplots(1, 2, sharex=True, sharey=True)
    for ax, M, title in [(before, np.eye(2), "before: x"), (after, W, "after: x W with W = [[2, 0], [1, 1]]")]:
        for t in ticks:  # grid lines x = t and y = t, one point per row, each mapped by M
            for points in (np.stack([np.full(2, t), line], axis=1), np.stack([line, np.full(2, t)], axis=1)):
                ax.plot(*(points @ M).T, color="C5", lw=0.8, alpha=0.6)
        square = np.array([[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]) @ M
        ax.fill(*square.T, color="C3", alpha=0.35, label="unit square")
        for row, colour, name in [(0, "C0", "e1"), (1, "C1", "e2")]:
            tip = M[row]
            ax.annotate("", xy=tip, xytext=(0, 0), arrowprops={"arrowstyle": "->", "lw": 2.5, "color": colour})
            label = name if M is not W else f"{name} W = ({tip[0]:g}, {tip[1]:g})"
            ax.text(tip[0] + 0.1, tip[1] + 0.15, label, color=colour, fontsize=10)
        ax.set_title(title, fontsize=11)
        ax.set_aspect("equal")
        ax.set_xlim(-3.5, 3.5)
        ax.set_ylim(-2.5, 2.5)
        ax.grid(False)
    after.text(-3.3, -2.3, "rows of W = images of e1, e2", fontsize=9)
    before.text(0.1, -0.45, "area 1", color="C3", fontsize=10)
    after.text(1.1, -0.45, f"area {abs(np.linalg.det(W)):.0f}", color="C3", fontsize=10)
    return fig


# --8<-- [end:linear-map-grid]
