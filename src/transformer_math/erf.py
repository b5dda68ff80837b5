r"""The error function $\operatorname{erf}(x) = \frac{2}{\sqrt\pi} \int_0^x e^{-s^2}\, ds$, for whole arrays.

GELU is $x\, \Phi(x)$ with $\Phi(x) = \tfrac12 \left(1 + \operatorname{erf}(x / \sqrt 2)\right)$, and NumPy has no erf:
``math.erf`` takes one number at a time, a thousand times slower than an array operation. ``erf`` is
within 2 ulp of ``math.erf`` at every input (``tests/library/test_erf.py`` measures it), by two formulas, each the
cheapest that reaches its dtype's precision, both computed in float64:

* **float32 and float16**: with $t = x^2$,

  $$\operatorname{erf}(x)^2 = 1 - e^{-t\, W(t)},$$

  where $W(t) = -\log(1 - \operatorname{erf}(\sqrt t)^2) / t$ is smooth and bounded, from $4/\pi$ at 0 to
  about 1, and is replaced by a ratio of two cubics within $2 \times 10^{-9}$ of what erf needs. One formula
  for every $x$, no branch; evaluated in float64 and rounded once, it is within 0.6 ulp of float32. The
  exponential carries erf's approach to $\pm 1$, the rational only the slow part.
* **float64**: $x + x\, B(x^2)$ with a polynomial $B$ of degree 12 for $|x| \le 1$, and a polynomial of degree 13
  in $|x| - c$ on each half-unit interval from 1 to 6 (centre $c$); past 6, erf rounds to $\pm 1$. Only
  additions and multiplications, each correctly rounded, so the error (about 1 ulp) is the same on every
  machine.

The coefficients are fitted to the exact function in 40-digit arithmetic by ``tools/fit_erf.py``.

GELU's gate $\Phi$ (``_normal_cdf``) is the same formula. For float32 and float16 it is evaluated in float32
arithmetic, as PyTorch evaluates GELU: twice as fast as in float64 on a training step's largest arrays, and
within 3 ulp of $x\, \Phi(x)$ for $x \ge -1$; below, where $1 + \operatorname{erf}$ cancels in any precision,
within $10^{-7} |x|$ (PyTorch's float32 GELU: $3 \times 10^{-7} |x|$).

Example
-------
>>> import math
>>> import numpy as np
>>> from transformer_math.erf import erf
>>> x = np.array([-2.0, 0.0, 0.5, 3.0])
>>> bool(np.all(np.abs(erf(x) - [math.erf(v) for v in x]) <= 2 * np.spacing(np.abs(erf(x)))))
True
"""

from __future__ import annotations

import numpy as np

from transformer_math.checks import check_no_nan, float_array

__all__ = ["erf"]

BLOCK = 1 << 15  # elements per block: a block's float64 temporaries stay in the CPU's cache
SQRT_HALF = 0.7071067811865476  # 1 / sqrt(2)

# W(t) = P(t) / Q(t) on 0 <= t <= T_MAX (float32 and float16): lowest degree first
T_MAX = 15.5  # erf(sqrt(15.5)) = 1 - 1e-8, which rounds to 1 in float32; past it W stays within 1 and 1.003
W_P = (1.2732395500305829, 0.27935683560364427, 0.045571122978210504, 0.002441629180104887)
W_Q = (1.0, 0.24945339244995995, 0.04062153754647375, 0.0024345954953814055)

# as evaluated: P negated and both divided by Q's leading coefficient (Q monic); for Phi, t = x**2 / 2 folded in
W_P, W_Q = tuple(-c / W_Q[-1] for c in W_P), tuple(c / W_Q[-1] for c in W_Q)
W_P_HALF = tuple(c * 2.0 ** (len(W_Q) - 2 - i) for i, c in enumerate(W_P))  # t W(t) at t = x**2 / 2, over ...
W_Q_HALF = tuple(c * 2.0 ** (len(W_Q) - 1 - i) for i, c in enumerate(W_Q))  # ... 2**-3 x**2 P / Q: still monic

