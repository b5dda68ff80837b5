"""Figures of the guide, drawn with matplotlib and written as SVG while the site is built: the machinery.

Site tooling, not part of the ``transformer_math`` library: the library needs NumPy only, and matplotlib
is a docs dependency. A chapter's figures live in its module under ``snippets/`` (``tools/chapters.py``),
each a function registered with ``@figure(name)`` that returns a matplotlib ``Figure``. The build
(``hooks/figures.py``) draws every one in a light and a dark theme with :func:`chapter_svgs`, so a figure
follows the reader's colour scheme. Figures use no ``pyplot`` state: every function builds its own
``Figure``, so they can be drawn in any order, in tests as on the site.

Example
-------
>>> from tools.figures import render_svg
>>> svg = render_svg("unit-circle-map", "light")
>>> svg.startswith("<?xml")
True
"""

from __future__ import annotations

import io
from collections.abc import Callable

import matplotlib

matplotlib.use("Agg")  # draw without a screen

from matplotlib.figure import Figure

from tools import chapters

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
        "axes.prop_cycle": matplotlib.cycler(color=["#3f51b5", "#d1495b", "#2a9d8f", "#e09f3e", "#6a4c93", "#577590"]),
    },
    "dark": {
        "text.color": "#e6edf3",
        "axes.labelcolor": "#e6edf3",
        "axes.edgecolor": "#9da7b3",
        "xtick.color": "#9da7b3",
        "ytick.color": "#9da7b3",
        "grid.color": "#3d444d",
        # Opened on its own (a tap on a phone opens the SVG full size) the dark variant needs a dark ground:
        # the slate scheme's own background, hsl(225, 15%, 14%), so on the page it does not show.
        "savefig.facecolor": "#1e2129",
        "savefig.transparent": False,
        "axes.prop_cycle": matplotlib.cycler(color=["#8c9eff", "#ff7b8a", "#5ad1c1", "#f4c06a", "#c3a6ff", "#9cc3e6"]),
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
        if name in FIGURES and FIGURES[name].__module__ != draw.__module__:  # the same module: imported again
            raise ValueError(f"figure name {name!r} is registered by {FIGURES[name].__module__} and {draw.__module__}")
        FIGURES[name] = draw
        return draw

    return register


def render_svg(name: str, theme: str = "light") -> str:
    """Draw figure ``name`` in ``theme`` ("light" or "dark") and return the SVG text."""
    if name not in FIGURES:
        chapters.import_all()  # a figure is registered when its chapter's module is imported
    if name not in FIGURES:
        raise KeyError(f"no figure named {name!r}; known: {', '.join(sorted(FIGURES))}")
    if theme not in THEMES:
        raise ValueError(f"theme must be one of {sorted(THEMES)}, got {theme!r}")
    with matplotlib.rc_context({**COMMON_STYLE, **THEMES[theme]}):
        fig = FIGURES[name]()
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    return buffer.getvalue()


def chapter_svgs(module: str) -> dict[str, str]:
    """Every figure of a chapter's module in every theme: ``{"NAME.THEME": svg}`` (what the build caches)."""
    return {
        f"{name}.{theme}": render_svg(name, theme) for name in chapters.registered(FIGURES, module) for theme in THEMES
    }
