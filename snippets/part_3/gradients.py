"""Everything docs/part-3/gradients.md draws or includes."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure


@figure("gradient-field")
# --8<-- [start:gradient-field]
def gradient_field() -> Figure:
    """Contours of two functions with gradient arrows: the gradient is perpendicular to the contours."""
    grid = np.linspace(-5, 5, 201)
    X, Y = np.meshgrid(grid, grid)
    arrows = np.linspace(-4, 4, 5)  # arrows on a 5 x 5 grid of points
    AX, AY = np.meshgrid(arrows, arrows)
    functions = [
        ("f(x, y) = x² + y²", lambda x, y: x**2 + y**2, lambda x, y: (2 * x, 2 * y)),
        ("f(x, y) = x² + 4y² + xy", lambda x, y: x**2 + 4 * y**2 + x * y, lambda x, y: (2 * x + y, 8 * y + x)),
    ]

    fig = Figure(figsize=(9, 4.5))
    for ax, (title, f, grad) in zip(fig.subplots(1, 2), functions):
        ax.contour(X, Y, f(X, Y), levels=12, colors="C5", linewidths=0.8)
        GX, GY = grad(AX, AY)
        ax.quiver(AX, AY, GX, GY, color="C0", angles="xy", scale_units="xy", scale=12, width=0.006)
        ax.set_title(title)
        ax.set_aspect("equal")
        ax.set_xlim(-5, 5)
        ax.set_ylim(-5, 5)
    left = fig.axes[0]
    left.quiver([3], [4], [6], [8], color="C1", angles="xy", scale_units="xy", scale=12, width=0.012)
    left.plot([3], [4], "o", color="C1", ms=4)
    left.annotate(
        "∇f(3, 4) = (6, 8)",
        xy=(3, 4),
        xytext=(0.6, 2.9),
        color="C1",
        fontsize=10,
        ha="center",
        arrowprops={"arrowstyle": "-", "color": "C1", "lw": 0.8},
    )
    fig.suptitle("Gradients (arrows, shortened 12×) point uphill, across the contours")
    return fig


# --8<-- [end:gradient-field]
