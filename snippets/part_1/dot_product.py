"""Everything docs/part-1/dot-product.md draws or includes."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure


@figure("cosine-angles")
# --8<-- [start:cosine-angles]
def cosine_angles() -> Figure:
    """Pairs of vectors at different angles, with their cosine similarity."""
    a = np.array([2.0, 0.5])
    angles = [20, 90, 160]

    fig = Figure(figsize=(9, 3.4))
    axes = fig.subplots(1, len(angles), sharex=True, sharey=True)
    for ax, degrees in zip(axes, angles):
        theta = np.deg2rad(degrees)
        rotation = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
        b = 0.7 * rotation @ a
        cos = a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
        for vector, colour, name in [(a, "C0", "a"), (b, "C1", "b")]:
            ax.annotate("", xy=vector, xytext=(0, 0), arrowprops={"arrowstyle": "->", "lw": 2.5, "color": colour})
            ax.text(*(vector * 1.15), name, color=colour, ha="center", va="center", fontsize=12)
        ax.set_title(f"angle {degrees}°:  cos = {cos:.2f}", fontsize=11)
        ax.set_aspect("equal")
        ax.set_xlim(-2.5, 2.5)
        ax.set_ylim(-1.2, 2.5)
    return fig


# --8<-- [end:cosine-angles]


@figure("dot-product-projection")
# --8<-- [start:dot-product-projection]
def dot_product_projection() -> Figure:
    """The dot product as a projection: a's shadow on the direction of b has signed length a . b / |b|."""
    a = np.array([1.0, 2.0])
    b = np.array([3.0, 1.0])
    unit_b = b / np.linalg.norm(b)
    shadow = (a @ unit_b) * unit_b  # the projection of a onto the line of b

    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    ax.plot(*np.stack([-0.5 * unit_b, 4.2 * unit_b]).T, color="C5", lw=0.8, ls="--")
    for vector, colour, name in [(a, "C0", "a = (1, 2)"), (b, "C1", "b = (3, 1)")]:
        ax.annotate("", xy=vector, xytext=(0, 0), arrowprops={"arrowstyle": "->", "lw": 2.5, "color": colour})
        ax.text(vector[0] + 0.08, vector[1] + 0.08, name, color=colour, fontsize=10)
    ax.annotate("", xy=shadow, xytext=(0, 0), arrowprops={"arrowstyle": "->", "lw": 3, "color": "C2"})
    ax.plot(*np.stack([a, shadow]).T, color="C3", ls=":", lw=1.5)
    ax.text(*(shadow + np.array([0.05, -0.4])), "projection of a on b", color="C2", fontsize=10)
    ax.text(0.2, -0.75, f"length a . b / |b| = {a @ b:g} / {np.linalg.norm(b):.3f} = {a @ unit_b:.3f}", color="C2")
    ax.text(*((a + shadow) / 2 + np.array([0.08, 0.05])), "a minus its projection,\nperpendicular to b", color="C3")
    ax.set_aspect("equal")
    ax.set_xlim(-0.5, 3.8)
    ax.set_ylim(-1, 2.6)
    ax.set_title("a . b = |b| x (signed length of a's shadow on b)", fontsize=11)
    return fig


# --8<-- [end:dot-product-projection]
