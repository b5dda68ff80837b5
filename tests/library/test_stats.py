"""transformer_math.stats: real values, LayerNorm's guarantees, errors, and agreement with NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from transformer_math.stats import layer_norm, mean, std, variance


def test_seed_example():
    data = np.array([1, 2, 3, 4, 5])
    assert mean(data) == 3.0
    assert variance(data) == 2.0
    assert variance(data, ddof=1) == 2.5
    assert std(data) == 1.4142135623730951 == np.std(data)
    assert std(data, ddof=1) == np.std(data, ddof=1)


def test_axes_and_keepdims():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(mean(x, axis=-1), x.mean(axis=-1))
    np.testing.assert_array_equal(mean(x, axis=(0, 2)), x.mean(axis=(0, 2)))
    assert mean(x, axis=1, keepdims=True).shape == (2, 1, 4)
    assert variance(x, axis=0, keepdims=True).shape == (1, 3, 4)


def test_layer_norm_per_token_mean_zero_std_one():
    rng = np.random.default_rng(0)
    x = rng.normal(5.0, 3.0, size=(2, 4, 8))
    y = layer_norm(x)
    np.testing.assert_allclose(y.mean(axis=-1), 0.0, atol=1e-12)
    var = x.var(axis=-1)
    np.testing.assert_allclose(y.std(axis=-1), np.sqrt(var / (var + 1e-5)), rtol=1e-12)
    np.testing.assert_allclose(y.std(axis=-1), 1.0, atol=1e-5)


def test_layer_norm_gamma_beta_and_axis():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 5))
    gamma, beta = rng.normal(size=5), rng.normal(size=5)
    reference = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * gamma + beta
    np.testing.assert_allclose(layer_norm(x, gamma, beta), reference, rtol=1e-12)
    np.testing.assert_allclose(layer_norm(x.T, gamma, beta, axis=0), reference.T, rtol=1e-12)


def test_layer_norm_of_a_constant_vector_is_zero_not_nan():
    np.testing.assert_array_equal(layer_norm(np.full(4, 7.0)), np.zeros(4))


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"gamma must have shape \(4,\) to match axis -1 of x \(2, 4\), got \(3,\)"):
        layer_norm(np.zeros((2, 4)), gamma=np.ones(3))
    with pytest.raises(ValueError, match=r"beta must have shape \(4,\)"):
        layer_norm(np.zeros((2, 4)), beta=np.ones((1, 4)))
    with pytest.raises(ValueError, match="variance with ddof=1 needs more than 1 values along axis None, got 1"):
        variance([3.0], ddof=1)
    with pytest.raises(ValueError, match="mean of no values"):
        mean([])


@st.composite
def array_axis(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=2, max_side=6))
    x = draw(hnp.arrays(np.float64, shape, elements=st.floats(-1e3, 1e3)))
    axis = draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    return x, axis


@settings(max_examples=200, deadline=None)
@given(array_axis(), st.integers(0, 1))
def test_matches_numpy(data, ddof):
    x, axis = data
    np.testing.assert_allclose(mean(x, axis=axis), np.mean(x, axis=axis), rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(
        variance(x, axis=axis, ddof=ddof), np.var(x, axis=axis, ddof=ddof), rtol=1e-12, atol=1e-9
    )
    np.testing.assert_allclose(std(x, axis=axis, ddof=ddof), np.std(x, axis=axis, ddof=ddof), rtol=1e-12, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(
    hnp.arrays(np.float64, (3, 6), elements=st.floats(-100, 100)).filter(lambda x: np.all(np.ptp(x, axis=-1) > 1e-3)),
    st.floats(1e-3, 1e3),
    st.floats(-1e3, 1e3),
)
def test_layer_norm_is_invariant_to_scale_and_shift(x, a, b):
    """LN(a x + b) = LN(x) for a > 0: the output does not see the units of its input (eps = 0 makes it exact)."""
    np.testing.assert_allclose(layer_norm(a * x + b, eps=0), layer_norm(x, eps=0), rtol=1e-6, atol=1e-6)
