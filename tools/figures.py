"""Figures of the guide, drawn with matplotlib and written as SVG while the site is built.

Site tooling, not part of the ``transformer_math`` library: the library needs NumPy only, and
matplotlib is a docs dependency. The figures draw with the library, which they import.

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

import functools
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
    samples = np.stack([np.cos(np.arange(12) * np.pi / 6 + 0.3), np.sin(np.arange(12) * np.pi / 6 + 0.3)])
    for x, image in zip(samples.T, (A @ samples).T):  # a few points and where they land: most are turned
        ax.plot(*np.stack([x, image]).T, color="C3", lw=1, ls=":", marker=".", markersize=5)
    ax.plot([], [], color="C3", lw=1, ls=":", marker=".", label="x and A x for a few x")
    for value, vector in zip(values, vectors.T):
        ax.annotate("", xy=value * vector, xytext=(0, 0), arrowprops={"arrowstyle": "->", "lw": 2, "color": "C2"})
        ax.text(*((value + 0.45) * vector), f"λ = {value:g}", color="C2", ha="center", va="center")
    ax.set_aspect("equal")
    ax.set_xlim(-3.5, 3.5)
    ax.set_ylim(-3.5, 3.5)
    ax.legend(loc="lower right", fontsize=9)
    ax.set_title("A = [[2, 1], [1, 2]] stretches along its eigenvectors")
    return fig


# --8<-- [end:unit-circle-map]


@figure("linear-map-grid")
# --8<-- [start:linear-map-grid]
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
    before.text(0.1, -0.45, "area 1", color="C3", fontsize=10)
    after.text(1.1, -0.45, f"area = det A = {np.linalg.det(A):.0f}", color="C3", fontsize=10)
    return fig


# --8<-- [end:linear-map-grid]


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


def _draw_block(ax, x0, y0, rows, cols, depth, colour, cell=0.25, skew=0.35):
    """Draw a (depth, rows, cols) array as stacked sheets seen from the front, the first sheet in front."""
    from matplotlib.patches import Polygon

    for k in reversed(range(depth)):
        dx, dy = k * skew * cell * 2, k * skew * cell * 2
        for r in range(rows):
            for c in range(cols):
                x, y = x0 + dx + c * cell, y0 + dy - (r + 1) * cell
                square = [(x, y), (x + cell, y), (x + cell, y + cell), (x, y + cell)]
                alpha = 0.55 if k == 0 else 0.25
                ax.add_patch(Polygon(square, closed=True, facecolor=colour, edgecolor="C5", lw=0.5, alpha=alpha))


@figure("tensor-shape")
# --8<-- [start:tensor-shape]
def tensor_shape() -> Figure:
    """A (batch, seq, d_model) activation: a stack of sequences, each a matrix with one row per token."""
    batch, seq, d_model = 3, 4, 8
    cell = 0.25

    fig = Figure(figsize=(7.5, 3.4))
    ax = fig.subplots()
    _draw_block(ax, 0, 0, seq, d_model, batch, "C0", cell=cell, skew=0.6)
    ax.text(
        d_model * cell / 2,
        -seq * cell - 0.12,
        f"d_model = {d_model} features per token",
        ha="center",
        va="top",
        fontsize=10,
    )
    ax.text(-0.1, -seq * cell / 2, f"seq = {seq} tokens\n(one row each)", ha="right", va="center", fontsize=10)
    back = (batch - 1) * 0.6 * cell * 2
    ax.text(
        d_model * cell + back + 0.1,
        back - 0.1,
        f"batch = {batch} sequences,\nsequence 0 in front",
        fontsize=10,
        va="center",
    )
    ax.add_patch(matplotlib.patches.Rectangle((0, -2 * cell), d_model * cell, cell, fill=False, edgecolor="C1", lw=2.5))
    ax.annotate(
        "X[0, 1]: token 1 of sequence 0,\nshape (d_model,) = (8,)",
        xy=(d_model * cell, -1.5 * cell),
        xytext=(d_model * cell + back + 0.1, -1.9 * cell),
        color="C1",
        va="center",
        fontsize=10,
        arrowprops={"arrowstyle": "->", "color": "C1"},
    )
    ax.set_xlim(-1.8, 6.2)
    ax.set_ylim(-1.6, 1.1)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"X.shape = (batch, seq, d_model) = ({batch}, {seq}, {d_model})", fontsize=11)
    return fig


# --8<-- [end:tensor-shape]


@figure("broadcasting")
# --8<-- [start:broadcasting]
def broadcasting() -> Figure:
    """Broadcasting: shapes line up from the right, and the bias of shape (d,) is repeated over every token."""
    fig = Figure(figsize=(8, 3.2))
    ax = fig.subplots()
    cell = 0.3
    seq, d = 3, 4
    for r in range(seq):  # XW: (seq, d)
        for c in range(d):
            ax.add_patch(
                matplotlib.patches.Rectangle(
                    (c * cell, -(r + 1) * cell), cell, cell, facecolor="C0", edgecolor="C5", alpha=0.5
                )
            )
    ax.text(d * cell / 2, 0.12, "XW: (seq, d) = (3, 4)", ha="center", fontsize=10)
    ax.text(d * cell + 0.25, -seq * cell / 2, "+", fontsize=18, va="center")
    x0 = d * cell + 0.7
    for r in range(seq):  # the bias, drawn solid once and faded where it is repeated
        for c in range(d):
            ax.add_patch(
                matplotlib.patches.Rectangle(
                    (x0 + c * cell, -(r + 1) * cell),
                    cell,
                    cell,
                    facecolor="C1",
                    edgecolor="C5",
                    alpha=0.6 if r == 0 else 0.2,
                    ls="-" if r == 0 else "--",
                )
            )
    ax.text(x0 + d * cell / 2, 0.12, "b: (d,) = (4,)", ha="center", fontsize=10)
    ax.text(x0 + d * cell + 0.1, -2 * cell, "repeated\nfor every\ntoken", fontsize=9, va="center", color="C1")
    ax.text(x0 + d * cell + 0.8, -seq * cell / 2, "=", fontsize=18, va="center")
    x1 = x0 + d * cell + 1.25
    for r in range(seq):
        for c in range(d):
            ax.add_patch(
                matplotlib.patches.Rectangle(
                    (x1 + c * cell, -(r + 1) * cell), cell, cell, facecolor="C2", edgecolor="C5", alpha=0.5
                )
            )
    ax.text(x1 + d * cell / 2, 0.12, "XW + b: (3, 4)", ha="center", fontsize=10)
    shapes = "shapes line up from the right:\n    XW  (3, 4)\n     b     (4,)\nXW + b  (3, 4)"
    ax.text(0, -seq * cell - 0.25, shapes, fontsize=9, va="top", family="monospace")
    ax.set_xlim(-0.1, x1 + d * cell + 0.1)
    ax.set_ylim(-2.4, 0.45)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


# --8<-- [end:broadcasting]


@figure("head-split")
# --8<-- [start:head-split]
def head_split() -> Figure:
    """Splitting d_model into heads: reshape (seq, d_model) -> (seq, h, d_head), transpose -> (h, seq, d_head)."""
    seq, d_model, heads = 3, 8, 2
    d_head = d_model // heads
    cell = 0.3
    colours = ["C0", "C1"]

    fig = Figure(figsize=(8, 3.0))
    ax = fig.subplots()
    for r in range(seq):  # one sequence: (seq, d_model), columns coloured by the head they go to
        for c in range(d_model):
            ax.add_patch(
                matplotlib.patches.Rectangle(
                    (c * cell, -(r + 1) * cell), cell, cell, facecolor=colours[c // d_head], edgecolor="C5", alpha=0.55
                )
            )
            ax.text((c + 0.5) * cell, -(r + 0.5) * cell, str(r * d_model + c), ha="center", va="center", fontsize=7)
    ax.text(d_model * cell / 2, 0.12, "Q[0]: (seq, d_model) = (3, 8)", ha="center", fontsize=10)
    ax.annotate(
        "",
        xy=(d_model * cell + 1.0, -seq * cell / 2),
        xytext=(d_model * cell + 0.15, -seq * cell / 2),
        arrowprops={"arrowstyle": "->", "lw": 1.5},
    )
    ax.text(d_model * cell + 0.57, -seq * cell / 2 + 0.15, "reshape +\ntranspose", ha="center", fontsize=8)
    x0 = d_model * cell + 1.2
    for j in range(heads):  # each head: (seq, d_head), its own matrix
        xj = x0 + j * (d_head * cell + 0.45)
        for r in range(seq):
            for c in range(d_head):
                ax.add_patch(
                    matplotlib.patches.Rectangle(
                        (xj + c * cell, -(r + 1) * cell), cell, cell, facecolor=colours[j], edgecolor="C5", alpha=0.55
                    )
                )
                ax.text(
                    xj + (c + 0.5) * cell,
                    -(r + 0.5) * cell,
                    str(r * d_model + j * d_head + c),
                    ha="center",
                    va="center",
                    fontsize=7,
                )
        ax.text(xj + d_head * cell / 2, 0.12, f"head {j + 1}: (3, 4)", ha="center", fontsize=10, color=colours[j])
    ax.text(
        0,
        -seq * cell - 0.3,
        "(seq, d_model) -> (seq, h, d_head) -> (h, seq, d_head): every head sees every "
        "token,\nbut only its own d_head = 4 columns of each",
        fontsize=9,
        va="top",
    )
    ax.set_xlim(-0.1, x0 + heads * (d_head * cell + 0.45))
    ax.set_ylim(-1.75, 0.45)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


# --8<-- [end:head-split]


# --- Part II: probability, statistics, softmax, information ----------------------------------


@figure("law-of-large-numbers")
# --8<-- [start:law-of-large-numbers]
def law_of_large_numbers() -> Figure:
    """The share of each token among n samples settles on its probability as n grows."""
    tokens = ["cat", "dog", "bird"]
    probs = np.array([0.70, 0.20, 0.10])
    rng = np.random.default_rng(0)
    draws = rng.choice(len(tokens), size=10_000, p=probs)
    n = np.arange(1, draws.size + 1)

    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    for k, (token, p) in enumerate(zip(tokens, probs)):
        share = np.cumsum(draws == k) / n  # share of token k among the first n samples
        ax.plot(n, share, color=f"C{k}", label=f"{token} (P = {p:.2f})")
        ax.axhline(p, color=f"C{k}", linestyle=":", linewidth=1)
    ax.set_xscale("log")
    ax.set_ylim(0, 1)
    ax.set_xlabel("number of samples n (log scale)")
    ax.set_ylabel("share of samples")
    ax.set_title("Sampled frequencies approach the probabilities")
    ax.legend(loc="upper right", fontsize=9)
    return fig


# --8<-- [end:law-of-large-numbers]


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


@figure("softmax-temperature")
# --8<-- [start:softmax-temperature]
def softmax_temperature() -> Figure:
    """One logit vector through softmax at three temperatures: a low one sharpens, a high one flattens."""
    from transformer_math.softmax import softmax

    tokens = ["cat", "dog", "bird", "fish"]
    logits = np.array([2.0, 1.0, 0.1, -1.0])
    temperatures = [0.5, 1.0, 2.0]
    width = 0.26

    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    positions = np.arange(len(tokens))
    for k, t in enumerate(temperatures):
        p = softmax(logits, temperature=t)
        bars = ax.bar(positions + (k - 1) * width, p, width, color=f"C{k}", label=rf"$\tau$ = {t:g}")
        ax.bar_label(bars, fmt="%.2f", fontsize=8)
    ax.set_xticks(positions, [f"{tok}\nlogit {z:g}" for tok, z in zip(tokens, logits)])
    ax.set_ylabel("probability")
    ax.set_ylim(0, 1)
    ax.set_title(r"softmax(logits / $\tau$): the same logits at three temperatures")
    ax.legend(fontsize=9)
    return fig


# --8<-- [end:softmax-temperature]


@figure("coin-entropy")
# --8<-- [start:coin-entropy]
def coin_entropy() -> Figure:
    """Entropy of a coin with P(heads) = p: zero when certain, largest (ln 2) when fair."""
    from transformer_math.information import entropy

    p = np.linspace(0, 1, 201)
    h = entropy(np.stack([p, 1 - p], axis=-1))  # one two-outcome distribution per row

    fig = Figure(figsize=(6, 3.8))
    ax = fig.subplots()
    ax.plot(p, h, color="C0")
    ax.axhline(np.log(2), color="C1", linestyle=":", linewidth=1)
    ax.text(0.02, np.log(2) + 0.02, "ln 2 = 0.693 nats (fair coin)", color="C1", fontsize=9)
    ax.plot([0.8], [entropy([0.8, 0.2])], "o", color="C2")
    ax.annotate(
        "p = 0.8: H = 0.500",
        (0.8, float(entropy([0.8, 0.2]))),
        xytext=(0.62, 0.25),
        arrowprops={"arrowstyle": "->", "color": "C2"},
        color="C2",
        fontsize=9,
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 0.8)
    ax.set_xlabel("p = P(heads)")
    ax.set_ylabel("entropy H (nats)")
    ax.set_title("Entropy of a coin")
    return fig


# --8<-- [end:coin-entropy]


@figure("cross-entropy-curve")
# --8<-- [start:cross-entropy-curve]
def cross_entropy_curve() -> Figure:
    """The loss of one prediction, -ln p(correct): small when confident and right, unbounded when wrong."""
    p = np.linspace(0.005, 1, 400)

    fig = Figure(figsize=(6, 3.8))
    ax = fig.subplots()
    ax.plot(p, -np.log(p), color="C0")
    for q, color, where in [(0.8, "C2", (0.5, 1.4)), (0.1, "C1", (0.2, 3.2))]:
        ax.plot([q], [-np.log(q)], "o", color=color)
        ax.annotate(
            f"p = {q}: loss {-np.log(q):.3f}",
            (q, -np.log(q)),
            xytext=where,
            arrowprops={"arrowstyle": "->", "color": color},
            color=color,
            fontsize=9,
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 5.5)
    ax.set_xlabel("probability the model gave the correct token")
    ax.set_ylabel("loss = -ln p (nats)")
    ax.set_title("Cross entropy of one prediction")
    return fig


# --8<-- [end:cross-entropy-curve]


@figure("layer-norm-histogram")
# --8<-- [start:layer-norm-histogram]
def layer_norm_histogram() -> Figure:
    """The features of three tokens before and after LayerNorm: each token's own centre and spread are removed."""
    from transformer_math.stats import layer_norm

    rng = np.random.default_rng(0)
    d = 4096  # many features per token, so that each token's histogram is smooth
    centres = np.array([[-6.0], [2.0], [8.0]])
    spreads = np.array([[0.7], [3.0], [1.5]])
    x = rng.normal(loc=centres, scale=spreads, size=(3, d))  # (tokens, d): three very different tokens
    y = layer_norm(x)

    fig = Figure(figsize=(9, 3.6))
    before, after = fig.subplots(1, 2)
    for token in range(3):
        label = f"token {token}: mean {x[token].mean():.1f}, std {x[token].std():.1f}"
        before.hist(x[token], bins=80, color=f"C{token}", alpha=0.6, label=label)
        after.hist(y[token], bins=40, color=f"C{token}", alpha=0.4, histtype="stepfilled", label=f"token {token}")
    before.set_title("before: each token has its own centre, spread", fontsize=11)
    after.set_title("after LayerNorm: all at mean 0, std 1", fontsize=11)
    before.legend(fontsize=8, loc="upper left")
    after.legend(fontsize=8)
    for ax in (before, after):
        ax.set_xlabel("value of a feature")
        ax.set_yticks([])
    before.set_ylabel(f"count (of the {d} features)")
    return fig


