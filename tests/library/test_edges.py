"""The library at its edges: every bad input a clear error, every edge value exact, no warning.

Each error test asserts the exception type and that the message names the argument and what it got.
The value tests check the exact answers at the edges of each function's domain.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from transformer_math.attention import (
    causal_mask,
    merge_heads,
    multi_head_attention,
    positional_encoding,
    scaled_dot_product_attention,
    split_heads,
)
from transformer_math.autograd import Value
from transformer_math.calculus import derivative, gradient_check, numerical_gradient
from transformer_math.information import (
    cross_entropy,
    cross_entropy_from_logits,
    entropy,
    kl_divergence,
    perplexity,
)
from transformer_math.linalg import cosine_similarity, dot, matmul_loops, norm, power_iteration
from transformer_math.optim import SGD, Adam, AdamW
from transformer_math.softmax import log_softmax, logsumexp, softmax
from transformer_math.stats import layer_norm, mean, std, variance
from transformer_math.transformer import (
    cross_entropy_backward,
    forward,
    generate,
    init_params,
    layer_norm_backward,
    make_windows,
    train,
)

pytestmark = pytest.mark.filterwarnings("error")  # no warning may escape on the way to an answer or an error


# --- axis: one rule for every function that takes one --------------------------------------------

AXIS_FUNCTIONS = [softmax, log_softmax, logsumexp, mean, variance, std, layer_norm, entropy]


@pytest.mark.parametrize("fn", AXIS_FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("axis", [1, -2, 5])
def test_an_out_of_range_axis_is_a_value_error_naming_axis_and_shape(fn, axis):
    with pytest.raises(ValueError, match=rf"axis {axis} is out of range for \w+ of shape \(3,\) \(valid: -1 to 0\)"):
        fn([0.2, 0.3, 0.5], axis=axis)


@pytest.mark.parametrize("fn", AXIS_FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("axis", [1.0, "last", True])
def test_a_non_integer_axis_is_a_type_error(fn, axis):
    with pytest.raises(TypeError, match=rf"axis must be an integer, got {axis!r}"):
        fn([0.2, 0.3, 0.5], axis=axis)


def test_numpy_integer_axes_are_integers():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(softmax(x, axis=np.int64(0)), softmax(x, axis=0))
    np.testing.assert_array_equal(mean(x, axis=(np.int32(0), 1)), mean(x))
    with pytest.raises(ValueError, match=r"axis \(0, -2\) names the same axis of x \(shape \(2, 3\)\) twice"):
        mean(x, axis=(0, -2))


# --- dtype: float keeps its precision, integers become float64, the rest is refused ---------------


@pytest.mark.parametrize("fn", [softmax, log_softmax, logsumexp, layer_norm, mean, variance])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_floats_keep_their_precision(fn, dtype):
    assert fn(np.array([[1.0, 2.0, 4.0]], dtype=dtype), axis=-1).dtype == dtype


@pytest.mark.parametrize("fn", [softmax, log_softmax, logsumexp, layer_norm, mean, variance, std])
def test_integers_become_float64(fn):
    assert np.asarray(fn(np.array([1, 2, 4]), axis=-1)).dtype == np.float64


BAD_KINDS = [
    (np.array([True, False]), r"x must hold numbers, got a boolean array of shape \(2,\)"),
    (["a", "b"], r"x must hold real numbers, got dtype <U1 \(shape \(2,\)\)"),
    (np.array([1 + 1j, 2]), r"x must hold real numbers, got dtype complex128"),
    ([None, 1.0], r"x must hold real numbers, got dtype object"),
]


@pytest.mark.parametrize("fn", [softmax, log_softmax, logsumexp, mean, variance, std, layer_norm])
@pytest.mark.parametrize(("x", "message"), BAD_KINDS)
def test_booleans_text_complex_and_objects_are_type_errors(fn, x, message):
    with pytest.raises(TypeError, match=message):
        fn(x)


def test_a_ragged_list_is_a_value_error():
    with pytest.raises(ValueError, match=r"x must be a rectangular array of numbers, got \[\[1, 2\], \[3\]\]"):
        softmax([[1, 2], [3]])


# --- the softmax family: one rule for NaN, inf and empty rows ---------------------------------------


@pytest.mark.parametrize("fn", [softmax, log_softmax, logsumexp], ids=lambda f: f.__name__)
def test_nan_is_refused_by_the_whole_family(fn):
    with pytest.raises(ValueError, match=r"x contains NaN \(first at index \(1, 0\) of shape \(2, 2\)\)"):
        fn([[1.0, 2.0], [np.nan, 0.0]])


def test_logsumexp_of_an_empty_axis_is_minus_inf_as_in_pytorch():
    out = logsumexp(np.zeros((2, 0)))
    assert out.shape == (2,) and np.all(out == -np.inf)
    assert logsumexp(np.zeros((0, 3)), axis=0).tolist() == [-np.inf] * 3


def test_logsumexp_keeps_the_exact_infinities():
    assert logsumexp([np.inf, 1.0]) == np.inf
    assert logsumexp([-np.inf, -np.inf]) == -np.inf
    assert logsumexp([1e308, 1e308]) == 1e308  # 1e308 + log 2 rounds to 1e308; e^1e308 never appears
    assert logsumexp([1.7e308, 1.7e308, 1.7e308]) == 1.7e308
    assert logsumexp([-1e308, 1e308]) == 1e308


def test_softmax_of_scores_a_full_range_apart():
    np.testing.assert_array_equal(softmax([-1e308, 1e308]), [0.0, 1.0])
    np.testing.assert_array_equal(log_softmax([-1e308, 1e308]), [-np.inf, 0.0])
    np.testing.assert_array_equal(softmax([0.0, 1.0], temperature=1e-300), [0.0, 1.0])


@pytest.mark.parametrize(
    ("temperature", "error", "message"),
    [
        (0, ValueError, "temperature must be a finite number > 0, got 0"),
        (math.inf, ValueError, "temperature must be a finite number > 0, got inf"),
        ("hot", TypeError, "temperature must be a real number, got 'hot' \\(str\\)"),
        (None, TypeError, "temperature must be a real number, got None"),
    ],
)
def test_temperature(temperature, error, message):
    with pytest.raises(error, match=message):
        softmax([1.0, 2.0], temperature=temperature)


# --- statistics ----------------------------------------------------------------------------------


def test_mean_does_not_overflow_where_the_answer_is_a_float():
    assert mean([1e308, 1e308]) == 1e308
    assert mean(np.full(4, 1.5e308), axis=0) == 1.5e308


def test_statistics_refuse_nan_and_inf():
    with pytest.raises(ValueError, match=r"variance: x contains inf \(first at index \(1,\) of shape \(2,\)\)"):
        variance([1.0, np.inf])
    with pytest.raises(ValueError, match=r"mean: x contains NaN"):
        mean([np.nan])


def test_ddof_and_eps():
    with pytest.raises(TypeError, match=r"ddof must be an integer, got 0.5 \(float\)"):
        variance([1.0, 2.0], ddof=0.5)
    with pytest.raises(ValueError, match=r"eps must be >= 0, got -1.0"):
        layer_norm([1.0, 2.0], eps=-1.0)
    with pytest.raises(ValueError, match=r"layer_norm with eps=0 of a constant vector divides 0 by 0"):
        layer_norm([3.0, 3.0], eps=0)


def test_layer_norm_of_huge_values_is_that_of_the_same_values_scaled_down():
    np.testing.assert_allclose(layer_norm([1e200, -1e200, 3e200]), layer_norm([1.0, -1.0, 3.0], eps=0), rtol=1e-12)
    assert layer_norm(np.zeros((2, 0)), axis=0).shape == (2, 0)


# --- information ---------------------------------------------------------------------------------


def test_cross_entropy_of_tiny_and_zero_probabilities():
    assert cross_entropy([1.0, 0.0], [1e-20, 1.0 - 1e-20]) == pytest.approx(46.0517018599, rel=1e-10)
    assert cross_entropy([1.0, 0.0], [0.0, 1.0]) == math.inf


def test_probabilities_in_float16_and_float32_pass_their_own_rounding():
    p = np.array([0.1, 0.2, 0.7], dtype=np.float16)
    assert entropy(p).dtype == np.float16
    assert entropy(np.array([0.1, 0.2, 0.7], dtype=np.float32)) == pytest.approx(0.8018, abs=1e-4)


def test_kl_of_equal_distributions_is_exactly_zero_never_negative():
    p = np.full(5, 0.2)
    assert kl_divergence(p, p * (1 + 1e-16)) >= 0.0


def test_cross_entropy_from_logits_edges():
    with pytest.raises(ValueError, match=r"logits of shape \(0, 5\) hold no token or no position to score"):
        cross_entropy_from_logits(np.zeros((0, 5)), np.zeros(0, dtype=int))
    with pytest.raises(ValueError, match=r"logits of shape \(2, 0\) hold no token"):
        cross_entropy_from_logits(np.zeros((2, 0)), [0, 0])
    with pytest.raises(TypeError, match="targets must be integer token ids, got dtype bool"):
        cross_entropy_from_logits(np.zeros((2, 3)), [True, False])
    with pytest.raises(ValueError, match="cross entropy: logits contains NaN"):
        cross_entropy_from_logits([[0.0, np.nan]], [0])
    assert cross_entropy_from_logits([[0.0, -np.inf]], [1]) == math.inf  # a masked target: -log 0
    assert perplexity([[0.0, -1e4]], [1]) == math.inf  # exp(10000) overflows to inf, quietly


# --- transformer: the backward functions check what the forward ones check ------------------------


@pytest.mark.parametrize(
    ("targets", "error", "message"),
    [
        ([-1], ValueError, r"target -1 at position \(0,\) of targets is out of range .* \(valid ids: 0 to 2\)"),
        ([3], ValueError, r"target 3 at position \(0,\) of targets is out of range for a vocabulary of 3"),
        ([1.0], TypeError, r"targets must be integer token ids, got dtype float64"),
        ([0, 1], ValueError, r"logits of shape \(1, 3\) need targets of shape \(1,\) .* got targets of shape \(2,\)"),
    ],
)
def test_cross_entropy_backward_checks_what_cross_entropy_checks(targets, error, message):
    with pytest.raises(error, match=message):
        cross_entropy_backward(np.zeros((1, 3)), targets)
    with pytest.raises(error, match=message):
        cross_entropy_from_logits(np.zeros((1, 3)), targets)


def test_layer_norm_backward_checks_shapes():
    with pytest.raises(ValueError, match=r"got dy \(2, 3\), x \(2, 4\), gamma \(4,\)"):
        layer_norm_backward(np.ones((2, 3)), np.ones((2, 4)), np.ones(4))
    with pytest.raises(ValueError, match=r"got dy \(2, 4\), x \(2, 4\), gamma \(3,\)"):
        layer_norm_backward(np.ones((2, 4)), np.ones((2, 4)), np.ones(3))


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"vocab_size": 0}, ValueError, "vocab_size must be at least 1, got 0"),
        ({"d_model": 2.5}, TypeError, r"d_model must be an integer, got 2.5 \(float\)"),
        ({"d_ff": -1}, ValueError, "d_ff must be at least 0, got -1"),
        ({"seed": "zero"}, TypeError, "seed must be an integer, got 'zero'"),
    ],
)
def test_init_params_checks_its_sizes(kwargs, error, message):
    sizes = {"vocab_size": 5, "d_model": 8, "d_ff": 16} | kwargs
    with pytest.raises(error, match=message):
        init_params(**sizes)


def test_forward_generate_and_windows_check_their_tokens():
    params = init_params(vocab_size=5, d_model=8, d_ff=16)
    with pytest.raises(
        ValueError, match=r"tokens must have shape \(n,\) or \(batch, n\) with n >= 1, got shape \(0,\)"
    ):
        forward(params, np.array([], dtype=int), n_heads=2)
    with pytest.raises(TypeError, match="tokens must be integer token ids, got dtype float64"):
        forward(params, np.array([0.0, 1.0]), n_heads=2)
    with pytest.raises(ValueError, match=r"token 7 at position \(1,\) of prompt is out of range"):
        generate(params, [0, 7], n_new=1, n_heads=2)
    with pytest.raises(ValueError, match="prompt must be a non-empty 1-D sequence of token ids"):
        generate(params, [], n_new=1, n_heads=2)
    with pytest.raises(TypeError, match=r"seq_len must be an integer, got 2.0"):
        make_windows([0, 1, 2, 3], seq_len=2.0)
    with pytest.raises(ValueError, match=r"stream must be a 1-D sequence of token ids, got shape \(2, 2\)"):
        make_windows([[0, 1], [2, 3]], seq_len=1)
    with pytest.raises(ValueError, match="steps must be at least 0, got -1"):
        train(params, np.array([[0, 1]]), np.array([[1, 2]]), n_heads=2, steps=-1)


# --- attention -----------------------------------------------------------------------------------


def test_attention_shapes_and_sizes():
    with pytest.raises(ValueError, match=r"split_heads needs x of shape \(..., n, d_model\), got shape \(4,\)"):
        split_heads(np.arange(4.0), 2)
    with pytest.raises(ValueError, match=r"merge_heads needs x of shape \(..., h, n, d_head\), got shape \(2, 4\)"):
        merge_heads(np.zeros((2, 4)))
    with pytest.raises(TypeError, match=r"n_heads must be an integer, got 2.0 \(float\)"):
        split_heads(np.zeros((2, 4)), 2.0)
    with pytest.raises(TypeError, match=r"seq_len must be an integer, got 2.5 \(float\)"):
        positional_encoding(2.5, 4)
    with pytest.raises(TypeError, match=r"the sequence length n must be an integer, got True"):
        causal_mask(True)
    with pytest.raises(ValueError, match=r"attention needs d_k >= 1 and at least one key"):
        scaled_dot_product_attention(np.zeros((2, 0)), np.zeros((2, 0)), np.zeros((2, 1)))
    with pytest.raises(ValueError, match=r"q contains NaN"):
        scaled_dot_product_attention([[np.nan]], [[1.0]], [[1.0]])
    with pytest.raises(
        ValueError, match=r"multi_head_attention needs x of shape \(..., n, d_model\), got shape \(4,\)"
    ):
        multi_head_attention(np.zeros(4), *[np.eye(4)] * 4, n_heads=2)


# --- linalg --------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [1e-200, 1e-20, 1.0, 1e20, 1e200])
def test_cosine_similarity_and_norm_at_every_scale(scale):
    a, b = scale * np.array([3.0, 4.0]), scale * np.array([4.0, 3.0])
    assert cosine_similarity(a, b) == pytest.approx(24 / 25, rel=1e-14)
    assert norm(a) == pytest.approx(5 * scale, rel=1e-15)


def test_linalg_refuses_what_is_not_a_real_array():
    with pytest.raises(TypeError, match=r"a must hold numbers, got a boolean array"):
        dot([True], [False])
    with pytest.raises(TypeError, match=r"A must hold real numbers, got dtype <U1"):
        matmul_loops([["a"]], [[1]])
    with pytest.raises(ValueError, match=r"a contains inf"):
        cosine_similarity([np.inf, 1.0], [1.0, 1.0])
    with pytest.raises(TypeError, match=r"steps must be an integer, got 1.5"):
        power_iteration(np.eye(2), steps=1.5)
    with pytest.raises(ValueError, match=r"power iteration needs a matrix of at least 1 x 1"):
        power_iteration(np.zeros((0, 0)))
    assert dot([1e200], [1e200]) == math.inf  # the true value overflows, quietly, as np.dot


# --- calculus ------------------------------------------------------------------------------------


def test_derivative_takes_numpy_numbers_and_refuses_the_rest():
    assert derivative(lambda x: x**2, 3.0, h=np.int64(1)) == 6.0
    with pytest.raises(TypeError, match=r"x must be a real number, got '3' \(str\)"):
        derivative(lambda x: x**2, "3")
    with pytest.raises(TypeError, match=r"f must return a number, but returned 'a'"):
        numerical_gradient(lambda v: "a", np.ones(2))


def test_gradient_check_is_a_true_relative_error():
    x = np.array([1.0, 2.0])
    f = lambda v: 1e-6 * np.sum(v**2)  # noqa: E731
    assert gradient_check(f, lambda v: 3e-6 * v, x) == pytest.approx(1 / 3, rel=1e-4)  # 50 % too large
    with pytest.raises(TypeError, match=r"grad must hold real numbers"):
        gradient_check(f, ["a", "b"], x)


# --- autograd ------------------------------------------------------------------------------------


def test_power_of_zero_at_zero_has_derivative_zero_as_in_pytorch():
    x = Value(0.0)
    y = x**0
    y.backward()
    assert (y.data, x.grad) == (1.0, 0.0)
    x = Value(0.0)
    (x**0.5).backward()
    assert x.grad == math.inf


def test_value_errors_name_the_numbers():
    with pytest.raises(ValueError, match=r"division by zero: Value\(data=1, grad=0\) / Value\(data=0, grad=0\)"):
        Value(1.0) / Value(0.0)
    with pytest.raises(ValueError, match=r"division by zero"):
        2 / Value(0.0)
    with pytest.raises(ValueError, match=r"-2 \*\* 0.5 is not a real number"):
        Value(-2.0) ** 0.5
    with pytest.raises(ValueError, match=r"0 \*\* -1 is undefined"):
        Value(0.0) ** -1
    with pytest.raises(TypeError, match=r"data must be a real number, got '3' \(str\)"):
        Value("3")
    with pytest.raises(TypeError, match=r"data must be a real number, got True"):
        Value(True)
    assert (Value(2.0) ** np.int64(3)).data == 8.0
    assert Value(1000.0).exp().data == math.inf


# --- optimizers ----------------------------------------------------------------------------------


def test_optimizer_arguments():
    w = np.zeros(2)
    with pytest.raises(ValueError, match="params is empty"):
        SGD([], lr=0.1)
    with pytest.raises(TypeError, match="params must be a list of arrays, got int"):
        SGD(3, lr=0.1)
    with pytest.raises(TypeError, match=r"lr \(the learning rate\) must be a real number, got '0.1'"):
        SGD([w], lr="0.1")
    with pytest.raises(TypeError, match="momentum must be a real number, got True"):
        SGD([w], lr=0.1, momentum=True)
    with pytest.raises(TypeError, match=r"betas must be a pair \(beta1, beta2\), got 0.9"):
        Adam([w], betas=0.9)
    with pytest.raises(TypeError, match=r"grads must be a list of arrays, one per parameter; for a single array"):
        AdamW([w]).step(np.zeros(2))
    with pytest.raises(TypeError, match=r"gradient 0 must hold real numbers, got dtype <U1"):
        SGD([w], lr=0.1).step([["a", "b"]])


def test_a_read_only_parameter_and_an_incomplete_model_are_refused():
    w = np.zeros(2)
    w.setflags(write=False)
    with pytest.raises(ValueError, match="parameter 0 is read-only, so it cannot be updated in place"):
        SGD([w], lr=0.1)
    params = init_params(vocab_size=5, d_model=8, d_ff=16)
    del params["W_U"], params["b_1"]
    with pytest.raises(ValueError, match=r"params lacks params\['b_1'\], params\['W_U'\]; make it with init_params"):
        forward(params, np.array([0, 1]), n_heads=2)


def test_more_edges_found_by_probing():
    with pytest.raises(ValueError, match=r"cross entropy of no distributions: y_true has shape \(0, 3\)"):
        cross_entropy(np.zeros((0, 3)), np.zeros((0, 3)))
    with pytest.raises(ValueError, match="logits must have a vocabulary axis, got the scalar 1.0"):
        cross_entropy_backward(1.0, 0)
    with pytest.raises(ValueError, match=r"the scores q @ k\^T would overflow: q has entries up to 1e\+200"):
        scaled_dot_product_attention(np.full((2, 3), 1e200), np.full((2, 3), 1e200), np.ones((2, 3)))
    with pytest.raises(ValueError, match="data must be a number, not NaN, got nan"):
        Value(math.nan)
    with pytest.raises(ValueError, match=r"data \(from .\+.\) must be a number, not NaN"):
        Value(math.inf) + Value(-math.inf)
    x = Value(1e200)
    y = x**2  # overflows to inf, as 1e200 * 1e200 does, instead of Python's OverflowError
    y.backward()
    assert (y.data, x.grad) == (math.inf, 2e200)
    assert (Value(-1e200) ** 3).data == -math.inf
    w = np.zeros(2)
    Adam([w], lr=0.1).step([np.array([1e200, 1.0])])  # the square overflows; no warning, a finite step
    assert np.all(np.isfinite(w))
