"""The optimizers against steps worked out by hand, on a quadratic with a known minimum, and on bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from transformer_math.optim import SGD, Adam, AdamW


def quadratic(A, b):
    """f(x) = 1/2 x^T A x - b^T x, its gradient A x - b, and its minimum A^{-1} b."""
    return (lambda x: 0.5 * x @ A @ x - b @ x), (lambda x: A @ x - b), np.linalg.solve(A, b)


A = np.array([[3.0, 0.5], [0.5, 1.0]])
b = np.array([1.0, -2.0])


# --- steps by hand ---------------------------------------------------------------------------------


def test_sgd_plain_step_is_theta_minus_lr_g():
    w = np.array([1.0, -2.0])
    SGD([w], lr=0.1).step([np.array([0.5, -1.0])])
    assert w == pytest.approx([1.0 - 0.05, -2.0 + 0.1])


def test_sgd_momentum_two_steps_by_hand():
    w = np.array([1.0])
    opt = SGD([w], lr=0.1, momentum=0.9)
    opt.step([np.array([2.0])])  # v = 2
    assert w[0] == pytest.approx(1.0 - 0.1 * 2.0)
    opt.step([np.array([-1.0])])  # v = 0.9 * 2 - 1 = 0.8
    assert w[0] == pytest.approx(0.8 - 0.1 * 0.8)
    assert opt.velocity[0][0] == pytest.approx(0.8)


def test_adam_first_two_steps_with_bias_correction_by_hand():
    w = np.array([1.0])
    opt = Adam([w], lr=0.1)  # betas (0.9, 0.999), eps 1e-8
    opt.step([np.array([2.0])])
    # m = 0.1 * 2 = 0.2, v = 0.001 * 4 = 0.004; m_hat = 0.2 / 0.1 = 2, v_hat = 0.004 / 0.001 = 4
    assert opt.m[0][0] == pytest.approx(0.2)
    assert opt.v[0][0] == pytest.approx(0.004)
    theta1 = 1.0 - 0.1 * 2 / (2 + 1e-8)
    assert w[0] == pytest.approx(theta1, rel=1e-14)
    opt.step([np.array([-1.0])])
    # m = 0.9 * 0.2 + 0.1 * (-1) = 0.08, v = 0.999 * 0.004 + 0.001 * 1 = 0.004996
    # m_hat = 0.08 / (1 - 0.81) = 0.08 / 0.19, v_hat = 0.004996 / (1 - 0.998001) = 0.004996 / 0.001999
    assert opt.m[0][0] == pytest.approx(0.08)
    assert opt.v[0][0] == pytest.approx(0.004996)
    expected = theta1 - 0.1 * (0.08 / 0.19) / (math.sqrt(0.004996 / 0.001999) + 1e-8)
    assert w[0] == pytest.approx(expected, rel=1e-12)
    assert opt.t == 2


def test_adamw_decays_then_takes_adams_step():
    w = np.array([1.0])
    AdamW([w], lr=0.1, weight_decay=0.1).step([np.array([2.0])])
    # decay: 1 - 0.1 * 0.1 * 1 = 0.99; Adam's first step is 0.1 * 2 / (2 + eps)
    assert w[0] == pytest.approx(0.99 - 0.1 * 2 / (2 + 1e-8), rel=1e-14)


def test_adamw_with_zero_gradient_only_decays():
    w = np.array([4.0, -4.0])
    opt = AdamW([w], lr=0.5, weight_decay=0.25)
    for step in range(1, 4):
        opt.step([np.zeros(2)])
        assert w == pytest.approx([4.0 * (1 - 0.125) ** step, -4.0 * (1 - 0.125) ** step])


def test_adamw_decays_each_parameter_by_its_own_lambda():
    """A list of weight decays, one per parameter, as PyTorch's parameter groups: a 0 leaves its parameter
    to Adam's step alone."""
    w, b, u = np.array([[4.0]]), np.array([4.0]), np.array([[4.0]])
    opt = AdamW([w, b, u], lr=0.5, weight_decay=[0.25, 0.0, 0.5])
    opt.step([np.zeros((1, 1)), np.zeros(1), np.zeros((1, 1))])
    assert (w[0, 0], b[0], u[0, 0]) == (4.0 * (1 - 0.125), 4.0, 4.0 * (1 - 0.25))


@pytest.mark.parametrize(
    ("weight_decay", "message"),
    [
        ([0.1], r"weight_decay must be a number or a list of one per parameter \(2\), got a list of 1"),
        ([0.1, -0.1], r"weight_decay\[1\] must be in \[0, inf\), got -0.1"),
        ([0.1, float("nan")], r"weight_decay\[1\] must be in"),
    ],
)
def test_a_list_of_weight_decays_is_checked(weight_decay, message):
    with pytest.raises(ValueError, match=message):
        AdamW([np.ones(2), np.ones(3)], weight_decay=weight_decay)


def test_adamw_without_decay_is_adam():
    rng = np.random.default_rng(0)
    w1 = rng.normal(size=(3, 4))
    w2 = w1.copy()
    adam, adamw = Adam([w1], lr=0.01), AdamW([w2], lr=0.01, weight_decay=0.0)
    for _ in range(20):
        g = rng.normal(size=(3, 4))
        adam.step([g])
        adamw.step([g])
    np.testing.assert_array_equal(w1, w2)