# --8<-- [end:layer-norm-histogram]


# --- Part III: derivatives, gradients, optimizers ---------------------------------------------


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


@figure("computation-graph")
# --8<-- [start:computation-graph]
def computation_graph() -> Figure:
    """The graph of one neuron, y = tanh(w x + b), with each value's data and grad after backward()."""
    from matplotlib.patches import Circle, FancyBboxPatch

    from transformer_math.autograd import Value

    w, x, b = Value(0.5), Value(2.0), Value(-0.2)
    wx = w * x
    z = wx + b
    y = z.tanh()
    y.backward()
    names = {id(w): "w", id(x): "x", id(b): "b", id(wx): "w·x", id(z): "z", id(y): "y"}
    where = {
        id(w): (0, 2.2),
        id(x): (0, 0.8),
        id(b): (2.4, -0.6),
        id(wx): (2.4, 1.5),
        id(z): (4.8, 0.6),
        id(y): (7.2, 0.6),
    }

    fig = Figure(figsize=(9, 3.6))
    ax = fig.subplots()
    for node in (wx, z, y):  # every computed value: a circle for its operation, arrows in and out
        cx, cy = where[id(node)][0] - 1.0, where[id(node)][1]
        ax.add_patch(Circle((cx, cy), 0.34, fill=False, edgecolor="C3", lw=1.5))
        ax.text(
            cx,
            cy,
            {"*": "×", "+": "+", "tanh": "tanh"}[node.op],
            ha="center",
            va="center",
            color="C3",
            fontsize=8 if node.op == "tanh" else 13,
        )
        for parent in node.parents:
            px, py = where[id(parent)]
            ax.annotate(
                "",
                xy=(cx - 0.34, cy),
                xytext=(px + 0.62, py),
                arrowprops={"arrowstyle": "->", "color": "C5", "lw": 1.2},
            )
        ax.annotate(
            "",
            xy=(cx + 1.0 - 0.62, cy),
            xytext=(cx + 0.34, cy),
            arrowprops={"arrowstyle": "->", "color": "C5", "lw": 1.2},
        )
    for node in (w, x, b, wx, z, y):  # every value: a box with its name, data and grad
        px, py = where[id(node)]
        ax.add_patch(
            FancyBboxPatch(
                (px - 0.6, py - 0.38), 1.2, 0.76, boxstyle="round,pad=0.02", fill=False, edgecolor="C0", lw=1.5
            )
        )
        ax.text(px, py + 0.17, f"{names[id(node)]} = {node.data:.4g}", ha="center", va="center", fontsize=10)
        ax.text(px, py - 0.17, f"grad {node.grad:.4f}", ha="center", va="center", fontsize=9, color="C1")
    ax.set_xlim(-0.8, 8.0)
    ax.set_ylim(-1.2, 2.8)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title("Forward: data flows right. Backward: grad = ∂y/∂(value) flows left.", fontsize=10)
    return fig


