"""Finite differences: accuracy, no side effects, clear errors; and every analytic derivative of Part III
checked against numerical_gradient."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transformer_math.calculus import derivative, gradient_check, numerical_gradient

TOL = 1e-6  # the largest relative error allowed between an analytic and a numerical gradient


# --- derivative -----------------------------------------------------------------------------------


def test_seed_example_forward_difference_of_x_squared():
    # (f(3 + h) - f(3)) / h = 2 * 3 + h exactly; only rounding separates it from 6.00001
    assert derivative(lambda x: x**2, 3.0, method="forward") == pytest.approx(6.00001, abs=1e-9)
    assert derivative(lambda x: x**2, 3.0) == pytest.approx(6.0, abs=1e-9)


@pytest.mark.parametrize(
    "f, df, x",
    [
        (np.sin, np.cos, 0.7),
        (np.exp, np.exp, -1.3),
        (np.log, lambda x: 1 / x, 2.5),
        (np.tanh, lambda x: 1 - np.tanh(x) ** 2, 0.4),
        (lambda x: (x**2 + 1) ** 3, lambda x: 6 * x * (x**2 + 1) ** 2, 2.0),
    ],
)
def test_central_beats_forward(f, df, x):
    central = abs(derivative(f, x) - df(x))
    forward = abs(derivative(f, x, method="forward") - df(x))
    assert central < 1e-8 * max(1, abs(df(x)))
    assert central < forward


def test_truncation_error_orders():
    """Forward error shrinks like h, central like h^2 (while h is large enough for rounding not to matter)."""
    f, df, x = np.exp, np.exp, 1.0
    fwd = [abs(derivative(f, x, h, "forward") - df(x)) for h in (1e-2, 1e-3)]
    cen = [abs(derivative(f, x, h) - df(x)) for h in (1e-2, 1e-3)]
    assert fwd[0] / fwd[1] == pytest.approx(10, rel=0.05)
    assert cen[0] / cen[1] == pytest.approx(100, rel=0.05)


def test_tiny_steps_lose_digits_to_rounding():
    good = abs(derivative(lambda x: x**2, 3.0, 1e-5, "forward") - 6)
    bad = abs(derivative(lambda x: x**2, 3.0, 1e-15, "forward") - 6)
    assert bad > 1000 * good


@pytest.mark.parametrize("h", [0, -1e-5, float("nan"), float("inf")])
def test_step_must_be_positive(h):
    with pytest.raises(ValueError, match="h must be a finite number > 0"):
        derivative(np.sin, 1.0, h)
    with pytest.raises(ValueError, match="h must be a finite number > 0"):
        numerical_gradient(np.sum, np.ones(2), h)


@pytest.mark.parametrize("h", ["small", True, None, [1e-5]])
def test_step_must_be_a_number(h):
    with pytest.raises(TypeError, match="h must be a real number, got"):
        derivative(np.sin, 1.0, h)
    with pytest.raises(TypeError, match="h must be a real number, got"):
        gradient_check(np.sum, np.ones(2), np.ones(2), h)


def test_numpy_numbers_are_numbers():
    assert derivative(lambda x: x**2, 3.0, h=np.int64(1)) == 6.0
    assert derivative(lambda x: x**2, np.float32(3.0), h=np.float64(1e-3)) == pytest.approx(6.0)


def test_unknown_method():
    with pytest.raises(ValueError, match="unknown method 'backward'; use one of 'central', 'forward'"):
        derivative(np.sin, 1.0, method="backward")


def test_f_must_return_one_finite_number():
    with pytest.raises(ValueError, match=r"f must return a single number, but returned an array of shape \(2,\)"):
        derivative(lambda x: np.array([x, x]), 1.0)
    with np.errstate(invalid="ignore"), pytest.raises(ValueError, match="f returned nan"):
        derivative(np.log, -1.0)
    with (
        np.errstate(invalid="ignore"),
        pytest.raises(ValueError, match=r"f returned nan when entry \(0,\) of x is nudged down"),
    ):
        numerical_gradient(lambda v: np.sum(np.log(v)), np.array([1e-6, 1.0]))


# --- numerical_gradient ---------------------------------------------------------------------------


def test_seed_gradient_of_x2_plus_y2_at_3_4():
    g = numerical_gradient(lambda v: v[0] ** 2 + v[1] ** 2, np.array([3.0, 4.0]))
    assert g == pytest.approx([6.0, 8.0], abs=1e-8)


def test_numerical_gradient_keeps_shape_and_does_not_touch_the_input():
    x = np.arange(6, dtype=float).reshape(2, 3)
    before = x.copy()
    g = numerical_gradient(lambda v: np.sum(v**2), x)
    assert g.shape == (2, 3)
    np.testing.assert_array_equal(x, before)
    np.testing.assert_allclose(g, 2 * x, atol=1e-8)


def test_integer_input_is_differentiated_as_float():
    assert numerical_gradient(lambda v: np.sum(v**3), [1, 2]) == pytest.approx([3.0, 12.0], rel=1e-8)


def test_scalar_input_gives_a_zero_dimensional_gradient():
    g = numerical_gradient(lambda v: v**2, 3.0)
    assert g.shape == () and float(g) == pytest.approx(6.0)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 5))
def test_gradient_of_a_quadratic_form(seed, n):
    rng = np.random.default_rng(seed)
    A, b, x = rng.normal(size=(n, n)), rng.normal(size=n), rng.normal(size=n)
    f = lambda v: v @ A @ v + b @ v  # noqa: E731
    assert gradient_check(f, lambda v: (A + A.T) @ v + b, x) < TOL


# --- gradient_check -------------------------------------------------------------------------------


def test_gradient_check_catches_a_wrong_gradient():
    f = lambda v: np.sum(np.sin(v))  # noqa: E731
    x = np.array([0.1, 0.5, 2.0])
    assert gradient_check(f, np.cos, x) < TOL
    assert gradient_check(f, lambda v: -np.cos(v), x) > 0.1


def test_gradient_check_is_relative_at_every_scale():
    """A gradient 50 % too large scores about 1/3 at every scale, and a right one stays near 0."""
    x = np.array([1.0, -2.0, 0.5])
    for scale in [1e-6, 1.0, 1e6]:
        f = lambda v, s=scale: s * np.sum(v**2)  # noqa: E731
        assert gradient_check(f, lambda v, s=scale: 2 * s * v, x) < TOL
        assert gradient_check(f, lambda v, s=scale: 3 * s * v, x) == pytest.approx(1 / 3, rel=1e-4)
    assert gradient_check(lambda v: 0.0 * np.sum(v), np.zeros(3), x) == 0.0  # both exactly zero: they agree


def test_gradient_check_accepts_an_array():
    x = np.array([1.0, 2.0])
    assert gradient_check(lambda v: np.sum(v**2), 2 * x, x) < TOL


def test_gradient_check_errors():
    with pytest.raises(ValueError, match=r"grad has shape \(3,\), but x has shape \(2,\)"):
        gradient_check(np.sum, np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match=r"grad contains NaN \(first at index"):
        gradient_check(np.sum, np.array([1.0, np.nan]), np.ones(2))


# --- every analytic derivative of Part III --------------------------------------------------------

ONE_VARIABLE = {
    "x^2 -> 2x": (lambda x: x**2, lambda x: 2 * x),
    "(x^2+1)^3 -> 6x(x^2+1)^2": (lambda x: (x**2 + 1) ** 3, lambda x: 6 * x * (x**2 + 1) ** 2),
    "exp": (np.exp, np.exp),
    "log -> 1/x": (lambda x: np.log(np.abs(x) + 1), lambda x: np.sign(x) / (np.abs(x) + 1)),
    "tanh -> 1 - tanh^2": (np.tanh, lambda x: 1 - np.tanh(x) ** 2),
    "x^p -> p x^(p-1)": (lambda x: np.abs(x) ** 3.5, lambda x: 3.5 * np.sign(x) * np.abs(x) ** 2.5),
    "sigmoid -> s(1-s)": (lambda x: 1 / (1 + np.exp(-x)), lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2),
    "sin(x^2) -> 2x cos(x^2)": (lambda x: np.sin(x**2), lambda x: 2 * x * np.cos(x**2)),
    "exp(tanh(x))": (  # tanh(3x) at x = 3 would have a slope of 1e-7, below what a finite difference resolves
        lambda x: np.exp(np.tanh(x)),
        lambda x: (1 - np.tanh(x) ** 2) * np.exp(np.tanh(x)),
    ),
    "x + tanh(2x)/20 (residual)": (lambda x: x + np.tanh(2 * x) / 20, lambda x: 1 + (1 - np.tanh(2 * x) ** 2) / 10),
}


@pytest.mark.parametrize("name", sorted(ONE_VARIABLE))
@settings(max_examples=30, deadline=None)
@given(x=st.floats(-3, 3).filter(lambda x: abs(x) > 0.1))  # relative error: keep off the kink of |x|^3.5 at 0
def test_one_variable_derivatives(name, x):
    f, df = ONE_VARIABLE[name]
    assert gradient_check(lambda v: f(v[0]), lambda v: np.array([df(v[0])]), np.array([x])) < TOL


def softmax(z):
    e = np.exp(z - np.max(z))
    return e / e.sum()


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 8))
def test_softmax_cross_entropy_gradient_is_p_minus_onehot(seed, n):
    rng = np.random.default_rng(seed)
    z, y = rng.normal(size=n), int(rng.integers(n))  # no probability within 1e-6 of 1: see the test below
    loss = lambda z: -np.log(softmax(z)[y])  # noqa: E731
    assert gradient_check(loss, softmax(z) - np.eye(n)[y], z) < TOL


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_softmax_jacobian_vector_product(seed):
    """d/dz of u . softmax(z) is J^T u = p * (u - p . u): the vector-Jacobian product of softmax."""
    rng = np.random.default_rng(seed)
    z, u = rng.normal(size=5), rng.normal(size=5)
    p = softmax(z)
    assert gradient_check(lambda z: u @ softmax(z), p * (u - p @ u), z) < TOL


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_linear_layer_gradients(seed):
    """L = sum(G * (X W)) has dL/dW = X^T G and dL/dX = G W^T: backpropagation through a matmul."""
    rng = np.random.default_rng(seed)
    X, W, G = rng.normal(size=(4, 3)), rng.normal(size=(3, 2)), rng.normal(size=(4, 2))
    assert gradient_check(lambda W: np.sum(G * (X @ W)), X.T @ G, W) < TOL
    assert gradient_check(lambda X: np.sum(G * (X @ W)), G @ W.T, X) < TOL


def test_gradient_of_the_optimizers_quadratic():
    A = np.array([[3.0, 0.5], [0.5, 1.0]])
    b = np.array([1.0, -2.0])
    f = lambda x: 0.5 * x @ A @ x - b @ x  # noqa: E731
    for x in np.random.default_rng(0).normal(size=(10, 2)):
        assert gradient_check(f, A @ x - b, x) < TOL


def test_l2_penalty_gradient():
    lam = 0.1
    x = np.array([1.0, -2.0, 3.0])
    assert gradient_check(lambda w: lam / 2 * np.sum(w**2), lam * x, x) < TOL


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_soft_targets_temperature_and_output_layer(seed):
    """The variants of the softmax + cross-entropy gradient in Part III's exercises."""
    rng = np.random.default_rng(seed)
    V, y = 5, int(rng.integers(5))
    z = rng.normal(scale=2, size=V)
    q = 0.9 * np.eye(V)[y] + 0.1 / V  # label smoothing
    assert gradient_check(lambda z: -q @ np.log(softmax(z)), softmax(z) - q, z) < TOL
    T = 0.5
    # When softmax(z / T) puts nearly all its weight on y the gradient is nearly 0, and the relative error of
    # central differences grows: 2.3e-5 at seed 163859 (p_y = 1 - 3.4e-7). A wrong formula is off by order 1.
    assert gradient_check(lambda z: -np.log(softmax(z / T)[y]), (softmax(z / T) - np.eye(V)[y]) / T, z) < 1e-4
    W, h = rng.normal(size=(V, 4)), rng.normal(size=4)
    assert gradient_check(lambda W: -np.log(softmax(W @ h)[y]), np.outer(softmax(W @ h) - np.eye(V)[y], h), W) < TOL


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_least_squares_and_squared_matmul(seed):
    rng = np.random.default_rng(seed)
    A, b, x = rng.normal(size=(4, 3)), rng.normal(size=4), rng.normal(size=3)
    assert gradient_check(lambda x: np.sum((A @ x - b) ** 2), 2 * A.T @ (A @ x - b), x) < TOL
    X, W = rng.normal(size=(5, 3)), rng.normal(size=(3, 4))
    assert gradient_check(lambda W: np.sum((X @ W) ** 2), X.T @ (2 * X @ W), W) < TOL


def test_seed_gradient_by_hand_and_steepest_ascent():
    """grad f(3, 4) = (6, 8); the directional derivative along u is grad . u, largest along the gradient."""
    f = lambda v: v[0] ** 2 + v[1] ** 2  # noqa: E731
    p = np.array([3.0, 4.0])
    for angle in np.linspace(0, 2 * np.pi, 12, endpoint=False):
        u = np.array([np.cos(angle), np.sin(angle)])
        assert derivative(lambda t, u=u: f(p + t * u), 0.0) == pytest.approx(np.array([6.0, 8.0]) @ u, abs=1e-8)
