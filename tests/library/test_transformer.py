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


def test_a_changed_ln_eps_changes_forward_and_backward_alike(monkeypatch):
    """LN_EPS is read at each call: set to 0.5, it changes the loss, and every gradient still matches central
    differences of that loss (a backward pass that kept 1e-5 would not)."""
    from transformer_math import block

    params = _perturbed_params(3)
    rng = np.random.default_rng(1)
    tokens, targets = rng.integers(0, 5, size=(2, 4)), rng.integers(0, 5, size=(2, 4))
    loss_before, _ = loss_and_grads(params, tokens, targets, n_heads=2)
    monkeypatch.setattr(block, "LN_EPS", 0.5)
    loss, grads = loss_and_grads(params, tokens, targets, n_heads=2)
    assert abs(loss - loss_before) > 1e-3
    for name in params:

        def loss_of(w, name=name):
            logits, _ = forward({**params, name: w}, tokens, n_heads=2)
            return cross_entropy_from_logits(logits, targets)

        numeric = numerical_gradient(loss_of, params[name])
        rel = np.linalg.norm(grads[name] - numeric) / (np.linalg.norm(grads[name]) + np.linalg.norm(numeric))
        assert rel < 1e-6, f"{name}: relative error {rel:.2e}"
    x, gamma, dy = rng.normal(size=(3, 6)), rng.normal(size=6), rng.normal(size=(3, 6))
    for ours, explicit in zip(layer_norm_backward(dy, x, gamma), layer_norm_backward(dy, x, gamma, eps=0.5)):
        np.testing.assert_array_equal(ours, explicit)


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
    """The run of docs/part-4/training.md: 300 AdamW steps reach 0.0299, near the floor 2 ln 2 / 48 = 0.0289."""
    vocab = ["the", "cat", "sat", "on", "mat"]
    stream = [vocab.index(word) for word in "the cat sat on the mat the cat sat on the mat the cat".split()]
    inputs, targets = make_windows(stream, seq_len=8)
    assert inputs.shape == (6, 8)
    params = init_params(vocab_size=5, d_model=8, d_ff=32, seed=0)
    losses = train(params, inputs, targets, n_heads=2, steps=300, lr=0.01)
    floor = 2 * np.log(2) / inputs.size
    assert round(losses[0], 4) == 1.7878
    assert round(losses[-1], 4) == 0.0299  # the loss stated on the page
    assert losses[-1] > floor
    story = generate(params, [0, 1, 2, 3], n_new=12, n_heads=2, context=8)
    assert " ".join(vocab[t] for t in story) == "the cat sat on the mat the cat sat on the mat the cat sat on"
    # the page reads the attention figure: at the later "the"s of the first window (positions 4 and 6), head 2's
    # largest weight is on the word just before, "on" and "mat"
    weights = forward(params, inputs[0], n_heads=2)[1]["weights"][1]
    assert [vocab[inputs[0, weights[i].argmax()]] for i in (4, 6)] == ["on", "mat"]