# --8<-- [end:computation-graph]


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


@figure("learning-rates")
# --8<-- [start:learning-rates]
def learning_rates() -> Figure:
    """Gradient descent on f(x, y) = (x² + 10 y²) / 2 with a learning rate too small, right, too large."""
    curvature = np.array([1.0, 10.0])  # the Hessian is diag(1, 10); steps above 2 / 10 diverge along y
    grid = np.linspace(-5.5, 5.5, 201)
    X, Y = np.meshgrid(grid, grid)
    runs = [("too small: η = 0.01", 0.01), ("about right: η = 0.18", 0.18), ("too large: η = 0.205", 0.205)]

    fig = Figure(figsize=(10, 3.8))
    for ax, (title, lr) in zip(fig.subplots(1, 3, sharey=True), runs):
        point, path = np.array([-5.0, 2.0]), []
        for _ in range(30):
            path.append(point.copy())
            point = point - lr * curvature * point  # the gradient of f is (x, 10 y)
        path = np.array(path)
        ax.contour(X, Y, (X**2 + 10 * Y**2) / 2, levels=[0.5, 2, 5, 10, 20, 40, 80], colors="C5", linewidths=0.8)
        ax.plot(path[:, 0], path[:, 1], "o-", color="C1", ms=3, lw=1)
        ax.plot(0, 0, "*", color="C2", ms=12)
        ax.set_title(title, fontsize=10)
        ax.set_aspect("equal")
        ax.set_xlim(-5.5, 5.5)
        ax.set_ylim(-5.5, 5.5)
    fig.suptitle("30 steps of gradient descent from (−5, 2); the minimum is the star")
    return fig


