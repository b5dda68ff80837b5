"""From GPT-2 to Llama: RMSNorm, SiLU, SwiGLU and RoPE; and the KV cache that decodes both.

The PyTorch comparisons need ``torch`` (the ``reference`` extra) and are skipped with that reason where it is
missing; the rotary reference is written here, in PyTorch's complex numbers as Meta's Llama code does it.
"""

from __future__ import annotations

import numpy as np
import pytest

from transformer_math.kv_cache import forward_cached, kv_cache
from transformer_math.model import forward, init_params
from transformer_math.modern import apply_rope, rms_norm, silu, swiglu
from transformer_math.sample import generate

RNG = np.random.default_rng(7)
X = RNG.normal(size=(2, 5, 8))
NO_TORCH = "PyTorch is not installed (optional: pip install -e .[reference])"


def rel(ours, theirs) -> float:
    theirs = np.asarray(theirs, dtype=np.float64)
    return float(np.max(np.abs(np.asarray(ours) - theirs)) / np.max(np.abs(theirs)))


def test_rms_norm_swiglu_and_silu_agree_with_pytorch():
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    gamma = RNG.normal(size=8)
    norm = torch.nn.RMSNorm(8, eps=1e-6, dtype=torch.float64)
    with torch.no_grad():
        norm.weight.copy_(torch.tensor(gamma))
    assert rel(rms_norm(X, gamma), norm(torch.tensor(X)).detach().numpy()) < 1e-15
    z = np.linspace(-40, 40, 161)
    assert rel(silu(z), torch.nn.functional.silu(torch.tensor(z)).numpy()) < 1e-15
    w_g, w_u, w_d = RNG.normal(size=(8, 12)), RNG.normal(size=(8, 12)), RNG.normal(size=(12, 8))
    t = torch.tensor
    theirs = (torch.nn.functional.silu(t(X) @ t(w_g)) * (t(X) @ t(w_u))) @ t(w_d)
    assert rel(swiglu(X, w_g, w_u, w_d), theirs.numpy()) < 1e-14


def test_rope_agrees_with_a_complex_rotary_reference_in_pytorch():
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    n, d = X.shape[-2:]
    positions = np.array([0, 1, 2, 7, 100])
    freqs = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # Llama's precompute_freqs_cis
    cis = torch.polar(torch.ones(n, d // 2, dtype=torch.float64), torch.tensor(positions)[:, None] * freqs)
    pairs = torch.view_as_complex(torch.tensor(X).reshape(2, n, d // 2, 2))  # (x_2i, x_2i+1) as x_2i + i x_2i+1
    theirs = torch.view_as_real(pairs * cis).reshape(2, n, d).numpy()
    assert rel(apply_rope(X, positions), theirs) < 1e-15


def test_a_rotated_score_depends_on_the_positions_only_through_their_difference():
    q, k = RNG.normal(size=(1, 16)), RNG.normal(size=(1, 16))
    for offset in (-5, 0, 3, 40):
        scores = [(apply_rope(q, [m]) @ apply_rope(k, [m + offset]).T).item() for m in (0, 1, 17, 1000, 12345)]
        assert np.ptp(scores) <= 1e-12 * np.max(np.abs(scores)), (offset, scores)
    # and exactly so in the algebra: R(m)^T R(n) = R(n - m), checked on the basis vectors
    eye = np.eye(16)
    rotate = lambda m: apply_rope(eye, [m] * 16)  # noqa: E731  row i: basis vector i, turned to position m
    np.testing.assert_allclose(rotate(3) @ rotate(10).T, rotate(0) @ rotate(7).T, atol=1e-14)
    assert np.array_equal(apply_rope(q, [0]), q)  # position 0 is no rotation
    assert apply_rope(q.astype(np.float32)).dtype == np.float32


def test_the_kv_cache_gives_the_same_logits_and_the_same_tokens():
    for init, options in [
        ({"n_layers": 2}, {}),
        ({"n_layers": 3, "positions": "learned", "n_ctx": 12, "tie_embeddings": True}, {"tie_embeddings": True}),
        ({"n_layers": 2}, {"activation": "gelu"}),
    ]:
        params = init_params(7, 8, 16, seed=2, **init)
        cache = kv_cache(params, max_len=10)
        rows = [forward_cached(params, [1, 2, 3], 2, cache, **options)]
        rows += [forward_cached(params, [t], 2, cache, **options) for t in (4, 5, 6, 0)]
        full, _ = forward(params, np.array([1, 2, 3, 4, 5, 6, 0]), 2, **options)
        assert rel(np.vstack(rows), full) < 1e-13
        for kw in ({}, {"temperature": 1.0, "seed": 4}, {"temperature": 0.8, "top_k": 3, "seed": 5}):
            plain = generate(params, [1, 2], 9, 2, **kw, **options)
            assert generate(params, [1, 2], 9, 2, kv_cache=True, **kw, **options) == plain


def test_bad_input_is_refused_naming_the_argument():
    params = init_params(7, 8, 16, n_layers=2)
    learned = init_params(7, 8, 16, positions="learned", n_ctx=4)
    cases = [
        (lambda: apply_rope(np.ones((3, 5))), ValueError, "even rotary dimension d"),
        (lambda: apply_rope(np.ones((3, 4)), positions=[0, 1]), ValueError, r"positions must have shape \(3,\)"),
        (lambda: apply_rope(np.ones((3, 4)), positions=[0.0, 1.0, 2.0]), TypeError, "positions must be integer"),
        (lambda: apply_rope(np.ones((3, 4)), base=1.0), ValueError, "base must be in"),
        (lambda: rms_norm(np.ones(3), gamma=np.ones(2)), ValueError, r"gamma must have shape \(3,\)"),
        (lambda: rms_norm([1.0, np.nan]), ValueError, "x contains NaN"),
        (lambda: swiglu(np.ones((2, 3)), np.ones((3, 4)), np.ones((3, 5)), np.ones((4, 3))), ValueError, "w_up"),
        (lambda: kv_cache(learned, max_len=5), ValueError, "max_len = 5 is longer than the n_ctx = 4"),
        (
            lambda: generate(params, [0, 1], 7, 2, context=8, kv_cache=True),
            ValueError,
            "prompt \\+ n_new = 9 tokens must fit in context = 8; a cache longer than the context is refused",
        ),
        (lambda: generate(params, [0], 2, 2, kv_cache="yes"), TypeError, "kv_cache must be True or False"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()
    cache = kv_cache(params, max_len=3)
    forward_cached(params, [0, 1], 2, cache)
    with pytest.raises(ValueError, match="the cache holds 2 tokens and 2 more would make 4, longer than its max_len"):
        forward_cached(params, [2, 3], 2, cache)
    assert generate(learned, [0], 3, 2, kv_cache=True) == generate(learned, [0], 3, 2)  # 4 tokens fit n_ctx = 4
