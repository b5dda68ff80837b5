"""Figures of the guide, drawn with matplotlib and written as SVG while the site is built.

Each figure is a function registered with ``@figure(name)`` that returns a matplotlib ``Figure``.
The build (``hooks/figures.py``) calls :func:`render_svg` for every registered name in a light and a
dark theme, so a figure follows the reader's colour scheme. Figures use no ``pyplot`` state: every
function builds its own ``Figure``, so they can be drawn in any order, in tests as on the site.

Example
-------
>>> svg = render_svg("unit-circle-map", "light")
>>> svg.startswith("<?xml")
True
"""

from __future__ import annotations

import io
from collections.abc import Callable

import matplotlib

matplotlib.use("Agg")  # draw without a screen

import numpy as np
from matplotlib.figure import Figure

FIGURES: dict[str, Callable[[], Figure]] = {}

# Colours chosen to read on Material's white and slate backgrounds alike.
THEMES: dict[str, dict[str, object]] = {
    "light": {
        "text.color": "#1f2328",
        "axes.labelcolor": "#1f2328",
        "axes.edgecolor": "#57606a",
        "xtick.color": "#57606a",
        "ytick.color": "#57606a",
        "grid.color": "#d0d7de",
        "axes.prop_cycle": matplotlib.cycler(
            color=["#3f51b5", "#d1495b", "#2a9d8f", "#e09f3e", "#6a4c93", "#577590"]
        ),
    },
    "dark": {
        "text.color": "#e6edf3",
        "axes.labelcolor": "#e6edf3",
        "axes.edgecolor": "#9da7b3",
        "xtick.color": "#9da7b3",
        "ytick.color": "#9da7b3",
        "grid.color": "#3d444d",
        "axes.prop_cycle": matplotlib.cycler(
            color=["#8c9eff", "#ff7b8a", "#5ad1c1", "#f4c06a", "#c3a6ff", "#9cc3e6"]
        ),
    },
}

COMMON_STYLE: dict[str, object] = {
    "figure.facecolor": "none",
    "axes.facecolor": "none",
    "savefig.facecolor": "none",
    "savefig.transparent": True,
    "svg.fonttype": "none",  # keep text as text: smaller files, selectable, read by screen readers
    "svg.hashsalt": "transformer-math",  # stable ids, so a rebuild gives the same file
    "font.size": 11,
    "axes.grid": True,
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def figure(name: str) -> Callable[[Callable[[], Figure]], Callable[[], Figure]]:
    """Register a figure function under ``name`` (used in the page as ``figures/NAME.light.svg``)."""

    def register(draw: Callable[[], Figure]) -> Callable[[], Figure]:
        if name in FIGURES:
            raise ValueError(f"figure name {name!r} is registered twice")
        FIGURES[name] = draw
        return draw

    return register


def render_svg(name: str, theme: str = "light") -> str:
    """Draw figure ``name`` in ``theme`` ("light" or "dark") and return the SVG text."""
    if name not in FIGURES:
        raise KeyError(f"no figure named {name!r}; known: {', '.join(sorted(FIGURES))}")
    if theme not in THEMES:
        raise ValueError(f"theme must be one of {sorted(THEMES)}, got {theme!r}")
    with matplotlib.rc_context({**COMMON_STYLE, **THEMES[theme]}):
        fig = FIGURES[name]()
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    return buffer.getvalue()


# --- Part I: linear algebra ------------------------------------------------------------------

@figure("unit-circle-map")
# --8<-- [start:unit-circle-map]
def unit_circle_map() -> Figure:
    """A matrix maps the unit circle to an ellipse; its eigenvectors are the stretched axes."""
    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    angles = np.linspace(0, 2 * np.pi, 200)
    circle = np.stack([np.cos(angles), np.sin(angles)])  # shape (2, 200): one column per point
    ellipse = A @ circle
    values, vectors = np.linalg.eigh(A)

    fig = Figure(figsize=(5, 5))
    ax = fig.subplots()
    ax.plot(*circle, label="unit circle: all x with |x| = 1")
    ax.plot(*ellipse, label="A x for every x on the circle")
    for value, vector in zip(values, vectors.T):
        ax.annotate("", xy=value * vector, xytext=(0, 0), arrowprops={"arrowstyle": "->", "lw": 2, "color": "C2"})
        ax.text(*(value * vector * 1.08), f"λ = {value:g}", color="C2", ha="center")
    ax.set_aspect("equal")
    ax.set_xlim(-3.5, 3.5)
    ax.set_ylim(-3.5, 3.5)
    ax.legend(loc="lower right", fontsize=9)
    ax.set_title("A = [[2, 1], [1, 2]] stretches along its eigenvectors")
    return fig
# --8<-- [end:unit-circle-map]


# --8<-- [start:linear-map-grid]
@figure("linear-map-grid")
def linear_map_grid() -> Figure:
    """A matrix moves every point of the plane: the grid, the unit square and the two basis vectors."""
    A = np.array([[2.0, 1.0], [0.0, 1.0]])
    ticks = np.arange(-4, 5)
    line = np.linspace(-4, 4, 2)

    fig = Figure(figsize=(9, 4.5))
    before, after = fig.subplots(1, 2, sharex=True, sharey=True)
    for ax, M, title in [(before, np.eye(2), "before: x"), (after, A, "after: A x with A = [[2, 1], [0, 1]]")]:
        for t in ticks:  # grid lines x = t and y = t, each mapped by M
            for points in (np.stack([np.full(2, t), line]), np.stack([line, np.full(2, t)])):
                ax.plot(*(M @ points), color="C5", lw=0.8, alpha=0.6)
        square = M @ np.array([[0, 1, 1, 0, 0], [0, 0, 1, 1, 0]])
        ax.fill(*square, color="C3", alpha=0.35, label="unit square")
        for column, colour, name in [(0, "C0", "e1"), (1, "C1", "e2")]:
            tip = M[:, column]
            ax.annotate("", xy=tip, xytext=(0, 0), arrowprops={"arrowstyle": "->", "lw": 2.5, "color": colour})
            label = name if M is not A else f"A {name} = ({tip[0]:g}, {tip[1]:g})"
            ax.text(tip[0] + 0.1, tip[1] + 0.15, label, color=colour, fontsize=10)
        ax.set_title(title, fontsize=11)
        ax.set_aspect("equal")
        ax.set_xlim(-3.5, 3.5)
        ax.set_ylim(-2.5, 2.5)
        ax.grid(False)
    after.text(-3.3, -2.3, "columns of A = images of e1, e2", fontsize=9)
    return fig
# --8<-- [end:linear-map-grid]


# --8<-- [start:cosine-angles]
@figure("cosine-angles")
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


# --- Part II: probability, statistics, softmax, information ----------------------------------


# --- Part III: derivatives, gradients, optimizers ---------------------------------------------


# --- Part IV: attention and the Transformer ----------------------------------------------------