# --8<-- [end:learning-rates]


@figure("optimizers-compared")
# --8<-- [start:optimizers-compared]
def optimizers_compared() -> Figure:
    """SGD, SGD with momentum, Adam and AdamW on one ill-conditioned quadratic: paths and losses."""
    from transformer_math.optim import SGD, Adam, AdamW

    A = np.array([[1.0, 0.0], [0.0, 25.0]])  # curvatures 1 and 25: a long, narrow valley
    c = np.array([2.0, 1.0])  # the minimum
    loss = lambda p: 0.5 * (p - c) @ A @ (p - c)  # noqa: E731
    makers = [
        ("SGD, η = 0.075", lambda p: SGD(p, lr=0.075)),
        ("SGD + momentum 0.7, η = 0.05", lambda p: SGD(p, lr=0.05, momentum=0.7)),
        ("Adam, η = 0.3", lambda p: Adam(p, lr=0.3)),
        ("AdamW, η = 0.3, λ = 0.1", lambda p: AdamW(p, lr=0.3, weight_decay=0.1)),
    ]
    X, Y = np.meshgrid(np.linspace(-5, 3.5, 171), np.linspace(-2, 3, 101))

    fig = Figure(figsize=(10, 4.2))
    paths_ax, loss_ax = fig.subplots(1, 2, width_ratios=[1.4, 1])
    paths_ax.contour(
        X,
        Y,
        0.5 * ((X - c[0]) ** 2 + 25 * (Y - c[1]) ** 2),
        levels=[0.25, 1, 3, 6, 10, 18, 30, 45],
        colors="C5",
        linewidths=0.8,
    )
    for colour, (name, make) in zip(["C0", "C1", "C2", "C3"], makers):
        p = np.array([-4.0, -1.0])
        opt = make([p])
        path, losses = [p.copy()], [loss(p)]
        for _ in range(100):
            opt.step([A @ (p - c)])  # the gradient of the loss
            path.append(p.copy())
            losses.append(loss(p))
        path = np.array(path)
        paths_ax.plot(path[:, 0], path[:, 1], "o-", ms=2, lw=1, color=colour, label=name)
        loss_ax.semilogy(losses, color=colour, label=name)
    paths_ax.plot(*c, "*", color="C4", ms=14)
    paths_ax.set_title("paths from (−4, −1), 100 steps; the minimum is the star", fontsize=10)
    paths_ax.set_aspect("equal")
    loss_ax.legend(fontsize=8, loc="lower left")
    loss_ax.set_title("loss per step", fontsize=10)
    loss_ax.set_xlabel("step")
    fig.suptitle("One ill-conditioned problem, f(x, y) = ((x − 2)² + 25 (y − 1)²) / 2, four optimizers")
    return fig


# --8<-- [end:optimizers-compared]


# --- Part IV diagrams: the block, attention and multi-head attention, with the library's own shapes --


# --8<-- [start:diagram-helpers]
def _grid(
    ax,
    x,
    y,
    values,
    colour="C0",
    scale=None,
    numbers=False,
    masked=None,
    fontsize=10,
    width=1.0,
    hidden_label="−∞",
    signed=True,
    height=1.0,
):
    """Draw a matrix as a grid of cells (``width`` by ``height``) with its top-left corner at (x, y), row 0 on top.

    A cell's opacity grows with |value| / scale; ``colour`` is one colour, or one per column. Negative
    values take colour "C1" if ``signed``. ``masked`` cells (True) are left pale and show ``hidden_label``."""
    from matplotlib.patches import Rectangle

    values = np.atleast_2d(values)
    scale = scale or max(float(np.abs(values[np.isfinite(values)]).max()), 1e-9)
    for r, c in np.ndindex(values.shape):
        value = values[r, c]
        hidden = masked is not None and masked[r, c]
        fill = colour if isinstance(colour, str) else colour[c]
        if hidden:
            fill, alpha = "C5", 0.12
        else:
            fill = "C1" if signed and value < 0 else fill
            alpha = 0.12 + 0.6 * min(abs(value) / scale, 1.0)
        corner = (x + c * width, y - (r + 1) * height)
        ax.add_patch(Rectangle(corner, width, height, facecolor=fill, alpha=alpha, edgecolor="none"))
        ax.add_patch(Rectangle(corner, width, height, fill=False, edgecolor="C5", lw=0.6))
        if numbers:
            label = hidden_label if hidden else f"{value:.2f}".replace("-", "−")
            ax.text(x + (c + 0.5) * width, y - (r + 0.5) * height, label, ha="center", va="center", fontsize=fontsize)


