"""What docs/part-1/rank-and-svd.md draws: 1 figure.

The chapter “Rank and the SVD”. A function registered with ``@figure`` is drawn by ``hooks/figures.py`` as
``figures/NAME.light.svg`` and ``figures/NAME.dark.svg``. The page shows the sections between ``--8<--`` markers.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure


@figure("svd-ellipse")
# --8<-- [start:svd-ellipse]
def svd_ellipse() -> Figure:
    """Any matrix maps the unit circle to an ellipse: A v_i = sigma_i u_i, the half-axes are the singular values."""
    A = np.array([[2.0, 1.0], [0.0, 1.0]])  # not symmetric
    U, sigma, Vt = np.linalg.svd(A)
    values, vectors = np.linalg.eig(A)
    angles = np.linspace(0, 2 * np.pi, 200)
    circle = np.stack([np.cos(angles), np.sin(angles)])  # (2, 200): one column per point

    fig = Figure(figsize=(5, 5))
    ax = fig.subplots()
    ax.plot(*circle, color="C0", label="unit circle")
    ax.plot(*(A @ circle), color="C1", label="its image: A x")
    for i in range(2):
        v, tip = Vt[i] * np.sign(Vt[i, 0]), sigma[i] * U[:, i] * np.sign(Vt[i, 0])  # one sign per pair
        ax.annotate("", xy=v, xytext=(0, 0), arrowprops={"arrowstyle": "->", "lw": 2, "color": "C0"})
        ax.text(v[0] + 0.1, v[1], f"v{i + 1}", color="C0", ha="left", va="center")
        ax.annotate("", xy=tip, xytext=(0, 0), arrowprops={"arrowstyle": "->", "lw": 2, "color": "C2"})
        where = {"ha": "center", "va": "bottom"} if i == 0 else {"ha": "right", "va": "top"}
        ax.text(tip[0] - 0.1 * i, tip[1] + 0.15 * (1 - 2 * i), f"σ{i + 1} u{i + 1}", color="C2", **where)
    ax.text(2.85, 2.6, f"σ1 = {sigma[0]:.2f}, σ2 = {sigma[1]:.2f}", color="C2", ha="right")
    ax.text(2.85, 2.25, f"eigenvalues {values[0]:g} and {values[1]:g}", color="C3", ha="right")
    for u in vectors.T:  # the eigenvector directions: not the axes of the ellipse
        ax.plot(*np.stack([-3 * u, 3 * u]).T, color="C3", ls="--", lw=1)
    ax.plot([], [], color="C3", ls="--", lw=1, label="eigenvector directions")
    ax.set_aspect("equal")
    ax.set_xlim(-3, 3)
    ax.set_ylim(-3, 3)
    ax.legend(loc="lower right", fontsize=9)
    ax.set_title("A = [[2, 1], [0, 1]]: half-axes = singular values")
    return fig


# --8<-- [end:svd-ellipse]
