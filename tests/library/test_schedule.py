"""Global-norm gradient clipping and the warm-up + cosine schedule, by hand, and inside `train`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from transformer_math.schedules import clip_grad_norm, warmup_cosine
from transformer_math.transformer import init_params, make_windows, train


def test_clipping_scales_every_gradient_by_one_factor():
    grads = [np.array([3.0, 0.0]), np.array([[0.0], [4.0]])]  # global norm 5
    clipped, norm = clip_grad_norm(grads, max_norm=2.5)
    assert norm == 5.0
    assert clipped[0] == pytest.approx([1.5, 0.0])
    assert clipped[1] == pytest.approx(np.array([[0.0], [2.0]]))
    assert math.sqrt(sum(np.sum(g**2) for g in clipped)) == pytest.approx(2.5)
    assert grads[0][0] == 3.0  # the input is not modified


def test_clipping_leaves_small_and_zero_gradients_alone():
    clipped, norm = clip_grad_norm([np.array([0.3, 0.4])], max_norm=1.0)
    assert norm == pytest.approx(0.5)
    assert clipped[0] == pytest.approx([0.3, 0.4])
    clipped, norm = clip_grad_norm([np.zeros(3)], max_norm=1.0)
    assert norm == 0.0 and np.all(clipped[0] == 0)


def test_clipping_refuses_bad_input():
    with pytest.raises(ValueError, match="max_norm must be a finite number > 0, got 0"):
        clip_grad_norm([np.ones(2)], 0)
    with pytest.raises(TypeError, match="max_norm must be a real number, got 'a'"):
        clip_grad_norm([np.ones(2)], "a")
    with pytest.raises(ValueError, match="gradient 1 contains (NaN|inf|-inf)"):
        clip_grad_norm([np.ones(2), np.array([np.inf])], 1.0)
    with pytest.raises(
        TypeError, match=r"grads must be a list of arrays, one per parameter; for a single array write \[g\]"
    ):
        clip_grad_norm(np.ones(2), 1.0)


def test_schedule_by_hand():
    lrs = [warmup_cosine(t, total_steps=10, warmup_steps=4, peak_lr=0.1, min_lr=0.01) for t in range(10)]
    assert lrs[:4] == pytest.approx([0.025, 0.05, 0.075, 0.1])  # linear warm-up to the peak
    assert lrs[4] == pytest.approx(0.1)  # the decay starts at the peak ...
    assert lrs[-1] == pytest.approx(0.01)  # ... and ends at min_lr
    p = 2 / 5  # step 6 is 2 of the 5 decay intervals in
    assert lrs[6] == pytest.approx(0.01 + 0.045 * (1 + math.cos(math.pi * p)))
    assert all(a >= b for a, b in zip(lrs[4:], lrs[5:]))  # never rises after the warm-up


def test_schedule_edge_cases():
    assert warmup_cosine(0, total_steps=1, warmup_steps=0, peak_lr=0.5) == 0.5  # one step: the peak
    assert [warmup_cosine(t, 3, 0, 1.0) for t in range(3)] == pytest.approx([1.0, 0.5, 0.0])


def test_schedule_refuses_bad_input():
    with pytest.raises(ValueError, match="warmup_steps must be less than total_steps = 10, got 10"):
        warmup_cosine(0, 10, 10, 0.1)
    with pytest.raises(ValueError, match="step must be less than total_steps = 10, got 10"):
        warmup_cosine(10, 10, 2, 0.1)
    with pytest.raises(ValueError, match="total_steps must be at least 1, got 0"):
        warmup_cosine(0, 0, 0, 0.1)
    with pytest.raises(TypeError, match="step must be an integer, got 1.5"):
        warmup_cosine(1.5, 10, 2, 0.1)
    with pytest.raises(ValueError, match="peak_lr must be a finite number > 0, got 0"):
        warmup_cosine(0, 10, 2, 0)
    with pytest.raises(ValueError, match=r"min_lr must be in \[0, peak_lr = 0.1\], got 0.2"):
        warmup_cosine(0, 10, 2, 0.1, min_lr=0.2)


def data():
    vocab = ["the", "cat", "sat", "on", "mat"]
    stream = [vocab.index(word) for word in "the cat sat on the mat the cat sat on the mat the cat".split()]
    return make_windows(stream, seq_len=8)


def test_train_without_options_is_unchanged_and_options_change_the_run():
    x, y = data()
    plain = train(init_params(5, 8, 32, seed=0), x, y, n_heads=2, steps=40, lr=0.01)
    same = train(init_params(5, 8, 32, seed=0), x, y, n_heads=2, steps=40, lr=0.01, max_grad_norm=1e9)
    assert same == pytest.approx(plain, rel=1e-12)  # a bound never reached changes nothing
    clipped = train(init_params(5, 8, 32, seed=0), x, y, n_heads=2, steps=40, lr=0.01, max_grad_norm=0.1)
    scheduled = train(init_params(5, 8, 32, seed=0), x, y, n_heads=2, steps=40, lr=0.01, warmup_steps=10)
    assert clipped[0] == scheduled[0] == plain[0]
    assert clipped[1] != plain[1] and scheduled[1] != plain[1]
    assert scheduled[-1] < scheduled[0] / 2 and clipped[-1] < clipped[0] / 2


def test_train_refuses_bad_options_before_changing_anything():
    x, y = data()
    params = init_params(5, 8, 32, seed=0)
    before = {name: p.copy() for name, p in params.items()}
    with pytest.raises(ValueError, match="max_grad_norm must be a finite number > 0"):
        train(params, x, y, n_heads=2, steps=3, max_grad_norm=-1)
    with pytest.raises(ValueError, match="warmup_steps must be less than steps = 3, got 3"):
        train(params, x, y, n_heads=2, steps=3, warmup_steps=3)
    assert all(np.array_equal(params[name], before[name]) for name in params)