def _down_arrow(ax, x, y_from, y_to, label="", fontsize=11):
    """A vertical arrow from y_from down to y_to, with its label to the right."""
    ax.annotate("", xy=(x, y_to), xytext=(x, y_from), arrowprops={"arrowstyle": "-|>", "lw": 1.5, "color": "C5"})
    if label:
        ax.text(x + 0.3, (y_from + y_to) / 2, label, va="center", fontsize=fontsize)


def _fit(fig, ax, width):
    """Size the figure to its drawing: ``width`` inches wide, equal scales on x and y, no empty margin."""
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    ax.set_aspect("equal")
    fig.subplots_adjust(left=0, right=1, bottom=0, top=1)
    fig.set_size_inches(width, width * (y1 - y0) / (x1 - x0))


# --8<-- [end:diagram-helpers]


@figure("block-diagram")
# --8<-- [start:block-diagram]
def block_diagram() -> Figure:
    """The pre-LN block: a residual stream with two branches, each LayerNorm then a sub-layer then +.

    The shapes are read from a real forward pass of the library's model (n = 4, d = 8, d_ff = 32, V = 5)."""
    from matplotlib.patches import Circle, FancyBboxPatch

    from transformer_math.transformer import forward, init_params

    params = init_params(vocab_size=5, d_model=8, d_ff=32, seed=0)
    tokens = np.array([0, 1, 2, 3])  # "the cat sat on"
    logits, cache = forward(params, tokens, n_heads=2)

    def shape(array):
        return str(tuple(array.shape))

    fig = Figure(figsize=(4.3, 9.0))
    ax = fig.subplots()
    stream, side = 2.4, 7.7  # x of the residual stream and of the branches

    def box(x, y, text, colour, width=4.0):
        ax.add_patch(
            FancyBboxPatch(
                (x - width / 2, y - 0.55),
                width,
                1.1,
                boxstyle="round,pad=0.1",
                facecolor=colour,
                alpha=0.25,
                edgecolor=colour,
                lw=1.5,
            )
        )
        ax.text(x, y, text, ha="center", va="center", fontsize=12)

    def arrow(start, end, colour="C5", lw=1.5):
        ax.annotate(
            "",
            xy=end,
            xytext=start,
            arrowprops={"arrowstyle": "-|>", "lw": lw, "color": colour, "shrinkA": 0, "shrinkB": 0},
        )

    def plus(y):
        ax.add_patch(Circle((stream, y), 0.4, facecolor="none", edgecolor="C0", lw=2))
        ax.text(stream, y, "+", ha="center", va="center", fontsize=15, color="C0")

    box(stream, 21.0, f"tokens $t$  {shape(cache['tokens'])}", "C5", width=4.6)
    arrow((stream, 20.35), (stream, 19.45))
    box(stream, 18.8, r"$X_0 = W_E[t] + PE$", "C3", width=4.6)
    ax.plot([stream, stream], [18.15, 3.95], color="C0", lw=4, solid_capstyle="butt")  # the residual stream
    ax.text(stream - 0.45, 9.2, "residual stream", rotation=90, ha="center", va="center", fontsize=12, color="C0")
    # attention branch
    y_out, y_back = 16.6, 12.4
    ax.text(stream + 0.3, 17.5, f"$X_0$ {shape(cache['x0'])}", va="center", fontsize=11)
    arrow((stream, y_out), (side - 2.05, y_out))
    box(side, y_out, r"$\mathrm{LN}_1$", "C4")
    arrow((side, y_out - 0.65), (side, 15.05))
    ax.text(side + 0.2, 15.35, f"$A$ {shape(cache['a'])}", va="center", fontsize=11)
    box(side, 14.4, f"MHA: $h$ = {cache['n_heads']} heads,\ncausal mask", "C1", width=5.0)
    ax.plot([side, side], [13.75, y_back], color="C5", lw=1.5)
    arrow((side, y_back), (stream + 0.4, y_back))
    o_shape = shape(cache["o"] @ params["W_O"])
    ax.text((stream + side) / 2 + 0.3, y_back + 0.35, f"$O\\,W_O$ {o_shape}", ha="center", fontsize=11)
    plus(y_back)
    ax.text(stream + 0.3, y_back - 0.9, f"$X_1$ {shape(cache['x1'])}", va="center", fontsize=11)
    # feed-forward branch
    y_out, y_back = 10.6, 6.0
    arrow((stream, y_out), (side - 2.05, y_out))
    box(side, y_out, r"$\mathrm{LN}_2$", "C4")
    arrow((side, y_out - 0.65), (side, 9.05))
    ax.text(side + 0.2, 9.35, f"$C$ {shape(cache['c'])}", va="center", fontsize=11)
    box(side, 8.1, f"FFN: ReLU hidden\nlayer $R$ {shape(cache['r'])}", "C2", width=5.0)
    ax.plot([side, side], [7.25, y_back], color="C5", lw=1.5)
    arrow((side, y_back), (stream + 0.4, y_back))
    ffn_shape = shape(cache["r"] @ params["W_2"] + params["b_2"])
    ax.text((stream + side) / 2 + 0.3, y_back + 0.35, f"$R\\,W_2 + b_2$ {ffn_shape}", ha="center", fontsize=11)
    plus(y_back)
    ax.text(stream + 0.3, y_back - 0.9, f"$X_2$ {shape(cache['x2'])}", va="center", fontsize=11)
    # the frame of the block, then the head of the model
    ax.add_patch(
        FancyBboxPatch((0.55, 4.6), 9.85, 13.05, boxstyle="round,pad=0.1", fill=False, edgecolor="C5", lw=1, ls="--")
    )
    ax.text(10.3, 5.0, "one block", ha="right", va="center", fontsize=11, color="C5")
    arrow((stream, 4.0), (stream, 3.55), colour="C0", lw=2)
    box(stream, 2.9, r"$Z = \mathrm{LN}_f(X_2)\, W_U$", "C3", width=4.6)
    arrow((stream, 2.25), (stream, 1.35))
    box(stream, 0.7, f"logits $Z$  {shape(logits)}", "C5", width=4.6)
    ax.text(
        side + 0.3,
        1.8,
        f"$n$ = {len(tokens)}, $d$ = {params['W_E'].shape[1]}\n"
        f"$d_{{ff}}$ = {params['W_1'].shape[1]}, $V$ = {params['W_E'].shape[0]}",
        ha="center",
        va="center",
        fontsize=11,
    )
    ax.set_xlim(-0.2, 10.6)
    ax.set_ylim(-0.1, 21.8)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


