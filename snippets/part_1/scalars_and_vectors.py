"""What docs/part-1/scalars-and-vectors.md draws: 1 figure.

The chapter “Scalars and vectors”. A function registered with ``@figure`` is drawn by ``hooks/figures.py`` as
``figures/NAME.light.svg`` and ``figures/NAME.dark.svg``. The page shows the sections between ``--8<--`` markers.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure


@figure("vector-sum-and-scale")
# --8<-- [start:vector-sum-and-scale]
def vector_sum_and_scale() -> Figure:
    """Vectors as arrows: u + v tip to tail, and multiples of v along one line."""
    u, v = np.array([3.0, 1.0]), np.array([1.0, 2.0])

    fig = Figure(figsize=(5, 4.2))
    ax = fig.subplots()

    def draw(start, vector, colour, label, offset=(0.0, 0.0), style="-"):
        ax.annotate(
            "",
            xy=start + vector,
            xytext=start,
            arrowprops={"arrowstyle": "->", "lw": 2, "color": colour, "linestyle": style},
        )
        if label:
            middle = start + vector / 2
            ax.text(*(middle + offset), label, color=colour, fontsize=11)

    draw(np.zeros(2), u, "C0", "u = (3, 1)", offset=(0.0, -0.55))
    draw(np.zeros(2), v, "C1", "v = (1, 2)", offset=(-1.75, 0.1))
    draw(u, v, "C1", "", style="--")  # v again, starting at the tip of u
    draw(np.zeros(2), u + v, "C2", "")
    ax.text(4.0, 3.3, "u + v = (4, 3)", color="C2", fontsize=11, ha="center")
    draw(np.zeros(2), -v, "C3", "−v", offset=(-0.75, -0.1))
    ax.plot(*np.stack([-1.5 * v, 2.2 * v]).T, color="C5", lw=0.8, ls=":")
    ax.text(2.45, 4.1, "every c v: one line", color="C5", fontsize=9)
    ax.set_aspect("equal")
    ax.set_xlim(-1.8, 5.4)
    ax.set_ylim(-2.6, 4.6)
    ax.axhline(0, color="C5", lw=0.6)
    ax.axvline(0, color="C5", lw=0.6)
    ax.set_title("u + v: v drawn from the tip of u")
    return fig


# --8<-- [end:vector-sum-and-scale]
