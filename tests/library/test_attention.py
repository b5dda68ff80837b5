"""Attention: weights are distributions, masks are exact, results match a loop-by-loop reference."""

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


def attention_loops(q, k, v, mask=None):
    """Scaled dot-product attention for one (n_q, d) query matrix, one number at a time."""
    n_q, d_k = len(q), len(q[0])
    out, weights = [], []
    for i in range(n_q):
        scores = []
        for j in range(len(k)):
            if mask is not None and not mask[i][j]:
                scores.append(None)
                continue
            scores.append(sum(q[i][t] * k[j][t] for t in range(d_k)) / math.sqrt(d_k))
        top = max(s for s in scores if s is not None)
        exps = [0.0 if s is None else math.exp(s - top) for s in scores]
        total = sum(exps)
        row = [e / total for e in exps]
        weights.append(row)
        out.append([sum(row[j] * v[j][c] for j in range(len(v))) for c in range(len(v[0]))])
    return np.array(out), np.array(weights)


def test_rows_sum_to_one_and_masked_weights_are_exactly_zero():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(3, 2, 6, 4)), rng.normal(size=(3, 2, 6, 4)), rng.normal(size=(3, 2, 6, 5))
    out, w = scaled_dot_product_attention(q, k, v, mask=causal_mask(6))
    assert out.shape == (3, 2, 6, 5) and w.shape == (3, 2, 6, 6)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    assert np.all(w[..., ~causal_mask(6)] == 0.0)
    assert np.all(w[..., causal_mask(6)] > 0.0)
    assert np.all(w[..., 0, 0] == 1.0)  # the first token can only see itself


@pytest.mark.parametrize("masked", [False, True])
def test_matches_loop_reference(masked):
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    mask = causal_mask(5) if masked else None
    out, w = scaled_dot_product_attention(q, k, v, mask)
    ref_out, ref_w = attention_loops(q.tolist(), k.tolist(), v.tolist(), None if mask is None else mask.tolist())
    np.testing.assert_allclose(w, ref_w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out, ref_out, rtol=1e-12, atol=1e-14)


def test_batched_equals_one_at_a_time_and_rectangular_inputs():
    rng = np.random.default_rng(2)
    q, k, v = rng.normal(size=(4, 3, 8)), rng.normal(size=(4, 7, 8)), rng.normal(size=(4, 7, 2))
    out, w = scaled_dot_product_attention(q, k, v)
    for b in range(4):
        ob, wb = scaled_dot_product_attention(q[b], k[b], v[b])
        np.testing.assert_allclose(out[b], ob, rtol=1e-13)
        np.testing.assert_allclose(w[b], wb, rtol=1e-13)


def test_multi_head_matches_per_head_loops_and_scales_by_head_width():
    rng = np.random.default_rng(3)
    n, d, h = 5, 8, 2
    x = rng.normal(size=(n, d))
    w_q, w_k, w_v, w_o = (rng.normal(size=(d, d)) for _ in range(4))
    out, weights = multi_head_attention(x, w_q, w_k, w_v, w_o, h, mask=causal_mask(n))
    d_head = d // h
    heads = []
    for j in range(h):
        cols = slice(j * d_head, (j + 1) * d_head)
        o, wj = attention_loops(
            (x @ w_q[:, cols]).tolist(),
            (x @ w_k[:, cols]).tolist(),
            (x @ w_v[:, cols]).tolist(),
            causal_mask(n).tolist(),
        )
        np.testing.assert_allclose(weights[j], wj, rtol=1e-11, atol=1e-14)
        heads.append(o)
    np.testing.assert_allclose(out, np.concatenate(heads, axis=1) @ w_o, rtol=1e-11, atol=1e-12)


def test_split_and_merge_heads_are_inverse():
    x = np.arange(2 * 3 * 12).reshape(2, 3, 12)
    heads = split_heads(x, 4)
    assert heads.shape == (2, 4, 3, 3)
    np.testing.assert_array_equal(heads[:, 1], x[..., 3:6])
    np.testing.assert_array_equal(merge_heads(heads), x)


def test_positional_encoding_formula():
    pe = positional_encoding(50, 6)
    assert pe.shape == (50, 6)
    p, i = 7, 1
    assert pe[p, 2 * i] == pytest.approx(math.sin(p / 10000 ** (2 * i / 6)))
    assert pe[p, 2 * i + 1] == pytest.approx(math.cos(p / 10000 ** (2 * i / 6)))
    assert np.all(np.abs(pe) <= 1)
    assert positional_encoding(4, 5).shape == (4, 5)  # an odd width ends with a sine column
    assert len({tuple(row) for row in np.round(pe, 8)}) == 50  # every position is distinct


def test_errors_name_the_numbers():
    x = np.zeros((4, 6))
    with pytest.raises(ValueError, match=r"d_model = 6 is not divisible by n_heads = 4"):
        split_heads(x, 4)
    with pytest.raises(ValueError, match=r"d_model = 6 is not divisible by n_heads = 4"):
        multi_head_attention(x, *[np.eye(6)] * 4, n_heads=4)
    with pytest.raises(ValueError, match=r"n_heads must be at least 1, got 0"):
        split_heads(x, 0)
    with pytest.raises(ValueError, match=r"q has width 3 \(shape \(4, 3\)\), k has width 5 \(shape \(4, 5\)\)"):
        scaled_dot_product_attention(np.zeros((4, 3)), np.zeros((4, 5)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match=r"mask of shape \(3, 3\) does not broadcast to the scores of shape \(4, 4\)"):
        scaled_dot_product_attention(x, x, x, mask=causal_mask(3))
    with pytest.raises(ValueError, match=r"k has 4 keys .* v has 3 values"):
        scaled_dot_product_attention(x, x, np.zeros((3, 6)))
    with pytest.raises(TypeError, match="boolean"):
        scaled_dot_product_attention(x, x, x, mask=np.zeros((4, 4)))
    with pytest.raises(ValueError, match="every position is masked"):
        scaled_dot_product_attention(x, x, x, mask=np.zeros((4, 4), dtype=bool))
    with pytest.raises(ValueError, match="w_o must have shape"):
        multi_head_attention(x, *[np.eye(6)] * 3, np.eye(5), n_heads=2)
    with pytest.raises(ValueError, match="the sequence length n must be at least 1, got 0"):
        causal_mask(0)