# --8<-- [end:block-diagram]


@figure("attention-steps")
# --8<-- [start:attention-steps]
def attention_steps() -> Figure:
    """Attention step by step on four tokens, with the library's numbers: Q, K, V, then the scaled scores,
    the causal mask, the softmax weights and the output, each drawn as its matrix of values."""
    from transformer_math.attention import causal_mask, scaled_dot_product_attention
    from transformer_math.softmax import softmax

    words = ["the", "cat", "sat", "on"]
    rng = np.random.default_rng(0)
    n, d_k = 4, 2
    q, k, v = (rng.normal(size=(n, d_k)) for _ in range(3))
    mask = causal_mask(n)
    output, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    scores = q @ k.T / np.sqrt(d_k)  # S = Q K^T / sqrt(d_k), what the function computes first
    masked = np.where(mask, scores, -np.inf)
    assert np.allclose(softmax(masked, axis=-1), weights)  # the picture shows the library's own steps

    fig = Figure()
    ax = fig.subplots()
    left, cw, gap = 1.5, 1.5, 0.35  # room for the token names; cell width; gap between Q, K and V

    def rows(y):
        for i, word in enumerate(words):
            ax.text(left - 0.15, y - i - 0.5, word, ha="right", va="center", fontsize=11)

    def title(x, y, text):
        ax.text(x, y + 0.25, text, ha="center", va="bottom", fontsize=11)

    y = 0.0
    for j, (name, matrix) in enumerate([("Q", q), ("K", k), ("V", v)]):  # three (n, d_k) matrices
        x = left + j * (d_k * cw + gap)
        _grid(ax, x, y, matrix, colour="C0", scale=2, numbers=True, fontsize=9, width=cw)
        title(x + d_k * cw / 2, y, f"${name}$")
    rows(y)
    title(left + 3 * d_k * cw / 2 + gap, y + 1.0, f"$Q, K, V$: each $(n, d_k) = {q.shape}$")
    centre = left + n * cw / 2
    steps = [
        (r"$S = Q K^\top$ / √$d_k$", scores, None, "C0", 2, f"scores $S$: $(n, n) = {scores.shape}$"),
        ("causal mask", scores, ~mask, "C0", 2, r"$-\infty$ where key $j$ > query $i$"),
        ("softmax of each row", weights, ~mask, "C2", 1, r"weights $P$: each row sums to 1"),
    ]
    for arrow_label, matrix, hidden, colour, scale, caption in steps:
        hidden_label = "0" if matrix is weights else "−∞"  # exp(-inf) = 0
        _down_arrow(ax, centre, y - n - 0.2, y - n - 1.5, arrow_label)
        y -= n + 2.3
        _grid(ax, left, y, matrix, colour, scale, numbers=True, masked=hidden, width=cw, hidden_label=hidden_label)
        title(centre, y, caption)
        rows(y)
    _down_arrow(ax, centre, y - n - 0.2, y - n - 1.5, r"weighted average: $P\,V$")
    y -= n + 2.3
    _grid(ax, left, y, output, colour="C0", scale=2, numbers=True, width=cw)
    title(left + d_k * cw / 2 + 1.0, y, f"output $(n, d_v) = {output.shape}$")
    rows(y)
    ax.set_xlim(0, left + 3 * d_k * cw + 2 * gap + 0.3)
    ax.set_ylim(y - n - 0.2, 2.0)
    ax.axis("off")
    _fit(fig, ax, width=4.0)
    return fig


# --8<-- [end:attention-steps]


@figure("multi-head-flow")
# --8<-- [start:multi-head-flow]
def multi_head_flow() -> Figure:
    """Multi-head attention as the library runs it, one matrix per step, with the shapes it reports:
    project, split into heads, attend per head, merge the heads side by side, mix them with W_O."""
    from transformer_math.attention import causal_mask, merge_heads, scaled_dot_product_attention, split_heads

    rng = np.random.default_rng(0)
    n, d, h = 4, 8, 2
    d_head = d // h
    x = rng.normal(size=(n, d))
    W_Q, W_K, W_V, W_O = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(4))
    Q = x @ W_Q
    q, k, v = split_heads(Q, h), split_heads(x @ W_K, h), split_heads(x @ W_V, h)  # (h, n, d_head)
    heads, weights = scaled_dot_product_attention(q, k, v, mask=causal_mask(n))
    merged = merge_heads(heads)  # (n, d)
    out = merged @ W_O
    by_head = [f"C{c // d_head}" for c in range(d)]  # column c belongs to head c // d_head + 1

    fig = Figure()
    ax = fig.subplots()
    gap = 1.0  # between the heads
    tall = n * 0.7  # height of a matrix: rows of 0.7
    centre = d / 2

    def title(x, y, text, colour=None):
        ax.text(x, y + 0.25, text, ha="center", va="bottom", fontsize=11, color=colour)

    def one(y, matrix, colour, text):  # one (n, d) matrix
        _grid(ax, 0, y, matrix, colour=colour, scale=2, signed=False, height=0.7)
        title(centre, y, text)

    def per_head(y, arrays, name, scale=2):  # an (h, n, ...) array: one matrix per head, side by side
        for j, array in enumerate(arrays):
            x = j * (array.shape[-1] + gap) - gap / 2
            _grid(ax, x, y, array, colour=f"C{j}", scale=scale, signed=False, height=0.7)
            title(x + array.shape[-1] / 2, y, name.format(head=j + 1), colour=f"C{j}")

    def step(y, label, below=0.0):  # an arrow down from the matrix at y (and its caption) to the next one
        top = y - tall - 0.2 - below
        _down_arrow(ax, centre, top, top - 1.1, label)
        return top - 2.0

    y = 0.0
    one(y, x, "C5", f"$X$: $(n, d) = {x.shape}$")
    y = step(y, r"$\cdot\, W_Q$ (and $W_K$, $W_V$)")
    one(y, Q, by_head, f"$Q = X\\,W_Q$: ${Q.shape}$")
    y = step(y, "split_heads")
    per_head(y, q, "$Q_{head}$")
    ax.text(centre, y - tall - 0.3, f"$(h, n, d_\\mathrm{{head}}) = {q.shape}$", ha="center", va="top", fontsize=11)
    y = step(y, "attention per head", below=0.9)
    per_head(y, weights, "$P_{head}$", scale=1)
    ax.text(centre, y - tall - 0.3, f"weights $(h, n, n) = {weights.shape}$", ha="center", va="top", fontsize=11)
    y = step(y, r"$\cdot\, V_\ell$", below=0.9)
    per_head(y, heads, r"head$_{head}$")
    ax.text(
        centre,
        y - tall - 0.3,
        f"heads $(h, n, d_\\mathrm{{head}}) = {heads.shape}$",
        ha="center",
        va="top",
        fontsize=11,
    )
    y = step(y, "merge_heads", below=0.9)
    one(y, merged, by_head, f"$O$, heads side by side: {merged.shape}")
    y = step(y, r"$\cdot\, W_O$ mixes the heads")
    one(y, out, "C2", f"output $O\\,W_O$: $(n, d) = {out.shape}$")
    ax.set_xlim(-0.8, d + 0.8)
    ax.set_ylim(y - tall - 0.2, 1.2)
    ax.axis("off")
    _fit(fig, ax, width=3.9)
    return fig


