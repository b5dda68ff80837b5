"""Values at the edges where a plain formula goes silently wrong, each against what PyTorch, SciPy or exact
mathematics gives: overflow and underflow in softmax, exp, variance and norms, float32 kept float32, -inf as a
mask, NaN as an error, no RuntimeWarning.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from transformer_math.attention import multi_head_attention, positional_encoding, scaled_dot_product_attention
from transformer_math.autograd import Value
from transformer_math.calculus import derivative, gradient_check, numerical_gradient
from transformer_math.linalg import dot, matmul_loops, power_iteration
from transformer_math.optim import SGD, AdamW
from transformer_math.schedules import clip_grad_norm
from transformer_math.softmax import logsumexp, softmax
from transformer_math.stats import layer_norm, std, variance
from transformer_math.transformer import (
    backward,
    cross_entropy_backward,
    forward,
    init_params,
    loss_and_grads,
    make_windows,
    sampling_distribution,
    train,
)

pytestmark = pytest.mark.filterwarnings("error")  # no warning may escape on the way to an answer or an error


# --- the seven silent wrong answers ---------------------------------------------------------------


def test_softmax_divides_by_a_huge_temperature_before_the_shift_overflows():
    # torch.softmax(torch.tensor([1e308, -1e308], dtype=torch.float64) / 1e308, 0) = [0.8808, 0.1192]
    p = softmax([1e308, -1e308], temperature=1e308)
    np.testing.assert_allclose(p, [1 / (1 + math.exp(-2)), 1 / (1 + math.exp(2))], rtol=1e-15)
    np.testing.assert_array_equal(softmax([1.0, 2.0, 2.0], temperature=1e-308), [0.0, 0.5, 0.5])  # T -> 0


def test_value_exp_overflows_only_past_the_largest_double():
    y = Value(709.78).exp()
    assert y.data == pytest.approx(1.7928227943945155e308, rel=1e-15)  # math.exp(709.78)
    y.backward()
    assert math.isfinite(y.parents[0].grad)
    assert Value(709.8).exp().data == math.inf


@pytest.mark.parametrize("scale", [1e-170, 1e-300, 1.0, 1e200, 1e300])
def test_power_iteration_scales_any_finite_matrix(scale):
    value, vector = power_iteration(scale * np.array([[2.0, 1.0], [1.0, 2.0]]))
    assert value == pytest.approx(3 * scale, rel=1e-12)
    np.testing.assert_allclose(vector, [math.sqrt(0.5), math.sqrt(0.5)], rtol=1e-12)


def test_variance_and_std_square_in_a_wider_type():
    # torch.var(torch.tensor([0, 300, 600], dtype=torch.float16), correction=0) = 60000 (float16)
    v = variance(np.array([0, 300, 600], dtype=np.float16))
    assert v.dtype == np.float16 and float(v) == 60000.0
    s = std(np.array([1e20, -1e20], dtype=np.float32))  # torch.std(..., correction=0) = 1e20 (float32)
    assert s.dtype == np.float32 and float(s) == pytest.approx(1e20, rel=1e-7)
    assert float(std(np.array([1e200, -1e200]))) == pytest.approx(1e200, rel=1e-15)  # exact, though var overflows


def test_layer_norm_refuses_nan_and_inf_in_gamma_and_beta():
    with pytest.raises(ValueError, match=r"beta contains NaN \(first at index \(0,\)"):
        layer_norm([1.0, 2.0, 3.0], beta=[np.nan, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"gamma contains inf"):
        layer_norm([1.0, 2.0, 3.0], gamma=[np.inf, 1.0, 1.0])


def test_booleans_are_not_numbers_for_clipping_and_sampling():
    with pytest.raises(TypeError, match="gradient 0 must hold numbers, got a boolean array"):
        clip_grad_norm([np.array([True, False])], 1.0)
    with pytest.raises(TypeError, match="logits must hold numbers, got a boolean array"):
        sampling_distribution([True, False])


def test_optimizers_refuse_a_gradient_of_another_dtype_and_change_nothing():
    w = np.ones(2, dtype=np.float32)
    for opt in (SGD([w], lr=1.0), AdamW([w], lr=1.0)):
        with pytest.raises(TypeError, match="gradient 0 has dtype float64, but parameter 0 has dtype float32"):
            opt.step([np.full(2, 1e39)])
    np.testing.assert_array_equal(w, [1.0, 1.0])
    SGD([w], lr=0.5).step([np.ones(2, dtype=np.float32)])
    assert w.dtype == np.float32 and list(w) == [0.5, 0.5]


# --- rule 1: float32 in, float32 out ----------------------------------------------------------------


def test_float32_stays_float32_through_attention_and_the_model():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 8)).astype(np.float32)
    out, weights = scaled_dot_product_attention(x, x, x)
    assert out.dtype == weights.dtype == np.float32
    w = [rng.normal(size=(8, 8)).astype(np.float32) for _ in range(4)]
    out, weights = multi_head_attention(x, *w, n_heads=2)
    assert out.dtype == weights.dtype == np.float32
    assert positional_encoding(3, 4, dtype=np.float32).dtype == np.float32

    params64 = init_params(vocab_size=5, d_model=8, d_ff=16)
    params = {name: p.astype(np.float32) for name, p in params64.items()}
    tokens, targets = np.array([0, 1, 2, 3]), np.array([1, 2, 3, 4])
    logits, cache = forward(params, tokens, n_heads=2)
    assert logits.dtype == np.float32
    dlogits = cross_entropy_backward(logits, targets)
    assert dlogits.dtype == np.float32
    grads = backward(params, cache, dlogits)
    assert {g.dtype for g in grads.values()} == {np.dtype(np.float32)}
    _, grads64 = loss_and_grads(params64, tokens, targets, n_heads=2)
    for name in grads:  # the same gradients, to float32's precision
        np.testing.assert_allclose(grads[name], grads64[name], rtol=1e-3, atol=1e-5)
    losses = train(params, tokens[None], targets[None], n_heads=2, steps=2)  # AdamW accepts them
    assert params["W_E"].dtype == np.float32 and len(losses) == 2
    clipped, norm = clip_grad_norm([np.array([3.0], dtype=np.float32), np.array([4.0], dtype=np.float32)], 1.0)
    assert norm == 5.0 and {c.dtype for c in clipped} == {np.dtype(np.float32)}
    assert sampling_distribution(np.array([1.0, 2.0], dtype=np.float32)).dtype == np.float32
    assert numerical_gradient(lambda v: float(np.sum(v**2)), np.ones(2, dtype=np.float32)).dtype == np.float32


# --- rule 2: -inf is a mask, NaN an error ---------------------------------------------------------


def test_sampling_treats_minus_inf_as_a_mask():
    np.testing.assert_array_equal(sampling_distribution([0.0, -np.inf]), [1.0, 0.0])
    np.testing.assert_array_equal(sampling_distribution([0.0, -np.inf], temperature=0), [1.0, 0.0])
    np.testing.assert_array_equal(sampling_distribution([1.0, 0.0], temperature=1e-308), [1.0, 0.0])
    np.testing.assert_array_equal(sampling_distribution([1.0, 1.0], temperature=0), softmax([1.0, 1.0]))
    with pytest.raises(ValueError, match="logits contains NaN"):
        sampling_distribution([0.0, np.nan])
    with pytest.raises(ValueError, match="every position is masked"):
        sampling_distribution([-np.inf, -np.inf])


# --- rule 3: accurate, not only stable -------------------------------------------------------------


def test_logsumexp_keeps_the_digits_of_a_small_rest():
    assert logsumexp([0.0, -40.0]) == pytest.approx(math.log1p(math.exp(-40)), rel=1e-15)  # 4.25e-18
    assert logsumexp([5.0, 5.0]) == pytest.approx(5 + math.log(2), rel=1e-15)
    np.testing.assert_array_equal(logsumexp(np.zeros((2, 0))), [-np.inf, -np.inf])
    assert logsumexp(np.array([1.0, 2.0], dtype=np.float32)).dtype == np.float32


# --- rule 4: clear errors ---------------------------------------------------------------------------


def test_clear_errors_for_every_wrong_kind_and_empty_input(monkeypatch):
    params = init_params(vocab_size=3, d_model=8, d_ff=16)
    with pytest.raises(ValueError, match=r"tokens must have shape .* got shape \(0, 4\)"):
        train(params, np.zeros((0, 4), dtype=int), np.zeros((0, 4), dtype=int), n_heads=2, steps=1)
    for f in (None, 3.0):
        with pytest.raises(TypeError, match="f must be a function"):
            derivative(f, 1.0)
    with pytest.raises(TypeError, match="f must return a number, but returned None"):
        derivative(lambda x: None, 1.0)
    with pytest.raises(TypeError, match="f must return a number, but returned None"):
        gradient_check(lambda x: None, np.zeros(2), np.zeros(2))
    monkeypatch.setattr("transformer_math.train._loss_and_grads", lambda *a: pytest.fail("a forward pass ran"))
    with pytest.raises(ValueError, match="max_grad_norm must be a finite number > 0, got 0"):
        train(params, np.array([[0, 1]]), np.array([[1, 2]]), n_heads=2, steps=1, max_grad_norm=0)
    with pytest.raises(TypeError, match="gradient 0 must hold real numbers, got dtype <U1"):
        SGD([np.zeros(2)], lr=0.1).step([np.array(["a", "b"])])
    with pytest.raises(TypeError, match="grads must be a list of arrays, got str"):
        clip_grad_norm("ab", 1.0)
    with pytest.raises(TypeError, match="stream must be integer token ids, got dtype float64"):
        make_windows([0.0, 1.0, 2.0], seq_len=1)


# --- rule 5: no RuntimeWarning --------------------------------------------------------------------


def test_no_runtime_warning_on_the_way_to_inf_or_nan():
    assert math.isnan(dot([np.inf], [0.0]))  # np.dot([inf], [0]) = nan, quietly
    assert matmul_loops([[1e200]], [[1e200]])[0, 0] == np.inf  # as A @ B
    clipped, norm = clip_grad_norm([np.full(4, 1e200)], 1.0)  # np.linalg.norm gives 2e200
    assert norm == pytest.approx(2e200, rel=1e-15)
    np.testing.assert_allclose(clipped[0], np.full(4, 0.5), rtol=1e-15)
    assert clip_grad_norm([np.full(4, 1e-200)], 1.0)[1] == pytest.approx(2e-200, rel=1e-15)


# --- rule 7: gradient_check names the worst entry ---------------------------------------------------


def test_gradient_check_reports_the_worst_entry():
    f = lambda v: float(np.sum(v**3))  # noqa: E731
    x = np.array([10.0, 0.01, -2.0])
    right = 3 * x**2
    wrong = right.copy()
    wrong[1] *= 1.5  # the small entry 50% wrong
    check = gradient_check(f, wrong, x)
    assert check < 1e-6  # the global error hides it (the pages' threshold) ...
    assert check.worst == pytest.approx(1 / 3, rel=1e-3) and check.index == (1,)  # ... the worst entry does not
    good = gradient_check(f, right, x)
    assert good < 1e-9 and good.worst < 1e-4  # rounding noise of the small entry's central difference


# --- round two: what the table found once its own rows were right -------------------------------------


def test_std_of_tiny_values_is_not_zero():
    # PyTorch accumulates float32 in double: 8.498e-31; exact mathematics gives the same for float64 at 1e-300
    # (where torch.std and np.std square into 0), and each row of a batch at its own scale
    assert std(np.array([1e-30, -1e-30, 5e-31], dtype=np.float32)) == pytest.approx(8.498366e-31, rel=1e-6)
    assert std(np.array([1e-300, -1e-300, 5e-301])) == pytest.approx(8.498366183846058e-301, rel=1e-12)
    np.testing.assert_allclose(std(np.array([[1e300, 0.0], [1e-300, 0.0]]), axis=-1), [5e299, 5e-301], rtol=1e-15)


def test_weights_come_in_the_activations_dtype_and_must_fit_it():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    out, weights = multi_head_attention(x, *[np.eye(2)] * 4, n_heads=1)  # float64 weights, as np.eye makes them
    assert out.dtype == weights.dtype == np.float32
    with pytest.raises(ValueError, match=r"gamma has entries up to 1e\+300, beyond the largest float32"):
        layer_norm(x, gamma=[1e300, 1.0])  # before: a RuntimeWarning (an error here) and a gain of inf
