#!/usr/bin/env python3
"""Compute the coefficients of ``transformer_math.erf`` and print them as the Python source it holds.

    python tools/fit_erf.py        # needs mpmath (pip install mpmath): the exact erf, to 40 digits

Two sets, each fitted to the exact function in 40-digit arithmetic (mpmath):

* ``W_P``, ``W_Q``: the rational ``W(t) = P(t) / Q(t)`` with ``erf(z)**2 = 1 - exp(-t W(t))``, ``t = z**2``, on
  ``0 <= t <= T_MAX``, for float32 and float16 inputs. Fitted by Lawson's iteration (least squares reweighted
  towards minimax) to the error each coefficient causes in erf itself: ``W``'s relative error times
  ``(1 - erf**2) t W / (2 erf**2)``, which is 1/2 near 0 and vanishes where erf rounds to 1.
* ``SMALL``: ``erf(x) / x - 1`` as a polynomial in ``x**2`` for ``|x| <= 1`` (erf is then ``x + x B(x**2)``, whose
  last addition, of a term at most 0.13 x, leaves half an ulp), and ``PIECES``: erf as a polynomial in
  ``h = |x| - c`` on the ten intervals of width 1/2 from 1 to 6 (``c`` the middle), for float64 inputs.
  Chebyshev interpolation (``mpmath.chebyfit``), which is within a whisker of minimax.

The script prints each set's largest error, then the source.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

mp.mp.dps = 40
T_MAX = 15.5  # erf(sqrt(15.5)) = 1 - 1.0e-8 rounds to 1 in float32: no need to go further
SMALL_DEGREE, PIECE_DEGREE, PIECE_WIDTH, PIECES_END = 12, 13, 0.5, 6.0


def exact_w(t: float) -> float:
    if t == 0:
        return float(4 / mp.pi)
    c = mp.erfc(mp.sqrt(t))
    return float(-mp.log(c * (2 - c)) / t)  # -log(1 - erf**2) / t, with 1 - erf**2 = erfc (2 - erfc)


def fit_w(m: int = 3, n: int = 3, points: int = 8000, iterations: int = 400):
    """Lawson's iteration for P / Q (degrees m, n, Q(0) = 1) on [0, T_MAX], in the scaled variable t / T_MAX."""
    chebyshev = T_MAX / 2 * (1 - np.cos(np.linspace(0, np.pi, points)))  # dense near both ends
    t = np.unique(np.concatenate([np.linspace(0, T_MAX, points), chebyshev]))
    f = np.array([exact_w(v) for v in t])
    erf2 = np.array([float(mp.erf(mp.sqrt(v)) ** 2) for v in t])
    sensitivity = np.where(t == 0, 0.5, (1 - erf2) * t * f / (2 * np.maximum(erf2, 1e-300)))
    s = t / T_MAX
    lawson, q, best = np.full(len(s), 1 / len(s)), np.ones(len(s)), (np.inf, None)
    for _ in range(iterations):
        a = np.hstack([np.vander(s, m + 1, increasing=True), -f[:, None] * np.vander(s, n + 1, increasing=True)[:, 1:]])
        weight = sensitivity / (np.abs(f) * q)
        root = np.sqrt(lawson)
        sol = np.linalg.lstsq(a * (weight * root)[:, None], f * weight * root, rcond=None)[0]
        p, qq = sol[: m + 1], np.concatenate([[1.0], sol[m + 1 :]])
        q = np.abs(np.polyval(qq[::-1], s))
        error = sensitivity * np.abs(np.polyval(p[::-1], s) / np.polyval(qq[::-1], s) / f - 1)
        if error.max() < best[0]:
            best = (error.max(), (p.copy(), qq.copy()))
        lawson = lawson * error / np.sum(lawson * error)
    error, (p, qq) = best
    p, qq = p / T_MAX ** np.arange(m + 1), qq / T_MAX ** np.arange(n + 1)  # back to t
    assert not any(abs(r.imag) < 1e-12 and r.real >= 0 for r in np.roots(qq[::-1])), "Q has a zero on t >= 0"
    return error, [float(c) for c in p], [float(c) for c in qq]


def fit_small():
    f = lambda t: (mp.erf(mp.sqrt(t)) / mp.sqrt(t) if t else 2 / mp.sqrt(mp.pi)) - 1  # noqa: E731
    coefficients, error = mp.chebyfit(f, [0, 1], SMALL_DEGREE + 1, error=True)
    return float(error), [float(c) for c in reversed(coefficients)]  # lowest degree first


def fit_pieces():
    rows, worst = [], 0.0
    for k in range(int((PIECES_END - 1) / PIECE_WIDTH)):
        centre = 1 + (k + 0.5) * PIECE_WIDTH
        f = lambda h, c=centre: mp.erf(c + h)  # noqa: E731
        coefficients, error = mp.chebyfit(f, [-PIECE_WIDTH / 2, PIECE_WIDTH / 2], PIECE_DEGREE + 1, error=True)
        worst = max(worst, float(error))
        rows.append([float(c) for c in reversed(coefficients)])
    return worst, rows


if __name__ == "__main__":
    w_error, w_p, w_q = fit_w()
    small_error, small = fit_small()
    piece_error, pieces = fit_pieces()
    print(f"# W: largest error it causes in erf, relative: {w_error:.1e}")
    print(
        f"# SMALL: largest error of erf(x) / x - 1: {small_error:.1e}; PIECES: largest error of erf: {piece_error:.1e}"
    )
    print(f"T_MAX = {T_MAX}")
    print(f"W_P = ({', '.join(map(repr, w_p))})")
    print(f"W_Q = ({', '.join(map(repr, w_q))})")
    print(f"SMALL = ({', '.join(map(repr, small))})")
    print("PIECES = np.array([")
    for row in pieces:
        print(f"    [{', '.join(map(repr, row))}],")
    print("])")
    print(f"# checks: erf(1) from SMALL = {1 + sum(small):.17g}, math.erf(1) = {math.erf(1):.17g}")