# float64: erf(x) / x - 1 as a polynomial in x**2 for |x| <= 1, lowest degree first
SMALL = (
    0.1283791670955126,
    -0.3761263890318375,
    0.11283791670954879,
    -0.026866170645076792,
    0.0052239776248180145,
    -0.000854832698083379,
    0.0001205533111164271,
    -1.4925595266831182e-05,
    1.6461000484121368e-06,
    -1.6350312701054695e-07,
    1.4659775274047436e-08,
    -1.1372848856791674e-09,
    5.957176147748911e-11,
)
# float64: erf(c + h) for |h| <= 1/4 on the intervals centred at c = 1.25, 1.75, ..., 5.75, lowest degree first
PIECE_WIDTH = 0.5
PIECES = np.array(
    [
        [
            0.9229001282564582,
            0.2365211224472908,
            -0.29565140305911153,
            0.16753579506683547,
            -0.006159404230896534,
            -0.04718103640600039,
            0.02130127301145005,
            0.0036259827199190244,
            -0.0056976802634647146,
            0.0008776311203165393,
            0.0007935637760477615,
            -0.0003238378954372589,
            -5.3358854084741746e-05,
            5.444072496071499e-05,
        ],
        [
            0.9866716712191824,
            0.05277499593015038,
            -0.09235624287775983,
            0.09015728471400461,
            -0.04810220983301914,
            0.006624361468900602,
            0.008963045180389002,
            -0.006058751526573601,
            0.0007300475155067315,
            0.0008941843166397162,
            -0.0004426629932340801,
            -5.505955216685546e-06,
            6.765497805692175e-05,
            -1.7013932130488557e-05,
        ],
        [
            0.9985372834133188,
            0.007142319022017982,
            -0.016070217799542874,
            0.02172455369197196,
            -0.01908338363633625,
            0.010657679165515582,
            -0.00290435713041379,
            -0.000670455955356343,
            0.0009994964272719107,
            -0.000369381086164474,
            -1.153034958136253e-05,
            6.51506823581935e-05,
            -2.194472164632137e-05,
            -1.5164999359449104e-06,
        ],
        [
            0.9998993780778803,
            0.0005862772470937923,
            -0.0016122624295072932,
            0.002760388705066609,
            -0.003258113659793406,
            0.0027558084140728244,
            -0.0016573273880252134,
            0.0006460409567512276,
            -8.901228719214331e-05,
            -7.122311801431493e-05,
            5.5013835286284066e-05,
            -1.5843740679499495e-05,
            -1.2681253092432668e-06,
            2.687131468952656e-06,
        ],
        [
            0.9999956972205363,
            2.9189025383581733e-05,
            -9.486433249663875e-05,
            0.0001958097119481461,
            -0.00028656933775070937,
            0.00031379722550312924,
            -0.0002635285041757942,
            0.0001699914133368133,
            -8.164763207712718e-05,
            2.5913900673472375e-05,
            -2.328840480316741e-06,
            -2.865557704931699e-06,
            1.9043111846332243e-06,
            -5.336244331841553e-07,
        ],
        [
            0.9999998862727434,
            8.814321912317976e-07,
            -3.305370717149894e-06,
            7.969616062397557e-06,
            -1.384123987009681e-05,
            1.8370974995629414e-05,
            -1.927272219942407e-05,
            1.6275302987042403e-05,
            -1.1128193054255004e-05,
            6.108869420026458e-06,
            -2.6041152154208356e-06,
            7.756125867485207e-07,
            -8.078525577335848e-08,
            -6.041585276859998e-08,
        ],
        [
            0.9999999981494259,
            1.6143993719507204e-08,
            -6.861197330583845e-08,
            1.890192597995592e-07,
            -3.7879526983383196e-07,
            5.872461797936775e-07,
            -7.309199654212912e-07,
            7.477252231001777e-07,
            -6.37834656523887e-07,
            4.5700581729818335e-07,
            -2.7500786094321867e-07,
            1.377741503313587e-07,
            -5.655309447048697e-08,
            1.703091943167985e-08,
        ],
        [
            0.9999999999815149,
            1.7934357034353256e-10,
            -8.518819585501894e-10,
            2.6378450136141567e-09,
            -5.980921403439721e-09,
            1.0572396927692433e-08,
            -1.5144701789651e-08,
            1.8036301277976957e-08,
            -1.8173468655661378e-08,
            1.5675568258151044e-08,
            -1.1645597137497432e-08,
            7.500767558845102e-09,
            -4.35232109852286e-09,
            2.049854216764062e-09,
        ],
        [
            0.9999999999998869,
            1.2084074716093265e-12,
            -6.3441391965136284e-12,
            2.1801684786565257e-11,
            -5.511471704429019e-11,
            1.0920038803325359e-10,
            -1.7640269613546945e-10,
            2.3860470121491385e-10,
            -2.7540126376724834e-10,
            2.748828746176984e-10,
            -2.3888787209141457e-10,
            1.834293290048941e-10,
            -1.33374243044882e-10,
            7.87516422700037e-11,
        ],
        [
            0.9999999999999996,
            4.9384851411824895e-15,
            -2.8396288954473957e-14,
            1.0720628125956702e-13,
            -2.9875278475970634e-13,
            6.549692514839024e-13,
            -1.1756753433806352e-12,
            1.775537607069319e-12,
            -2.30109051151223e-12,
            2.5945550729449734e-12,
            -2.5585495268186886e-12,
            2.2579165888464656e-12,
            -1.9637541497887333e-12,
            1.3599117789003806e-12,
        ],
    ]
)
PIECES_BY_DEGREE = PIECES.T.copy()  # row j: the coefficients of h**j of every interval