# --8<-- [end:multi-head-flow]


# --- Part IV: attention and the Transformer ----------------------------------------------------


@figure("positional-encoding-heatmap")
# --8<-- [start:positional-encoding-heatmap]
def positional_encoding_heatmap() -> Figure:
    """The sinusoidal positional encoding: one row per position, one column per feature."""
    from transformer_math.attention import positional_encoding

    pe = positional_encoding(seq_len=40, d_model=16)  # (40, 16)
    fig = Figure(figsize=(8, 4.2), layout="constrained")  # room for the colour bar
    heat, waves = fig.subplots(1, 2, width_ratios=[1.1, 1])
    image = heat.imshow(pe, cmap="coolwarm", vmin=-1, vmax=1, aspect="auto")
    heat.set_xlabel("feature (column) j")
    heat.set_ylabel("position pos")
    heat.set_title("PE[pos, j]: fast waves left, slow right", fontsize=11)
    heat.grid(False)
    fig.colorbar(image, ax=heat, shrink=0.8)
    for column, colour in [(0, "C0"), (2, "C1"), (4, "C2")]:
        waves.plot(pe[:, column], color=colour, label=f"column {column}")
    waves.set_xlabel("position pos")
    waves.set_title("three columns as functions of pos", fontsize=11)
    waves.set_ylim(-1.1, 1.55)  # free band above the waves
    waves.set_yticks([-1, -0.5, 0, 0.5, 1])
    waves.legend(fontsize=9, loc="upper center", ncols=3)
    return fig


# --8<-- [end:positional-encoding-heatmap]


@figure("attention-scaling")
# --8<-- [start:attention-scaling]
def attention_scaling() -> Figure:
    """Why divide by sqrt(d_k): dot products of random vectors grow like sqrt(d_k) and saturate softmax."""
    from transformer_math.softmax import softmax

    rng = np.random.default_rng(0)
    widths = np.array([2, 4, 8, 16, 32, 64, 128, 256, 512])
    spread, top_raw, top_scaled = [], [], []
    for d_k in widths:
        q = rng.normal(size=(2000, d_k))  # entries with mean 0, variance 1
        k = rng.normal(size=(2000, 8, d_k))  # 8 keys per query
        scores = np.einsum("bd,bkd->bk", q, k)  # (2000, 8) dot products
        spread.append(scores.std())
        top_raw.append(softmax(scores).max(axis=-1).mean())
        top_scaled.append(softmax(scores / np.sqrt(d_k)).max(axis=-1).mean())

    fig = Figure(figsize=(9, 3.8))
    left, right = fig.subplots(1, 2)
    left.plot(widths, spread, "o", color="C0", label="std of q · k (measured)")
    left.plot(widths, np.sqrt(widths), color="C1", label="sqrt(d_k)")
    left.plot(widths, np.array(spread) / np.sqrt(widths), "s", color="C2", label="std of q · k / sqrt(d_k)")
    left.set_xscale("log", base=2)
    left.set_yscale("log", base=2)
    left.set_xlabel("d_k")
    left.set_title("spread of the scores", fontsize=11)
    left.legend(fontsize=9)
    right.plot(widths, top_raw, "o-", color="C1", label="softmax(q · k)")
    right.plot(widths, top_scaled, "s-", color="C2", label="softmax(q · k / sqrt(d_k))")
    right.axhline(1 / 8, color="C5", ls="--", lw=1, label="uniform over 8 keys")
    right.set_xscale("log", base=2)
    right.set_ylim(0, 1.05)
    right.set_xlabel("d_k")
    right.set_title("mean largest weight among 8 keys", fontsize=11)
    right.legend(fontsize=9)
    return fig


# --8<-- [end:attention-scaling]


@figure("causal-attention-heatmap")
# --8<-- [start:causal-attention-heatmap]
def causal_attention_heatmap() -> Figure:
    """Causal attention weights of six tokens: the upper triangle is exactly 0, every row sums to 1."""
    from transformer_math.attention import causal_mask, scaled_dot_product_attention

    words = ["the", "cat", "sat", "on", "the", "mat"]
    rng = np.random.default_rng(0)
    q, k, v = (rng.normal(size=(6, 4)) for _ in range(3))
    _, weights = scaled_dot_product_attention(q, k, v, mask=causal_mask(6))

    fig = Figure(figsize=(5, 4.4))
    ax = fig.subplots()
    image = ax.imshow(weights, cmap="viridis", vmin=0, vmax=1)
    for i in range(6):
        for j in range(6):
            shade = "black" if weights[i, j] > 0.5 else "white"
            ax.text(j, i, f"{weights[i, j]:.2f}", ha="center", va="center", fontsize=9, color=shade)
    ax.set_xticks(range(6), words)
    ax.set_yticks(range(6), words)
    ax.set_xlabel("key (attended to)")
    ax.set_ylabel("query (attending)")
    ax.grid(False)
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig


