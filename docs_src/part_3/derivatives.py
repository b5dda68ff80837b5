"""What docs/part-3/derivatives.md draws: 1 figure.

The chapter “Derivatives”. A function registered with ``@figure`` is drawn by ``hooks/figures.py`` as
``figures/NAME.light.svg`` and ``figures/NAME.dark.svg``; one registered with ``@explorer`` becomes a figure the
reader moves (``hooks/explorers.py``). The page shows the sections between ``--8<--`` markers.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure


@figure("finite-difference-error")
# --8<-- [start:finite-difference-error]
def finite_difference_error() -> Figure:
    """Error of forward and central differences against the step h: truncation falls, rounding rises."""
    f, exact, x = np.sin, np.cos(1.0), 1.0
    steps = np.logspace(-16, -1, 151)
    forward = np.abs((f(x + steps) - f(x)) / steps - exact)
    central = np.abs((f(x + steps) - f(x - steps)) / (2 * steps) - exact)
    tiny = 1e-18  # an error of exactly 0 cannot be drawn on a log scale
    eps = np.finfo(float).eps

    fig = Figure(figsize=(7, 4.5))
    ax = fig.subplots()
    ax.loglog(steps, forward + tiny, label="forward difference", color="C0")
    ax.loglog(steps, central + tiny, label="central difference", color="C1")
    ax.loglog(steps, steps / 2 * np.sin(x), "--", color="C0", lw=1, alpha=0.7, label="truncation h |f''| / 2")
    ax.loglog(steps, steps**2 / 6 * np.cos(x), "--", color="C1", lw=1, alpha=0.7, label="truncation h² |f'''| / 6")
    ax.loglog(steps, eps / steps, ":", color="C5", lw=1.5, label="rounding ε / h")
    ax.axvline(1e-5, color="C2", lw=1)
    ax.text(1.4e-5, 1.0, "h = 1e-5", color="C2")
    ax.set_ylim(1e-13, 1e1)
    ax.set_xlabel("step h")
    ax.set_ylabel("|estimate − cos(1)|")
    ax.set_title("Derivative of sin at x = 1: too large h truncates, too small h rounds")
    ax.legend(loc="lower left", fontsize=8)
    return fig


# --8<-- [end:finite-difference-error]