def test_adamw_is_not_adam_with_an_l2_gradient():
    """Same start, same loss, same lambda: decoupled decay and an L2 term in the gradient part ways."""
    f, grad, _ = quadratic(A, b)
    lam, lr = 0.1, 0.05
    w_adamw, w_l2 = np.array([2.0, 2.0]), np.array([2.0, 2.0])
    adamw = AdamW([w_adamw], lr=lr, weight_decay=lam)
    adam = Adam([w_l2], lr=lr)
    for _ in range(200):
        adamw.step([grad(w_adamw)])
        adam.step([grad(w_l2) + lam * w_l2])  # gradient of f + lam/2 |w|^2
    assert np.max(np.abs(w_adamw - w_l2)) > 1e-2


# --- convergence on a quadratic -----------------------------------------------------------------


@pytest.mark.parametrize(
    "make, steps, tol",
    [
        (lambda p: SGD(p, lr=0.2), 500, 1e-8),
        (lambda p: SGD(p, lr=0.05, momentum=0.9), 1000, 1e-8),
        (lambda p: Adam(p, lr=0.01), 5000, 1e-2),
    ],
    ids=["sgd", "momentum", "adam"],
)
def test_optimizers_reach_the_minimum_of_a_quadratic(make, steps, tol):
    _, grad, minimum = quadratic(A, b)
    w = np.array([3.0, 3.0])
    opt = make([w])
    for _ in range(steps):
        opt.step([grad(w)])
    assert np.max(np.abs(w - minimum)) < tol


def test_sgd_too_large_a_learning_rate_diverges():
    _, grad, _ = quadratic(A, b)
    largest = np.linalg.eigvalsh(A).max()
    w = np.array([3.0, 3.0])
    opt = SGD([w], lr=2.2 / largest)  # beyond 2 / lambda_max
    for _ in range(100):
        opt.step([grad(w)])
    assert np.max(np.abs(w)) > 1e3


def test_several_parameters_are_updated_in_place_and_independently():
    w, bias = np.ones((2, 3)), np.zeros(3)
    opt = SGD([w, bias], lr=0.5)
    opt.step([np.full((2, 3), 2.0), np.array([1.0, 0.0, -1.0])])
    np.testing.assert_array_equal(w, np.zeros((2, 3)))
    np.testing.assert_array_equal(bias, [-0.5, 0.0, 0.5])


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [SGD, Adam, AdamW])
def test_bad_input_gives_clear_errors_and_changes_nothing(cls):
    w, bias = np.ones((2, 3)), np.zeros(3)
    opt = cls([w, bias], lr=0.1)
    with pytest.raises(ValueError, match=r"expected 2 gradients \(one per parameter\), got 1"):
        opt.step([np.ones((2, 3))])
    with pytest.raises(ValueError, match=r"gradient 1 has shape \(4,\), but parameter 1 has shape \(3,\)"):
        opt.step([np.ones((2, 3)), np.ones(4)])
    with pytest.raises(ValueError, match="gradient 0 contains (NaN|inf|-inf)"):
        opt.step([np.full((2, 3), np.nan), np.ones(3)])
    with pytest.raises(ValueError, match="gradient 1 contains (NaN|inf|-inf)"):
        opt.step([np.ones((2, 3)), np.array([1.0, np.inf, 0.0])])
    np.testing.assert_array_equal(w, np.ones((2, 3)))
    np.testing.assert_array_equal(bias, np.zeros(3))
    assert opt.t == 0


@pytest.mark.parametrize("cls", [SGD, Adam, AdamW])
@pytest.mark.parametrize("lr", [0.0, -0.1, float("nan"), float("inf")])
def test_learning_rate_must_be_positive_and_finite(cls, lr):
    with pytest.raises(ValueError, match=r"lr \(the learning rate\) must be in \(0, inf\)"):
        cls([np.ones(2)], lr=lr)


def test_hyperparameter_ranges():
    with pytest.raises(ValueError, match=r"momentum must be in \[0, 1\)"):
        SGD([np.ones(2)], lr=0.1, momentum=1.0)
    with pytest.raises(ValueError, match=r"betas\[1\] must be in \[0, 1\)"):
        Adam([np.ones(2)], betas=(0.9, 1.5))
    with pytest.raises(ValueError, match="eps must be in"):
        Adam([np.ones(2)], eps=-1.0)
    with pytest.raises(ValueError, match="weight_decay must be in"):
        AdamW([np.ones(2)], weight_decay=-0.01)
    with pytest.raises(TypeError, match="lr .* must be a real number"):
        SGD([np.ones(2)], lr="fast")


def test_params_must_be_a_list_of_float_arrays():
    with pytest.raises(TypeError, match=r"params must be a list of arrays; for a single array write \[w\]"):
        SGD(np.ones(3), lr=0.1)
    with pytest.raises(TypeError, match="parameter 1 must be a NumPy float array"):
        SGD([np.ones(3), np.arange(3)], lr=0.1)
    with pytest.raises(TypeError, match="parameter 0 must be a NumPy float array"):
        Adam([[1.0, 2.0]])
