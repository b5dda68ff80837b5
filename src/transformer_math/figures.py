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

# --8<-- [start:unit-circle-map]
@figure("unit-circle-map")
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


# --- Part II: probability, statistics, softmax, information ----------------------------------


# --- Part III: derivatives, gradients, optimizers ---------------------------------------------


# --- Part IV: attention and the Transformer ----------------------------------------------------