def horner(x: np.ndarray, coefficients) -> np.ndarray:
    """The polynomial with ``coefficients`` (lowest degree first) at every entry of ``x``, in place of temporaries."""
    if coefficients[-1] == 1:  # monic: x + c, one operation less
        out = x + coefficients[-2]
    else:
        out = x * coefficients[-1]
        out += coefficients[-2]
    for c in reversed(coefficients[:-2]):
        out *= x
        out += c
    return out


def _erf_from_w(z: np.ndarray) -> np.ndarray:
    """erf of a float64 array by the formula of float32: ``sign(z) sqrt(1 - exp(-t W(t)))``, ``t = z**2``."""
    t = z * z
    np.minimum(t, 1e30, out=t)  # past it P(t) overflows and P / Q = inf / inf; erf is 1 long before
    return np.copysign(abs_erf_from_w(t, W_P, W_Q), z)


def abs_erf_from_w(t: np.ndarray, p, q, half: float = 1.0) -> np.ndarray:
    """``half * |erf|`` from ``t`` (float64) and W's coefficients ``p`` (negated: ``-W``) and ``q`` (monic)."""
    w = horner(t, p)  # -P(t); W = P / Q stays between 1 and 4 / pi for every t >= 0: no clamp needed
    w /= horner(t, q)
    w *= t
    np.expm1(w, out=w)  # exp(-t W) - 1 = -erf**2
    w *= -half * half
    return np.sqrt(w, out=w)