def test_output_scale_scales_only_the_output_projection_and_sets_the_initial_loss():
    """The page's "check the initial loss": unit-scale logits cost about ln V + sigma^2 / 2, a 0.1 output
    projection starts within 0.01 of ln V, and every other array is the default draw."""
    rng = np.random.default_rng(0)
    tokens, targets = rng.integers(0, 40, size=(64, 16)), rng.integers(0, 40, size=(64, 16))
    default = init_params(vocab_size=40, d_model=32, d_ff=64, seed=3)
    for scale in [0.0, 0.1, 2.5]:
        scaled = init_params(vocab_size=40, d_model=32, d_ff=64, seed=3, output_scale=scale)
        np.testing.assert_allclose(scaled["W_U"], scale * default["W_U"], rtol=0, atol=1e-15)
        assert all(np.array_equal(scaled[name], default[name]) for name in default if name != "W_U")
    assert np.array_equal(init_params(40, 32, 64, seed=3, output_scale=1)["W_U"], default["W_U"])

    logits, _ = forward(default, tokens, n_heads=2)
    sigma = logits.std()
    assert 0.8 < sigma < 1.2
    assert cross_entropy_from_logits(logits, targets) > np.log(40) + 0.3
    assert abs(cross_entropy_from_logits(logits, targets) - (np.log(40) + sigma**2 / 2)) < 0.15
    small, _ = forward(init_params(40, 32, 64, seed=3, output_scale=0.1), tokens, n_heads=2)
    assert abs(cross_entropy_from_logits(small, targets) - np.log(40)) < 0.01
    zero, _ = forward(init_params(40, 32, 64, seed=3, output_scale=0), tokens, n_heads=2)
    assert cross_entropy_from_logits(zero, targets) == pytest.approx(np.log(40), abs=1e-12)


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (-0.1, ValueError, r"output_scale must be in \[0, inf\), got -0.1"),
        (float("nan"), ValueError, r"output_scale must be in \[0, inf\), got nan"),
        (float("inf"), ValueError, r"output_scale must be in \[0, inf\), got inf"),
        ("0.1", TypeError, r"output_scale must be a real number, got '0.1'"),
        (True, TypeError, r"output_scale must be a real number, got True"),
    ],
)
def test_output_scale_is_checked(value, error, message):
    with pytest.raises(error, match=message):
        init_params(vocab_size=5, d_model=8, d_ff=16, output_scale=value)


def test_train_decays_the_matrices_and_not_the_vectors():
    """One step with weight decay and one without part by exactly lr * lambda * theta on every array of two or
    more dimensions (embeddings, positions, weight matrices) and not at all on the vectors (biases, gains)."""
    x, y = make_windows([0, 1, 2, 3, 4, 2, 0, 1, 3, 4, 4, 1], seq_len=4)
    start = init_params(vocab_size=5, d_model=8, d_ff=16, seed=2, n_layers=2, positions="learned", n_ctx=4)
    decayed = {name: p.copy() for name, p in start.items()}
    undecayed = {name: p.copy() for name, p in start.items()}
    train(decayed, x, y, n_heads=2, steps=1, lr=0.1, weight_decay=0.5)
    train(undecayed, x, y, n_heads=2, steps=1, lr=0.1, weight_decay=0.0)
    vectors = {name for name, p in start.items() if p.ndim == 1}
    assert vectors == {p + n for p in ("", "h1.") for n in ("ln1_g", "ln1_b", "ln2_g", "ln2_b", "b_1", "b_2")} | {
        "lnf_g",
        "lnf_b",
    }
    for name, p in start.items():
        if name in vectors:
            np.testing.assert_array_equal(decayed[name], undecayed[name], err_msg=name)
        else:
            np.testing.assert_allclose(undecayed[name] - decayed[name], 0.1 * 0.5 * p, rtol=1e-9, atol=1e-15)


def test_make_optimizer_checks_its_arguments():
    from transformer_math.train import make_optimizer

    with pytest.raises(TypeError, match="params must be a dict of arrays"):
        make_optimizer([np.ones((2, 2))])
    with pytest.raises(ValueError, match=r"weight_decay must be in \[0, inf\)"):
        make_optimizer(init_params(5, d_model=8, d_ff=16), weight_decay=-0.1)


