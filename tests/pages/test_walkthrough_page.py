"""What docs/part-4/walkthrough.md says in words about AdamW's first step holds: each entry moves by the learning
rate, plus the decay eta * lambda * w, whatever the size of its gradient."""

from __future__ import annotations

import functools

import numpy as np

from tests.pages import prose
from transformer_math.train import make_optimizer
from transformer_math.transformer import init_params, loss_and_grads

says = functools.partial(prose.says, "part-4/walkthrough.md")


def test_the_first_step_is_the_learning_rate_plus_the_decay():
    params = init_params(vocab_size=5, d_model=8, d_ff=32, seed=0)
    _, grads = loss_and_grads(params, np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0]), n_heads=2)
    optimizer = make_optimizer(params, lr=0.01)
    lr, decay = 0.01, optimizer.weight_decay[list(params).index("W_Q")]
    before = params["W_Q"].copy()
    optimizer.step([grads[name] for name in params])
    change = params["W_Q"] - before
    large = np.abs(grads["W_Q"]) > 1e-6  # gradients well above Adam's epsilon: the decay, up to 8e-5, is what is left
    expected = -lr * np.sign(grads["W_Q"]) - lr * decay * before
    assert np.allclose(change[large], expected[large], atol=1e-6)
    assert not np.allclose(change[large], -lr * np.sign(grads["W_Q"])[large], atol=1e-6)  # the decay shows
    assert round(float(np.abs(change).max()), 6) == 0.010078 and says("largest change of W_Q: 0.010078")
    assert decay == 0.01 and says("plus the small decay $\\eta \\lambda w$ ($\\lambda = 0.01$)")
    assert says("by about the learning rate $\\eta = 0.01$, whatever the gradient's size")