def _erf_float64(x: np.ndarray) -> np.ndarray:
    """erf of a float64 array by polynomials: ``x + x B(x**2)`` for ``|x| <= 1``, one polynomial per half unit beyond."""
    a = np.abs(x)
    out = np.empty_like(x)
    small = a <= 1.0
    xs = x[small]
    out[small] = xs + xs * horner(xs * xs, SMALL)  # the last addition, of at most 0.13 x, rounds once
    large = ~small
    if np.any(large):
        al = np.minimum(a[large], 6.0)  # erf(6) = 1 - 2e-17 rounds to 1, as everything past it
        k = np.minimum(((al - 1.0) / PIECE_WIDTH).astype(np.intp), len(PIECES) - 1)  # which interval
        h = al - (1.0 + (k + 0.5) * PIECE_WIDTH)  # the distance from its centre, |h| <= 1/4
        p = PIECES_BY_DEGREE[-1].take(k)  # Horner, each entry with its own interval's coefficients
        for coefficients in PIECES_BY_DEGREE[-2::-1]:
            p *= h
            p += coefficients.take(k)
        out[large] = np.copysign(p, x[large])
    return out


def _erf(x: np.ndarray) -> np.ndarray:
    """``erf`` without the checks: ``x`` a float array without NaN (inf gives +-1), the result in its dtype."""
    return in_blocks(_erf_float64 if x.dtype == np.float64 else _erf_from_w, x, np.float64)


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    r"""$\Phi(x) = \tfrac12 (1 + \operatorname{erf}(x / \sqrt 2))$, the standard normal's cumulative distribution:
    GELU's gate, computed as written.

    float64 from ``erf``'s polynomials. float32 and float16 by the formula of W in float32 arithmetic, as
    PyTorch computes GELU in float32: twice as fast as in float64 and, from ``tests/library/test_erf.py``, within
    2 ulp of the exact $\Phi$ for $x \ge 0$ and within $10^{-7}$ of it below, where $1 + \operatorname{erf}$ cancels
    (PyTorch's float32 GELU is off by up to $3 \times 10^{-7}$ there)."""
    if x.dtype == np.float64:
        e = _erf(x * SQRT_HALF)
        e += 1.0
        e *= 0.5
        return e
    return in_blocks(normal_cdf_from_w, x, np.float32)


def normal_cdf_from_w(x: np.ndarray) -> np.ndarray:
    """``(1 + erf(x / sqrt 2)) / 2`` by W in ``x``'s precision, with ``t = x**2 / 2`` folded into its coefficients."""
    half_erf = abs_erf_from_w(x * x, W_P_HALF, W_Q_HALF, half=0.5)
    np.copysign(half_erf, x, out=half_erf)
    half_erf += 0.5
    return half_erf


def blocks(size: int):
    """Slices of ``BLOCK`` consecutive entries, covering ``0 .. size - 1``."""
    return (slice(start, start + BLOCK) for start in range(0, size, BLOCK))


def in_blocks(f, x: np.ndarray, dtype) -> np.ndarray:
    """``f`` of every entry of ``x``, computed in ``dtype`` a block at a time, rounded to ``x``'s dtype."""
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(flat.shape, dtype=x.dtype)
    for block in blocks(flat.size):
        out[block] = f(flat[block].astype(dtype, copy=False))
    return out.reshape(x.shape)


# --8<-- [start:erf]
def erf(x):
    r"""The error function of every entry of ``x``, within 2 ulp of ``math.erf``, in ``x``'s dtype.

    $\operatorname{erf}(x) = \frac{2}{\sqrt\pi} \int_0^x e^{-s^2}\, ds$ runs from $-1$ to 1; $\tfrac12(1 +
    \operatorname{erf}(x / \sqrt 2))$ is the standard normal's cumulative distribution $\Phi(x)$. As
    ``math.erf`` and ``torch.erf``, $\pm\infty$ gives $\pm 1$; NaN is refused.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.erf import erf
    >>> print(erf(np.array([-np.inf, -1.0, 0.0, 0.5, 2.0])))
    [-1.         -0.84270079  0.          0.52049988  0.99532227]
    >>> erf(np.array([0.5], dtype=np.float32)).dtype
    dtype('float32')
    """
    x = float_array(x, "x")
    check_no_nan(x, "x")
    return _erf(x)


# --8<-- [end:erf]