def test_mini_batch_training_is_the_loop_of_the_page():
    """train(batch_size=B, seed=s) draws B windows per step with np.random.default_rng(s) and steps AdamW on
    them: the same parameters, bit for bit, as the loop written out on the page."""
    from transformer_math.train import make_optimizer

    rng = np.random.default_rng(5)
    stream = rng.integers(0, 7, size=200)
    x, y = make_windows(stream, seq_len=6)
    by_train = init_params(vocab_size=7, d_model=8, d_ff=16, seed=1, output_scale=0.1)
    losses = train(by_train, x, y, n_heads=2, steps=15, lr=0.01, batch_size=4, seed=2)

    by_hand = init_params(vocab_size=7, d_model=8, d_ff=16, seed=1, output_scale=0.1)
    names = list(by_hand)
    optimizer = make_optimizer(by_hand, lr=0.01, weight_decay=0.01)
    draws = np.random.default_rng(2)
    hand_losses = []
    for _ in range(15):
        rows = draws.integers(0, len(x), size=4)
        loss, grads = loss_and_grads(by_hand, x[rows], y[rows], n_heads=2)
        optimizer.step([grads[name] for name in names])
        hand_losses.append(loss)
    assert losses == hand_losses
    assert all(np.array_equal(by_train[name], by_hand[name]) for name in names)

    other_seed = init_params(vocab_size=7, d_model=8, d_ff=16, seed=1, output_scale=0.1)
    assert train(other_seed, x, y, n_heads=2, steps=15, lr=0.01, batch_size=4, seed=3) != losses
    full = init_params(vocab_size=7, d_model=8, d_ff=16, seed=1, output_scale=0.1)
    first = loss_and_grads(init_params(7, d_model=8, d_ff=16, seed=1, output_scale=0.1), x, y, n_heads=2)[0]
    assert train(full, x, y, n_heads=2, steps=1, lr=0.01) == [first]  # without batch_size: every window


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"batch_size": 0}, ValueError, r"batch_size must be at least 1, got 0"),
        ({"batch_size": 2.0}, TypeError, r"batch_size"),
        ({"batch_size": 2, "seed": -1}, ValueError, r"seed"),
        (
            {"batch_size": 2, "tokens": np.arange(6) % 5},
            ValueError,
            r"batch_size needs tokens of shape \(windows, n\), got shape \(6,\)",
        ),
        (
            {"batch_size": 2, "targets": np.zeros((3, 4), dtype=int)},
            ValueError,
            r"targets must have the shape of tokens, \(4, 4\), got \(3, 4\)",
        ),
    ],
)
def test_mini_batch_arguments_are_checked(kwargs, error, message):
    x, y = make_windows([0, 1, 2, 3, 4, 0, 1, 2], seq_len=4)
    arguments = {"tokens": x, "targets": y, **kwargs}
    tokens, targets = arguments.pop("tokens"), arguments.pop("targets")
    if tokens.ndim == 1:
        targets = tokens
    with pytest.raises(error, match=message):
        train(init_params(5, d_model=8, d_ff=16), tokens, targets, n_heads=2, steps=2, **arguments)


def test_the_fables_run_of_the_guide():
    """The run of the page's "Training on real text": 300 steps of 32 windows reach the validation loss 2.2898
    the page states, far below ln V = 4.0431 and the 2.47 of character-pair counts; past the training length
    of 16 the loss rises by more than half a nat."""
    from transformer_math.data import load_text
    from transformer_math.softmax import log_softmax

    text = load_text("aesop")
    chars = sorted(set(text))
    ids = np.array([chars.index(c) for c in text])
    split = int(0.9 * len(ids))
    x_train, y_train = make_windows(ids[:split], seq_len=16)
    x_val, y_val = make_windows(ids[split:], seq_len=16)
    params = init_params(vocab_size=len(chars), d_model=32, d_ff=32, seed=0, output_scale=0.1)
    losses = train(params, x_train, y_train, n_heads=2, steps=300, lr=0.01, batch_size=32, seed=0)
    assert abs(losses[0] - np.log(len(chars))) < 0.05  # a mini-batch's loss at step 0: near ln V
    logits, _ = forward(params, x_val, n_heads=2)
    assert round(cross_entropy_from_logits(logits, y_val), 4) == 2.2898

    x_long, y_long = make_windows(ids[split:], seq_len=64)
    long_logits, _ = forward(params, x_long, n_heads=2)
    loss_at = -np.take_along_axis(log_softmax(long_logits), y_long[..., None], axis=-1)[..., 0].mean(axis=0)
    assert loss_at[16:].mean() > loss_at[:16].mean() + 0.5
