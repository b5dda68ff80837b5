"""Sampling the next token: temperature, top-k and top-p against distributions worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from transformer_math.softmax import softmax
from transformer_math.transformer import generate, init_params, sample_token, sampling_distribution

LOGITS = np.array([2.0, 1.0, 0.0, -1.0])


def test_temperature_one_is_the_softmax_and_the_draws_follow_it():
    p = softmax(LOGITS)
    assert sampling_distribution(LOGITS) == pytest.approx(p, rel=1e-12)
    rng = np.random.default_rng(0)
    counts = np.bincount([sample_token(LOGITS, rng) for _ in range(4000)], minlength=4)
    assert counts / 4000 == pytest.approx(p, abs=0.02)


def test_temperature_divides_the_logits():
    assert sampling_distribution(LOGITS, temperature=2.0) == pytest.approx(softmax(LOGITS / 2), rel=1e-12)
    sharp = sampling_distribution(LOGITS, temperature=0.5)
    assert sharp == pytest.approx(softmax(LOGITS / 0.5), rel=1e-12)
    assert sharp[0] > softmax(LOGITS)[0]  # a lower temperature sharpens
    assert list(sampling_distribution(LOGITS, temperature=0)) == [1, 0, 0, 0]


def test_temperature_zero_is_greedy_and_uses_no_randomness():
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    assert [sample_token(LOGITS, rng, temperature=0) for _ in range(5)] == [0] * 5
    assert rng.bit_generator.state == state


def test_top_k_keeps_the_k_largest_renormalised():
    p = softmax(LOGITS[:2])  # [0.7311, 0.2689]
    assert sampling_distribution(LOGITS, top_k=2) == pytest.approx([p[0], p[1], 0, 0], rel=1e-12)
    assert list(sampling_distribution(LOGITS, top_k=1)) == [1, 0, 0, 0]
    assert sampling_distribution(LOGITS, top_k=4) == pytest.approx(softmax(LOGITS), rel=1e-12)
    rng = np.random.default_rng(0)
    assert {sample_token(LOGITS, rng, top_k=2) for _ in range(200)} == {0, 1}


def test_top_p_keeps_the_smallest_set_that_reaches_p():
    p = softmax(LOGITS)  # [0.6439, 0.2369, 0.0871, 0.0321]
    assert list(sampling_distribution(LOGITS, top_p=0.5)) == [1, 0, 0, 0]  # token 0 alone holds 0.64
    kept = p[:2] / p[:2].sum()  # 0.64 < 0.8, so token 1 is kept too; 0.88 >= 0.8 stops there
    assert sampling_distribution(LOGITS, top_p=0.8) == pytest.approx([kept[0], kept[1], 0, 0], rel=1e-12)
    three = p[:3] / p[:3].sum()  # 0.88 < 0.9: a third token is needed
    assert sampling_distribution(LOGITS, top_p=0.9) == pytest.approx([*three, 0], rel=1e-12)
    assert sampling_distribution(LOGITS, top_p=1.0) == pytest.approx(p, rel=1e-12)


def test_top_k_and_top_p_together_and_with_temperature():
    p = softmax(LOGITS[:3] / 3.0)  # [0.4718, 0.3381, 0.2423] after top-k: 0.47 < 0.6, then 0.81 >= 0.6
    expected = [p[0] / (p[0] + p[1]), p[1] / (p[0] + p[1]), 0, 0]
    assert sampling_distribution(LOGITS, temperature=3.0, top_k=3, top_p=0.6) == pytest.approx(expected, rel=1e-12)


def test_the_same_seed_gives_the_same_text_and_greedy_stays_the_default():
    params = init_params(vocab_size=6, d_model=8, d_ff=16, seed=1)
    sampled = [generate(params, [0, 1], n_new=20, n_heads=2, temperature=1.5, seed=s) for s in (0, 0, 1)]
    assert sampled[0] == sampled[1]
    assert sampled[0] != sampled[2]
    greedy = generate(params, [0, 1], n_new=20, n_heads=2)
    assert greedy == generate(params, [0, 1], n_new=20, n_heads=2, seed=5)  # the seed does not matter
    assert greedy == generate(params, [0, 1], n_new=20, n_heads=2, temperature=1.0, top_k=1)


def test_bad_input_is_refused_with_the_argument_named():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"temperature must be in \[0, inf\), got -1"):
        sample_token(LOGITS, rng, temperature=-1)
    with pytest.raises(TypeError, match="temperature must be a real number, got '1'"):
        sample_token(LOGITS, rng, temperature="1")
    with pytest.raises(ValueError, match=r"top_k must be an integer in 1 \.\. 4 \(the vocabulary\), got 5"):
        sample_token(LOGITS, rng, top_k=5)
    with pytest.raises(ValueError, match=r"top_k must be an integer in 1 \.\. 4 \(the vocabulary\), got 0"):
        sample_token(LOGITS, rng, top_k=0)
    with pytest.raises(TypeError, match="top_k must be an integer, got 2.5"):
        sample_token(LOGITS, rng, top_k=2.5)
    with pytest.raises(TypeError, match="top_p must be a real number, got '0.5'"):
        sample_token(LOGITS, rng, top_p="0.5")
    with pytest.raises(ValueError, match=r"top_p must be in \(0, 1\], got 0"):
        sample_token(LOGITS, rng, top_p=0)
    with pytest.raises(ValueError, match=r"top_p must be in \(0, 1\], got 1.5"):
        sample_token(LOGITS, rng, top_p=1.5)
    with pytest.raises(ValueError, match=r"logits must be a non-empty vector of shape \(V,\), got shape \(2, 2\)"):
        sample_token(np.zeros((2, 2)), rng)
    with pytest.raises(ValueError, match=r"logits contains NaN \(first at index \(1,\)"):
        sample_token([0.0, np.nan], rng)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        sample_token(LOGITS, 0)
    params = init_params(vocab_size=4, d_model=8, d_ff=16)
    with pytest.raises(ValueError, match="top_k and top_p need temperature > 0"):
        generate(params, [0], n_new=2, n_heads=2, top_k=2)
    with pytest.raises(ValueError, match=r"temperature must be in \[0, inf\), got -0.5"):
        generate(params, [0], n_new=0, n_heads=2, temperature=-0.5)  # checked even with nothing to generate
    with pytest.raises(ValueError, match=r"top_k must be an integer in 1 \.\. 4 \(the vocabulary\), got 9"):
        generate(params, [0], n_new=2, n_heads=2, temperature=1.0, top_k=9)
