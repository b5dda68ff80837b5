"""The one-block Transformer: every gradient against central differences, and the training run of the guide."""

from __future__ import annotations

import numpy as np
import pytest

from transformer_math.calculus import numerical_gradient
from transformer_math.information import cross_entropy_from_logits
from transformer_math.stats import layer_norm
from transformer_math.transformer import (
    backward,
    cross_entropy_backward,
    forward,
    generate,
    init_params,
    layer_norm_backward,
    loss_and_grads,
    make_windows,
    train,
)


def _perturbed_params(seed):
    """Parameters away from their initial values (gains not all 1, biases not all 0), so every term counts."""
    params = init_params(vocab_size=5, d_model=8, d_ff=12, seed=seed)
    rng = np.random.default_rng(seed + 100)
    return {name: p + 0.2 * rng.normal(size=p.shape) for name, p in params.items()}


@pytest.mark.parametrize("batched", [False, True])
def test_every_parameter_gradient_matches_central_differences(batched):
    params = _perturbed_params(1)
    rng = np.random.default_rng(0)
    shape = (2, 4) if batched else (4,)
    tokens, targets = rng.integers(0, 5, size=shape), rng.integers(0, 5, size=shape)
    _, grads = loss_and_grads(params, tokens, targets, n_heads=2)
    assert list(grads) == list(params)
    for name in params:

        def loss_of(w, name=name):
            logits, _ = forward({**params, name: w}, tokens, n_heads=2)
            return cross_entropy_from_logits(logits, targets)

        numeric = numerical_gradient(loss_of, params[name])
        rel = np.linalg.norm(grads[name] - numeric) / (np.linalg.norm(grads[name]) + np.linalg.norm(numeric))
        assert rel < 1e-6, f"{name}: relative error {rel:.2e}"


def test_layer_norm_backward_matches_central_differences():
    rng = np.random.default_rng(4)
    x, gamma, dy = rng.normal(size=(3, 6)), rng.normal(size=6), rng.normal(size=(3, 6))
    dx, dgamma, dbeta = layer_norm_backward(dy, x, gamma)
    np.testing.assert_allclose(
        dx, numerical_gradient(lambda z: np.sum(dy * layer_norm(z, gamma)), x), rtol=1e-6, atol=1e-9
    )
    np.testing.assert_allclose(
        dgamma, numerical_gradient(lambda g: np.sum(dy * layer_norm(x, g)), gamma), rtol=1e-6, atol=1e-9
    )
    np.testing.assert_allclose(dbeta, dy.sum(axis=0))


def test_cross_entropy_backward_is_prediction_minus_target():
    logits, targets = np.array([[2.0, 0.0, -1.0], [0.0, 0.0, 0.0]]), np.array([0, 2])
    p = np.exp(logits) / np.exp(logits).sum(axis=-1, keepdims=True)
    expected = (p - np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])) / 2
    np.testing.assert_allclose(cross_entropy_backward(logits, targets), expected, rtol=1e-14, atol=1e-16)


def test_cross_entropy_backward_matches_central_differences():
    rng = np.random.default_rng(5)
    logits, targets = rng.normal(size=(2, 3, 4)), rng.integers(0, 4, size=(2, 3))
    numeric = numerical_gradient(lambda z: cross_entropy_from_logits(z, targets), logits)
    np.testing.assert_allclose(cross_entropy_backward(logits, targets), numeric, rtol=1e-6, atol=1e-10)


def test_causality_a_later_token_never_changes_an_earlier_logit():
    params = init_params(vocab_size=5, d_model=8, d_ff=12, seed=0)
    a, _ = forward(params, np.array([0, 1, 2, 3]), n_heads=2)
    b, _ = forward(params, np.array([0, 1, 2, 4]), n_heads=2)
    np.testing.assert_array_equal(a[:3], b[:3])
    assert not np.allclose(a[3], b[3])


def test_backward_of_a_batch_is_the_sum_over_sequences():
    params = init_params(vocab_size=5, d_model=8, d_ff=12, seed=2)
    tokens = np.array([[0, 1, 2], [3, 4, 0]])
    logits, cache = forward(params, tokens, n_heads=4)
    dlogits = np.random.default_rng(0).normal(size=logits.shape)
    together = backward(params, cache, dlogits)
    for name in params:
        parts = sum(backward(params, forward(params, tokens[i], n_heads=4)[1], dlogits[i])[name] for i in range(2))
        np.testing.assert_allclose(together[name], parts, rtol=1e-10, atol=1e-12)


def test_bad_input_is_refused():
    params = init_params(vocab_size=5, d_model=8, d_ff=12)
    with pytest.raises(ValueError, match=r"d_model = 8 is not divisible by n_heads = 3"):
        forward(params, np.array([0, 1]), n_heads=3)
    with pytest.raises(ValueError, match=r"n_heads must be at least 1, got 0"):
        forward(params, np.array([0, 1]), n_heads=0)
    with pytest.raises(ValueError, match=r"token 5 at position \(1,\) of tokens is out of range for a vocabulary of 5"):
        forward(params, np.array([0, 5]), n_heads=2)
    with pytest.raises(ValueError, match="longer than seq_len"):
        make_windows([0, 1, 2], seq_len=3)


def test_training_run_of_the_guide_reaches_the_stated_loss():
    """The run of docs/part-4/training.md: 300 AdamW steps reach 0.0300, near the floor 2 ln 2 / 48 = 0.0289."""
    vocab = ["the", "cat", "sat", "on", "mat"]
    stream = [vocab.index(word) for word in "the cat sat on the mat the cat sat on the mat the cat".split()]
    inputs, targets = make_windows(stream, seq_len=8)
    assert inputs.shape == (6, 8)
    params = init_params(vocab_size=5, d_model=8, d_ff=32, seed=0)
    losses = train(params, inputs, targets, n_heads=2, steps=300, lr=0.01)
    floor = 2 * np.log(2) / inputs.size
    assert round(losses[0], 4) == 1.7878
    assert round(losses[-1], 4) == 0.0300  # the loss stated on the page
    assert losses[-1] > floor
    story = generate(params, [0, 1, 2, 3], n_new=12, n_heads=2, context=8)
    assert " ".join(vocab[t] for t in story) == "the cat sat on the mat the cat sat on the mat the cat sat on"
