"""The fast paths against the formulas the pages teach, and the checks made once.

The model's inner calls run private kernels that compute a formula in a faster order (attention's scores
transposed, LayerNorm's means as matrix-vector products, the loss and its gradient from one softmax, sorted
runs instead of ``np.add.at``, one matrix product over every token): each is compared here with the formula
as written, in float64 and float32. ``train`` checks the model before its first step and never again.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import transformer_math.model_checks
from transformer_math.attention import _attention, causal_mask
from transformer_math.block import _layer_norm_backward, linear
from transformer_math.information import cross_entropy_from_logits
from transformer_math.model import _cross_entropy_and_grad, add_rows, cross_entropy_backward, init_params
from transformer_math.schedules import global_norm
from transformer_math.stats import normalise, row_means
from transformer_math.train import train

RNG = np.random.default_rng(7)
DTYPES = {np.float64: 1e-13, np.float32: 2e-6}


def textbook_attention(q, k, v, mask):
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    scores = np.where(mask, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: t.__name__)
def test_attention_kernel_is_the_formula(dtype):
    q, k, v = (RNG.normal(size=(3, 2, 6, 4)).astype(dtype) for _ in range(3))
    out, weights = _attention(q, k, v, causal_mask(6))
    want_out, want_weights = textbook_attention(q.astype(float), k.astype(float), v.astype(float), causal_mask(6))
    assert out.dtype == weights.dtype == dtype
    np.testing.assert_allclose(out, want_out, rtol=DTYPES[dtype], atol=DTYPES[dtype])
    np.testing.assert_allclose(weights, want_weights, rtol=DTYPES[dtype], atol=DTYPES[dtype])
    assert np.all(np.triu(weights, 1) == 0)  # masked: exactly 0


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: t.__name__)
@pytest.mark.parametrize("shape", [(5, 3, 7), (4, 64, 72)], ids=["a stack of small products", "one product"])
def test_linear_is_x_at_w_plus_b(shape, dtype):
    x = RNG.normal(size=shape).astype(dtype)
    w, b = RNG.normal(size=(shape[-1], 80)).astype(dtype), RNG.normal(size=80).astype(dtype)
    y = linear(x, w, b)
    assert y.dtype == dtype and y.shape == shape[:-1] + (80,)
    np.testing.assert_allclose(y, x.astype(float) @ w.astype(float) + b, rtol=DTYPES[dtype] * 10, atol=1e-4)
    np.testing.assert_allclose(linear(y, w.T), y.astype(float) @ w.T.astype(float), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: t.__name__)
def test_layer_norm_kernels_are_the_formulas(dtype):
    x = (RNG.normal(size=(4, 5, 16)) * 3 + 2).astype(dtype)
    dy, gamma = RNG.normal(size=x.shape).astype(dtype), RNG.normal(size=16).astype(dtype)
    np.testing.assert_allclose(row_means(x)[..., 0], x.astype(float).mean(axis=-1), rtol=DTYPES[dtype])
    x_hat, s = normalise(x, 1e-5)
    w = x.astype(float)
    mu, var = w.mean(axis=-1, keepdims=True), w.var(axis=-1, keepdims=True)
    np.testing.assert_allclose(s, np.sqrt(var + 1e-5), rtol=DTYPES[dtype])
    np.testing.assert_allclose(x_hat, (w - mu) / np.sqrt(var + 1e-5), rtol=DTYPES[dtype] * 10, atol=DTYPES[dtype])
    dx, dgamma, dbeta = _layer_norm_backward(dy, x_hat, s, gamma)
    g, xh = dy.astype(float) * gamma, (w - mu) / np.sqrt(var + 1e-5)  # the backprop page's formula
    want = (g - g.mean(axis=-1, keepdims=True) - xh * (g * xh).mean(axis=-1, keepdims=True)) / np.sqrt(var + 1e-5)
    np.testing.assert_allclose(dx, want, rtol=1e-4 if dtype == np.float32 else 1e-12, atol=DTYPES[dtype] * 10)
    np.testing.assert_allclose(dgamma, (dy * xh).reshape(-1, 16).sum(axis=0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dbeta, dy.astype(float).reshape(-1, 16).sum(axis=0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: t.__name__)
def test_the_loss_and_its_gradient_from_one_softmax_are_the_two_functions(dtype):
    logits, targets = (RNG.normal(size=(3, 4, 9)) * 4).astype(dtype), RNG.integers(0, 9, size=(3, 4))
    loss, dlogits = _cross_entropy_and_grad(logits, targets)
    assert loss == pytest.approx(cross_entropy_from_logits(logits, targets), rel=DTYPES[dtype])
    np.testing.assert_allclose(dlogits, cross_entropy_backward(logits, targets), rtol=1e-5, atol=DTYPES[dtype])


def test_adding_rows_by_sorted_runs_is_np_add_at():
    target, rows, values = RNG.normal(size=(7, 3)), RNG.integers(0, 7, size=50), RNG.normal(size=(50, 3))
    want = target.copy()
    np.add.at(want, rows, values)
    add_rows(target, rows, values)
    np.testing.assert_allclose(target, want, rtol=1e-14)


@pytest.mark.parametrize("scale", [1e-30, 1.0, 1e30, 1e200], ids=lambda s: f"entries near {s:g}")
def test_global_norm_by_dot_products_or_scaled_is_the_norm(scale):
    arrays = [RNG.normal(size=(5, 4)) * scale, RNG.normal(size=3) * scale]
    want = math.hypot(*np.concatenate([a.ravel() for a in arrays]))
    assert global_norm(arrays) == pytest.approx(want, rel=1e-14)
    if scale < 1e30:  # float32 holds these
        assert global_norm([a.astype(np.float32) for a in arrays]) == pytest.approx(want, rel=1e-6)


def test_train_checks_the_model_once_not_at_every_step(monkeypatch):
    calls = []
    check = transformer_math.model_checks.check_params
    monkeypatch.setattr(transformer_math.model_checks, "check_params", lambda *a: calls.append(1) or check(*a))
    params = init_params(vocab_size=5, d_model=8, d_ff=16, n_layers=2)
    tokens = np.array([[0, 1, 2, 3], [3, 2, 1, 0]])
    train(params, tokens, tokens, n_heads=2, steps=20)
    assert len(calls) == 1