# --8<-- [end:causal-attention-heatmap]


@figure("training-loss-curve")
# --8<-- [start:training-loss-curve]
def training_loss_curve() -> Figure:
    """The loss of the one-block Transformer during 300 AdamW steps on "the cat sat on the mat"."""
    from transformer_math.transformer import init_params, make_windows, train

    vocab = ["the", "cat", "sat", "on", "mat"]
    stream = [vocab.index(word) for word in "the cat sat on the mat the cat sat on the mat the cat".split()]
    inputs, targets = make_windows(stream, seq_len=8)  # (6, 8) each
    params = init_params(vocab_size=5, d_model=8, d_ff=32, seed=0)
    losses = train(params, inputs, targets, n_heads=2, steps=300, lr=0.01)
    floor = 2 * np.log(2) / inputs.size  # two unpredictable first tokens

    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    ax.plot(losses, color="C0", label="cross entropy (nats)")
    ax.axhline(np.log(5), color="C3", ls=":", label="ln 5: uniform guess")
    ax.axhline(floor, color="C2", ls="--", label=f"floor 2 ln 2 / 48 = {floor:.4f}")
    ax.set_yscale("log")
    ax.set_xlabel("AdamW step")
    ax.set_ylabel("loss")
    ax.legend(fontsize=9)
    return fig


# --8<-- [end:training-loss-curve]


@figure("trained-attention")
# --8<-- [start:trained-attention]
def trained_attention() -> Figure:
    """The attention weights of both heads of the trained model on one training window."""
    from transformer_math.transformer import forward, init_params, make_windows, train

    vocab = ["the", "cat", "sat", "on", "mat"]
    stream = [vocab.index(word) for word in "the cat sat on the mat the cat sat on the mat the cat".split()]
    inputs, targets = make_windows(stream, seq_len=8)
    params = init_params(vocab_size=5, d_model=8, d_ff=32, seed=0)
    train(params, inputs, targets, n_heads=2, steps=300, lr=0.01)
    _, cache = forward(params, inputs[0], n_heads=2)
    words = [vocab[t] for t in inputs[0]]

    fig = Figure(figsize=(9, 4.2))
    axes = fig.subplots(1, 2)
    for head, ax in enumerate(axes):
        image = ax.imshow(cache["weights"][head], cmap="viridis", vmin=0, vmax=1)
        ax.set_xticks(range(8), words, rotation=60)
        ax.set_yticks(range(8), words)
        ax.set_title(f"head {head + 1}", fontsize=11)
        ax.set_xlabel("key")
        ax.grid(False)
    axes[0].set_ylabel("query")
    fig.colorbar(image, ax=list(axes), shrink=0.8)
    return fig


# --8<-- [end:trained-attention]


@functools.cache  # both themes draw the same run: train once
# --8<-- [start:fables-run]
def fables_run():
    """Training and validation loss of the character model on Aesop's fables, every 25 of 700 AdamW steps."""
    from transformer_math.data import load_text
    from transformer_math.information import cross_entropy_from_logits
    from transformer_math.optim import AdamW
    from transformer_math.transformer import forward, init_params, loss_and_grads, make_windows

    text = load_text("aesop")
    chars = sorted(set(text))
    ids = np.array([chars.index(c) for c in text])
    split = int(0.9 * len(ids))
    x_train, y_train = make_windows(ids[:split], seq_len=16)
    x_val, y_val = make_windows(ids[split:], seq_len=16)
    params = init_params(vocab_size=len(chars), d_model=32, d_ff=32, seed=0, output_scale=0.1)
    names = list(params)
    optimizer = AdamW([params[name] for name in names], lr=0.01, weight_decay=0.01)
    rng = np.random.default_rng(0)

    def mean_loss(x, y):
        logits, _ = forward(params, x, n_heads=2)
        return cross_entropy_from_logits(logits, y)

    steps, train_curve, val_curve = [], [], []
    for step in range(701):
        if step % 25 == 0:
            steps.append(step)
            train_curve.append(mean_loss(x_train[::8], y_train[::8]))  # every 8th window: 506
            val_curve.append(mean_loss(x_val, y_val))
        if step == 700:
            break
        rows = rng.integers(0, len(x_train), size=32)
        _, grads = loss_and_grads(params, x_train[rows], y_train[rows], n_heads=2)
        optimizer.step([grads[name] for name in names])
    return steps, train_curve, val_curve, len(chars)


# --8<-- [end:fables-run]


@figure("train-validation-loss")
# --8<-- [start:train-validation-loss]
def train_validation_loss() -> Figure:
    """The two loss curves of `fables_run`, the lowest validation loss marked."""
    steps, train_curve, val_curve, n_chars = fables_run()
    best = int(np.argmin(val_curve))
    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    ax.plot(steps, train_curve, color="C0", marker=".", label="training part (90 %)")
    ax.plot(steps, val_curve, color="C1", marker=".", label="validation part (10 %)")
    ax.axhline(np.log(n_chars), color="C3", ls=":", label=f"ln {n_chars}: uniform guess")
    ax.plot([steps[best]], [val_curve[best]], "o", color="C1", fillstyle="none", markersize=10)
    ax.annotate(
        f"lowest validation loss {val_curve[best]:.2f} at step {steps[best]}",
        (steps[best], val_curve[best]),
        xytext=(0, 28),
        textcoords="offset points",
        ha="center",
        fontsize=9,
    )
    ax.set_xlabel("AdamW step")
    ax.set_ylabel("loss (nats per character)")
    ax.legend(fontsize=9, loc="upper right", bbox_to_anchor=(1.0, 0.92))  # below the ln V line
    return fig


# --8<-- [end:train-validation-loss]
