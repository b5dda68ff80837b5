"""Everything docs/part-2/exp-and-log.md draws or includes."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure


@figure("exp-and-log")
# --8<-- [start:exp-and-log]
def exp_and_log() -> Figure:
    """exp and ln are mirror images across y = x: each undoes the other."""
    x = np.linspace(-3, 3, 400)
    t = np.linspace(0.02, 6, 400)

    fig = Figure(figsize=(5.5, 5.5))
    ax = fig.subplots()
    ax.plot(x, np.exp(x), color="C0", label=r"$y = e^x$ (always > 0)")
    ax.plot(t, np.log(t), color="C1", label=r"$y = \ln x$ (only for x > 0)")
    ax.plot([-3, 6], [-3, 6], color="C5", linestyle=":", linewidth=1, label="y = x (the mirror)")
    ax.plot([0, 1], [1, 0], "o", color="C2")
    ax.annotate(r"$e^0 = 1$", (0, 1), xytext=(-2.6, 2.2), arrowprops={"arrowstyle": "->", "color": "C2"}, color="C2")
    ax.annotate(r"$\ln 1 = 0$", (1, 0), xytext=(2.2, -2.0), arrowprops={"arrowstyle": "->", "color": "C2"}, color="C2")
    ax.set_xlim(-3, 6)
    ax.set_ylim(-3, 6)
    ax.set_aspect("equal")
    ax.axhline(0, linewidth=0.8, color="C5")
    ax.axvline(0, linewidth=0.8, color="C5")
    ax.legend(loc="upper left", fontsize=9)
    ax.set_title("The exponential and the natural logarithm")
    return fig


# --8<-- [end:exp-and-log]
