"""Everything docs/part-3/derivatives.md draws or includes."""

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
    ax.loglog(steps, eps * np.sin(x) / steps, ":", color="C5", lw=1.5, label="rounding ε |f(x)| / h")
    ax.axvline(1e-5, color="C2", lw=1)
    ax.text(1.4e-5, 1.0, "h = 1e-5", color="C2")
    ax.set_ylim(1e-13, 1e1)
    ax.set_xlabel("step h")
    ax.set_ylabel("|estimate − cos(1)|")
    ax.set_title("Derivative of sin at x = 1: too large h truncates, too small h rounds")
    ax.legend(loc="lower left", fontsize=8)
    return fig


# --8<-- [end:finite-difference-error]


@figure("tangent-and-curvature")
# --8<-- [start:tangent-and-curvature]
def tangent_and_curvature() -> Figure:
    """Top: chords of x² from x = 3 turning into the tangent as h shrinks. Bottom: sin near x = 1 with its
    tangent line and the parabola that adds the curvature term f''(1) h² / 2."""
    fig = Figure(figsize=(5.5, 6.5), layout="constrained")  # two rows: readable on a phone
    top, bottom = fig.subplots(2, 1)

    x = np.linspace(0.5, 5.2, 200)
    top.plot(x, x**2, color="C0", lw=2, label="f(x) = x²")
    for h, alpha in [(2.0, 0.5), (1.0, 0.8)]:
        slope = ((3 + h) ** 2 - 9) / h  # the forward difference: a chord's slope, 6 + h
        top.plot(x, 9 + slope * (x - 3), "--", color="C1", lw=1, alpha=alpha)
        top.plot(3 + h, (3 + h) ** 2, "o", color="C1", ms=4, alpha=alpha)
    top.plot(x, 9 + 6 * (x - 3), color="C2", lw=1.5, label="tangent 9 + 6 (x − 3)")
    top.plot(3, 9, "o", color="C2", ms=6)
    top.set_ylim(-2, 27)
    top.set_title("chords (dashed) → tangent", fontsize=10)
    top.legend(fontsize=8, loc="upper left")

    t = np.linspace(-0.6, 2.6, 200)
    bottom.plot(t, np.sin(t), color="C0", lw=2, label="sin x")
    bottom.plot(t, np.sin(1) + np.cos(1) * (t - 1), color="C2", lw=1.5, label="tangent")
    quadratic = np.sin(1) + np.cos(1) * (t - 1) - np.sin(1) / 2 * (t - 1) ** 2  # f''(1) = −sin 1
    bottom.plot(t, quadratic, "--", color="C3", lw=1.5, label="+ f''(1) (x − 1)² / 2")
    bottom.plot(1, np.sin(1), "o", color="C2", ms=6)
    bottom.set_ylim(-0.7, 1.5)
    bottom.set_title("f'' < 0: the curve bends below", fontsize=10)
    bottom.legend(fontsize=8, loc="lower center")
    fig.suptitle("The derivative is the tangent's slope; the second derivative, its bending")
    return fig


# --8<-- [end:tangent-and-curvature]
