"""transformer_math.softmax: real values, edge cases, clear errors, and agreement with SciPy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from transformer_math.softmax import log_softmax, logsumexp, naive_softmax, softmax

# --- values -------------------------------------------------------------------------------------


def test_seed_example():
    np.testing.assert_allclose(softmax([2.0, 1.0, 0.1]), [0.6590011388859679, 0.2424329707047139, 0.09856589040931818])


def test_shift_invariance_is_exact_for_the_lesson_example():
    assert np.array_equal(softmax([1000.0, 1001.0, 1002.0]), softmax([0.0, 1.0, 2.0]))


def test_naive_softmax_overflows_with_a_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = naive_softmax([1000.0, 1001.0, 1002.0])
    assert np.all(np.isnan(result))
    assert any("overflow encountered in exp" in str(w.message) for w in caught)


def test_masked_positions_get_exactly_zero():
    p = softmax([[1.0, -np.inf, 2.0, -np.inf], [0.0, 0.0, 0.0, -np.inf]])
    assert p[0, 1] == 0.0 and p[0, 3] == 0.0 and p[1, 3] == 0.0
    np.testing.assert_allclose(p.sum(axis=-1), 1.0)
    np.testing.assert_allclose(p[1, :3], 1 / 3)


def test_causal_mask_rows():
    scores = np.zeros((4, 4))
    scores[np.triu_indices(4, k=1)] = -np.inf
    p = softmax(scores)
    np.testing.assert_allclose(p, np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None])


def test_temperature():
    x = np.array([2.0, 1.0, 0.1])
    np.testing.assert_allclose(softmax(x, temperature=2.0), scipy.special.softmax(x / 2.0), rtol=1e-12)
    np.testing.assert_allclose(softmax(x, temperature=0.5), scipy.special.softmax(x / 0.5), rtol=1e-12)
    assert softmax(x, temperature=0.01)[0] == pytest.approx(1.0)
    np.testing.assert_allclose(softmax(x, temperature=1e6), 1 / 3, rtol=1e-5)


def test_input_is_not_modified_and_dtypes():
    x = np.array([[1.0, 2.0, 3.0]])
    before = x.copy()
    softmax(x)
    log_softmax(x)
    logsumexp(x)
    assert np.array_equal(x, before)
    assert softmax(np.array([1, 2, 3])).dtype == np.float64
    assert softmax(np.array([1, 2, 3], dtype=np.float32)).dtype == np.float32


def test_log_softmax_is_finite_while_a_row_spans_less_than_the_largest_float():
    for dtype in (np.float64, np.float32):
        big = np.finfo(dtype).max
        np.testing.assert_array_equal(
            log_softmax(np.array([-0.4, 0.4], dtype) * big), np.array([-0.8, 0.0], dtype) * big
        )
        out = log_softmax(np.array([-0.6, 0.6], dtype) * big)  # x - m = -1.2 * big is no float
        assert out.dtype == dtype and out[0] == -np.inf and out[1] == 0.0


def test_log_softmax_is_finite_over_a_wide_spread():
    x = np.array([-1e4, 0.0, 1e4])
    out = log_softmax(x)
    assert np.all(np.isfinite(out))
    np.testing.assert_array_equal(out, [-2e4, -1e4, 0.0])
    with np.errstate(divide="ignore"):
        assert np.isneginf(np.log(softmax(x))[0])  # the naive route loses it


def test_log_softmax_keeps_masked_entries_at_minus_inf():
    out = log_softmax([0.0, -np.inf, 0.0])
    assert out[1] == -np.inf
    np.testing.assert_allclose(out[[0, 2]], np.log(0.5))


def test_logsumexp_values():
    assert logsumexp([1000.0, 1000.0]) == pytest.approx(1000 + np.log(2))
    assert logsumexp([-np.inf, -np.inf]) == -np.inf
    assert logsumexp([np.inf, 0.0]) == np.inf
    assert logsumexp(np.zeros((2, 3)), keepdims=True).shape == (2, 1)
    np.testing.assert_allclose(logsumexp(np.zeros((2, 3)), axis=0), np.log(2))


# --- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize("t", [0, -1.0, float("nan")])
def test_temperature_must_be_positive(t):
    with pytest.raises(ValueError, match="temperature must be a finite number > 0, got"):
        softmax([1.0, 2.0], temperature=t)


@pytest.mark.parametrize("fn", [softmax, log_softmax])
def test_fully_masked_row_is_an_error_not_nan(fn):
    x = np.zeros((2, 3, 4))
    x[1, 2] = -np.inf
    with pytest.raises(ValueError, match=r"every position of row \(1, 2\) is -inf, i.e. every position is masked"):
        fn(x)


@pytest.mark.parametrize("fn", [softmax, log_softmax])
def test_nan_and_plus_inf_are_refused(fn):
    with pytest.raises(ValueError, match="contains NaN"):
        fn([1.0, np.nan])
    with pytest.raises(ValueError, match=r"contains \+inf"):
        fn([1.0, np.inf])


def test_scalar_and_empty_axis_are_refused():
    with pytest.raises(ValueError, match=r"x is a scalar \(shape \(\)\); it has no axis -1"):
        softmax(3.0)
    with pytest.raises(ValueError, match=r"axis -1 of x, shape \(2, 0\), has length 0"):
        softmax(np.zeros((2, 0)))


# --- properties against SciPy -------------------------------------------------------------------


@st.composite
def array_and_axis(draw, low=-1e3, high=1e3):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=6))
    x = draw(hnp.arrays(np.float64, shape, elements=st.floats(low, high, allow_nan=False, allow_infinity=False)))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    return x, axis


@settings(max_examples=200, deadline=None)
@given(array_and_axis())
def test_softmax_matches_scipy(data):
    x, axis = data
    p = softmax(x, axis=axis)
    np.testing.assert_allclose(p, scipy.special.softmax(x, axis=axis), rtol=1e-12, atol=0)
    np.testing.assert_allclose(p.sum(axis=axis), 1.0, rtol=1e-12)
    assert np.all(p >= 0)


@settings(max_examples=200, deadline=None)
@given(array_and_axis(), st.floats(0.05, 20.0))
def test_softmax_with_temperature_matches_scipy(data, t):
    x, axis = data
    np.testing.assert_allclose(
        # (x - m) / t and x / t - m / t differ in their last bit; exp turns that into a relative error of up
        # to |exponent| * 1e-16, about 1e-12 for a probability of 1e-270
        softmax(x, axis=axis, temperature=t),
        scipy.special.softmax(x / t, axis=axis),
        rtol=1e-10,
        atol=1e-300,
    )


@settings(max_examples=200, deadline=None)
@given(array_and_axis())
def test_log_softmax_matches_scipy(data):
    x, axis = data
    np.testing.assert_allclose(log_softmax(x, axis=axis), scipy.special.log_softmax(x, axis=axis), rtol=1e-12, atol=0)


@settings(max_examples=200, deadline=None)
@given(array_and_axis(), st.booleans())
def test_logsumexp_matches_scipy(data, keepdims):
    x, axis = data
    ours = logsumexp(x, axis=axis, keepdims=keepdims)
    theirs = scipy.special.logsumexp(x, axis=axis, keepdims=keepdims)
    assert np.shape(ours) == np.shape(theirs)
    # relative 1e-12; the absolute floor covers results that cancel to ~0 (m + log s with log s = -m)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(array_and_axis(low=-30, high=30), st.floats(-1e4, 1e4))
def test_softmax_is_shift_invariant(data, c):
    x, axis = data
    np.testing.assert_allclose(softmax(x + c, axis=axis), softmax(x, axis=axis), rtol=1e-9, atol=1e-15)


@settings(max_examples=100, deadline=None)
@given(array_and_axis())
def test_log_softmax_is_log_of_softmax_where_representable(data):
    x, axis = data
    p = softmax(x, axis=axis)
    ok = p > 1e-300
    np.testing.assert_allclose(np.exp(log_softmax(x, axis=axis))[ok], p[ok], rtol=1e-12)


def test_float16_rows_longer_than_its_largest_value_are_summed_in_float32():
    """70,000 equal float16 logits: each exponential is 1, and their float16 sum (65,504 at most) would overflow."""
    from transformer_math.information import cross_entropy_from_logits

    z = np.zeros(70_000, dtype=np.float16)
    p = softmax(z)
    assert p.dtype == np.float16 and abs(float(p.astype(np.float64).sum()) - 1) < 2e-3
    assert np.all(log_softmax(z) == np.float16(-np.log(70_000)))
    assert logsumexp(z).dtype == np.float16 and logsumexp(z) == np.float16(np.log(70_000))
    assert abs(cross_entropy_from_logits(z[None, :], [0]) - np.log(70_000)) < 1e-2
