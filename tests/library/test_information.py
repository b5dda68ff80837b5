"""transformer_math.information: real values, edge cases, clear errors, and agreement with SciPy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.special
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from transformer_math.information import (
    cross_entropy,
    cross_entropy_from_logits,
    entropy,
    kl_divergence,
    perplexity,
)
from transformer_math.softmax import log_softmax, softmax

# --- values -------------------------------------------------------------------------------------


def test_seed_examples():
    assert entropy([0.8, 0.2]) == pytest.approx(0.5004024235381879, rel=1e-15)
    assert cross_entropy([1, 0, 0], [0.8, 0.1, 0.1]) == pytest.approx(-np.log(0.8), rel=1e-15)
    assert cross_entropy([0, 1, 0], [0.1, 0.8, 0.1]) == pytest.approx(0.2231435513142097, rel=1e-15)
    assert kl_divergence([0.7, 0.3], [0.6, 0.4]) == pytest.approx(0.021601, abs=1e-6)
    assert kl_divergence([0.7, 0.3], [0.7, 0.3]) == 0.0


def test_one_hot_entropy_is_zero_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = entropy(np.eye(4))
    np.testing.assert_array_equal(h, np.zeros(4))
    assert not np.signbit(h).any()


def test_uniform_entropy_is_log_n():
    assert entropy(np.full(8, 1 / 8)) == pytest.approx(np.log(8))


def test_kl_infinite_when_q_rules_out_what_p_allows():
    assert kl_divergence([0.5, 0.5], [1.0, 0.0]) == np.inf
    assert kl_divergence([1.0, 0.0], [0.5, 0.5]) == pytest.approx(np.log(2))


def test_kl_is_asymmetric_and_cross_entropy_decomposes():
    p, q = np.array([0.7, 0.2, 0.1]), np.array([0.2, 0.5, 0.3])
    assert kl_divergence(p, q) != pytest.approx(kl_divergence(q, p))
    assert cross_entropy(p, q) == pytest.approx(entropy(p) + kl_divergence(p, q), rel=1e-14)


def test_cross_entropy_is_exact_down_to_zero():
    """No clipping: -log p exactly for every p > 0, and inf at p = 0, without a warning."""
    assert cross_entropy([1.0, 0.0], [1e-20, 1 - 1e-20]) == pytest.approx(20 * np.log(10), rel=1e-15)
    assert cross_entropy([1.0, 0.0], [5e-324, 1.0]) == pytest.approx(744.44007, rel=1e-7)
    assert cross_entropy([1.0, 0.0], [0.0, 1.0]) == np.inf
    assert cross_entropy([0.0, 1.0], [0.0, 1.0]) == 0.0


def test_cross_entropy_batch_is_a_mean():
    y = np.eye(3)
    q = np.array([[0.8, 0.1, 0.1], [0.2, 0.6, 0.2], [0.25, 0.25, 0.5]])
    assert cross_entropy(y, q) == pytest.approx(-np.mean(np.log([0.8, 0.6, 0.5])), rel=1e-15)


def test_cross_entropy_from_logits_is_minus_log_softmax_at_targets():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(2, 5, 7))
    targets = rng.integers(0, 7, size=(2, 5))
    expected = -np.mean(np.take_along_axis(log_softmax(logits), targets[..., None], axis=-1))
    assert cross_entropy_from_logits(logits, targets) == expected
    one_hot = np.eye(7)[targets]
    assert cross_entropy_from_logits(logits, targets) == pytest.approx(
        cross_entropy(one_hot, softmax(logits)), rel=1e-12
    )


def test_cross_entropy_from_logits_stays_finite_where_the_probability_underflows():
    logits = np.array([[0.0, 1e4]])
    assert cross_entropy_from_logits(logits, [0]) == 1e4


def test_cross_entropy_from_logits_is_finite_up_to_a_span_of_the_largest_float_and_inf_past_it():
    big = np.finfo(np.float64).max
    assert cross_entropy_from_logits([[0.0, 0.9 * big]], [0]) == 0.9 * big
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the sum of two such losses overflows; the mean must not, nor warn
        assert cross_entropy_from_logits([[0.0, 0.9 * big], [0.0, 0.9 * big]], [0, 0]) == pytest.approx(0.9 * big)
        assert cross_entropy_from_logits([[-0.6 * big, 0.6 * big]], [0]) == np.inf  # the true loss, 1.2 * big
        assert cross_entropy_from_logits([[-np.inf, 0.0], [0.0, 0.0]], [0, 0]) == np.inf  # a masked target


def test_perplexity_of_uniform_model_is_vocab_size():
    assert perplexity(np.zeros((3, 4, 50)), np.zeros((3, 4), dtype=int)) == pytest.approx(50)
    assert perplexity([[100.0, 0.0]], [0]) == pytest.approx(1.0)


# --- errors -------------------------------------------------------------------------------------


def test_distribution_errors():
    with pytest.raises(ValueError, match=r"p has negative probabilities \(smallest -0.1\)"):
        entropy([1.1, -0.1])
    with pytest.raises(ValueError, match=r"p must sum to 1 along axis -1 \(tolerance 1e-06\), but a row sums to 0.9"):
        entropy([0.5, 0.4])
    with pytest.raises(ValueError, match="y_pred must sum to 1"):
        cross_entropy([1, 0], [0.3, 0.3])
    with pytest.raises(ValueError, match="q contains NaN"):
        kl_divergence([0.5, 0.5], [np.nan, 0.5])


def test_shape_errors_name_both_shapes():
    with pytest.raises(ValueError, match=r"p has shape \(2,\) but q has shape \(3,\)"):
        kl_divergence([0.5, 0.5], [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match=r"y_true has shape \(1, 2\) but y_pred has shape \(2,\)"):
        cross_entropy([[1.0, 0.0]], [0.5, 0.5])
    with pytest.raises(
        ValueError, match=r"logits of shape \(2, 3, 5\) need targets of shape \(2, 3\).*got targets of shape \(2,\)"
    ):
        cross_entropy_from_logits(np.zeros((2, 3, 5)), [0, 1])


def test_target_errors_name_index_and_vocabulary():
    with pytest.raises(
        ValueError,
        match=r"target 5 at position \(1, 0\) of targets is out of range for a vocabulary of 5 tokens \(valid ids: 0 to 4\)",
    ):
        cross_entropy_from_logits(np.zeros((2, 2, 5)), [[0, 1], [5, 2]])
    with pytest.raises(ValueError, match=r"target -1 at position \(0,\)"):
        cross_entropy_from_logits(np.zeros((1, 5)), [-1])
    with pytest.raises(TypeError, match="targets must be integer token ids, got dtype float64"):
        cross_entropy_from_logits(np.zeros((1, 5)), [1.0])


# --- properties against SciPy -------------------------------------------------------------------


@st.composite
def distributions(draw, count=1, zeros=True):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    low = 0.0 if zeros else 1e-3
    out = []
    for _ in range(count):
        raw = draw(hnp.arrays(np.float64, shape, elements=st.floats(low, 1.0)))
        raw = np.where(raw.sum(axis=axis, keepdims=True) == 0, 1.0, raw)  # no all-zero distribution
        out.append(raw / raw.sum(axis=axis, keepdims=True))
    return (*out, axis)


@settings(max_examples=200, deadline=None)
@given(distributions())
def test_entropy_matches_scipy(data):
    p, axis = data
    np.testing.assert_allclose(entropy(p, axis=axis), scipy.stats.entropy(p, axis=axis), rtol=1e-12, atol=1e-15)


@settings(max_examples=200, deadline=None)
@given(distributions(count=2))
def test_kl_matches_scipy_rel_entr(data):
    p, q, axis = data
    expected = np.sum(scipy.special.rel_entr(p, q), axis=axis)
    np.testing.assert_allclose(kl_divergence(p, q, axis=axis), expected, rtol=1e-12, atol=1e-15)
    assert np.all(kl_divergence(p, q, axis=axis) >= -1e-15)


@settings(max_examples=200, deadline=None)
@given(distributions(count=2, zeros=False))
def test_cross_entropy_is_entropy_plus_kl(data):
    p, q, axis = data
    p, q = np.moveaxis(p, axis, -1), np.moveaxis(q, axis, -1)
    assert cross_entropy(p, q) == pytest.approx(float(np.mean(entropy(p) + kl_divergence(p, q))), rel=1e-12)


@st.composite
def logits_and_targets(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6))
    vocab = draw(st.integers(1, 12))
    logits = draw(hnp.arrays(np.float64, (*shape, vocab), elements=st.floats(-1e3, 1e3)))
    targets = draw(hnp.arrays(np.int64, shape, elements=st.integers(0, vocab - 1)))
    return logits, targets


@settings(max_examples=200, deadline=None)
@given(logits_and_targets())
def test_cross_entropy_from_logits_matches_scipy(data):
    logits, targets = data
    picked = np.take_along_axis(scipy.special.log_softmax(logits, axis=-1), targets[..., None], axis=-1)
    expected = -np.mean(picked)
    assert cross_entropy_from_logits(logits, targets) == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert np.isfinite(cross_entropy_from_logits(logits, targets))


@settings(max_examples=200, deadline=None)
@given(
    hnp.arrays(np.float64, 5, elements=st.floats(0, 1)).filter(lambda p: p.sum() > 1e-3),
    hnp.arrays(np.float64, 5, elements=st.floats(1e-6, 1)),
)
def test_kl_is_never_negative_and_zero_only_for_equal_distributions(p, q):
    """Gibbs' inequality: D(P || Q) >= 0, with equality exactly when P = Q."""
    p, q = p / p.sum(), q / q.sum()
    assert kl_divergence(p, q) >= 0
    assert kl_divergence(p, p) == pytest.approx(0.0, abs=1e-15)
