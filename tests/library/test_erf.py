"""The vectorised erf against ``math.erf``, and GELU's fast paths against the formula they compute.

``erf`` is claimed within 2 ulp of ``math.erf`` at every input: measured on a dense grid, on random inputs
across the whole exponent range, on every finite float16, and at the edges (0, subnormals, the point past which
erf rounds to 1, infinities). An ulp is the spacing of the input's dtype at the value.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from transformer_math.block import _gelu_derivative, gelu, gelu_derivative
from transformer_math.erf import _normal_cdf, erf

EXACT_ERF = np.vectorize(math.erf, otypes=[float])
RNG = np.random.default_rng(20240617)


def ulps_from_math_erf(x: np.ndarray) -> np.ndarray:
    """How many ulps of ``x``'s dtype ``erf(x)`` is from ``math.erf`` (computed in float64 from the same input)."""
    exact = EXACT_ERF(x.astype(np.float64))
    spacing = np.spacing(np.abs(exact).astype(x.dtype)).astype(np.float64)
    return np.abs(erf(x).astype(np.float64) - exact) / spacing


EDGES = [0.0, -0.0, 5e-324, 1e-310, 1e-300, 1e-20, 1e-8, 0.5, 1 - 2**-53, 1.0, 1 + 2**-52, 5.9, 5.92, 6.0, 27.0, 1e300]
INPUTS = {
    "a grid of a million points on [-7, 7]": np.linspace(-7, 7, 1_000_001),
    "random, normal with spread 3": RNG.normal(0, 3, 500_000),
    "random, every exponent from 1e-300 to 1e2": np.exp(RNG.uniform(-690, 5, 500_000)) * RNG.choice([-1, 1], 500_000),
    "around the seams |x| = 1, 1.5, ..., 6": (np.arange(2, 13) / 2)[:, None] + np.linspace(-1e-9, 1e-9, 2001),
    "the edges": np.array(EDGES + [-v for v in EDGES]),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("name", list(INPUTS))
def test_erf_is_within_2_ulp_of_math_erf(name, dtype):
    with np.errstate(over="ignore"):  # 1e300 becomes inf in float32: erf(inf) = 1 is then the value checked
        x = INPUTS[name].astype(dtype).ravel()
    errors = ulps_from_math_erf(x)
    worst = int(np.argmax(errors))
    assert errors[worst] <= 2, f"erf({x[worst]!r}) is {errors[worst]:.2f} ulp from math.erf"
    assert erf(x).dtype == dtype


def test_erf_of_every_float16_is_within_1_ulp():
    x = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16)  # every finite float16 >= 0
    assert ulps_from_math_erf(x).max() <= 1
    np.testing.assert_array_equal(erf(-x), -erf(x))  # odd


def test_erf_at_its_limits():
    for dtype in (np.float16, np.float32, np.float64):
        np.testing.assert_array_equal(erf(np.array([-np.inf, np.inf, 0.0], dtype=dtype)), [-1.0, 1.0, 0.0])
    assert np.signbit(erf(np.array([-0.0]))[0])  # erf(-0) = -0, as math.erf
    assert erf(np.array([6.0]))[0] == 1.0 and erf(np.array([5.9]))[0] < 1.0  # 1 - 1.6e-17 rounds below 1 ...
    assert erf(np.array([5e-324]))[0] == 5e-324  # ... and the smallest subnormal is 2x / sqrt(pi), rounded
    with pytest.raises(ValueError, match="x contains NaN"):
        erf([0.0, np.nan])


def exact_gelu(x: np.ndarray) -> np.ndarray:
    """x Phi(x) in float64 by math.erf: exact to an ulp of 1 in Phi (1 + erf cancels below 0)."""
    return x * 0.5 * (1 + EXACT_ERF(x / math.sqrt(2)))


def test_float32_gelu_is_the_formula_to_float32_precision():
    # GELU's gate in float32 is the W formula in float32 arithmetic (twice as fast as float64): for x >= -1 within
    # 3 ulp of x Phi(x); below, where 1 + erf cancels in any precision, within 1e-7 |x| absolute. PyTorch's
    # float32 GELU, the same formula, is off by up to 3e-7 |x| there (measured with torch 2.13).
    x = np.concatenate([np.linspace(-12, 8, 400_001), RNG.normal(0, 2, 200_000)]).astype(np.float32)
    exact = exact_gelu(x.astype(np.float64))
    error = np.abs(gelu(x).astype(np.float64) - exact)
    ulps = error / np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    assert ulps[x >= -1].max() <= 3
    assert np.all(error[x < -1] <= 1e-7 * np.abs(x[x < -1]))
    gate = _normal_cdf(x).astype(np.float64)
    assert np.all(np.abs(gate - 0.5 * (1 + EXACT_ERF(x.astype(np.float64) / math.sqrt(2)))) <= 8e-8)


def test_float64_gelu_is_the_formula_to_its_precision():
    x = np.concatenate([np.linspace(-40, 40, 200_001), RNG.normal(0, 2, 100_000)])
    exact = exact_gelu(x)
    # Phi = (1 + erf) / 2 to 2 ulp of 1 (erf within 1 ulp, then two roundings), times x, rounded once more
    assert np.all(np.abs(gelu(x) - exact) <= 3e-16 * np.abs(x) + 1.2e-16 * np.abs(exact))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_derivative_is_the_slope_of_gelu(approximate):
    x = np.linspace(-8, 8, 1601)
    h = 1e-6
    central = (gelu(x + h, approximate) - gelu(x - h, approximate)) / (2 * h)
    np.testing.assert_allclose(gelu_derivative(x, approximate), central, atol=1e-8)
    x32 = x.astype(np.float32)
    gate = gelu(x32, approximate) / np.where(x32 == 0, 1, x32)
    gate[x32 == 0] = 0.5
    # float32: the derivative from the float32 gate g; the tanh form's g (1 - g) loses digits where g is near 1
    tolerance = 2e-6 if approximate == "none" else 5e-6
    np.testing.assert_allclose(_gelu_derivative(x32, gate.astype(np.float32), approximate), central, atol=tolerance)
